"""London score sheets (docs/notation.md, "Score sheet", "What score checks"): the spec's
example scores exactly as printed, and each check refuses a bad drawing with its reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.games.nextstation.sheet import score_sheet, sheet_of
from support.london_records import EMPTY_LINE, LONDON, SPEC_SCORE, SPEC_SHEET, play_london_state


def sheet(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(SPEC_SHEET)
    out.update(changes)
    return out


def score_json(data: Any) -> Any:
    city, result = score_sheet(data)
    return json.loads(json.dumps(result.to_json(city)))


def test_spec_example_scores_exactly() -> None:
    assert score_json(SPEC_SHEET) == SPEC_SCORE
    # key order as printed in the spec
    city, result = score_sheet(SPEC_SHEET)
    assert list(result.to_json(city)) == ["lines", "tourist", "interchanges", "objectives", "total"]
    assert list(result.to_json(city)["lines"]) == ["blue", "pink", "purple", "green"]


def test_spec_example_without_the_circle() -> None:
    data = sheet()
    del data["circled"]
    expected = copy.deepcopy(SPEC_SCORE)
    expected["lines"]["blue"] = {"districts": 6, "max_in_district": 3, "thames": 1, "score": 20}
    expected["total"] = 21
    assert score_json(data) == expected


def test_optional_parts() -> None:
    data = {
        "game": "london",
        "lines": {"blue": SPEC_SHEET["lines"]["blue"]},
    }  # other colours missing
    result = score_json(data)
    assert result["objectives"] == {"points": 0}
    assert result["lines"]["pink"] == EMPTY_LINE
    assert result["total"] == 21
    assert score_json({"game": "london"})["total"] == 0


def test_objectives_not_met_and_an_interchange() -> None:
    data = {
        "game": "london",
        "lines": {"blue": [["F8", "F5"], ["F5", "E4"]], "pink": [["H4", "G4"], ["G4", "F5"]]},
        "objectives": ["thames-6", "interchanges-8"],
    }
    result = score_json(data)
    assert result["objectives"] == {"thames-6": False, "interchanges-8": False, "points": 0}
    assert result["interchanges"] == {"2": 1, "3": 0, "4": 0, "points": 2}


def test_sheet_of_a_played_map_scores_like_the_game() -> None:
    state = play_london_state(3, ("greedy",), {"powers": "random"})
    data = sheet_of(LONDON, state.maps[0], state.deal.objectives)
    city, result = score_sheet(json.loads(json.dumps(data)))
    assert result.total == state.scores()[0]
    assert result.to_json(city) == state.breakdown(0).to_json(city)


# -- the checks of "What score checks" --------------------------------------------------------


def lines(**colour_lines: list[list[str]]) -> dict[str, Any]:
    return {"game": "london", "lines": colour_lines}


ILLEGAL = [
    (
        "not-a-link",
        sheet(lines={"blue": [["F8", "F5"], ["F5", "A1"]]}),
        "not-a-link",
        "blue line, section 2: section F5-A1: no link joins these stations",
    ),
    (
        "not-from-departure",
        lines(pink=[["G3", "G2"]]),
        "not-an-end",
        "pink line, section 1: section G3-G2: the first section must leave the departure station H4",
    ),
    (
        "reversed-first-section",
        lines(blue=[["F5", "F8"]]),
        "not-an-end",
        "blue line, section 1: section F5-F8: the first section must leave the departure station F8",
    ),
    (
        "start-not-on-line",
        lines(blue=[["F8", "F5"], ["A1", "B1"]]),
        "not-on-line",
        "blue line, section 2: section A1-B1: A1 is not on the blue line",
    ),
    (
        "station-twice",
        lines(blue=[["F8", "F5"], ["F5", "G4"], ["G4", "F4"], ["F4", "F5"]]),
        "revisits-station",
        "blue line, section 4: section F4-F5: F5 is already on the line",
    ),
    (
        "back-to-departure",
        lines(pink=[["H4", "G3"], ["G3", "G4"], ["G4", "H4"]]),
        "revisits-station",
        "pink line, section 3: section G4-H4: H4 is already on the line",
    ),
    (
        "link-twice-two-colours",
        lines(blue=[["F8", "F5"], ["F5", "G4"], ["G4", "H4"]], pink=[["H4", "G4"]]),
        "doubled-section",
        "pink line, section 1: section H4-G4 is already drawn by the blue line",
    ),
    (
        "link-twice-one-colour",
        lines(blue=[["F8", "F5"], ["F5", "F8"]]),
        "revisits-station",
        "blue line, section 2: section F5-F8: F8 is already on the line",
    ),
    (
        "crossing-two-colours",
        lines(pink=[["H4", "G3"], ["G3", "G2"], ["G2", "E4"]], green=[["D3", "G3"]]),
        "crosses-section",
        "green line, section 1: section D3-G3 crosses the pink section E4-G2",
    ),
    (
        "circle-not-on-line",
        sheet(circled={"blue": "A1"}),
        "circle-not-on-line",
        "blue line: circled station A1 is not on it",
    ),
    (
        "circle-on-empty-line",
        sheet(circled={"pink": "H4"}),
        "circle-not-on-line",
        "pink line: circled station H4 is not on it",
    ),
]


@pytest.mark.parametrize(
    ("data", "reason", "message"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL]
)
def test_illegal_drawing_is_refused_with_its_reason(data: Any, reason: str, message: str) -> None:
    with pytest.raises(IllegalActionError) as info:
        score_sheet(data)
    assert info.value.reason == reason
    assert str(info.value) == f"{message} ({reason})"


def test_branches_are_allowed_on_a_sheet() -> None:
    # a switch lets a section start from any station of the line: the sheet cannot tell
    data = lines(blue=[["F8", "F5"], ["F5", "E4"], ["F5", "G4"]])
    assert score_json(data)["lines"]["blue"]["districts"] == 2


def test_the_same_crossing_is_refused_in_either_order() -> None:
    with pytest.raises(IllegalActionError) as info:
        score_sheet(lines(green=[["D3", "G3"]], pink=[["H4", "G3"], ["G3", "G2"], ["G2", "E4"]]))
    # colours are drawn in the map's order (blue, pink, purple, green): green's D3-G3 is found
    assert info.value.reason == "crosses-section"


NAMES = [
    (
        "unknown-colour",
        lines(red=[]),
        NotationError,
        "unknown colour 'red' (expected one of blue, pink, purple, green)",
    ),
    (
        "unknown-station",
        sheet(lines={"blue": [["F8", "K1"]]}),
        NotationError,
        "unknown station 'K1'",
    ),
    ("station-int", sheet(lines={"blue": [["F8", 5]]}), NotationError, "unknown station 5"),
    ("unknown-circle-colour", sheet(circled={"red": "E4"}), NotationError, "unknown colour 'red'"),
    (
        "unknown-circle-station",
        sheet(circled={"blue": "Z9"}),
        NotationError,
        "unknown station 'Z9'",
    ),
    (
        "two-circles",
        sheet(circled={"blue": ["E4", "F4"]}),
        RecordError,
        "circled: one station per line, not ['E4', 'F4'] on blue",
    ),
    (
        "circle-int",
        sheet(circled={"blue": 4}),
        RecordError,
        "circled: one station per line, not 4 on blue",
    ),
    (
        "unknown-objective",
        sheet(objectives=["thames-7"]),
        NotationError,
        "unknown objective 'thames-7'",
    ),
    ("objective-int", sheet(objectives=[6]), NotationError, "unknown objective 6"),
    (
        "objectives-str",
        sheet(objectives="thames-6"),
        RecordError,
        "objectives must be a list of at most 2 distinct ids",
    ),
    (
        "objectives-twice",
        sheet(objectives=["thames-6", "thames-6"]),
        RecordError,
        "at most 2 distinct ids",
    ),
    (
        "objectives-3",
        sheet(objectives=["thames-6", "all-districts", "central-district"]),
        RecordError,
        "at most 2 distinct ids",
    ),
    ("unknown-key", sheet(score=27), RecordError, "unknown key(s) in sheet: score"),
    ("unknown-game", sheet(game="tokyo"), NotationError, "unknown game 'tokyo'"),
    ("game-list", sheet(game=["london"]), NotationError, "unknown game ['london']"),
    (
        "game-object",
        sheet(game={"city": "london"}),
        NotationError,
        "unknown game {'city': 'london'}",
    ),
    ("no-game", {"lines": {}}, NotationError, "unknown game None"),
    (
        "lines-list",
        sheet(lines=[]),
        RecordError,
        "lines must be an object: colour → list of sections",
    ),
    (
        "line-text",
        sheet(lines={"blue": "F8-F5"}),
        RecordError,
        "blue line: a list of at most 60 sections expected",
    ),
    (
        "section-text",
        sheet(lines={"blue": ["F8-F5"]}),
        RecordError,
        "blue line: a section is a [from, to] pair, not 'F8-F5'",
    ),
    (
        "section-3",
        sheet(lines={"blue": [["F8", "F5", "E4"]]}),
        RecordError,
        "a section is a [from, to] pair",
    ),
    (
        "too-many-sections",
        sheet(lines={"blue": [["F8", "F5"]] * 61}),
        RecordError,
        "at most 60 sections",
    ),
    (
        "circled-list",
        sheet(circled=["E4"]),
        RecordError,
        "circled must be an object: colour → station",
    ),
    (
        "paris-circle",
        {"game": "paris", "circled": {"blue": "E5"}},
        RecordError,
        "Next Station: Paris has no circled stations",
    ),
]


@pytest.mark.parametrize(
    ("data", "error", "message"), [c[1:] for c in NAMES], ids=[c[0] for c in NAMES]
)
def test_bad_names_and_types(data: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        score_sheet(data)
    assert message in str(info.value)


@pytest.mark.parametrize("data", [None, [], "sheet", 27, [SPEC_SHEET]])
def test_sheet_that_is_not_an_object(data: Any) -> None:
    with pytest.raises(RecordError, match="a score sheet must be a JSON object"):
        score_sheet(data)


BIG = "x" * 10_000_000


@pytest.mark.parametrize(
    "data",
    [
        sheet(lines={"blue": [["F8", BIG]]}),
        sheet(lines={BIG: []}),
        sheet(circled={"blue": BIG}),
        sheet(objectives=[BIG]),
        sheet(game=BIG),
        {**SPEC_SHEET, BIG: 1},
    ],
    ids=["station", "colour", "circle", "objective", "game", "key"],
)
def test_huge_strings_give_a_short_error(data: Any) -> None:
    with pytest.raises((RecordError, NotationError)) as info:
        score_sheet(data)
    assert len(str(info.value)) < 300
