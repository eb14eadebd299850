"""The Metro board: placed tiles, the routes' trains, and scores kept incrementally.

Source: ``docs/engine-rules-metro.md``, "Placing a tile" and "Routes and scoring".

* The tiles are a ``bytearray`` of 64 squares (0 = empty, else tile type index + 1) beside two
  bitsets: ``occupied`` (squares with a tile) and ``frontier`` (empty, non-central squares that
  touch the edge or a placed tile: exactly the squares where a tile may go).
* Each edge station's train waits at one *position* (``sq * 8 + even endpoint``, see
  :mod:`~metrogames.games.metro.tiles`). ``waiting`` maps a position to the station index whose
  train waits there. Placing a tile on ``sq`` wakes the (at most 4) trains waiting on ``sq`` and
  moves each along the precomputed ``advance`` table until it reaches an empty square (it waits
  again) or an arrival (the route is complete and scores at once). Every tile crossing counts one
  tile, so a tile crossed twice by one route counts twice.
* :func:`recount` recomputes everything from the tiles alone, to keep the incremental values
  honest in tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.core.errors import IllegalActionError
from metrogames.games.metro.shapes import RouteJson
from metrogames.games.metro.tiles import CENTRAL_BASE, SQUARES, MetroData, square_name
from metrogames.i18n import N_, msg


@dataclass(frozen=True, slots=True)
class Route:
    """A completed route: edge ``station`` number (1–32), ``player`` owning it (``None`` for an
    unallocated station), ``tiles`` traversed (a tile crossed twice counts twice), whether it ends
    at a ``central`` station, the ``arrival`` code it reached, and ``points`` scored (tiles, ×2 at
    the centre; 0 for an unallocated station)."""

    station: int
    player: int | None
    tiles: int
    central: bool
    arrival: int
    points: int

    def to_json(self) -> RouteJson:
        """``{"station": 6, "player": 1, "tiles": 3, "central": false, "points": 3}`` (the
        ``score --json`` route shape of ``docs/notation.md``)."""
        return {
            "station": self.station,
            "player": self.player,
            "tiles": self.tiles,
            "central": self.central,
            "points": self.points,
        }


class MetroBoard:
    """Tiles on the board, the trains' positions and the scores. Mutable; states copy it.

    Args:
        data: the Metro data (:func:`~metrogames.games.metro.tiles.load_metro`).
        owners: per edge station index (0–31), the owning seat or -1 (unallocated).
        players: number of seats (scores has one entry per seat).

    Attributes:
        tiles: ``bytearray`` of 64: 0 for an empty square, else tile type index + 1.
        occupied: bitset of squares holding a tile.
        frontier: bitset of empty, non-central squares touching the edge or a tile.
        placed: number of tiles on the board (0–60).
        waiting: position -> edge station index, for every train not yet arrived.
        route_len: per edge station index, tiles traversed so far.
        route_end: per edge station index, 0 while running, else its arrival code (< 0).
        completed: edge station indices in the order their routes completed.
        scores: points per seat. longest: per seat, the longest completed route (tiles).
    """

    __slots__ = (
        "completed",
        "data",
        "frontier",
        "longest",
        "occupied",
        "owners",
        "placed",
        "route_end",
        "route_len",
        "scores",
        "tiles",
        "waiting",
    )

    def __init__(self, data: MetroData, owners: Sequence[int], players: int) -> None:
        self.data = data
        self.owners = tuple(owners)
        self.tiles = bytearray(SQUARES)
        self.occupied = 0
        self.frontier = data.edge_mask
        self.placed = 0
        self.waiting: dict[int, int] = {pos: k for k, pos in enumerate(data.departure_pos)}
        n = len(data.stations)
        self.route_len = [0] * n
        self.route_end = [0] * n
        self.completed: list[int] = []
        self.scores = [0] * players
        self.longest = [0] * players

    @classmethod
    def from_tiles(
        cls,
        data: MetroData,
        owners: Sequence[int],
        players: int,
        tiles: bytes | bytearray,
        completed: Sequence[int] | None = None,
    ) -> MetroBoard:
        """The board holding ``tiles`` (64 bytes: 0 empty, else tile type index + 1) with
        every train followed from its departure, as :meth:`place` would have left it.

        The tiles fix everything but the order in which routes completed: ``completed`` gives
        it (edge station indices), ``None`` means station order. The caller checks the tiles
        (no central square, each type within its count).

        Raises:
            ValueError: ``completed`` is not exactly the stations whose routes are complete.
        """
        board = cls(data, owners, players)
        board.tiles = bytearray(tiles)
        occupied = 0
        frontier = data.edge_mask
        for sq, t in enumerate(tiles):
            if t:
                occupied |= 1 << sq
                frontier |= data.neighbours[sq]
                board.placed += 1
        board.occupied = occupied
        board.frontier = frontier & ~occupied
        board.waiting = {}
        ended = []
        for k, start in enumerate(data.departure_pos):
            pos, board.route_len[k] = _follow(data, tiles, start)
            if pos < 0:
                board.route_end[k] = pos
                ended.append(k)
            else:
                board.waiting[pos] = k
        order = ended if completed is None else list(completed)
        if sorted(order) != ended:
            raise ValueError(
                f"completed stations {[k + 1 for k in order]} are not the stations whose routes "
                f"are complete on these tiles: {[k + 1 for k in ended]}"
            )
        for k in order:
            board._complete(k)
        return board

    def copy(self) -> MetroBoard:
        """An independent copy (tables shared, mutable parts copied)."""
        other = MetroBoard.__new__(MetroBoard)
        other.data = self.data
        other.owners = self.owners
        other.tiles = self.tiles[:]
        other.occupied = self.occupied
        other.frontier = self.frontier
        other.placed = self.placed
        other.waiting = self.waiting.copy()
        other.route_len = self.route_len[:]
        other.route_end = self.route_end[:]
        other.completed = self.completed[:]
        other.scores = self.scores[:]
        other.longest = self.longest[:]
        return other

    # -- legality --------------------------------------------------------------------------
    def legal_squares(self, tile: int, one_tile_forbidden: bool) -> int:
        """Bitset of the squares where tile type ``tile`` may go now (rules, "Placing a tile").

        With ``one_tile_forbidden``, squares making a one-tile route are removed unless no
        other square is left (the option's exception: only this tile's squares count).
        """
        free = self.frontier
        if one_tile_forbidden:
            ok = free & ~self.data.one_tile[tile]
            if ok:
                return ok
        return free

    def check_place(self, sq: int, tile: int, one_tile_forbidden: bool) -> None:
        """Raise unless tile type ``tile`` may go on square ``sq`` now.

        Raises:
            IllegalActionError: ``off-board`` (no such square), ``central-square``,
                ``square-occupied``, ``not-adjacent`` (touches neither the edge nor a tile),
                ``one-tile-route`` (option ``one_tile_routes: "forbidden"`` and another square
                is legal for this tile).
        """
        data = self.data
        if isinstance(sq, bool) or not isinstance(sq, int) or not 0 <= sq < SQUARES:
            raise IllegalActionError("off-board", f"square {sq!r} is not on the board")
        bit = 1 << sq
        code = data.tile_codes[tile]
        name = square_name(sq)
        if data.central_mask & bit:
            raise IllegalActionError.of(
                "central-square",
                msg(N_("{square} is a central-station square and takes no tile"), square=name),
            )
        if self.occupied & bit:
            held = data.tile_codes[self.tiles[sq] - 1]
            raise IllegalActionError.of(
                "square-occupied",
                msg(N_("square {square} already holds {tile}"), square=name, tile=held),
            )
        if not self.frontier & bit:
            raise IllegalActionError.of(
                "not-adjacent",
                msg(
                    N_(
                        "{tile} on {square}: the square touches neither the board edge nor a placed tile"
                    ),
                    tile=code,
                    square=name,
                ),
            )
        if (
            one_tile_forbidden
            and data.one_tile[tile] & bit
            and self.legal_squares(tile, True) != self.frontier
        ):
            station = next(
                st.number
                for st in data.stations
                if st.square == sq and data.advance[tile][sq * 8 + st.departure] < 0
            )
            raise IllegalActionError.of(
                "one-tile-route",
                msg(
                    N_(
                        "{tile} on {square} makes a one-tile route from station {station}, "
                        "and the tile has another legal square"
                    ),
                    tile=code,
                    square=name,
                    station=station,
                ),
            )

    # -- placing ---------------------------------------------------------------------------
    def place(self, sq: int, tile: int) -> None:
        """Put tile type ``tile`` on empty square ``sq`` (unchecked) and move every train it
        wakes; completed routes score at once (1 point per tile traversed, doubled at a
        central station) for the owner of their departure station."""
        self.tiles[sq] = tile + 1
        occupied = self.occupied | (1 << sq)
        self.occupied = occupied
        self.frontier = (self.frontier | self.data.neighbours[sq]) & ~occupied
        self.placed += 1
        pop = self.waiting.pop
        base = sq * 8
        k = pop(base, -1)
        if k >= 0:
            self._run(k, base, tile)
        k = pop(base + 2, -1)
        if k >= 0:
            self._run(k, base + 2, tile)
        k = pop(base + 4, -1)
        if k >= 0:
            self._run(k, base + 4, tile)
        k = pop(base + 6, -1)
        if k >= 0:
            self._run(k, base + 6, tile)

    def _run(self, k: int, pos: int, tile: int) -> None:
        """Move the train of station index ``k`` from entry ``pos`` onto tile ``tile``."""
        advance = self.data.advance
        tiles = self.tiles
        length = self.route_len[k]
        while True:
            length += 1
            pos = advance[tile][pos]
            if pos < 0:
                break
            nxt = tiles[pos >> 3]
            if not nxt:
                self.waiting[pos] = k
                self.route_len[k] = length
                return
            tile = nxt - 1
        self.route_len[k] = length
        self.route_end[k] = pos
        self._complete(k)

    def _complete(self, k: int) -> None:
        """Record the route of station index ``k`` (length and end set) as complete and score
        it for its owner."""
        self.completed.append(k)
        owner = self.owners[k]
        if owner >= 0:
            length = self.route_len[k]
            self.scores[owner] += length * 2 if self.route_end[k] <= CENTRAL_BASE else length
            self.longest[owner] = max(self.longest[owner], length)

    # -- reading ---------------------------------------------------------------------------
    def route(self, k: int) -> Route | None:
        """The completed route of edge station index ``k`` (number ``k + 1``), else ``None``."""
        end = self.route_end[k]
        if not end:
            return None
        return _route(k, self.owners[k], self.route_len[k], end)

    def routes(self) -> list[Route]:
        """Completed routes, in the order they completed."""
        return [r for k in self.completed if (r := self.route(k)) is not None]

    def tile_at(self, sq: int) -> str | None:
        """The tile code on square ``sq``, or ``None`` when empty."""
        t = self.tiles[sq]
        return self.data.tile_codes[t - 1] if t else None


def _follow(data: MetroData, tiles: bytes | bytearray, pos: int) -> tuple[int, int]:
    """Follow a train from entry position ``pos`` over the placed tiles: (the entry position
    of the empty square where it waits, or its arrival code; the tiles crossed)."""
    length = 0
    while pos >= 0 and (t := tiles[pos >> 3]):
        pos = data.advance[t - 1][pos]
        length += 1
    return pos, length


def _route(k: int, owner: int, length: int, end: int) -> Route:
    central = end <= CENTRAL_BASE
    return Route(
        k + 1,
        owner if owner >= 0 else None,
        length,
        central,
        end,
        0 if owner < 0 else (2 * length if central else length),
    )


def recount(
    data: MetroData, tiles: bytes | bytearray, owners: Sequence[int], players: int
) -> tuple[list[int], list[int], list[Route]]:
    """Recompute from the tiles alone: (scores per seat, longest completed route per seat,
    completed routes in station order). Trains are followed from each departure over the
    placed tiles; a route is complete when it reaches an arrival (rules, "Routes and scoring").
    """
    scores = [0] * players
    longest = [0] * players
    routes = []
    for k, start in enumerate(data.departure_pos):
        pos, length = start, 0
        while pos >= 0 and tiles[pos >> 3]:
            conn = data.conn[tiles[pos >> 3] - 1]
            sq, e = divmod(pos, 8)
            pos = data.step[sq * 8 + conn[e]]
            length += 1
        if pos >= 0:
            continue
        route = _route(k, owners[k], length, pos)
        routes.append(route)
        if route.player is not None:
            scores[route.player] += route.points
            longest[route.player] = max(longest[route.player], length)
    return scores, longest, routes
