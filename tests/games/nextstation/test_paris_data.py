"""Next Station: Paris — the city data file and what its loader derives from it.

Rules: ``docs/engine-rules-paris.md`` ("Map", "Cards", "Scoring"); map facts transcribed from
``reference/paris.json`` into ``src/metrogames/data/paris.json`` (the tests never read ../shared).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from metrogames.core.errors import DataError, NotationError
from metrogames.core.geometry import segments_cross
from metrogames.data import load_json
from metrogames.games.nextstation.actions import (
    action_from_json,
    action_to_json,
    format_action,
    parse_action,
)
from metrogames.games.nextstation.citymap import ANY, SYMBOLS, CityMap, load_city

CITY = load_city("paris")

MONUMENTS = {"A2", "I2", "B4", "J5", "A6", "F7", "C10", "G10"}

# The 77 forbidden crossing pairs of the reference transcription (link/link, names sorted).
REFERENCE_PAIRS = """
A1-B2/A2-B1 A5-C7/A6-C4 A5-C7/A6-D6 A5-C7/B7-E4 A5-E5/B4-D6 A5-E5/B7-E4 A5-E5/C4-C7
A5-E5/D4-D6 A6-C4/B4-D6 A6-D6/B7-E4 A6-D6/C4-C7 A9-C7/B7-B9 A9-C7/B7-C8 B1-D3/B2-E2
B1-D3/B3-D1 B2-D4/B3-D1 B2-D4/B3-D3 B2-D4/C4-D3 B2-E2/B3-D1 B4-D6/B7-E4 B4-D6/C4-C7
B7-E4/C4-C7 B7-E4/C4-E5 B7-E4/D4-D6 B7-E4/D4-E5 C4-E5/D4-D6 C7-E7/C8-E5 C7-E7/D6-D9
C7-E9/C8-E5 C7-E9/D9-E8 C8-E5/D6-D9 C8-E5/D6-E7 D3-E4/D4-F2 D3-F3/D4-F2 D3-F3/E2-E4
D4-F2/E2-E4 D4-F2/E2-F3 E4-G4/E5-F3 E5-H6/G5-G7 E5-I8/G5-G7 E5-I8/G7-H6 E5-I8/H8-J6
E7-F8/E8-F7 E8-G10/E9-F8 E8-G10/F10-H8 E9-I9/F10-H8 E9-I9/F8-H10 E9-I9/G10-G7
E9-I9/G10-I8 E9-I9/H10-H8 F10-H8/F8-H10 F10-H8/G10-G7 F2-H4/F3-I3 F2-H4/G1-G4
F2-H4/G4-I2 F2-I2/G1-I3 F2-I2/H1-H4 F3-I3/G1-G4 F3-I3/G4-I2 F3-I3/H1-H4 F8-H10/G10-G7
F8-H10/G10-I8 F8-H8/G10-G7 G1-I3/G4-I2 G1-I3/H1-H4 G10-I8/H10-H8 G10-I8/H8-I9
G4-I2/H1-H4 G5-J5/H4-H6 G5-J5/H4-J6 G5-J5/H6-J4 G5-J5/I3-I8 H4-J6/H6-J4 H4-J6/I3-I8
H6-J4/I3-I8 H6-J6/I3-I8 H8-J6/I3-I8
"""


def _link_key(city: CityMap, link: int) -> str:
    a, b = city.links[link]
    return "-".join(sorted((city.stations[a].name, city.stations[b].name)))


def _conflict_pairs(city: CityMap) -> set[str]:
    out = set()
    for i, mask in enumerate(city.conflicts):
        for j in range(i + 1, len(city.links)):
            if (mask >> j) & 1:
                out.add("/".join(sorted((_link_key(city, i), _link_key(city, j)))))
    return out


def test_counts_match_the_rules() -> None:
    """Map: 52 ordinary stations + the platform, 152 links, 8 bridges, 13 districts,
    8 monuments, 4 departures; Cards: 11; Shared objectives: 4 known; no powers, no river,
    no tourist track."""
    assert len(CITY.stations) == 53
    assert len(CITY.links) == 152
    assert len(CITY.bridges) == 8
    assert len(CITY.districts) == 13
    assert set(CITY.names(CITY.monument_mask)) == MONUMENTS
    assert len(CITY.deck) == 11
    assert CITY.objectives == (
        "triple-interchanges-3",
        "districts-7",
        "double-bridges-2",
        "monuments-6",
    )
    assert CITY.powers == ()
    assert CITY.river_mask == 0 and CITY.river_points == 0
    assert CITY.tourist_mask == 0 and CITY.tourist_points == ()
    assert CITY.solo_rating is None


def test_symbols_eleven_of_each_and_nine_wild() -> None:
    """Map: 11 stations of each symbol, 8 monuments, and the platform; monuments and the
    platform have the symbol that matches every card."""
    counts = Counter(s.symbol for s in CITY.stations)
    assert counts == {**dict.fromkeys(SYMBOLS, 11), ANY: 9}
    wild = {s.name for s in CITY.stations if s.symbol == ANY}
    assert wild == MONUMENTS | {"E5"}
    platform = CITY.stations[CITY.station("E5")]
    assert (platform.col, platform.row) == (4.5, 4.5)
    assert not platform.monument


def test_departures_and_colours() -> None:
    """Map, "Departure stations": orange D3 (circle), blue H4 (pentagon), green C7 (triangle),
    purple H8 (square); colours in the notation's order."""
    assert CITY.colours == ("orange", "blue", "green", "purple")
    deps = {c: CITY.stations[d] for c, d in zip(CITY.colours, CITY.departures, strict=True)}
    assert {c: (s.name, s.symbol) for c, s in deps.items()} == {
        "orange": ("D3", "circle"),
        "blue": ("H4", "pentagon"),
        "green": ("C7", "triangle"),
        "purple": ("H8", "square"),
    }


def _district_by_rule(col: float, row: float) -> str:
    """The district a cell belongs to, from the rules' description alone."""
    if (col, row) == (4.5, 4.5):
        return "centre"
    corners = {(0, 0): "corner-NW", (9, 0): "corner-NE", (0, 9): "corner-SW", (9, 9): "corner-SE"}
    if (col, row) in corners:
        return corners[(int(col), int(row))]
    band = "north" if row <= 1 else "upper" if row <= 4 else "lower" if row <= 7 else "south"
    return f"{band}-{'west' if col <= 4 else 'east'}"


def test_districts_follow_the_grid() -> None:
    """Map, "13 districts": 8 large districts (columns A–E / F–J × rows 1–2, 3–5, 6–8, 9–10,
    corners excluded), 4 one-station corners and the platform alone (kind "platform");
    each large district holds exactly one monument."""
    for s in CITY.stations:
        assert CITY.districts[s.district].name == _district_by_rule(s.col, s.row), s.name
    kinds = Counter(d.kind for d in CITY.districts)
    assert kinds == {"main": 8, "outer": 4, "platform": 1}
    for d in CITY.districts:
        monuments = (d.mask & CITY.monument_mask).bit_count()
        if d.kind == "main":
            assert monuments == 1, d.name
            assert d.mask.bit_count() in (5, 7)
        else:
            assert d.mask.bit_count() == 1 and monuments == 0
    platform = next(d for d in CITY.districts if d.kind == "platform")
    assert CITY.names(platform.mask) == ["E5"]


def test_platform_has_fourteen_links() -> None:
    """Map: the central platform "has 14 links"."""
    e5 = CITY.station("E5")
    assert len(CITY.adjacency[e5]) == 14
    assert CITY.link_mask_of_station[e5].bit_count() == 14


def test_crossing_pairs_recomputed_from_geometry_are_the_77() -> None:
    """Map, "Overhead crossings": every crossing pair of links is forbidden except the 8
    bridges and pairs sharing a station (the platform included): 77 pairs, recomputed from
    geometry on load and equal to the reference list."""
    expected = set(REFERENCE_PAIRS.split())
    assert len(expected) == 77
    assert _conflict_pairs(CITY) == expected


def test_bridge_and_platform_pairs_cross_but_do_not_conflict() -> None:
    """Map: the two links of a bridge cross geometrically yet may both be drawn; the three
    pairs of platform links whose drawn segments cross share the platform, so never conflict."""
    for a, b in CITY.bridges:
        assert segments_cross(*CITY.segments[a], *CITY.segments[b])
        assert not (CITY.conflicts[a] >> b) & 1
    platform_pairs = [
        (("A5", "E5"), ("C4", "E5")),
        (("C4", "E5"), ("D6", "E5")),
        (("E5", "I8"), ("E5", "H6")),
    ]
    for p, q in platform_pairs:
        i, j = CITY.link_by_names(*p), CITY.link_by_names(*q)
        assert segments_cross(*CITY.segments[i], *CITY.segments[j])
        assert not (CITY.conflicts[i] >> j) & 1
    at = {(x, y) for x, y in ((3, 1), (6, 1), (1, 4), (8, 3), (3, 7), (7, 6), (2, 8), (5, 8))}
    assert {tuple(b["at"]) for b in CITY.raw["bridges"]} == at


def test_platform_links_are_drawn_to_their_cells() -> None:
    """Map: a platform link is drawn to the platform cell given by ``link_geometry``."""
    assert CITY.segments[CITY.link_by_names("A5", "E5")] == ((0, 4), (4, 4))
    assert CITY.segments[CITY.link_by_names("E5", "I8")] == ((5, 4), (8, 7))
    # the reversed lookup keeps the link's own direction (from the data file's first station)
    assert CITY.segments[CITY.link_by_names("E5", "F3")] == ((5, 2), (5, 4))
    # an ordinary link runs centre to centre
    assert CITY.segments[CITY.link_by_names("A1", "B1")] == ((0.0, 0.0), (1.0, 0.0))


def _paris_data() -> dict[str, Any]:
    return copy.deepcopy(load_json("paris.json"))


def test_a_link_through_a_platform_cell_is_refused() -> None:
    """Data validation, "a link never passes through a third station": a link through one of
    the platform's cells (listed as ``cells``) is refused even when it misses its centre."""
    data = _paris_data()
    data["links"].append(["E4", "E7"])  # runs down column E through cells E5 and E6
    with pytest.raises(DataError, match="E4-E7 passes through station E5"):
        CityMap(data)
    del data["check_values"]
    for s in data["stations"]:
        s.pop("cells", None)
    CityMap(data)  # without the cells, the centre point (4.5, 4.5) alone is not on the link


def test_wrong_check_value_is_refused() -> None:
    """Data validation: a count that differs from ``check_values`` stops the load."""
    data = _paris_data()
    data["check_values"]["crossing_link_pairs"] = 78
    with pytest.raises(DataError, match="crossing_link_pairs is 77, expected 78"):
        CityMap(data)


def test_deck_and_round_end_as_data() -> None:
    """Cards: 5 metro cards (square, circle, triangle, pentagon, joker) end the round on the
    5th; 6 street cards (square, circle, triangle, pentagon, free entry, switch)."""
    faces = {c.id: (c.kind, c.face, c.ends_round) for c in CITY.deck}
    assert faces == {
        **{f"metro-{f}": ("metro", f, True) for f in (*SYMBOLS, "joker")},
        **{f"street-{f}": ("street", f, False) for f in (*SYMBOLS, "free-entry", "switch")},
    }
    assert (CITY.round_end_kind, CITY.round_end_count) == ("metro", 5)
    assert CITY.interchange_points == {2: 2, 3: 5, 4: 9}
    assert CITY.bridge_points == {1: 2, 2: 6}
    assert (CITY.monument_points, CITY.objective_points) == (2, 10)


def test_aliases_name_the_platform() -> None:
    """Notation, "Names": the platform is E5; F5, E6 and F6 are accepted on input and mean E5,
    and output always writes E5."""
    e5 = CITY.station("E5")
    for alias in ("F5", "E6", "F6", "f5", " e6 ", "f6"):
        assert CITY.station(alias) == e5
    assert CITY.station("E4") != e5 and CITY.station("F7") != e5
    action = parse_action(CITY, "D4-F6")
    assert action.sections == ((CITY.station("D4"), e5),)
    assert format_action(CITY, action) == "D4-E5"
    assert action_from_json(CITY, {"sections": [["E6", "G5"]]}).sections == (
        (e5, CITY.station("G5")),
    )
    assert action_to_json(CITY, action) == {"sections": [["D4", "E5"]]}
    with pytest.raises(NotationError):
        CITY.station("F4")  # an empty cell is no station


def test_london_has_no_aliases_for_paris_cells() -> None:
    """Notation: the aliases belong to the Paris data file only (London's F5 is a station of
    its own, and London's platform-free map keeps its 116 crossing pairs)."""
    london = load_city("london")
    assert london.station("F5") != london.station("E5")
    assert sum(m.bit_count() for m in london.conflicts) // 2 == 116


def test_reference_scores_for_the_percentile() -> None:
    """Paris has no solo rating: a solo score is placed among 2,000 greedy-bot games."""
    from metrogames.games.nextstation.scoring import percentile

    assert sum(CITY.reference_scores.values()) == 2000
    mean = sum(s * n for s, n in CITY.reference_scores.items()) / 2000
    assert 130 < mean < 155
    assert percentile(CITY, round(mean)) is not None
    assert 35 < (percentile(CITY, round(mean)) or 0) < 65
