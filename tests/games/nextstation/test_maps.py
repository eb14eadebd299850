"""The map format and its checker (docs/maps.md): London, Paris and the 6×6 test map are valid
instances; each of the checker's messages is met by one invalid map (a small edit of the test
map); the committed JSON Schema is the model's; the content hash ignores layout only."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from metrogames.core.errors import DataError
from metrogames.data import load_json
from metrogames.games.nextstation import mapcheck
from metrogames.games.nextstation.citymap import map_hash
from metrogames.games.nextstation.mapcheck import (
    MAX_BYTES,
    cells_of_range,
    check_map,
    custom_city,
    read_map,
)
from metrogames.games.nextstation.mapformat import map_schema_text

ROOT = Path(__file__).resolve().parents[3]
TINY_PATH = Path(__file__).parent / "maps" / "tinytown.json"
TINY: dict[str, Any] = json.loads(TINY_PATH.read_text(encoding="utf-8"))

Edit = Callable[[dict[str, Any]], None]


def _station(m: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in m["stations"] if s["name"] == name)


def _district(m: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in m["districts"] if d["name"] == name)


def _drop_links_of(m: dict[str, Any], name: str) -> None:
    """Remove every link of station ``name`` and the marks that name them."""
    m["links"] = [link for link in m["links"] if name not in link]
    m["crossings"] = [c for c in m["crossings"] if name not in c[0] + c[1]]
    m["river"]["sections"] = [s for s in m["river"]["sections"] if name not in s]
    del m["check_values"]


def test_london_paris_and_the_test_map_are_valid() -> None:
    """The package's own cities and the test map pass, with the counts their files state."""
    for data in (load_json("london.json"), load_json("paris.json"), TINY):
        report = check_map(data)
        assert report.problems == []
        for key, value in data["check_values"].items():
            assert report.counts[key] == value, key
    tiny = check_map(TINY).counts
    # counted by hand on the drawing: 18 stations, 4 quadrant districts, 2 tourist sites
    assert (tiny["stations"], tiny["districts"], tiny["tourist_sites"]) == (18, 4, 2)


def test_the_committed_schema_is_the_model_s_and_the_maps_are_instances() -> None:
    shipped = (ROOT / "docs" / "map-schema.json").read_text(encoding="utf-8")
    assert shipped == map_schema_text(), "rewrite docs/map-schema.json (docs/maps.md)"
    schema = json.loads(shipped)
    jsonschema.Draft202012Validator.check_schema(schema)
    for data in (load_json("london.json"), load_json("paris.json"), TINY):
        jsonschema.validate(data, schema)
    bad = copy.deepcopy(TINY)
    bad["stations"][0]["symbol"] = "hexagon"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_cell_ranges() -> None:
    assert cells_of_range("B1:C2") == [(1, 0), (2, 0), (1, 1), (2, 1)]
    assert cells_of_range("C2:B1") == cells_of_range("B1:C2")
    assert cells_of_range("C10") == [(2, 9)]


def _set(path: str, value: Any) -> Edit:
    def edit(m: dict[str, Any]) -> None:
        *head, last = path.split(".")
        target: Any = m
        for key in head:
            target = target[int(key)] if key.isdigit() else target[key]
        target[int(last) if last.isdigit() else last] = value

    return edit


def _append(key: str, value: Any) -> Edit:
    return lambda m: m[key].append(value)


def _unmark_first_crossing(m: dict[str, Any]) -> None:
    m["crossings"].pop(0)


def _move_station(name: str, col: int, row: int) -> Edit:
    def edit(m: dict[str, Any]) -> None:
        _station(m, name).update(col=col, row=row)

    return edit


def _no_pentagon(m: dict[str, Any]) -> None:
    for s in m["stations"]:
        if s["symbol"] in ("pentagon", "any"):
            s["symbol"] = "square"


def _paris_deck(m: dict[str, Any]) -> None:
    paris = load_json("paris.json")
    m["deck"], m["round_end"] = paris["deck"], paris["round_end"]


def _no_river(m: dict[str, Any]) -> None:
    del m["river"]
    del m["check_values"]["river_sections"]


def _district_cells(**cells: list[str]) -> Edit:
    def edit(m: dict[str, Any]) -> None:
        for name, value in cells.items():
            _district(m, name.replace("_", "-"))["cells"] = value

    return edit


def _unlisted_a1(m: dict[str, Any]) -> None:
    _district(m, "north-west")["stations"].remove("A1")


CASES: list[tuple[str, Edit, str]] = [
    ("schema-symbol", _set("stations.0.symbol", "hexagon"), "stations[0].symbol: Input should be"),
    ("schema-size", _set("grid.columns", 30), "grid.columns: Input should be less than or equal"),
    ("schema-missing", lambda m: m.pop("deck"), "deck: Field required"),
    ("schema-crossings", lambda m: m.pop("crossings"), "crossings: Field required"),
    ("schema-name", _set("stations.0.name", "a1"), "stations[0].name: String should match"),
    (
        "outside-grid",
        _move_station("F6", 6, 5),
        "station F6 is outside the 6×6 grid (col 6, row 5)",
    ),
    (
        "name-not-cell",
        _move_station("A3", 1, 2),
        "station A3 sits at col 1, row 2, but its name is cell col 0, row 2",
    ),
    (
        "duplicate-name",
        lambda m: m["stations"].append(dict(m["stations"][0])),
        "station A1 is listed 2 times",
    ),
    (
        "duplicate-cell",
        _set("stations.7.cells", [[2, 2], [1, 1]]),
        "cell B2 holds two stations: B2 and C3",
    ),
    (
        "district-parts",
        _district_cells(north_west=["A1:C1", "A3:C3"]),
        "district north-west is not a set of connected cells: 2 separate parts (from A1, A3)",
    ),
    (
        "district-twice",
        lambda m: m["districts"].append(copy.deepcopy(m["districts"][0])),
        "district north-west is listed 2 times",
    ),
    (
        "station-listed-twice",
        lambda m: _district(m, "north-east")["stations"].append("A1"),
        "station A1 is in districts north-west and north-east",
    ),
    (
        "district-overlap",
        _district_cells(north_east=["C1:F3"]),
        "cell C1 is in districts north-west and north-east",
    ),
    (
        "district-outside",
        _district_cells(south_east=["D4:G6"]),
        "district south-east: cell G4 is outside the grid",
    ),
    (
        "station-off-district",
        _district_cells(north_west=["A1:B3"], north_east=["C1:F3"]),
        "station C1 lies on cell C1, outside its district north-west",
    ),
    (
        "district-unknown-station",
        _set("districts.0.stations", ["A1", "C1", "B2", "A3", "C3", "B1"]),
        "district north-west lists B1, which is no station",
    ),
    ("station-unlisted", _unlisted_a1, "station A1: district north-west does not list it"),
    (
        "station-two-districts",
        _set("stations.0.district", "north-east"),
        "station A1 says district north-east but north-west lists it",
    ),
    (
        "unknown-district",
        _set("stations.0.district", "nowhere"),
        "station A1: unknown district 'nowhere'",
    ),
    ("link-unknown", _append("links", ["A1", "B1"]), "link A1-B1: B1 is no station"),
    ("link-twice", _append("links", ["C1", "A1"]), "link C1-A1 is listed twice"),
    ("link-loop", _append("links", ["A1", "A1"]), "link A1-A1 joins a station to itself"),
    ("link-through", _append("links", ["A1", "E1"]), "link A1-E1 passes through station C1"),
    (
        "link-crooked",
        _append("links", ["A1", "B4"]),
        "link A1-B4 is not straight: it runs 1 column(s) and 3 row(s)",
    ),
    (
        "crossing-unmarked",
        _unmark_first_crossing,
        "links C1-C3 and B2-D2 cross at (2, 1) but the map does not mark that crossing",
    ),
    (
        "crossing-not",
        _append("crossings", [["A1", "C1"], ["D6", "F6"]]),
        "crossing A1-C1 × D6-F6 is marked but those links do not cross",
    ),
    (
        "not-a-link",
        _append("crossings", [["A1", "F6"], ["D6", "F6"]]),
        "A1-F6 is named as a link but is none",
    ),
    (
        "departure-unlinked",
        lambda m: _drop_links_of(m, "B2"),
        "departure blue: station B2 has no link",
    ),
    ("departure-unknown", _set("departures.blue", "B1"), "departure blue: B1 is no station"),
    (
        "departure-missing",
        lambda m: m["departures"].pop("green"),
        "departures: colour green has no departure",
    ),
    ("departure-shared", _set("departures.pink", "B2"), "departures: 2 colours start at B2"),
    (
        "colours-twice",
        _set("colours", ["blue", "blue", "pink", "green"]),
        "colours: each colour once",
    ),
    (
        "colour-foreign",
        _set("colours", ["blue", "orange", "pink", "green"]),
        "departures: purple is not one of the map's colours",
    ),
    (
        "symbol-unreachable",
        _no_pentagon,
        "symbol pentagon: no station has it, so the deck's 2 pentagon card(s) can never be played",
    ),
    ("deck-variant", lambda m: m["deck"].pop(), "deck and round_end: not a known variant"),
    (
        "free-entry",
        _paris_deck,
        "deck: the free-entry card leads to a monument, and the map has none",
    ),
    ("objective-unknown", _set("objectives.0.id", "build-7"), "objective 'build-7': unknown"),
    (
        "objective-needs",
        _no_river,
        "objective thames-6 needs a river with sections, and the map has none",
    ),
    (
        "objective-one",
        lambda m: m.update(objectives=m["objectives"][:1]),
        "objectives: a game draws 2",
    ),
    ("power-unknown", _set("powers", [{"id": "fly", "text": "fly"}] * 4), "power 'fly': unknown"),
    (
        "powers-few",
        _set("powers", [{"id": "joker", "text": "a joker"}]),
        "powers: one per colour is drawn",
    ),
    (
        "tourist-table",
        _set("scoring.tourist_points", []),
        "the map has tourist sites but no tourist table",
    ),
    (
        "river-section",
        lambda m: m["river"]["sections"].append(["A1", "C1"]),
        "river: section A1-C1 does not cross the Tiny's course",
    ),
    (
        "river-unlisted",
        lambda m: m["river"]["sections"].pop(0),
        "river: link B2-B4 crosses the Tiny's course but is not one of its sections",
    ),
    (
        "bridge-not-crossing",
        _set("bridges", [{"at": [0, 0], "links": [["A1", "C1"], ["D6", "F6"]]}]),
        "bridge at (0, 0): links A1-C1 and D6-F6 do not cross there",
    ),
    ("check-value", _set("check_values.stations", 19), "tinytown: stations is 18, expected 19"),
    (
        "alias",
        _set("aliases", {"B1": "Z9"}),
        "alias B1: it must name no station and point to one (Z9)",
    ),
    (
        "central-district",
        _set("central_district", "downtown"),
        "central_district: unknown district 'downtown'",
    ),
    (
        "link-geometry",
        _set("link_geometry", {"A1 F6": {"from_cell": [0, 0], "to_cell": [5, 5]}}),
        "link_geometry 'A1 F6': not a link",
    ),
]


@pytest.mark.parametrize(("edit", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_problem_has_its_message(edit: Edit, message: str) -> None:
    """One invalid map per message: the edited test map is refused with that sentence, and a
    game on it cannot be made (the same message)."""
    data = copy.deepcopy(TINY)
    edit(data)
    report = check_map(data)
    assert not report.ok
    assert any(message in p for p in report.problems), report.problems
    with pytest.raises(DataError, match="invalid map"):
        custom_city(data)


def test_hostile_sizes_are_refused_briefly() -> None:
    """A huge key or value is named cut short; numbers outside the grid (NaN included) are
    refused."""
    data = copy.deepcopy(TINY)
    data["link_geometry"] = {"x" * 5000: {"from_cell": [0, 0], "to_cell": [1, 1]}}
    data["stations"][1]["col"] = float("nan")
    problems = check_map(data).problems
    assert all(len(p) < 300 for p in problems)
    assert any(p.startswith("link_geometry." + "x" * 40 + ".[key]: String should") for p in problems)
    assert "stations[1].col: Input should be less than or equal to 26" in problems


def test_not_json_and_bad_files(tmp_path: Path) -> None:
    assert check_map({"format": {1, 2}}).problems[0].startswith("a map must be JSON")
    assert check_map([1, 2]).problems == ["map: Input should be an object"]
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match="not JSON"):
        read_map(tmp_path / "bad.json")
    (tmp_path / "big.json").write_text(" " * (MAX_BYTES + 1), encoding="utf-8")
    with pytest.raises(DataError, match="more than 1000000"):
        read_map(str(tmp_path / "big.json"))
    with pytest.raises(DataError, match="cannot read it"):
        read_map(tmp_path / "missing.json")
    with pytest.raises(DataError, match="not int"):
        read_map(7)


def test_the_content_hash_is_of_the_decoded_map() -> None:
    """The same map written another way has the same hash; one changed field changes it."""
    shuffled = json.loads(json.dumps(TINY, indent=4, sort_keys=True))
    assert map_hash(shuffled) == map_hash(TINY) == check_map(TINY).hash
    changed = copy.deepcopy(TINY)
    changed["title"] += "!"
    assert map_hash(changed) != map_hash(TINY)
    assert map_hash(TINY).startswith("sha256:") and len(map_hash(TINY)) == 7 + 64


def test_every_code_the_checker_gives_has_an_invalid_map_here() -> None:
    """The cases above cover the checker: every problem code written in ``mapcheck.py`` is
    given by at least one of them (read off the source, not off the cases)."""
    source = (Path(mapcheck.__file__)).read_text(encoding="utf-8")
    written = set(re.findall(r'_p\(\s*"([a-z-]+)"', source))
    given: set[str] = set()
    for _, edit, _ in CASES:
        data = copy.deepcopy(TINY)
        edit(data)
        given |= {p.code for p in check_map(data).found}
    elsewhere = {"not-json": "test_not_json_and_bad_files", "not-built": "the model's safety net"}
    assert len(written) > 30 and set(elsewhere) <= written
    assert sorted(written - given - set(elsewhere)) == []
