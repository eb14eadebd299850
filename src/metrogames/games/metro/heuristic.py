"""Metro's position estimate for search bots (the registry's ``heuristic`` hook).

Source: ``docs/metro.md``, "Routes and scoring" (every route completes by the end and scores
its tiles, doubled at a central station). A player's estimate is their score so far plus the
expected final points of each open route they own (:func:`route_value`):

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
"""

from __future__ import annotations

from functools import cache

from metrogames.games.metro.state import TILES, MetroState
from metrogames.games.metro.tiles import CENTRAL_BASE, MetroData

LENGTH_WEIGHT = (1.35, 0.33)
"""``a = LENGTH_WEIGHT[0] + LENGTH_WEIGHT[1] * f``: points per tile of a route still open."""
OPEN_BONUS = (8.1, -1.6)
"""``b = OPEN_BONUS[0] + OPEN_BONUS[1] * f``: points a route still open is expected to add."""

_Exit = tuple[int, float, tuple[tuple[int, float], ...]]
"""(step, weight, ((tile type, weight), ...)): see :func:`exits`."""


@cache
def exits(data: MetroData) -> tuple[tuple[_Exit, ...], ...]:
    """Per entry position ``sq * 8 + e`` (even ``e``): the train's possible next steps when a
    tile goes on ``sq``, as ``(step, weight, types)``: ``step`` is where the train goes after
    that tile (the next entry position, or an arrival code < 0), ``weight`` the share of the
    60 tiles whose track from ``e`` leads there (the weights sum to 1) and ``types`` those
    tile types with their shares. Odd positions and central squares get ``()``."""
    total = sum(data.tile_counts)
    central = set(data.central_squares)
    out: list[tuple[_Exit, ...]] = []
    for pos in range(len(data.step)):
        sq, e = divmod(pos, 8)
        if e % 2 or sq in central:
            out.append(())
            continue
        groups: dict[int, list[tuple[int, float]]] = {}
        for t, (conn, count) in enumerate(zip(data.conn, data.tile_counts, strict=True)):
            groups.setdefault(conn[e], []).append((t, count / total))
        out.append(
            tuple(
                (data.step[sq * 8 + x], sum(w for _, w in types), tuple(types))
                for x, types in sorted(groups.items())
            )
        )
    return tuple(out)


def route_value(state: MetroState, pos: int, length: int) -> float:
    """The expected final points of an open route whose train waits at entry position ``pos``
    (an empty square's) after crossing ``length`` tiles; see the module docstring. A train that
    comes back to its own square crosses the new tile again (each tile type then counts
    apart)."""
    board = state.board
    tiles = board.tiles
    advance = state.data.advance
    share = (TILES - board.placed) / TILES
    a = LENGTH_WEIGHT[0] + LENGTH_WEIGHT[1] * share
    b = OPEN_BONUS[0] + OPEN_BONUS[1] * share
    home = pos >> 3
    value = 0.0
    for step, weight, types in exits(state.data)[pos]:
        p, crossed = _run(tiles, advance, step, length + 1)
        if p < 0 or p >> 3 != home:
            value += weight * _worth(p, crossed, a, b)
            continue
        for t, share_t in types:  # back on the new tile: its type decides
            q, n = p, crossed
            while q >= 0 and q >> 3 == home:
                q, n = _run(tiles, advance, advance[t][q], n + 1)
            value += share_t * _worth(q, n, a, b)
    return value


def _run(
    tiles: bytearray, advance: tuple[tuple[int, ...], ...], p: int, crossed: int
) -> tuple[int, int]:
    """Follow a train from entry position (or arrival) ``p`` over the placed tiles: where it
    stops (an empty square's entry, or an arrival code) and the tiles crossed by then."""
    while p >= 0 and (t := tiles[p >> 3]):
        p = advance[t - 1][p]
        crossed += 1
    return p, crossed


def _worth(p: int, crossed: int, a: float, b: float) -> float:
    """The points of a route that stopped at ``p`` after ``crossed`` tiles: known when it
    arrived (doubled at a central station), ``a * crossed + b`` when it waits again."""
    if p >= 0:
        return a * crossed + b
    return 2.0 * crossed if p <= CENTRAL_BASE else float(crossed)


def estimates(state: MetroState) -> list[float]:
    """Every player's estimated final score, in points: their score so far plus
    :func:`route_value` of each open route they own (the score itself once the game is over).
    """
    board = state.board
    out = [float(s) for s in board.scores]
    owners = board.owners
    lengths = board.route_len
    for pos, k in board.waiting.items():
        owner = owners[k]
        if owner >= 0:
            out[owner] += route_value(state, pos, lengths[k])
    return out


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
