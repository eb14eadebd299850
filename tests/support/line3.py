"""A test-only game, written against the protocol alone, to prove that a new game plugs in.

*Line 3*: two players take turns marking empty cells of a 3×3 grid (cells ``A1``–``C3``:
column letter, row number). Before each turn chance rolls a three-sided die that names the
row the mover must mark in (any empty cell when that row is full). Once the grid is full each
player scores 1 point per line of three of their own marks (rows, columns, diagonals); the
highest score wins, ties share the win. Player 0 moves first.

Actions are ``int`` cells 0–8 (``row * 3 + column``); chance outcomes are ``"row1"`` …
``"row3"``. Nothing is hidden, so a view is a read-only copy and a resample a plain copy.
Its family has no screen of its own in the browser: the generic screen draws it from the board
data's ``cells`` and the view's ``marks`` (``docs/web-api.md``, "Plug-in games").
Records: ``{"format": "metrogames/1", "game": "line3", "players": [...], "seed"?: n,
"moves": [[player, "B2" or "row2"], ...]}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self, cast

from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.core.playout import random_playout
from metrogames.core.protocol import (
    CHANCE,
    SPECTATOR,
    Game,
    GameType,
    JsonObject,
    JsonValue,
    State,
)
from metrogames.core.rng import Rng, check_seed
from metrogames.games import register_game, unregister_game

NAME = "line3"
ROWS = ("row1", "row2", "row3")
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
)  # fmt: skip
Move = int | str


def cell_name(cell: int) -> str:
    return "ABC"[cell % 3] + str(cell // 3 + 1)


def parse_cell(text: object) -> int:
    if isinstance(text, str) and len(text) == 2 and text[0] in "ABC" and text[1] in "123":
        return (int(text[1]) - 1) * 3 + "ABC".index(text[0])
    raise NotationError(f"not a cell of the 3×3 grid: {text!r:.30}")


def line_scores(board: Sequence[int]) -> list[int]:
    """Lines of three per player (board cells hold -1 or the player)."""
    return [sum(all(board[c] == p for c in line) for line in LINES) for p in (0, 1)]


@dataclass(frozen=True)
class Line3Game:
    num_players: int = 2

    @property
    def name(self) -> str:
        return NAME

    def options_json(self) -> JsonObject:
        return {}

    def new_game(self, seed: int) -> Line3State:
        return Line3State(self, check_seed(seed))

    @property
    def num_distinct_actions(self) -> int:
        return 9

    def action_index(self, action: Move) -> int:
        if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < 9:
            return action
        raise NotationError(f"not a Line 3 action: {action!r:.30}")

    def action_from_index(self, index: int) -> Move:
        return self.action_index(index)

    @property
    def max_chance_outcomes(self) -> int:
        return 3

    def chance_outcome_index(self, outcome: Move) -> int:
        if outcome in ROWS:
            return ROWS.index(cast(str, outcome))
        raise NotationError(f"not a Line 3 die roll: {outcome!r:.30}")

    def chance_outcome_from_index(self, index: int) -> Move:
        if 0 <= index < 3:
            return ROWS[index]
        raise NotationError(f"no die roll {index}")

    @property
    def pass_action(self) -> Move | None:
        return None

    def from_snapshot(self, text: str) -> Line3State:
        parts = text.split(" ")
        if len(parts) != 4 or parts[0] != "line3/1" or len(parts[1]) != 9:
            raise NotationError(f"not a Line 3 snapshot: {text!r:.40}")
        state = Line3State(self, None)
        state.board = ["-01".index(c) - 1 for c in parts[1]]
        state.row = int(parts[2])
        state.mover = int(parts[3])
        return state

    def to_record(
        self,
        state: State[Move],
        names: Sequence[str],
        *,
        seed: int | None = None,
        reveal: bool = False,
    ) -> JsonObject:
        moves: list[JsonValue] = [[p, state.action_to_string(p, a)] for p, a in state.history()]
        out: JsonObject = {"format": "metrogames/1", "game": NAME, "players": list(names)}
        if seed is not None:
            out["seed"] = seed
        out["moves"] = moves
        return out

    def deal_record(self, seed: int) -> JsonObject:
        return {"format": "metrogames/1", "game": NAME, "players": ["p0", "p1"], "seed": seed,
                "moves": []}  # fmt: skip


class Line3State:
    def __init__(self, game: Line3Game, seed: int | None) -> None:
        self._game = game
        self.seed = seed
        self.board = [-1] * 9
        self.row = -1  # the row rolled for this turn; -1: a roll is due
        self.mover = 0
        self.rolls = 0
        self._viewer: int | None = None
        self._history: list[tuple[int, Move]] = []

    @property
    def game(self) -> Game[Move]:
        return self._game

    @property
    def num_players(self) -> int:
        return 2

    @property
    def viewer(self) -> int | None:
        return self._viewer

    def to_move(self) -> frozenset[int]:
        if self.is_over():
            return frozenset()
        return frozenset((CHANCE,)) if self.row < 0 else frozenset((self.mover,))

    def _next_roll(self) -> str | None:
        if self.seed is None:
            return None
        return ROWS[Rng(self.seed, f"roll-{self.rolls}").below(3)]

    def legal_actions(self, player: int) -> list[Move]:
        if player not in self.to_move():
            return []
        if player == CHANCE:
            known = self._next_roll()
            return [known] if known is not None else list(ROWS)
        free = [c for c in range(9) if self.board[c] < 0]
        in_row = [c for c in free if c // 3 == self.row]
        return list(in_row or free)

    def is_legal(self, player: int, action: object) -> bool:
        try:
            return action in self.legal_actions(player)
        except Exception:
            return False

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        outcomes = self.legal_actions(CHANCE)
        return [(o, 1 / len(outcomes)) for o in outcomes]

    def apply(self, player: int, action: Move) -> Self:
        other = self.clone()
        other.apply_in_place(player, action)
        return other

    def apply_in_place(self, player: int, action: Move, check: bool = True) -> None:
        if check:
            if self._viewer is not None:
                raise IllegalActionError("hidden-information", "a view is read-only")
            if not self.is_legal(player, action):
                raise IllegalActionError("not-legal", f"{action!r:.30} is not legal now")
        if player == CHANCE:
            self.row = ROWS.index(cast(str, action))
            self.rolls += 1
        else:
            self.board[cast(int, action)] = player
            self.row = -1
            self.mover = 1 - player
        self._history.append((player, action))

    def random_playout(self, rngs: Sequence[Rng]) -> None:
        random_playout(self, rngs)

    def clone(self) -> Self:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.board = self.board[:]
        other._history = self._history[:]
        return other

    def is_over(self) -> bool:
        return min(self.board) >= 0

    def scores(self) -> list[int]:
        return line_scores(self.board)

    def score_components(self, player: int) -> dict[str, int]:
        return {"lines": self.scores()[player], "total": self.scores()[player]}

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        s = self.scores()
        return [p for p in (0, 1) if s[p] == max(s)]

    def history(self) -> list[tuple[int, Move]]:
        return self._history[:]

    def view(self, seat: int | None) -> Self:
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"no seat {seat}")
        other = self.clone()
        other._viewer = SPECTATOR if seat is None else seat
        other.seed = None  # future rolls are unknown to the players
        return other

    def resample(self, seat: int, rng: Rng) -> Self:
        other = self.clone()
        other._viewer = None
        other.seed = rng.next64()
        return other

    def snapshot(self) -> str:
        board = "".join("-01"[v + 1] for v in self.board)
        return f"line3/1 {board} {self.row} {self.mover}"

    def action_to_string(self, player: int, action: Move) -> str:
        return cast(str, action) if player == CHANCE else cell_name(cast(int, action))

    def string_to_action(self, player: int, text: str) -> Move:
        if player == CHANCE:
            self._game.chance_outcome_index(text)
            return text
        return parse_cell(text)

    def action_to_json(self, player: int, action: Move) -> JsonValue:
        return self.action_to_string(player, action)

    def action_from_json(self, player: int, value: object) -> Move:
        if not isinstance(value, str):
            raise NotationError(f"a Line 3 action is a string, not {value!r:.30}")
        return self.string_to_action(player, value)

    def view_json(self, you: int | None) -> JsonObject:
        """``Presented``: the game's part of a view: ``scores``, ``marks`` (cell name -> the
        seat that marked it) and the ``row`` the die named for this turn (1–3, ``None`` before
        the roll)."""
        return {
            "scores": self.scores(),
            "marks": {cell_name(c): v for c, v in enumerate(self.board) if v >= 0},
            "row": self.row + 1 if self.row >= 0 else None,
        }


class Line3Engine:
    """The engine behind ``line3`` (``Engine``, with ``Boards`` and ``ScoreSheets``)."""

    def make(self, players: int, options: JsonObject) -> Line3Game:
        return Line3Game()

    def record_start(self, record: object) -> Line3State:
        if not isinstance(record, dict) or record.get("game") != NAME:
            raise RecordError("not a Line 3 record")
        seed = record.get("seed")
        return Line3State(Line3Game(), seed if isinstance(seed, int) else None)

    def replay(self, record: object) -> Line3State:
        state = self.record_start(record)
        moves = cast(dict[str, object], record).get("moves")
        if not isinstance(moves, list):
            raise RecordError('a Line 3 record needs "moves"')
        for entry in moves:
            player, text = entry
            state.apply_in_place(player, state.string_to_action(player, text))
        return state

    def from_deal(self, deal: object, players: int) -> Line3State:
        return self.record_start(deal)

    def score_sheet(self, sheet: object) -> JsonObject:
        return {"total": 0}

    def board_json(self) -> JsonObject:
        """The drawing data: the grid and its cells (``docs/web-api.md``, "Plug-in games")."""
        cells: list[JsonValue] = [
            {"name": cell_name(c), "col": c % 3, "row": c // 3} for c in range(9)
        ]
        return {"game": NAME, "title": "Line 3", "grid": {"columns": 3, "rows": 3}, "cells": cells}


class BareState(Line3State):
    """A Line 3 state without the optional state capabilities (a capability set to ``None``
    is one the class lacks): no view JSON."""

    view_json = None  # type: ignore[assignment]


class BareGame(Line3Game):
    def new_game(self, seed: int) -> BareState:
        return BareState(self, check_seed(seed))


class BareEngine(Line3Engine):
    """The same game without any optional capability: no board data, no score sheets, states
    without view JSON."""

    board_json = None  # type: ignore[assignment]
    score_sheet = None  # type: ignore[assignment]

    def make(self, players: int, options: JsonObject) -> BareGame:
        return BareGame()

    def record_start(self, record: object) -> BareState:
        return BareState(BareGame(), super().record_start(record).seed)


LINE3 = GameType(
    name=NAME,
    title="Line 3",
    players=range(2, 3),
    dynamics="sequential",
    options={},
)


GAME = (LINE3, Line3Engine())
"""The plug-in: the game's facts and its engine (``METROGAMES_GAMES=support.line3:GAME``)."""


def register() -> None:
    register_game(*GAME)


def unregister() -> None:
    unregister_game(NAME)
