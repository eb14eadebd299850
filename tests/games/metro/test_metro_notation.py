"""Metro action notation (docs/notation.md, "Metro turn action"): text and JSON round-trip,
dense indices, and bad input raising NotationError only."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrogames.core.errors import NotationError
from metrogames.games.metro import (
    DRAW,
    NUM_ACTIONS,
    MetroAction,
    format_metro_action,
    load_metro,
    metro_action_from_index,
    metro_action_from_json,
    metro_action_index,
    metro_action_to_json,
    parse_metro_action,
    parse_square,
)

DATA = load_metro()


def test_spec_examples() -> None:
    action = parse_metro_action("cbaa C5")
    assert action == MetroAction(parse_square("C5"), "cbaa") == MetroAction(34, "cbaa")
    assert format_metro_action(action) == "cbaa C5"
    assert metro_action_to_json(action) == {"square": "C5", "tile": "cbaa"}
    assert metro_action_from_json({"square": "C5", "tile": "cbaa"}) == action
    bare = parse_metro_action("C5")
    assert bare == MetroAction(34, None)
    assert format_metro_action(bare) == "C5"
    assert metro_action_to_json(bare) == {"square": "C5"}
    assert metro_action_from_json({"square": "C5"}) == bare
    assert metro_action_from_json({"square": "C5", "tile": None}) == bare
    assert parse_metro_action("draw") == DRAW and format_metro_action(DRAW) == "draw"
    assert metro_action_to_json(DRAW) == "draw" and metro_action_from_json("draw") == DRAW
    assert str(action) == "cbaa C5"


def test_case_and_spacing() -> None:
    assert parse_metro_action("  CBAA   c5 ") == MetroAction(34, "cbaa")
    assert metro_action_from_json({"square": "h8", "tile": "DDDD"}) == MetroAction(63, "dddd")


def test_every_action_round_trips() -> None:
    actions = [MetroAction(sq, code) for code in DATA.tile_codes for sq in range(64)]
    actions += [MetroAction(sq) for sq in range(64)] + [DRAW]
    for a in actions:
        assert parse_metro_action(format_metro_action(a)) == a
        assert metro_action_from_json(metro_action_to_json(a)) == a
    indices = {metro_action_index(a) for a in actions if a.tile is not None or a.is_draw}
    assert indices == set(range(NUM_ACTIONS))
    for i in range(NUM_ACTIONS):
        assert metro_action_index(metro_action_from_index(i)) == i
    assert metro_action_index(MetroAction(34, "cbaa")) == DATA.tile_index["cbaa"] * 64 + 34


BAD_TEXT: list[Any] = [
    "",
    "   ",
    "cbaa",
    "C9",
    "I1",
    "cbaa C5 D6",
    "zzzz C5",
    "C5 cbaa",
    "cbaa-C5",
    "draw C5",
    "x" * 1000,
    None,
    34,
    ["cbaa", "C5"],
    b"cbaa C5",
]


@pytest.mark.parametrize("text", BAD_TEXT)
def test_bad_text(text: Any) -> None:
    with pytest.raises(NotationError):
        parse_metro_action(text)


BAD_JSON: list[Any] = [
    None,
    1,
    "C5",
    "cbaa C5",
    [],
    ["C5"],
    {},
    {"tile": "cbaa"},
    {"square": "C5", "tile": "zzzz"},
    {"square": "Z5"},
    {"square": 34},
    {"square": "C5", "tile": 3},
    {"square": "C5", "extra": 1},
    {"square": ["C5"]},
    {"square": "C5", "tile": ["cbaa"]},
    {"square": "C5" * 10000},
    {"Square": "C5"},
    {"square": None},
    True,
]


@pytest.mark.parametrize("value", BAD_JSON)
def test_bad_json(value: Any) -> None:
    with pytest.raises(NotationError):
        metro_action_from_json(value)


def test_format_refuses_bad_values() -> None:
    for bad in [MetroAction(64, "cbaa"), MetroAction(3, "zzzz"), MetroAction(-5)]:
        with pytest.raises(NotationError):
            format_metro_action(bad)
        with pytest.raises(NotationError):
            metro_action_to_json(bad)
    with pytest.raises(NotationError):
        format_metro_action("cbaa C5")  # type: ignore[arg-type]
    with pytest.raises(NotationError):
        metro_action_index(MetroAction(34))
    for bad_index in [-1, NUM_ACTIONS, True, "3"]:
        with pytest.raises(NotationError):
            metro_action_from_index(bad_index)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=60))
def test_fuzz_text(text: str) -> None:
    try:
        action = parse_metro_action(text)
    except NotationError:
        return
    assert parse_metro_action(format_metro_action(action)) == action


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    st.one_of(
        JSON,
        st.fixed_dictionaries(
            {"square": st.sampled_from(["C5", "A1", "D4", "Z0", 3])},
            optional={"tile": st.sampled_from(["cbaa", "zzzz", None, 1]), "x": JSON},
        ),
    )
)
def test_fuzz_json(value: Any) -> None:
    try:
        action = metro_action_from_json(value)
    except NotationError:
        return
    assert metro_action_from_json(metro_action_to_json(action)) == action
