"""London data: counts and geometry validated on load (rules, "Components")."""

from __future__ import annotations

import copy

import pytest

from metrogames.core.errors import DataError
from metrogames.data import load_json
from metrogames.games.nextstation.citymap import CityMap, load_city

LONDON = load_city("london")
RAW = load_json("london.json")


def test_counts():
    """53 stations, 155 links, 13 districts, 24 Thames sections, 5 tourist sites,
    4 departure stations, 11 cards, 5 objectives, 4 powers."""
    assert len(LONDON.stations) == 53
    assert len(LONDON.links) == 155
    assert len(LONDON.districts) == 13
    assert LONDON.river_mask.bit_count() == 24
    assert set(LONDON.names(LONDON.tourist_mask)) == {"G2", "A4", "F4", "J7", "E10"}
    assert [LONDON.stations[d].name for d in LONDON.departures] == ["F8", "H4", "C6", "D3"]
    assert len(LONDON.deck) == 11 and sum(c.ends_round for c in LONDON.deck) == 5
    assert LONDON.objectives == (
        "interchanges-8",
        "all-districts",
        "all-tourist-sites",
        "central-district",
        "thames-6",
    )
    assert LONDON.powers == ("double-section", "joker", "switch", "circle-station")
    assert LONDON.interchange_points == {2: 2, 3: 5, 4: 9}


def test_116_crossing_pairs_recomputed_and_symmetric():
    """Drawing: two links cross when their segments meet at a point that is not a station;
    the map has 116 such pairs, recomputed from geometry on load."""
    pairs = {(i, j) for i, m in enumerate(LONDON.conflicts) for j in range(155) if (m >> j) & 1}
    assert len(pairs) == 232
    assert all((j, i) in pairs for i, j in pairs)
    d3g3 = LONDON.link_by_names("D3", "G3")
    assert {LONDON.link_name(j) for j in range(155) if (LONDON.conflicts[d3g3] >> j) & 1} >= {
        "E1-E4",
        "F1-F4",
        "E4-G2",
    }


def test_districts_partition_the_map():
    """13 districts: 9 main districts in a 3×3 block and 4 one-station corners; the central
    district holds 9 stations."""
    union = 0
    for d in LONDON.districts:
        assert union & d.mask == 0
        union |= d.mask
    assert union == LONDON.all_stations_mask
    corners = [d for d in LONDON.districts if d.kind == "outer"]
    assert sorted(LONDON.names(d.mask)[0] for d in corners) == ["A1", "A10", "J1", "J10"]
    assert LONDON.central_mask.bit_count() == 9


def test_a_link_through_a_station_is_refused():
    """Validation: no link passes through a third station."""
    data = copy.deepcopy(RAW)
    data["links"].append(["A1", "A4"])  # runs through A3
    data["check_values"]["links"] = 156
    with pytest.raises(DataError, match="passes through station A3"):
        CityMap(data)


def test_a_wrong_count_is_refused():
    """Validation: counts are checked on load."""
    data = copy.deepcopy(RAW)
    data["river"]["sections"] = data["river"]["sections"][:-1]
    with pytest.raises(DataError, match="river_sections is 23, expected 24"):
        CityMap(data)


def test_malformed_data_is_a_data_error():
    """Validation: a malformed file is a DataError, not a crash."""
    data = copy.deepcopy(RAW)
    del data["deck"]
    with pytest.raises(DataError):
        CityMap(data)
    data = copy.deepcopy(RAW)
    data["stations"][0]["symbol"] = "hexagon"
    with pytest.raises(DataError, match="unknown symbol"):
        CityMap(data)
