"""The rules pages' diagrams (scripts/rules_diagrams.py, written by scripts/build_rules.py): they
are what the script draws from the current map data, every page's picture exists, and what the
pictures and their captions claim holds on the map (worked out here from the data file alone)."""

from __future__ import annotations

import importlib
import json
import re
import sys
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metrogames.web.app import static_dir

ROOT = Path(__file__).resolve().parents[2]
LONDON = json.loads((ROOT / "src" / "metrogames" / "data" / "london.json").read_text("utf-8"))
STATIONS = {s["name"]: s for s in LONDON["stations"]}
LINKS = {frozenset(link) for link in LONDON["links"]}
PAGES = sorted((ROOT / "docs").glob("next-station-london*.md"))


def _script(name: str) -> ModuleType:
    """A module of ``scripts/`` (as ``build_rules.py`` imports it: by name, from its folder)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "scripts"))


DIAGRAMS = _script("rules_diagrams")


def test_shipped_diagrams_are_what_the_script_draws() -> None:
    drawn = DIAGRAMS.diagrams()
    assert sorted(drawn) == [
        "london-line-score.svg",
        "london-section-illegal.svg",
        "london-section-legal.svg",
        "metro-centre.svg",
        "metro-route.svg",
        "metro-tile.svg",
        "paris-bridge.svg",
        "paris-free-entry.svg",
        "paris-line-score.svg",
        "paris-section-illegal.svg",
        "paris-section-legal.svg",
    ]
    for folder in (ROOT / "docs" / "diagrams", static_dir() / "rules" / "diagrams"):
        assert sorted(p.name for p in folder.iterdir()) == sorted(drawn), folder
        for name, svg in drawn.items():
            shipped = (folder / name).read_text(encoding="utf-8")
            assert shipped == svg, f"run scripts/build_rules.py ({name})"
            assert shipped.startswith("<svg ") and "<script" not in shipped


@pytest.mark.parametrize("game", ["next-station-london", "next-station-paris", "metro"])
def test_every_picture_of_a_page_exists(game: str) -> None:
    pages = sorted((ROOT / "docs").glob(f"{game}*.md"))
    assert len(pages) == 4
    prefix = game.removeprefix("next-station-")
    for page in pages:
        pictures = re.findall(r"!\[[^\]]+\]\(diagrams/([\w.-]+)\)", page.read_text("utf-8"))
        assert sorted(pictures) == sorted(n for n in DIAGRAMS.diagrams() if n.startswith(prefix))


def _xy(name: str, stations: dict[str, dict[str, Any]] = STATIONS) -> tuple[float, float]:
    return stations[name]["col"], stations[name]["row"]


def _cross(a: str, b: str, c: str, d: str, stations: dict[str, dict[str, Any]] = STATIONS) -> bool:
    """Segments a–b and c–d (between the stations' cells) cross strictly inside both."""

    def side(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> int:
        v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return (v > 0) - (v < 0)

    p, q, r, s = (_xy(n, stations) for n in (a, b, c, d))
    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def _drawn(lines: tuple[tuple[str, ...], ...]) -> list[tuple[str, str]]:
    return [(a, b) for line in lines for a, b in pairwise(line)]


def test_the_section_examples_hold_on_the_map() -> None:
    """The card shows a pentagon; D3–C4 reaches a pentagon and crosses nothing drawn; D2–B2
    reaches a pentagon but crosses the purple C1–C4 (and nothing else)."""
    purple, green = ("C6", "C5", "C4", "C1"), ("D3", "D2")
    drawn = _drawn((purple, green))
    assert all(frozenset(s) in LINKS for s in drawn)
    assert STATIONS["C4"]["symbol"] == STATIONS["B2"]["symbol"] == "pentagon"
    assert frozenset(("D3", "C4")) in LINKS and frozenset(("D2", "B2")) in LINKS
    assert [s for s in drawn if _cross("D3", "C4", *s)] == []
    assert [s for s in drawn if _cross("D2", "B2", *s)] == [("C4", "C1")]
    examples = {ex.name: ex for ex in DIAGRAMS.LONDON}
    legal, illegal = examples["london-section-legal"], examples["london-section-illegal"]
    assert (
        [line.stations for line in legal.lines]
        == [purple, green]
        == [line.stations for line in illegal.lines]
    )
    assert (legal.card, legal.tried, legal.legal) == ("pentagon", ("D3", "C4"), True)
    assert (illegal.card, illegal.tried, illegal.legal) == ("pentagon", ("D2", "B2"), False)
    svg = (ROOT / "docs" / "diagrams" / "london-section-illegal.svg").read_text("utf-8")
    assert svg.count('class="crossing"') == 1


def test_the_scored_line_scores_what_every_caption_says() -> None:
    """D2–D3–E4–F4–F5–H7 worked out from the data file: its districts, its best district, its
    Thames crossings; each page's caption gives that sum, and the picture's district badges."""
    line = ("D2", "D3", "E4", "F4", "F5", "H7")
    assert [line_ex.stations for line_ex in DIAGRAMS.LONDON[2].lines] == [line]
    sections = _drawn((line,))
    assert all(frozenset(s) in LINKS for s in sections)
    per_district: dict[str, int] = {}
    for name in line:
        per_district[STATIONS[name]["district"]] = (
            per_district.get(STATIONS[name]["district"], 0) + 1
        )
    river = {frozenset(s) for s in LONDON["river"]["sections"]}
    crossings = sum(frozenset(s) in river for s in sections)
    assert (len(per_district), max(per_district.values()), crossings) == (3, 3, 1)
    total = len(per_district) * max(per_district.values()) + 2 * crossings
    for page in PAGES:
        assert f"3 × 3 + 2 = **{total}**" in page.read_text("utf-8"), page.name
    svg = (ROOT / "docs" / "diagrams" / "london-line-score.svg").read_text("utf-8")
    badges = re.findall(r'class="district-count">(\d+)<', svg)
    assert sorted(map(int, badges)) == sorted(per_district.values()) == [1, 2, 3]
    assert STATIONS["F4"]["tourist_site"]  # the caption's ticked box


def test_an_example_the_map_contradicts_is_refused() -> None:
    city = DIAGRAMS.load_city("london")
    wrong = DIAGRAMS.Example(
        "wrong", (0, 5), (0, 6), (DIAGRAMS.PURPLE, DIAGRAMS.GREEN), "pentagon", ("D2", "B2")
    )
    with pytest.raises(DIAGRAMS.DiagramError, match="is illegal"):
        DIAGRAMS.draw(city, wrong)
    shape = DIAGRAMS.Example("shape", (0, 5), (0, 6), (DIAGRAMS.GREEN,), "circle", ("D3", "C4"))
    with pytest.raises(DIAGRAMS.DiagramError, match="is illegal"):
        DIAGRAMS.draw(city, shape)
    with pytest.raises(DIAGRAMS.DiagramError, match="not a link"):
        DIAGRAMS.draw(
            city, DIAGRAMS.Example("far", (0, 5), (0, 6), (DIAGRAMS.Line("green", ("D3", "J10")),))
        )


PARIS = json.loads((ROOT / "src" / "metrogames" / "data" / "paris.json").read_text("utf-8"))
PARIS_STATIONS = {s["name"]: s for s in PARIS["stations"]}
PARIS_LINKS = {frozenset(link) for link in PARIS["links"]}
PARIS_PAGES = sorted((ROOT / "docs").glob("next-station-paris*.md"))
BRIDGES = [{frozenset(a), frozenset(b)} for a, b in (b["links"] for b in PARIS["bridges"])]


def _paris_crossed(
    tried: tuple[str, str], lines: tuple[tuple[str, ...], ...]
) -> list[tuple[str, str]]:
    """The drawn sections of ``lines`` that ``tried`` crosses, worked out from paris.json (the
    examples keep off the central platform, whose links end at given cells), bridges apart."""
    drawn = _drawn(lines)
    assert all(frozenset(s) in PARIS_LINKS for s in (*drawn, tried))
    assert "E5" not in {*tried, *(n for s in drawn for n in s)}
    return [
        s
        for s in drawn
        if _cross(*tried, *s, stations=PARIS_STATIONS)
        and {frozenset(tried), frozenset(s)} not in BRIDGES
    ]


def _paris_example(name: str) -> Any:
    return next(ex for ex in DIAGRAMS.PARIS if ex.name == name)


def test_the_paris_section_examples_hold_on_the_map() -> None:
    """The orange line D3–C4–B3–B2 and a square card: from its end D3 the square D4 crosses
    nothing; from its end B2 the square D4 would cross the line's own D3–C4; the orange
    pencil's first section D3–D1 (a triangle) crosses the blue line's E2–B2 at a bridge the
    data list, and two lines on a bridge score what every page's caption says."""
    orange = ("D3", "C4", "B3", "B2")
    assert PARIS["departures"]["orange"] == "D3" and PARIS["departures"]["blue"] == "H4"
    assert PARIS_STATIONS["D4"]["symbol"] == "square"
    assert _paris_crossed(("D3", "D4"), (orange,)) == []
    assert _paris_crossed(("B2", "D4"), (orange,)) == [("D3", "C4")]
    legal, illegal = _paris_example("paris-section-legal"), _paris_example("paris-section-illegal")
    assert [ln.stations for ln in legal.lines] == [orange] == [ln.stations for ln in illegal.lines]
    assert (legal.card, legal.tried, legal.legal) == ("square", ("D3", "D4"), True)
    assert (illegal.card, illegal.tried, illegal.legal) == ("square", ("B2", "D4"), False)
    drawn = DIAGRAMS.diagrams()
    assert drawn["paris-section-illegal.svg"].count('class="crossing"') == 1

    blue = ("H4", "F2", "E2", "B2")
    bridge = _paris_example("paris-bridge")
    assert [ln.stations for ln in bridge.lines] == [blue]
    assert (bridge.card, bridge.tried) == ("triangle", ("D3", "D1"))
    assert PARIS_STATIONS["D1"]["symbol"] == "triangle"
    assert _cross("D3", "D1", "E2", "B2", stations=PARIS_STATIONS)  # they do cross...
    assert _paris_crossed(("D3", "D1"), (blue,)) == []  # ...at a bridge
    assert PARIS["scoring"]["bridge_points"]["2"] == 6
    for page in PARIS_PAGES:
        assert "**6**" in page.read_text("utf-8").split("paris-bridge.svg")[1], page.name
    in_window = [b for b in PARIS["bridges"] if b["at"][0] <= 7 and b["at"][1] <= 3]
    assert drawn["paris-bridge.svg"].count('class="bridge"') == len(in_window) == 2


def test_the_paris_free_entry_example_holds_on_the_map() -> None:
    """D3–C4 goes on to the monument B4 (a free entry reaches any station), then its extra
    section B4–D6 crosses nothing drawn."""
    ex = _paris_example("paris-free-entry")
    assert [ln.stations for ln in ex.lines] == [("D3", "C4")]
    assert (ex.card, ex.tried, ex.extra) == ("free-entry", ("C4", "B4"), ("B4", "D6"))
    assert PARIS_STATIONS["B4"].get("monument") and not PARIS_STATIONS["D6"].get("monument")
    assert _paris_crossed(("C4", "B4"), (("D3", "C4"),)) == []
    assert _paris_crossed(("B4", "D6"), (("D3", "C4", "B4"),)) == []
    svg = DIAGRAMS.diagrams()["paris-free-entry.svg"]
    assert svg.count('stroke-dasharray="8 5"') == 2  # the section tried and its extra


def test_the_paris_scored_line_scores_what_every_caption_says() -> None:
    """D3–C4–B4–A5–A6–D6–E5 worked out from paris.json: districts (the platform one of its
    own), its best district, its monuments; each page's caption gives that sum."""
    line = ("D3", "C4", "B4", "A5", "A6", "D6", "E5")
    assert [ln.stations for ln in _paris_example("paris-line-score").lines] == [line]
    assert all(frozenset(s) in PARIS_LINKS for s in _drawn((line,)))
    district = {n: d["name"] for d in PARIS["districts"] for n in d["stations"]}
    per_district: dict[str, int] = {}
    for name in line:
        per_district[district[name]] = per_district.get(district[name], 0) + 1
    monuments = sum(bool(PARIS_STATIONS[n].get("monument")) for n in line)
    assert (len(per_district), max(per_district.values()), monuments) == (3, 4, 2)
    total = len(per_district) * max(per_district.values()) + 2 * monuments
    assert PARIS["scoring"]["monument_points"] == 2
    for page in PARIS_PAGES:
        assert f"3 × 4 + 2 × 2 = **{total}**" in page.read_text("utf-8"), page.name
    svg = DIAGRAMS.diagrams()["paris-line-score.svg"]
    badges = re.findall(r'class="district-count">(\d+)<', svg)
    assert sorted(map(int, badges)) == sorted(per_district.values()) == [1, 2, 4]


def test_a_paris_example_the_map_contradicts_is_refused() -> None:
    city = DIAGRAMS.load_city("paris")
    orange = DIAGRAMS.Line("orange", ("D3", "C4"))
    no_free_entry = DIAGRAMS.Example(
        "x", (0, 5), (0, 6), (orange,), "pentagon", ("C4", "B4"), extra=("B4", "D6")
    )
    with pytest.raises(DIAGRAMS.DiagramError, match="no extra section"):
        DIAGRAMS.draw(city, no_free_entry)
    loop = DIAGRAMS.Example("loop", (0, 5), (0, 6), (orange,), "circle", ("C4", "D3"))
    with pytest.raises(DIAGRAMS.DiagramError, match="is illegal"):
        DIAGRAMS.draw(city, loop)  # D3 is already on the line
    middle = DIAGRAMS.Line("orange", ("D3", "C4", "B3"))
    branch = DIAGRAMS.Example("branch", (0, 5), (0, 6), (middle,), "square", ("C4", "D4"))
    with pytest.raises(DIAGRAMS.DiagramError, match="is illegal"):
        DIAGRAMS.draw(city, branch)  # C4 is no end of the line


METRO = json.loads((ROOT / "src" / "metrogames" / "data" / "metro.json").read_text("utf-8"))
METRO_PAGES = sorted((ROOT / "docs").glob("metro*.md"))
SIDES = "NESW"


def _metro_ride(tiles: dict[str, str], station: int) -> tuple[int, str]:
    """Follow station ``station``'s train over ``tiles`` (code by square) with the data file's
    tracks and neighbour table: the tiles crossed and where it arrives (``"station 9"``,
    ``"centre"``, or ``"waiting"``)."""
    tracks = {
        t["code"]: dict(p for pair in t["tracks"] for p in (pair, pair[::-1]))
        for t in METRO["tile_types"]
    }
    start = next(s for s in METRO["stations"] if s["number"] == station)
    square, end, crossed = start["square"], start["departure"], 0
    while square in tiles:
        out = tracks[tiles[square]][end]
        crossed += 1
        col, row = "ABCDEFGH".index(square[0]), int(square[1]) - 1
        dc, dr = ((0, -1), (1, 0), (0, 1), (-1, 0))[out // 2]
        col, row = col + dc, row + dr
        if not (0 <= col < 8 and 0 <= row < 8):
            arrived = next(
                s
                for s in METRO["stations"]
                if s["square"] == square and SIDES[out // 2] == s["side"] and s["arrival"] == out
            )
            return crossed, f"station {arrived['number']}"
        square = f"{'ABCDEFGH'[col]}{row + 1}"
        if square in METRO["board"]["central_squares"]:
            return crossed, "centre"
        end = METRO["neighbour_endpoint"][out]
    return crossed, "waiting"


def test_the_metro_routes_score_what_every_caption_says() -> None:
    """The check value (station 6 over C1, B1, A1 into station 9: 3 points, blue in a 2-player
    game) and the centre's double (station 5 down D1–D3: 3 tiles, doubled), worked out from
    metro.json; each page gives those numbers."""
    metro = _script("metro_diagrams")
    route, centre = dict(metro.ROUTE.tiles), dict(metro.CENTRE.tiles)
    assert route == {"A1": "baac", "B1": "aaaa", "C1": "cbaa"} and metro.ROUTE.station == 6
    assert _metro_ride(route, 6) == (3, "station 9")
    assert _metro_ride(centre, 5) == (3, "centre") and metro.CENTRE.station == 5
    two = METRO["allocations"]["2"]["stations"]
    assert 6 in two[1] and 5 in two[0]  # blue (seat 2) and yellow (seat 1)
    assert METRO["seat_colours"][:2] == ["yellow", "blue"]
    arrives = {"metro.sk.md": "do stanice 9"}  # the others say "station 9"
    for page in METRO_PAGES:
        text = page.read_text("utf-8")
        assert "3 × 2 = 6" in text and "(C1, B1, A1)" in text, page.name
        assert arrives.get(page.name, "station 9") in text, page.name
    drawn = DIAGRAMS.diagrams()
    for name, ridden in (("metro-route.svg", 3), ("metro-centre.svg", 3)):
        assert len(re.findall(r'stroke-width="6"', drawn[name])) == ridden  # the train's tracks
    assert "×2" in drawn["metro-centre.svg"] and "×2" not in drawn["metro-route.svg"]
    tile = drawn["metro-tile.svg"]
    assert tile.count("<path ") == 4 and tile.count("<circle ") == 8  # 4 tracks, 8 track ends
