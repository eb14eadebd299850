"""Metro observations, built from one seat's view.

The encoder reads the game's observation facts of the view (``view.observe``: the game's
part of the view — board, own hand, drawn tile, open routes' trains, completed routes, scores,
pile size — and how many tiles each seat holds) and the drawing data (``board_json``: tile
types and counts, station allocations); the score and points fields are bounded by the game's
``score_range``. Seats are
*relative*: index 0 is the observing seat, index ``k`` the seat ``(seat + k) % players``; index
``players`` in the station and train fields stands for "no owner" (stations left unallocated
with 3 or 5 players). Every field is listed in ``docs/research.md``.
"""

from __future__ import annotations

from typing import TypedDict, cast

import numpy as np
from gymnasium import spaces

from metrogames.core.protocol import Action, Game, State
from metrogames.envs.common import encoder_facts, observation_facts

SQUARES = 64
SIDES = ("north", "east", "south", "west")
_SQUARE_INDEX = {
    f"{chr(ord('A') + col)}{row + 1}": row * 8 + col for row in range(8) for col in range(8)
}
"""A square's name (``docs/notation.md``: ``A1``–``H8``, the letter the column) -> its index
``row × 8 + col``."""


class TileFact(TypedDict):
    """A tile type of the drawing data: its ``code`` and how many copies the game has."""

    code: str
    count: int


class MetroBoard(TypedDict):
    """What the encoder reads of Metro's drawing data (``board_json``, ``docs/web-api.md``,
    "Boards"): the tile types, the edge stations, each player count's allocations (seat ->
    station numbers 1–32)."""

    tiles: list[TileFact]
    stations: list[object]
    allocations: dict[str, list[list[int]]]


class PlacedFact(TypedDict):
    """A tile on the board: its ``square`` and ``tile`` code."""

    square: str
    tile: str


class TrainFact(TypedDict):
    """An open route's train: its ``seat`` (``None``: unallocated), ``square``, ``side``, the
    ``tiles`` crossed."""

    seat: int | None
    square: str
    side: str
    tiles: int


class RouteFact(TypedDict):
    """A completed route: its edge ``station`` (1–32) and ``points``."""

    station: int
    points: int


class MetroFacts(TypedDict):
    """What the encoder reads of Metro's observation facts (``observe``: the game's part of the
    view and ``held``, each seat's count of held tiles; ``docs/research.md``)."""

    board: list[PlacedFact]
    hand: list[str]
    drawn: str | None
    held: list[int]
    pile: int
    trains: list[TrainFact]
    routes: list[RouteFact]
    scores: list[int]


class MetroEncoder:
    """Observation encoder of one Metro game (its options and player count).

    Attributes:
        space: the observation space (a :class:`gymnasium.spaces.Dict` of named fields).
        tiles: the tile codes in index order (the data file's order, the dense index).
        counts: how many copies of each tile the game has.
        stations: the number of edge stations (32).

    Raises:
        ValueError: (on construction) a game without observations, board data or score range.
    """

    def __init__(self, game: Game[Action]) -> None:
        facts, (_, high) = encoder_facts(game)
        board = cast(MetroBoard, facts)  # the game's documented document, not checked per game
        self.players = p = game.num_players
        self.tiles: list[str] = [t["code"] for t in board["tiles"]]
        self.counts = np.array([t["count"] for t in board["tiles"]], np.int8)
        self._tile = {code: i for i, code in enumerate(self.tiles)}
        self.stations = len(board["stations"])
        self._owner_of: list[int | None] = [None] * self.stations
        for s, numbers in enumerate(board["allocations"][str(p)]):
            for number in numbers:
                self._owner_of[number - 1] = s
        self._owners = [self._station_owner(seat) for seat in range(p)]
        n_tiles, most = len(self.tiles), int(self.counts.max())
        total = int(self.counts.sum())
        self.space = spaces.Dict(
            {
                "board": spaces.MultiBinary((8, 8, n_tiles)),
                "hand": spaces.Box(0, most, (n_tiles,), np.int8),
                "drawn": spaces.MultiBinary(n_tiles),
                "unseen": spaces.Box(0, most, (n_tiles,), np.int8),
                "hand_sizes": spaces.Box(0, total, (p,), np.int8),
                "pile": spaces.Box(0, total, (1,), np.int8),
                "to_move": spaces.MultiBinary(p),
                "trains": spaces.Box(0, 8, (p + 1, SQUARES, len(SIDES)), np.int8),
                "train_tiles": spaces.Box(0, high, (p + 1, SQUARES, len(SIDES)), np.int16),
                "station_owner": spaces.MultiBinary((self.stations, p + 1)),
                "route_done": spaces.MultiBinary(self.stations),
                "route_points": spaces.Box(0, high, (self.stations,), np.int16),
                "scores": spaces.Box(0, high, (p,), np.int16),
            }
        )

    def _relative(self, seat: int, other: int | None) -> int:
        """The relative index of ``other`` seen from ``seat`` (``players``: no owner)."""
        return self.players if other is None else (other - seat) % self.players

    def _trains(self, shown: list[TrainFact], seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``trains`` and ``train_tiles``: each waiting train counted at its owner, square
        and side (two trains can wait on one side), its tiles summed there."""
        shape = (self.players + 1, SQUARES, len(SIDES))
        where = np.array(
            [
                (self._relative(seat, t["seat"]) * SQUARES + _at(t["square"])) * len(SIDES)
                + SIDES.index(t["side"])
                for t in shown
            ],
            np.intp,
        )
        size = shape[0] * SQUARES * len(SIDES)
        trains = np.bincount(where, minlength=size).astype(np.int8).reshape(shape)
        tiles = np.bincount(where, np.array([t["tiles"] for t in shown]), minlength=size)
        return trains, tiles.astype(np.int16).reshape(shape)

    def _station_owner(self, seat: int) -> np.ndarray:
        """``station_owner`` seen from ``seat`` (fixed for the game: the allocation)."""
        owner = np.zeros((self.stations, self.players + 1), np.int8)
        owner[range(self.stations), [self._relative(seat, h) for h in self._owner_of]] = 1
        return owner

    def encode(self, view: State[Action], seat: int) -> dict[str, np.ndarray]:
        """The observation of ``seat`` from ``view`` — ``state.view(seat)``; a full state
        would show the seat what its view hides, so it is refused.

        Raises:
            ValueError: ``view`` is not ``seat``'s view.
        """
        shown = cast(MetroFacts, observation_facts(view, seat))  # not checked: a step's cost
        p, n_tiles = self.players, len(self.tiles)
        cells = np.zeros(SQUARES * n_tiles, np.int8)
        cells[[_at(x["square"]) * n_tiles + self._tile[x["tile"]] for x in shown["board"]]] = 1
        board = cells.reshape(8, 8, n_tiles)
        hand = np.zeros(n_tiles, np.int8)
        for code in shown["hand"]:
            hand[self._tile[code]] += 1
        drawn = np.zeros(n_tiles, np.int8)
        if shown["drawn"] is not None:
            drawn[self._tile[shown["drawn"]]] = 1
        hand_sizes = np.array([shown["held"][(seat + rel) % p] for rel in range(p)], np.int8)
        unseen = self.counts - board.sum(axis=(0, 1), dtype=np.int8) - hand - drawn
        to_move = np.zeros(p, np.int8)
        for mover in view.to_move():
            if mover >= 0:
                to_move[self._relative(seat, mover)] = 1
        trains, train_tiles = self._trains(shown["trains"], seat)
        station_owner = self._owners[seat].copy()
        route_done = np.zeros(self.stations, np.int8)
        route_points = np.zeros(self.stations, np.int16)
        done = [route["station"] - 1 for route in shown["routes"]]
        route_done[done] = 1
        route_points[done] = [route["points"] for route in shown["routes"]]
        all_scores = shown["scores"]
        scores = np.array([all_scores[(seat + rel) % p] for rel in range(p)], np.int16)
        return {
            "board": board,
            "hand": hand,
            "drawn": drawn,
            "unseen": unseen.astype(np.int8),
            "hand_sizes": hand_sizes,
            "pile": np.array([shown["pile"]], np.int8),
            "to_move": to_move,
            "trains": trains,
            "train_tiles": train_tiles,
            "station_owner": station_owner,
            "route_done": route_done,
            "route_points": route_points,
            "scores": scores,
        }


ENCODER = MetroEncoder
"""The family's encoder (:func:`metrogames.envs.common.encoder_for`)."""


def _at(name: str) -> int:
    """A square's index ``row × 8 + col`` (0-based) from its name."""
    return _SQUARE_INDEX[name]
