"""Metro's winners on hand-built finished boards (``docs/engine-rules-metro.md``, "End"): the highest score
wins; among the tied, the longest completed route (in tiles); several winners when still tied.

Every position is a whole 2-player game: all 60 tiles, placed row by row (A1, B1, ..., H8) from a
pile in that order, through the public API (``MetroGame.from_pile``, ``apply``). Seat 0 owns the
odd stations, seat 1 the even ones (2-player allocation); stations are numbered anticlockwise
from H1's top side (1 on H1 north, 2 on G1 north, ..., 8 on A1 north, 9 on A1 west, ..., 16 on
A8 west, ..., 25 on H8 east, ..., 32 on H1 east).

How the scores were computed by hand. Tile endpoints: 0/1 north (west/east point), 2/3 east
(north/south), 4/5 south, 6/7 west; a train leaving at 3 enters the east neighbour at 6, at 7
the west neighbour at 2, at 5 the south neighbour at 0, at 1 the north neighbour at 4.

* Every edge square outside the *runs* below holds a tile that turns each of its stations'
  trains straight back into that station's own arrival (north stations: track 0-1; west: 6-7;
  south: 4-5; east: 2-3; a corner both): a one-tile route, 1 point, for all of those stations.
  No train ever leaves the edge squares, so the interior tiles (the rest of the 60, in code
  order) score nothing.
* A *run along the top row* of k squares X1..Xk (west to east): X1 ``bcbc`` (tracks 0-3, 2-1),
  the middle ones ``badb`` (0-3, 2-7, 6-1), Xk ``cbcb`` (0-7, 6-1) — or ``cddb`` on the H1 corner
  (0-7, 6-1, and 2-3 for station 32). The train of each Xi but the last goes east into X(i+1)
  and up into X(i+1)'s station: 2 tiles. Xk's train goes west through every square of the run
  and up into X1's station: k tiles.
* A *run down column A* of k squares (north to south): X1 ``ddbc`` (6-5, 4-7), the middle ones
  ``cdac`` (6-5, 0-7, 4-1), Xk ``cbcb`` (0-7, 6-1): each train but the last goes south into the
  next square and out of its station (2 tiles); Xk's train goes north through the run and out
  of X1's station (k tiles).

A 2-player board with only one-tile routes scores 16 each; a run adds 1 point per 2-tile route
and k - 1 for the k-tile route, to the owners of the stations involved (alternating seats).
"""

from __future__ import annotations

import pytest

from metrogames.core.protocol import CHANCE
from metrogames.games.metro import MetroGame, MetroState, metro_action_from_json

CENTRAL = "...."


def board_of(rows: str) -> list[tuple[str, str]]:
    """``(square, tile)`` of an 8-row picture (row 1 first; ``....``: a central square), in
    row order: the placement order of the game."""
    lines = rows.split()
    assert len(lines) == 64
    out = []
    for i, code in enumerate(lines):
        if code != CENTRAL:
            out.append((f"{'ABCDEFGH'[i % 8]}{i // 8 + 1}", code))
    assert len(out) == 60
    return out


def finished(rows: str) -> MetroState:
    """The 2-player game that places this board's tiles in row order (seats alternate)."""
    board = board_of(rows)
    state = MetroGame(2).from_pile([tile for _, tile in board])
    for square, tile in board:
        state = state.apply(CHANCE, tile)
        (player,) = state.to_move()
        state = state.apply(player, metro_action_from_json({"square": square, "tile": tile}))
    return state


POSITIONS = {
    # Runs: top B1-D1 (stations 7, 6 → 2 tiles; 5 → 3 tiles) and column A2-A4 (10, 11 → 2;
    # 12 → 3). Seat 0: 13 one-tile routes + 7 (2) + 5 (3) + 11 (2) = 20, longest 3.
    # Seat 1: 13 + 6 (2) + 10 (2) + 12 (3) = 20, longest 3. Still tied: both win.
    "tied-on-points-and-longest-route": (
        """
        dddd bcbc badb cbcb dacc dbba dbcd dddd
        ddbc aaaa aaaa aaaa aaaa aacb aacb adbb
        cdac aacb aacb acba acba acba acba adad
        cbcb adad baac .... .... baac baac cdac
        accd baac bbad .... .... bbbb bbbb adbb
        bbad bcbc bcbc cbaa cbaa cbaa cbaa ddbc
        accd cbcb cccc cccc dacc dbba dbcd cddb
        bcdd ccda dada ccda badb bcdd dada cddb
        """,
        {7: 2, 6: 2, 5: 3, 10: 2, 11: 2, 12: 3},
        [20, 20],
        [3, 3],
        [0, 1],
    ),
    # Runs: top B1-E1 (7, 6, 5 → 2 tiles; 4 → 4 tiles) and column A3-A5 (11, 12 → 2; 13 → 3).
    # Seat 0: 12 + 7 (2) + 5 (2) + 11 (2) + 13 (3) = 21, longest 3.
    # Seat 1: 13 + 6 (2) + 4 (4) + 12 (2) = 21, longest 4. The longest route decides: seat 1.
    "longest-route-decides-for-seat-1": (
        """
        dddd bcbc badb badb cbcb dacc dbba dddd
        accd aaaa aaaa aaaa aaaa aacb aacb adbb
        ddbc aacb aacb acba acba acba acba adad
        cdac accd baac .... .... baac baac cdac
        cbcb baac bbad .... .... bbbb bbbb adbb
        bbad bcbc bcbc cbaa cbaa cbaa cbaa ddbc
        dbcd cbcb cccc cccc dacc dbba dbcd adad
        bcdd ccda dada ccda cddb bcdd dada cddb
        """,
        {7: 2, 6: 2, 5: 2, 4: 4, 11: 2, 12: 2, 13: 3},
        [21, 21],
        [3, 4],
        [1],
    ),
    # Runs: top C1-F1 (6, 5, 4 → 2 tiles; 3 → 4 tiles) and column A2-A4 (10, 11 → 2; 12 → 3).
    # Seat 0: 13 + 5 (2) + 3 (4) + 11 (2) = 21, longest 4.
    # Seat 1: 12 + 6 (2) + 4 (2) + 10 (2) + 12 (3) = 21, longest 3. The longest decides: seat 0.
    "longest-route-decides-for-seat-0": (
        """
        dddd dacc bcbc badb badb cbcb dbba dddd
        ddbc aaaa aaaa aaaa aaaa aacb aacb adbb
        cdac aacb aacb acba acba acba acba adad
        cbcb accd baac .... .... baac baac cdac
        accd baac bbad .... .... bbbb bbbb adbb
        bbad bcbc bcbc cbaa cbaa cbaa cbaa ddbc
        dbcd cbcb cccc cccc dacc dbba dbcd adad
        bcdd ccda dada ccda cddb bcdd dada cddb
        """,
        {6: 2, 5: 2, 4: 2, 3: 4, 10: 2, 11: 2, 12: 3},
        [21, 21],
        [4, 3],
        [0],
    ),
    # Runs: top B1-D1 (7, 6 → 2; 5 → 3), top F1-H1 with cddb on H1 (3, 2 → 2; 1 → 3) and column
    # A3-A6 (11, 12, 13 → 2; 14 → 4). Seat 0: 10 + 7 (2) + 5 (3) + 3 (2) + 1 (3) + 11 (2) +
    # 13 (2) = 24, longest 3. Seat 1: 12 + 6 (2) + 2 (2) + 12 (2) + 14 (4) = 22, longest 4.
    # The score comes first: seat 0 wins with the shorter longest route.
    "the-score-comes-before-the-longest-route": (
        """
        dbcd bcbc badb cbcb dacc bcbc badb cddb
        accd aaaa aaaa aaaa aaaa aacb aacb adbb
        ddbc aacb aacb acba acba acba acba adad
        cdac accd baac .... .... baac baac adbb
        cdac baac bbad .... .... bbbb bbbb ddbc
        cbcb bcbc cbaa cbaa cbaa cbaa cbcb cddb
        bbad cccc cccc dacc dbba dbba dbcd adad
        dddd ccda bcdd dada ccda bcdd dada dddd
        """,
        {7: 2, 6: 2, 5: 3, 3: 2, 2: 2, 1: 3, 11: 2, 12: 2, 13: 2, 14: 4},
        [24, 22],
        [3, 4],
        [0],
    ),
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_winners_on_hand_built_boards(name: str) -> None:
    rows, long_routes, scores, longest, winners = POSITIONS[name]
    state = finished(rows)
    assert state.is_over()
    routes = state.routes()
    assert len(routes) == 32  # every edge station's route is complete at the end
    assert {r.station: r.tiles for r in routes if r.tiles != 1} == long_routes
    assert not any(r.central for r in routes)
    assert state.scores() == scores
    assert state.longest_routes() == longest
    assert state.winners() == winners
    # the engine's recount from the tiles alone agrees with its incremental scores
    recount_scores, recount_longest, _ = state.recount()
    assert (recount_scores, recount_longest) == (scores, longest)


def test_no_winner_before_the_end() -> None:
    rows = POSITIONS["tied-on-points-and-longest-route"][0]
    board = board_of(rows)
    state = MetroGame(2).from_pile([tile for _, tile in board])
    for square, tile in board[:59]:
        state = state.apply(CHANCE, tile)
        (player,) = state.to_move()
        state = state.apply(player, metro_action_from_json({"square": square, "tile": tile}))
    assert not state.is_over() and state.winners() == []
