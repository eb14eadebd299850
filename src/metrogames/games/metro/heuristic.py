"""Metro's position estimate for search bots (the state's ``heuristic``: ``Evaluated``).

Source: ``docs/engine-rules-metro.md``, "Routes and scoring" (every route completes by the end and scores
its tiles, doubled at a central station). A player's estimate is their score so far plus the
expected final points of each open route they own (:func:`route_parts`):

* The train of an open route waits at an entry of an empty square. Whatever tile goes there,
  the train leaves by one of the square's four exits (each tile type's track from that entry;
  weighted by the 60 tiles' counts) and then follows the tiles already placed beyond it.
* An exit that then reaches an arrival **closes** the route: its points are known now (the
  tiles crossed, doubled at a central station). This is the risk of being closed short — or
  the chance to reach the centre.
* An exit that reaches another empty square **continues**: the route is worth
  ``a * length + b`` there, the expected final points of a route still open with that length
  in uniformly random play, fitted by least squares on 300 random 2-player games (about
  190 000 open routes): ``a = 1.35 + 0.33 f`` (the length counts more than once: long
  routes may still be doubled at the centre) and ``b = 8.1 - 1.6 f``, with ``f`` the share
  of the 60 tiles not yet placed.

Routes of unallocated stations are worth nothing to anybody. Once the game is over the
estimate is the final score. The estimate reads the board only (never a hand or the pile), so
it is the same on every determinization of a view.

Cost: a search asks for every child of a position, and a tile changes only the routes waiting
on its square or running into it; the parts of each board's routes are cached (by its tiles,
:data:`CACHE_SIZE` boards) and a child reuses its parent's for the others, so an estimate is a
few dozen additions plus one or two routes followed.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from metrogames.games.metro.board import MetroBoard
from metrogames.games.metro.tiles import CENTRAL_BASE, TILES, MetroData

if TYPE_CHECKING:
    from metrogames.games.metro.state import MetroState

LENGTH_WEIGHT = (1.35, 0.33)
"""``a = LENGTH_WEIGHT[0] + LENGTH_WEIGHT[1] * f``: points per tile of a route still open."""
OPEN_BONUS = (8.1, -1.6)
"""``b = OPEN_BONUS[0] + OPEN_BONUS[1] * f``: points a route still open is expected to add."""

_Exit = tuple[int, int, tuple[tuple[int, int], ...]]
"""(step, copies, ((tile type, copies), ...)): see :func:`exits`."""


@cache
def exits(data: MetroData) -> tuple[tuple[_Exit, ...], ...]:
    """Per entry position ``sq * 8 + e`` (even ``e``): the train's possible next steps when a
    tile goes on ``sq``, as ``(step, copies, types)``: ``step`` is where the train goes after
    that tile (the next entry position, or an arrival code < 0), ``copies`` how many of the
    60 tiles have a track from ``e`` leading there (they sum to 60) and ``types`` those tile
    types with their copies. Odd positions and central squares get ``()``."""
    central = set(data.central_squares)
    out: list[tuple[_Exit, ...]] = []
    for pos in range(len(data.step)):
        sq, e = divmod(pos, 8)
        if e % 2 or sq in central:
            out.append(())
            continue
        groups: dict[int, list[tuple[int, int]]] = {}
        for t, (conn, count) in enumerate(zip(data.conn, data.tile_counts, strict=True)):
            groups.setdefault(conn[e], []).append((t, count))
        out.append(
            tuple(
                (data.step[sq * 8 + x], sum(n for _, n in types), tuple(types))
                for x, types in sorted(groups.items())
            )
        )
    return tuple(out)


Parts = tuple[int, int, int, int, int, int]
"""What an open route's value is made of, for the train of edge station index ``k`` waiting
after ``length`` tiles: ``(k, length, closed, open_tiles, open_copies, needs)``, each sum over
the 60 tiles (exact integers, so that estimates never depend on the order they are added in).
Its value is ``(closed + a * open_tiles + b * open_copies) / 60`` (``a``, ``b``: see the module
docstring): ``closed`` sums the points of the tiles that complete it, ``open_tiles`` the tiles
crossed and ``open_copies`` the count of the tiles that leave it waiting again. ``needs`` is the
bitset of the squares whose filling would change these parts (its own square and where it
would wait again)."""

CACHE_SIZE = 4096
"""Boards whose route parts are kept (a search judges every child of a position: one tile
more changes only the routes waiting at or running into its square)."""

_PARTS: dict[tuple[int, bytes], dict[int, Parts]] = {}
"""(player count, tiles) -> entry position -> :data:`Parts`, oldest first."""


def route_parts(board: MetroBoard, pos: int, k: int) -> Parts:
    """The :data:`Parts` of the open route of edge station index ``k``, whose train waits at
    entry position ``pos`` (an empty square's). A train that comes back to its own square
    crosses the new tile again (each tile type then counts apart)."""
    tiles = board.tiles
    advance = board.data.advance
    length = board.route_len[k]
    home = pos >> 3
    closed = open_tiles = open_copies = 0
    needs = 1 << home
    for step, copies, types in exits(board.data)[pos]:
        p, crossed = _run(tiles, advance, step, length + 1)
        ends = [(copies, p, crossed)]
        if p >= 0 and p >> 3 == home:  # back on the new tile: its type decides
            ends = []
            for t, n_t in types:
                q, n = p, crossed
                while q >= 0 and q >> 3 == home:
                    q, n = _run(tiles, advance, advance[t][q], n + 1)
                ends.append((n_t, q, n))
        for n_copies, p, crossed in ends:
            if p >= 0:
                open_tiles += n_copies * crossed
                open_copies += n_copies
                needs |= 1 << (p >> 3)
            else:
                closed += n_copies * (2 * crossed if p <= CENTRAL_BASE else crossed)
    return (k, length, closed, open_tiles, open_copies, needs)


def _run(
    tiles: bytearray, advance: tuple[tuple[int, ...], ...], p: int, crossed: int
) -> tuple[int, int]:
    """Follow a train from entry position (or arrival) ``p`` over the placed tiles: where it
    stops (an empty square's entry, or an arrival code) and the tiles crossed by then."""
    while p >= 0 and (t := tiles[p >> 3]):
        p = advance[t - 1][p]
        crossed += 1
    return p, crossed


def board_parts(
    board: MetroBoard, parent: dict[int, Parts] | None, square: int
) -> dict[int, Parts]:
    """Entry position -> :data:`Parts` of every open route of an allocated station on
    ``board``; the parts of ``parent`` (the board before a tile went on ``square``) are
    reused for the routes that tile leaves alone."""
    out: dict[int, Parts] = {}
    owners = board.owners
    lengths = board.route_len
    for pos, k in board.waiting.items():
        if owners[k] < 0:
            continue
        old = parent.get(pos) if parent is not None else None
        if old is not None and old[0] == k and old[1] == lengths[k] and not old[5] >> square & 1:
            out[pos] = old
        else:
            out[pos] = route_parts(board, pos, k)
    return out


def _cached_parts(state: MetroState) -> dict[int, Parts]:
    """:func:`board_parts` of ``state``'s board, from the cache or built from its parent's
    (the board before the last placement; rebuilt from its tiles when not cached)."""
    board = state.board
    players = state.game.players
    tiles = bytes(board.tiles)
    found = _PARTS.get((players, tiles))
    if found is not None:
        return found
    square = state.last_square
    parent = None
    if square >= 0:
        before = bytearray(tiles)
        before[square] = 0
        parent = _PARTS.get((players, bytes(before)))
        if parent is None:
            rebuilt = MetroBoard.from_tiles(board.data, board.owners, players, before)
            parent = _remember(players, bytes(before), board_parts(rebuilt, None, -1))
    return _remember(players, tiles, board_parts(board, parent, square))


def _remember(players: int, tiles: bytes, parts: dict[int, Parts]) -> dict[int, Parts]:
    if len(_PARTS) >= CACHE_SIZE:
        for key in list(_PARTS)[: CACHE_SIZE // 4]:  # the oldest quarter
            _PARTS.pop(key, None)
    _PARTS[(players, tiles)] = parts
    return parts


def estimates(state: MetroState) -> list[float]:
    """Every player's estimated final score, in points: their score so far plus the expected
    final points of each open route they own (see :data:`Parts`); the score itself once the
    game is over."""
    board = state.board
    players = state.game.players
    sums = [[0, 0, 0] for _ in range(players)]  # closed, open tiles, open copies
    owners = board.owners
    for k, _, closed, open_tiles, open_copies, _ in _cached_parts(state).values():
        row = sums[owners[k]]
        row[0] += closed
        row[1] += open_tiles
        row[2] += open_copies
    share = (TILES - board.placed) / TILES
    a = LENGTH_WEIGHT[0] + LENGTH_WEIGHT[1] * share
    b = OPEN_BONUS[0] + OPEN_BONUS[1] * share
    total = sum(board.data.tile_counts)
    return [
        score + (closed + a * open_tiles + b * open_copies) / total
        for score, (closed, open_tiles, open_copies) in zip(board.scores, sums, strict=True)
    ]


_LAST: list[tuple[tuple[int, bytes], list[float]]] = []
"""The last :func:`estimates` :func:`metro_heuristic` computed, keyed by (player count, tiles):
the tiles fix every route, and a bot asks for each player of one state in turn."""


def metro_heuristic(state: MetroState, player: int) -> float:
    """``player``'s estimated final score in ``state`` (a full state or a view; it reads only
    the board), in points: :func:`estimates` ``[player]``.

    Raises:
        IndexError: ``player`` is not a seat of the game.
    """
    players = state.game.players
    if not 0 <= player < players:
        raise IndexError(f"no player {player} in a {players}-player game")
    key = (players, bytes(state.board.tiles))
    entry = _LAST[0] if _LAST else None
    if entry is None or entry[0] != key:
        entry = (key, estimates(state))
        _LAST[:] = [entry]
    return entry[1][player]
