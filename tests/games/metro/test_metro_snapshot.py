"""Metro position snapshots (docs/notation.md, "Position snapshot: Metro").

At every step of seeded random games (every turn mode, both one-tile options, 2–6 players) the
snapshot of the full state, of each seat's view and of the spectator's view reads back to a
state that writes the same snapshot, shows the same position (legal actions of every player and
chance, chance outcomes, scores, routes in completion order, hands...), has the board the
incremental play built (trains, route lengths, scores) and plays on identically. Bad snapshots
are refused with an error naming the problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from metrogames.core.errors import NotationError
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.metro import (
    MetroAction,
    MetroBoard,
    MetroGame,
    MetroOptions,
    MetroState,
    load_metro,
)

DATA = load_metro()
MODES = ("draw", "hand", "official-hand")
NOTATION = Path(__file__).resolve().parents[3] / "docs" / "notation.md"


def all_games() -> Iterator[MetroGame]:
    """Every turn mode and one-tile option, players 2–6 spread over them."""
    for mode in MODES:
        for forbid, counts in (("allowed", (2, 4, 6)), ("forbidden", (3, 5))):
            for n in counts:
                yield MetroGame(n, MetroOptions(mode, forbid))


def observe(state: MetroState) -> tuple[object, ...]:
    """Everything a reader of the state can ask, history and last_completed excepted."""
    n = state.num_players
    return (
        state.to_move(),
        [state.legal_actions(p) for p in (CHANCE, *range(n))],
        state.chance_outcomes(),
        state.scores(),
        state.longest_routes(),
        state.routes(),
        [state.score_components(p) for p in range(n)],
        [state.hand(p) for p in range(n)],
        state.drawn_tile,
        state.viewer,
        state.seed,
        state.known_pile(),
        state.unseen_tiles(),
        state.winners(),
        (state.current, state.phase, state.dealt, state.drawn_count, state.turn),
    )


def board_fields(board: MetroBoard) -> tuple[object, ...]:
    return (
        bytes(board.tiles),
        board.occupied,
        board.frontier,
        board.placed,
        board.waiting,
        board.route_len,
        board.route_end,
        board.completed,
        board.scores,
        board.longest,
    )


def check_round_trip(state: MetroState) -> MetroState:
    text = state.snapshot()
    assert text.isascii() and "\n" not in text and text.startswith("metro/1 ")
    read = state.game.from_snapshot(text)
    assert read.snapshot() == text
    assert observe(read) == observe(state)
    assert board_fields(read.board) == board_fields(state.board)
    assert read.history() == [] and read.last_completed() == []
    return read


def test_snapshots_round_trip_at_every_step() -> None:
    for k, game in enumerate(all_games()):
        state = game.new_game(800 + k)
        rng = Rng(800 + k, "snapshot test")
        seats = [*range(game.players), None]
        while True:
            read = check_round_trip(state)
            for seat in seats:
                seen = state.view(seat)
                read_view = check_round_trip(seen)
                if seat is not None and not state.is_over():
                    again = Rng(k, "resample")
                    same = seen.resample(seat, Rng(k, "resample"))
                    assert read_view.resample(seat, again).snapshot() == same.snapshot()
            if state.is_over():
                break
            (player,) = state.to_move()
            action = rng.choice(state.legal_actions(player))
            state.apply_in_place(player, action, check=True)
            read.apply_in_place(player, action, check=True)  # plays on identically
            assert read.snapshot() == state.snapshot()
            if isinstance(action, MetroAction) and not action.is_draw:  # a placement
                assert read.last_completed() == state.last_completed()


def test_a_snapshot_plays_to_the_same_end() -> None:
    for k, game in enumerate(all_games()):
        state = game.new_game(900 + k)
        rng = Rng(900 + k, "midgame")
        for _ in range(50):
            (player,) = state.to_move()
            state.apply_in_place(player, rng.choice(state.legal_actions(player)))
        read = game.from_snapshot(state.snapshot())
        while not state.is_over():
            (player,) = state.to_move()
            action = rng.choice(state.legal_actions(player))
            assert read.legal_actions(player) == state.legal_actions(player)
            state.apply_in_place(player, action)
            read.apply_in_place(player, action, check=True)
            assert read.last_completed() == state.last_completed()
        assert read.scores() == state.scores() and read.winners() == state.winners()
        assert read.routes() == state.routes()
        assert board_fields(read.board) == board_fields(state.board)


def test_from_tiles_rebuilds_the_incremental_board() -> None:
    """MetroBoard.from_tiles equals the board built placement by placement (with the route
    order given), and agrees with the independent recount in station order."""
    for k, game in enumerate(all_games()):
        state = game.new_game(50 + k)
        rng = Rng(50 + k, "board")
        owners = DATA.owners(game.players)
        while not state.is_over():
            (player,) = state.to_move()
            state.apply_in_place(player, rng.choice(state.legal_actions(player)))
            board = state.board
            rebuilt = MetroBoard.from_tiles(
                DATA, owners, game.players, board.tiles, board.completed
            )
            assert board_fields(rebuilt) == board_fields(board)
            station_order = MetroBoard.from_tiles(DATA, owners, game.players, board.tiles)
            assert station_order.routes() == state.recount()[2]
            assert station_order.scores == state.recount()[0]


def documented_example() -> str:
    text = NOTATION.read_text(encoding="utf-8")
    section = text.split("## Position snapshot: Metro", 1)[1]
    found = re.search(r"^metro/1 .*$", section, re.MULTILINE)
    assert found is not None
    return found.group(0)


def test_the_documented_example_is_the_check_value_position() -> None:
    """docs/notation.md's example: the rules' check value (baac A1, aaaa B1, cbaa C1; station
    6's route into station 9 scores 3 for seat 1), then cccc drawn for player 1."""
    game = MetroGame(2)
    state = game.from_pile(["baac", "aaaa", "cbaa", "cccc"])
    for code, square in (("baac", 0), ("aaaa", 1), ("cbaa", 2)):
        state.apply_in_place(CHANCE, code)
        (player,) = state.to_move()
        state.apply_in_place(player, state.string_to_action(player, f"{code} {'ABC'[square]}1"))
    state.apply_in_place(CHANCE, "cccc")
    assert state.scores() == [0, 3]
    assert state.snapshot() == documented_example()
    read = game.from_snapshot(documented_example())
    assert read.scores() == [0, 3] and read.drawn_tile == "cccc" and read.to_move() == {1}


def hand_snapshot() -> MetroState:
    """A 3-player hand-mode game after the deal and four turns (player 1 to draw)."""
    state = MetroGame(3, MetroOptions("hand")).new_game(12)
    rng = Rng(12, "bad")
    while state.board.placed < 4 or state.to_move() != {CHANCE}:
        (player,) = state.to_move()
        state.apply_in_place(player, rng.choice(state.legal_actions(player)))
    return state


def with_field(text: str, index: int, value: str) -> str:
    fields = text.split(" ")
    fields[index] = value
    return " ".join(fields)


def with_square(text: str, square: str, letter: str) -> str:
    fields = text.split(" ")
    rows = [list(r) for r in fields[3].split("/")]
    rows[int(square[1]) - 1]["ABCDEFGH".index(square[0])] = letter
    fields[3] = "/".join("".join(r) for r in rows)
    return " ".join(fields)


def test_bad_snapshots_are_refused_naming_the_problem() -> None:
    state = hand_snapshot()
    good = state.snapshot()
    game = state.game
    fields = good.split(" ")
    hands = fields[5].split("/")
    assert game.from_snapshot(good).snapshot() == good
    empty_square = next(
        f"{'ABCDEFGH'[sq % 8]}{sq // 8 + 1}"
        for sq in range(64)
        if not state.board.tiles[sq]
        and sq not in DATA.central_squares
        and sq % 8 not in (0, 7)
        and sq // 8 not in (0, 7)
    )
    bad = {
        "chess/1" + good[len("metro/1") :]: "not a Metro snapshot",
        "metro/2" + good[len("metro/1") :]: "unknown Metro snapshot version",
        good + " ": "14 fields",
        good.replace(" ", "  ", 1): "fields",
        with_field(good, 1, "4"): "4-player",
        with_field(good, 2, "draw,allowed"): "options draw,allowed",
        with_field(good, 2, "hand"): "turn_mode,one_tile_routes",
        with_field(good, 3, fields[3][:-1]): "8 rows",
        with_square(good, "H8", "z"): "not a tile letter",
        with_square(good, "D4", "A"): "central-station square",
        with_square(good, empty_square, "A"): "touches neither the edge",
        with_field(good, 4, "?"): "only a view hides the pile",
        with_field(good, 4, "AAAAA" + fields[4][5:]): "only 4 exist",
        with_field(good, 10, str(int(fields[10]) + 1)): "drawn count",
        with_field(good, 5, "/".join(["?", *hands[1:]])): "hides no tile",
        with_field(good, 5, "/".join(hands[:2])): "2 hands for 3 players",
        with_field(with_field(good, 5, f"{hands[0]}/{hands[1]}/-"), 6, hands[2]): (
            "a drawn tile in phase draw"
        ),
        with_field(good, 7, "2"): "player 2 to play",
        with_field(good, 7, "9"): "not in 0-2",
        with_field(good, 8, "replace"): "phase replace",
        with_field(good, 8, "later"): "not one of",
        with_field(good, 9, "1"): "dealt",
        with_field(good, 10, "07"): "not a number",
        with_field(good, 11, "32"): "routes",
        with_field(good, 12, str(int(fields[12]) + 1)): "seed",
        with_field(good, 13, "0"): "a view hides the pile",
        with_field(good, 13, "watcher"): "not a number",
        good.replace("metro/1", "metro/1\u00e9"): "printable ASCII",
        good + "\n": "printable ASCII",
        "metro/1 " + "x" * 700: "at most",
    }
    for text, problem in bad.items():
        with pytest.raises(NotationError, match=re.escape(problem)):
            game.from_snapshot(text)
    with pytest.raises(NotationError, match="must be text"):
        game.from_snapshot(None)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="a view has no seed"):
        game.from_snapshot(with_field(state.view(0).snapshot(), 12, "12"))
    view = state.view(0).snapshot()
    with pytest.raises(NotationError, match="shows no other hand"):
        game.from_snapshot(with_field(view, 5, "/".join(hands)))
    with pytest.raises(NotationError, match="own hand hides no tile"):
        game.from_snapshot(with_field(view, 5, "?/?/?"))


def test_impossible_turns_are_refused() -> None:
    draw = MetroGame(2)
    start = draw.new_game(3).snapshot()
    assert draw.from_snapshot(start).to_move() == {CHANCE}
    for index, value, problem in (
        (8, "place", "phase place without a drawn tile"),
        (8, "deal", "phase deal"),
        (8, "over", "phase over with 0 tiles"),
        (5, "A/-", "players hold no tile"),
        (7, "1", "player 1 to play after 0 placements"),
    ):
        text = with_field(start, index, value)
        if index == 5:
            text = with_field(with_field(text, 10, "1"), 12, "-")
            text = with_field(text, 4, "-")
        with pytest.raises(NotationError, match=re.escape(problem)):
            draw.from_snapshot(text)
    official = MetroGame(2, MetroOptions("official-hand"))
    state = official.new_game(3)
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    dealing = state.snapshot()  # one tile dealt
    with pytest.raises(NotationError, match="tiles dealt in phase deal"):
        official.from_snapshot(with_field(dealing, 9, "0"))
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    state.apply_in_place(0, state.legal_actions(0)[0])  # the held tile: replace is due
    text = state.snapshot()
    assert state.phase == "replace" and official.from_snapshot(text).to_move() == {CHANCE}
    with pytest.raises(NotationError, match=re.escape("hands [0, 1] in phase replace")):
        official.from_snapshot(with_field(text, 7, "1"))
