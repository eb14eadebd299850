"""Metro records and score sheets (docs/notation.md, "Game record", "Score sheet",
``score --json``): writing, strict reading, replay errors with their place, and hostile input
that must raise NotationError, RecordError or IllegalActionError and nothing else."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrogames.core.errors import (
    IllegalActionError,
    MetrogamesError,
    NotationError,
    RecordError,
)
from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    MetroGame,
    MetroOptions,
    metro_deal_record,
    metro_record,
    read_metro_record,
    replay_metro_record,
    score_metro_sheet,
)

CHECK_RECORD: dict[str, Any] = {
    "format": "metrogames/1",
    "game": "metro",
    "players": ["Ada", "bot:greedy"],
    "options": {"turn_mode": "draw", "one_tile_routes": "allowed"},
    "tiles": ["baac", "aaaa", "cbaa"],
    "turns": [
        {"square": "A1", "tile": "baac"},
        {"square": "B1", "tile": "aaaa"},
        {"square": "C1"},
    ],
    "meta": {"anything": [1, {"goes": None}]},
}


def record_of(seed: int = 3, players: int = 2, mode: str = "draw", moves: int = 60) -> Any:
    state = MetroGame(players, MetroOptions(turn_mode=mode)).new_game(seed)
    while not state.is_over() and state.board.placed < moves:
        p = state.to_move_player()
        acts = state.legal_actions(p)
        state.apply_in_place(p, acts[0] if p == CHANCE else acts[-1])
    return metro_record(state, include_seed=True, reveal_pile=True)


def test_check_value_record() -> None:
    state = replay_metro_record(CHECK_RECORD)
    assert state.scores() == [0, 3]
    assert state.turn == 4 and not state.is_over()
    assert state.to_move() == frozenset({CHANCE})  # the record lists no 4th tile
    out = metro_record(state, ["Ada", "bot:greedy"], meta=CHECK_RECORD["meta"])
    assert out == CHECK_RECORD


def test_options_default_and_turns_optional() -> None:
    rec = copy.deepcopy(CHECK_RECORD)
    del rec["options"], rec["turns"], rec["meta"]
    state = replay_metro_record(rec)
    assert state.board.placed == 0 and state.drawn_tile == "baac"
    assert read_metro_record(rec).options == MetroOptions()


def test_deal_record() -> None:
    game = MetroGame(4, MetroOptions(turn_mode="hand"))
    deal = metro_deal_record(game, 99, ["a", "b", "c", "d"])
    assert deal["tiles"] == game.pile_for(99) and "turns" not in deal
    state = replay_metro_record(deal)
    # one tile dealt to each, then player 0's draw: 2 tiles in hand
    assert [len(state.hand(p)) for p in range(4)] == [2, 1, 1, 1]
    assert state.hand(0) == tuple(game.pile_for(99)[i] for i in (0, 4))
    assert state.known_pile() == game.pile_for(99)[5:]


def test_seed_must_match_tiles() -> None:
    rec = record_of(seed=5)
    replay_metro_record(rec)
    bad = copy.deepcopy(rec)
    bad["tiles"][0], bad["tiles"][1] = bad["tiles"][1], bad["tiles"][0]
    if bad["tiles"] != rec["tiles"]:
        with pytest.raises(RecordError, match="seed 5"):
            replay_metro_record(bad)
    other = copy.deepcopy(rec)
    other["seed"] = 6
    with pytest.raises(RecordError):
        replay_metro_record(other)
    prefix = copy.deepcopy(rec)
    prefix["tiles"] = prefix["tiles"][:10]
    prefix["turns"] = prefix["turns"][:9]
    assert replay_metro_record(prefix).board.placed == 9


def test_a_seeded_record_in_progress_replays_with_the_rest_of_its_pile() -> None:
    """A record naming its seed replays to a state that knows every tile still to come (so a
    saved game goes on with the seed's pile); without the seed only the listed tiles are
    known."""
    for mode in ("draw", "hand", "official-hand"):
        rec = record_of(seed=12, players=3, mode=mode, moves=7)
        game = MetroGame(3, MetroOptions(turn_mode=mode))
        cut = copy.deepcopy(rec)
        cut["tiles"] = cut["tiles"][: len(rec["tiles"]) - 50]
        cut["turns"] = cut["turns"][:5]
        state = replay_metro_record(cut)
        assert state.board.placed == 5
        assert state.known_pile() == game.pile_for(12)[state.drawn_count :], mode
        assert len(state.known_pile()) == 60 - state.drawn_count
        del cut["seed"]
        unseeded = replay_metro_record(cut)
        assert unseeded.known_pile() == cut["tiles"][unseeded.drawn_count :], mode


def test_illegal_turn_names_turn_and_player() -> None:
    rec = copy.deepcopy(CHECK_RECORD)
    rec["turns"][1] = {"square": "C3", "tile": "aaaa"}
    with pytest.raises(IllegalActionError) as info:
        replay_metro_record(rec)
    err = info.value
    assert (err.reason, err.where.turn, err.where.player) == ("not-adjacent", 2, 1)
    assert str(err).startswith("turn 2, player 1: ") and "C3" in str(err)
    rec["turns"][1] = {"square": "B1", "tile": "cbaa"}
    with pytest.raises(IllegalActionError) as info:
        replay_metro_record(rec)
    assert info.value.reason == "wrong-tile"
    rec["turns"][1] = {"square": "A1"}
    with pytest.raises(IllegalActionError) as info:
        replay_metro_record(rec)
    assert info.value.reason == "square-occupied"


def test_tiles_run_out() -> None:
    rec = copy.deepcopy(CHECK_RECORD)
    rec["tiles"] = rec["tiles"][:2]
    with pytest.raises(RecordError, match="run out"):
        replay_metro_record(rec)


def test_official_hand_record_wrong_tile() -> None:
    rec = record_of(seed=8, mode="official-hand", moves=10)
    assert len(rec["tiles"]) == 60 and len(rec["turns"]) == 10
    state = replay_metro_record(rec)
    held = set(state.hand(state.to_move_player()))
    pile_next = state.known_pile()[0]
    wrong = next(c for c in ["aaaa", "cbaa", "dddd", "bcbc"] if c not in held | {pile_next})
    bad = copy.deepcopy(rec)
    bad["turns"].append({"square": "A1", "tile": wrong})
    with pytest.raises(IllegalActionError) as info:
        replay_metro_record(bad)
    assert info.value.reason == "wrong-tile" and info.value.where.turn == 11
    assert wrong in info.value.detail


def mutate(rec: Any, path: list[Any], value: Any) -> Any:
    out = copy.deepcopy(rec)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


STRUCTURE_ERRORS: list[tuple[list[Any], Any]] = [
    (["format"], "metrogames/2"),
    (["format"], KeyError),
    (["game"], "london"),
    (["players"], ["solo"]),
    (["players"], ["a"] * 7),
    (["players"], "Ada"),
    (["players"], ["Ada", 3]),
    (["players"], ["Ada", ""]),
    (["players"], ["Ada", "x" * 101]),
    (["seed"], -1),
    (["seed"], 2**64),
    (["seed"], "7"),
    (["seed"], True),
    (["tiles"], "baac aaaa"),
    (["tiles"], KeyError),
    (["tiles"], ["aaaa"] * 5),
    (["tiles"], ["aaaa"] * 61),
    (["turns"], {"square": "A1"}),
    (["turns"], [{"square": "A1"}] * 61),
    (["turns", 0], "draw"),
    (["meta"], []),
    (["extra"], 1),
]


@pytest.mark.parametrize(("path", "value"), STRUCTURE_ERRORS)
def test_structure_errors(path: list[Any], value: Any) -> None:
    with pytest.raises(RecordError):
        replay_metro_record(mutate(CHECK_RECORD, path, value))


NOTATION_ERRORS: list[tuple[list[Any], Any]] = [
    (["options"], {"turn_mode": "hand", "colour_cycle": []}),
    (["options"], {"turn_mode": "fast"}),
    (["options"], {"one_tile_routes": True}),
    (["options"], "draw"),
    (["tiles", 1], "zzzz"),
    (["tiles", 1], 7),
    (["turns", 1], {"square": "Z1", "tile": "aaaa"}),
    (["turns", 1], {"square": "B1", "tile": "aaaa", "by": 1}),
    (["turns", 1], {"square": "B1", "tile": "nope"}),
    (["turns", 1], ["B1", "aaaa"]),
]


@pytest.mark.parametrize(("path", "value"), NOTATION_ERRORS)
def test_notation_errors(path: list[Any], value: Any) -> None:
    with pytest.raises(NotationError):
        replay_metro_record(mutate(CHECK_RECORD, path, value))


def test_not_an_object() -> None:
    for value in [None, [], "record", 3, json.dumps(CHECK_RECORD)]:
        with pytest.raises(RecordError):
            replay_metro_record(value)


def test_huge_input() -> None:
    big = mutate(CHECK_RECORD, ["meta"], {"x": "y" * 1_000_000})
    assert replay_metro_record(big).scores() == [0, 3]  # meta is free-form
    with pytest.raises(RecordError):
        replay_metro_record(mutate(CHECK_RECORD, ["turns"], [{"square": "A1"}] * 100_000))
    with pytest.raises(RecordError):
        replay_metro_record(mutate(CHECK_RECORD, ["tiles"], ["aaaa"] * 100_000))
    with pytest.raises(RecordError):
        replay_metro_record(mutate(CHECK_RECORD, ["players"], ["a"] * 100_000))
    with pytest.raises(NotationError):
        replay_metro_record(mutate(CHECK_RECORD, ["tiles", 0], "b" * 100_000))
    with pytest.raises(RecordError):
        replay_metro_record(mutate(CHECK_RECORD, ["seed"], 10**1000))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
KEYS = ["format", "game", "players", "seed", "options", "tiles", "turns", "meta"]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(KEYS), JSON, st.integers(0, 3))
def test_fuzz_records(key: str, value: Any, cut: int) -> None:
    """Replacing any key by garbage or cutting the turns never raises anything but our errors."""
    rec = copy.deepcopy(CHECK_RECORD)
    rec[key] = value
    rec["turns"] = rec["turns"][:cut] if isinstance(rec.get("turns"), list) else rec["turns"]
    with contextlib.suppress(MetrogamesError):
        replay_metro_record(rec)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["A1", "B1", "C1", "D4", "A2", "C2", "B2", "Q1"]),
            st.sampled_from(["baac", "aaaa", "cbaa", "dddd", "zzzz"]),
        ),
        max_size=8,
    )
)
def test_fuzz_turns(turns: list[tuple[str, str]]) -> None:
    """Random turns on the check pile: only our errors; a valid replay stays honest."""
    rec = copy.deepcopy(CHECK_RECORD)
    rec["tiles"] = ["baac", "aaaa", "cbaa", "dddd", "aaaa", "dddd", "baac", "cbaa"]
    rec["turns"] = [{"square": s, "tile": t} for s, t in turns]
    try:
        state = replay_metro_record(rec)
    except MetrogamesError:
        return
    assert state.scores() == state.recount()[0]


# -- score sheets ----------------------------------------------------------------------------
CHECK_SHEET = {
    "game": "metro",
    "player_count": 2,
    "placements": [
        {"square": "A1", "tile": "baac"},
        {"square": "B1", "tile": "aaaa"},
        {"square": "C1", "tile": "cbaa"},
    ],
}


def test_check_value_sheet() -> None:
    """spec, ``score --json`` for Metro: {"scores": [0, 3], "routes": [station 6 ...]}."""
    assert score_metro_sheet(CHECK_SHEET) == {
        "scores": [0, 3],
        "routes": [{"station": 6, "player": 1, "tiles": 3, "central": False, "points": 3}],
    }


def test_sheet_centre_and_unallocated() -> None:
    sheet = {
        "game": "metro",
        "player_count": 3,
        "placements": [
            {"square": "D1", "tile": "aaaa"},
            {"square": "D2", "tile": "aaaa"},
            {"square": "D3", "tile": "aaaa"},
            {"square": "A8", "tile": "baac"},
        ],
    }
    out = score_metro_sheet(sheet)
    # station 5 belongs to seat 2 with 3 players; 16 is unused
    assert out == {
        "scores": [0, 0, 6],
        "routes": [
            {"station": 5, "player": 2, "tiles": 3, "central": True, "points": 6},
            {"station": 16, "player": None, "tiles": 1, "central": False, "points": 0},
        ],
    }


def test_sheet_full_game_matches_state() -> None:
    rec = record_of(seed=12, players=5)
    state = replay_metro_record(rec)
    sheet = {
        "game": "metro",
        "player_count": 5,
        "placements": [
            {"square": t["square"], "tile": state.board.tile_at(_sq(t["square"]))}
            for t in rec["turns"]
        ],
    }
    out = score_metro_sheet(sheet)
    assert out["scores"] == state.scores()
    assert len(out["routes"]) == 32


def _sq(name: str) -> int:
    return (int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0])


def test_sheet_options_forbidden() -> None:
    sheet = {
        "game": "metro",
        "player_count": 2,
        "placements": [{"square": "B1", "tile": "aaaa"}, {"square": "A1", "tile": "cccc"}],
        "options": {"one_tile_routes": "forbidden"},
    }
    with pytest.raises(IllegalActionError) as info:
        score_metro_sheet(sheet)
    assert info.value.reason == "one-tile-route" and info.value.where.turn == 2
    sheet["options"] = {"one_tile_routes": "allowed", "turn_mode": "hand"}
    assert score_metro_sheet(sheet)["scores"] == [0, 1]


SHEET_ERRORS: list[tuple[Any, type[Exception], str | None]] = [
    (None, RecordError, None),
    ({**CHECK_SHEET, "extra": 1}, RecordError, None),
    ({**CHECK_SHEET, "game": "london"}, RecordError, None),
    ({**CHECK_SHEET, "player_count": 7}, RecordError, None),
    ({**CHECK_SHEET, "player_count": "2"}, RecordError, None),
    ({**CHECK_SHEET, "player_count": True}, RecordError, None),
    ({k: v for k, v in CHECK_SHEET.items() if k != "placements"}, RecordError, None),
    ({**CHECK_SHEET, "placements": {"A1": "baac"}}, RecordError, None),
    ({**CHECK_SHEET, "placements": [{"square": "A1", "tile": "aaaa"}] * 61}, RecordError, None),
    ({**CHECK_SHEET, "placements": [{"square": "A1"}]}, NotationError, None),
    ({**CHECK_SHEET, "placements": ["draw"]}, NotationError, None),
    ({**CHECK_SHEET, "placements": [{"square": "A1", "tile": "zzzz"}]}, NotationError, None),
    ({**CHECK_SHEET, "options": {"speed": 1}}, NotationError, None),
    (
        {**CHECK_SHEET, "placements": [{"square": "D4", "tile": "aaaa"}]},
        IllegalActionError,
        "central-square",
    ),
    (
        {**CHECK_SHEET, "placements": [{"square": "C3", "tile": "aaaa"}]},
        IllegalActionError,
        "not-adjacent",
    ),
    (
        {**CHECK_SHEET, "placements": [{"square": "A1", "tile": "aaaa"}] * 2},
        IllegalActionError,
        "square-occupied",
    ),
    (
        {
            **CHECK_SHEET,
            "placements": [{"square": s, "tile": "cbcb"} for s in ["A1", "B1", "C1", "D1"]],
        },
        IllegalActionError,
        "no-tile-left",
    ),
]


@pytest.mark.parametrize(("sheet", "error", "reason"), SHEET_ERRORS)
def test_sheet_errors(sheet: Any, error: type[Exception], reason: str | None) -> None:
    with pytest.raises(error) as info:
        score_metro_sheet(sheet)
    if reason is not None:
        assert isinstance(info.value, IllegalActionError) and info.value.reason == reason


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(["game", "player_count", "placements", "options", "x"]), JSON)
def test_fuzz_sheets(key: str, value: Any) -> None:
    sheet = copy.deepcopy(CHECK_SHEET)
    sheet[key] = value
    with contextlib.suppress(MetrogamesError):
        score_metro_sheet(sheet)
