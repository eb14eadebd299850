"""Next Station turn-action notation (docs/notation.md, "Next Station turn action"): the text
and JSON forms round-trip, and malformed or hostile input is refused with a NotationError that
names the bad part."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrogames.core.errors import NotationError
from metrogames.games.nextstation.actions import (
    PASS,
    TurnAction,
    action_from_json,
    action_to_json,
    format_action,
    parse_action,
)
from metrogames.games.nextstation.citymap import load_city

LONDON = load_city("london")
PARIS = load_city("paris")


def s(name: str) -> int:
    return LONDON.station(name)


# The spec's action table (London rows), with the value each row means.
SPEC_TABLE: list[tuple[Any, str, TurnAction]] = [
    ("pass", "pass", PASS),
    ({"sections": [["D3", "G3"]]}, "D3-G3", TurnAction(((s("D3"), s("G3")),))),
    ({"sections": [["G3", "D3"]]}, "G3-D3", TurnAction(((s("G3"), s("D3")),))),
    (
        {"sections": [["D3", "E4"], ["E4", "E1"]], "power": "double-section"},
        "D3-E4 E4-E1 +double-section",
        TurnAction(((s("D3"), s("E4")), (s("E4"), s("E1"))), "double-section"),
    ),
    (
        {"sections": [["F8", "F5"]], "power": "joker"},
        "F8-F5 +joker",
        TurnAction(((s("F8"), s("F5")),), "joker"),
    ),
    (
        {"sections": [["F5", "E4"]], "circle": "E4"},
        "F5-E4 @E4",
        TurnAction(((s("F5"), s("E4")),), None, s("E4")),
    ),
    ({"sections": [], "circle": "E4"}, "@E4", TurnAction((), None, s("E4"))),
    (
        {"sections": [["G3", "H4"]], "power": "switch"},
        "G3-H4 +switch",
        TurnAction(((s("G3"), s("H4")),), "switch"),
    ),
]


@pytest.mark.parametrize(
    ("json_form", "text", "value"), SPEC_TABLE, ids=[t for _, t, _ in SPEC_TABLE]
)
def test_spec_table_reads_writes_and_round_trips(
    json_form: Any, text: str, value: TurnAction
) -> None:
    assert parse_action(LONDON, text) == value
    assert action_from_json(LONDON, json_form) == value
    assert format_action(LONDON, value) == text
    assert action_to_json(LONDON, value) == json_form
    assert parse_action(LONDON, format_action(LONDON, value)) == value
    assert action_from_json(LONDON, action_to_json(LONDON, value)) == value
    # through real JSON text too
    assert action_from_json(LONDON, json.loads(json.dumps(action_to_json(LONDON, value)))) == value


def test_reversed_section_is_the_same_link_drawn_from_the_other_end() -> None:
    forward = parse_action(LONDON, "D3-G3").sections[0]
    backward = parse_action(LONDON, "G3-D3").sections[0]
    assert backward == (forward[1], forward[0])
    assert LONDON.link_of[forward] == LONDON.link_of[backward]


def test_paris_free_entry_example_round_trips() -> None:
    value = parse_action(PARIS, "G7-F7 F7-E8")
    assert action_to_json(PARIS, value) == {"sections": [["G7", "F7"], ["F7", "E8"]]}
    assert action_from_json(PARIS, {"sections": [["G7", "F7"], ["F7", "E8"]]}) == value


def test_circle_station_power_is_accepted_beside_circle() -> None:
    written = {"sections": [["F5", "E4"]], "power": "circle-station", "circle": "E4"}
    assert action_from_json(LONDON, written) == parse_action(LONDON, "F5-E4 @E4")
    # and written back in the canonical form
    assert action_to_json(LONDON, action_from_json(LONDON, written)) == {
        "sections": [["F5", "E4"]],
        "circle": "E4",
    }
    assert action_from_json(
        LONDON, {"sections": [], "power": "circle-station", "circle": "E4"}
    ) == parse_action(LONDON, "@E4")


def test_text_is_case_insensitive_and_takes_commas() -> None:
    assert parse_action(LONDON, "  d3-e4,e4-e1  +DOUBLE-SECTION ") == parse_action(
        LONDON, "D3-E4 E4-E1 +double-section"
    )
    assert parse_action(LONDON, "PASS") == PASS
    assert action_from_json(LONDON, {"sections": [["d3", "g3"]]}) == parse_action(LONDON, "D3-G3")


# -- generated round trips ---------------------------------------------------------------

LINKS = LONDON.links
stations_st = st.integers(0, len(LONDON.stations) - 1)
section_st = st.builds(
    lambda link, flip: (LINKS[link][1], LINKS[link][0]) if flip else LINKS[link],
    st.integers(0, len(LINKS) - 1),
    st.booleans(),
)


@st.composite
def actions(draw: st.DrawFn) -> TurnAction:
    sections = tuple(draw(st.lists(section_st, max_size=2)))
    kind = draw(st.sampled_from(["none", "power", "circle"]))
    if kind == "power" and sections:
        return TurnAction(sections, draw(st.sampled_from(["double-section", "joker", "switch"])))
    if kind == "circle":
        return TurnAction(sections, None, draw(stations_st))
    return TurnAction(sections)


@settings(max_examples=300, deadline=None)
@given(actions())
def test_generated_actions_round_trip(action: TurnAction) -> None:
    text = format_action(LONDON, action)
    assert parse_action(LONDON, text) == action
    assert parse_action(LONDON, text.lower()) == action
    as_json = action_to_json(LONDON, action)
    assert action_from_json(LONDON, as_json) == action
    assert action_from_json(LONDON, json.loads(json.dumps(as_json))) == action


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=60) | st.text(alphabet="ABCDEFGHIJK0123456789-+@ ,pasjokrwitch", max_size=40)
)
def test_any_text_parses_or_raises_notation_error(text: str) -> None:
    try:
        action = parse_action(LONDON, text)
    except NotationError as exc:
        assert str(exc)
    else:
        assert parse_action(LONDON, format_action(LONDON, action)) == action


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["D3", "G3", "E4", "pass", "joker", "circle-station", "sections"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["sections", "power", "circle", "x"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_reads_or_raises_notation_error(value: Any) -> None:
    try:
        action = action_from_json(LONDON, value)
    except NotationError as exc:
        assert str(exc)
    else:
        assert action_from_json(LONDON, action_to_json(LONDON, action)) == action


# -- bad text ------------------------------------------------------------------------------

BAD_TEXT = [
    ("", "empty action"),
    ("   ", "empty action"),
    ("Z9-A1", "unknown station 'Z9'"),
    ("A1-Z9", "unknown station 'Z9'"),
    ("K1", "'K1'"),
    ("K1-A1", "unknown station 'K1'"),
    ("A11-A1", "unknown station 'A11'"),
    ("@K1", "unknown station 'K1'"),
    ("D3-G3 G3-H4 H4-J2", "at most 2 sections, not 3"),
    ("pass D3-G3", "'pass' cannot be combined"),
    ("D3-G3 pass", "'pass' cannot be combined"),
    ("pass pass", "'pass' cannot be combined"),
    ("D3-G3 +joker +switch", "only one power"),
    ("D3-G3 +joker @G3", "only one power"),
    ("D3-E4 E4-E1 +double-section @E4", "only one power"),
    ("D3-G3 +teleport", "unknown power '+teleport'"),
    ("D3-G3 +", "unknown power '+'"),
    ("D3-G3 +circle-station", "@STATION"),
    ("@E4 @F4", "only one circled station"),
    ("+joker", "the power joker needs a section"),
    ("D3G3", "cannot read 'D3G3'"),
    ("D3-G3-H4", "cannot read 'D3-G3-H4'"),
    ("D3-", "cannot read 'D3-'"),
    ("-D3", "cannot read '-D3'"),
    ("x" * 201, "longer than 200 characters"),
    ("D3-G3 " * 10_000, "longer than 200 characters"),
]


@pytest.mark.parametrize(("text", "message"), BAD_TEXT, ids=[repr(t[:20]) for t, _ in BAD_TEXT])
def test_bad_text_is_refused_naming_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_action(LONDON, text)
    assert message in str(info.value)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize(
    ("value", "type_name"),
    [(5, "int"), (None, "NoneType"), (b"D3-G3", "bytes"), (["D3-G3"], "list")],
)
def test_non_string_text_is_refused(value: Any, type_name: str) -> None:
    with pytest.raises(NotationError, match=f"must be text, not {type_name}"):
        parse_action(LONDON, value)


# -- bad JSON ------------------------------------------------------------------------------

BAD_JSON = [
    ({}, 'needs "sections"'),
    ([], "not []"),
    (None, "not None"),
    (3, "not 3"),
    ("PASS", "not 'PASS'"),
    ("D3-G3", "not 'D3-G3'"),
    ({"sections": "D3-G3"}, 'needs "sections"'),
    ({"sections": [["D3", "G3"]], "extra": 1}, "unknown key(s) in action: extra"),
    ({"sections": [["D3", "G3"]], "Power": "joker"}, "unknown key(s) in action: Power"),
    ({"sections": [["D3", "G3"]] * 3}, "at most 2 sections, not 3"),
    ({"sections": [["D3", "G3", "H4"]]}, "not ['D3', 'G3', 'H4']"),
    ({"sections": ["D3-G3"]}, "not 'D3-G3'"),
    ({"sections": [["D3", 5]]}, "unknown station 5"),
    ({"sections": [["Z9", "A1"]]}, "unknown station 'Z9'"),
    ({"sections": [["D3", "G3"]], "power": "teleport"}, "unknown power 'teleport'"),
    ({"sections": [["D3", "G3"]], "power": ["joker"]}, "unknown power ['joker']"),
    ({"sections": [], "power": "joker"}, "the power joker needs a section"),
    ({"sections": [["F5", "E4"]], "power": "circle-station"}, 'needs "circle"'),
    ({"sections": [["F5", "E4"]], "power": "joker", "circle": "E4"}, "only one power"),
    ({"sections": [["D3", "G3"]], "circle": ["E4"]}, "unknown station ['E4']"),
    ({"sections": [["D3", "G3"]], "circle": "K1"}, "unknown station 'K1'"),
]


@pytest.mark.parametrize(("value", "message"), BAD_JSON, ids=[repr(v)[:30] for v, _ in BAD_JSON])
def test_bad_json_is_refused_naming_the_bad_part(value: Any, message: str) -> None:
    with pytest.raises(NotationError) as info:
        action_from_json(LONDON, value)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "value",
    [
        {"sections": [["D3", "G" * 10_000_000]]},
        {"sections": [], "circle": "E" * 10_000_000},
        {"sections": [["D3", "G3"]], "power": "j" * 10_000_000},
        {"sections": [["D3", "G3"]], "k" * 10_000_000: 1},
    ],
    ids=["station", "circle", "power", "key"],
)
def test_huge_json_strings_give_a_short_message(value: Any) -> None:
    with pytest.raises(NotationError) as info:
        action_from_json(LONDON, value)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("text", ["D3\u2013G3", "D3 - G3", "d3 -g3", "D3\u2014 G3"])
def test_dashes_and_spaces_around_them_read_as_a_section(text: str) -> None:
    """Typed text: an en or em dash, and spaces around the dash, are read as ``D3-G3``."""
    assert format_action(LONDON, parse_action(LONDON, text)) == "D3-G3"
