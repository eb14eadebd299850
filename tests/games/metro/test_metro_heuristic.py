"""Metro's heuristic hook (games/metro/heuristic.py) against values worked out another way.

The expected values below come from the engine itself: every tile type is actually placed on
the square where a route's train waits (``MetroBoard.place``, the rules engine), and the
route's fate read back — completed with its points, or waiting again with its length — then
weighted by the tile's count out of 60. The heuristic computes the same expectation from its
own tables without placing anything.
"""

from __future__ import annotations

import pytest

from metrogames.core.capabilities import Evaluated
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games import load_game
from metrogames.games.metro import MetroState
from metrogames.games.metro.heuristic import LENGTH_WEIGHT, OPEN_BONUS, metro_heuristic
from metrogames.games.metro.tiles import CENTRAL_BASE


def random_position(players: int, placed: int, seed: int) -> MetroState:
    """A draw-mode game after ``placed`` random placements (seeded)."""
    state = load_game("metro", players=players).new_game(seed)
    rng = Rng(seed, "test")
    assert isinstance(state, MetroState)
    while state.board.placed < placed:
        mover = state.to_move_player()
        legal = state.legal_actions(mover)
        state.apply_in_place(mover, legal[0] if mover == CHANCE else rng.choice(legal))
    return state


def by_placing_every_tile(state: MetroState) -> list[float]:
    """Each player's score plus, for each open route they own, the mean over the 60 tiles of
    what placing that tile on the route's waiting square does to it (engine placements)."""
    data = state.data
    board = state.board
    remaining = (60 - board.placed) / 60
    a = LENGTH_WEIGHT[0] + LENGTH_WEIGHT[1] * remaining
    b = OPEN_BONUS[0] + OPEN_BONUS[1] * remaining
    out = [float(s) for s in board.scores]
    for pos, k in board.waiting.items():
        owner = board.owners[k]
        if owner < 0:
            continue
        for t, count in enumerate(data.tile_counts):
            trial = board.copy()
            trial.place(pos // 8, t)
            end, length = trial.route_end[k], trial.route_len[k]
            worth = (  # waiting again, or arrived (doubled at a central station)
                a * length + b if end == 0 else 2 * length if end <= CENTRAL_BASE else length
            )
            out[owner] += count / 60 * worth
    return out


@pytest.mark.parametrize(
    ("players", "placed", "seed"), [(2, 0, 1), (2, 12, 2), (3, 30, 3), (4, 45, 4), (2, 59, 5)]
)
def test_estimate_is_the_expected_fate_of_each_open_route(
    players: int, placed: int, seed: int
) -> None:
    state = random_position(players, placed, seed)
    expected = by_placing_every_tile(state)
    got = [metro_heuristic(state, p) for p in range(players)]
    assert got == pytest.approx(expected, rel=1e-9)
    assert isinstance(state, Evaluated)
    assert state.heuristic(0) == got[0]  # the capability bots use


@pytest.mark.parametrize("mode", ["draw", "official-hand"])
def test_every_child_of_a_position_is_estimated_alike(mode: str) -> None:
    """A search asks for the position, then for each position one tile later: those reuse
    the parts of the routes the new tile leaves alone, and must still match the engine."""
    state = load_game("metro", players=3, turn_mode=mode).new_game(10)
    assert isinstance(state, MetroState)
    rng = Rng(10, "test")
    while state.board.placed < 20 or state.to_move_player() == CHANCE:
        mover = state.to_move_player()
        legal = state.legal_actions(mover)
        state.apply_in_place(mover, legal[0] if mover == CHANCE else rng.choice(legal))
        metro_heuristic(state, 0)  # every position on the way is cached, as in a search
    mover = state.to_move_player()
    for action in state.legal_actions(mover):
        child = state.apply(mover, action)
        while child.to_move_player() == CHANCE:
            child = child.apply(CHANCE, child.legal_actions(CHANCE)[0])
        if child.board.placed == state.board.placed:  # official-hand draw: place it too
            child = child.apply(mover, child.legal_actions(mover)[-1])
        got = [metro_heuristic(child, p) for p in range(3)]
        assert got == pytest.approx(by_placing_every_tile(child), rel=1e-9), action


def test_the_empty_board_in_numbers() -> None:
    """Before the first tile every train waits at its own edge square, at length 0. A tile
    there either completes the route at once (1 point, 2 at a centre — impossible from the
    edge) or sends it on at length 1, worth ``a + b`` with every tile left (f = 1):
    1.68 + 6.5 = 8.18 points. The 2-player seats own 16 stations each."""
    state = random_position(2, 0, 9)
    a, b = sum(LENGTH_WEIGHT), sum(OPEN_BONUS)
    assert a + b == pytest.approx(8.18)
    for p in range(2):
        value = metro_heuristic(state, p)
        assert 16 * 1.0 < value < 16 * (a + b)  # some tiles complete routes at once
    # a view (or any determinization) gets the same estimate: only the board is read
    assert metro_heuristic(state.view(0), 0) == metro_heuristic(state, 0)


def test_the_estimate_of_a_finished_game_is_its_score() -> None:
    state = random_position(3, 60, 6)
    assert state.is_over()
    assert [metro_heuristic(state, p) for p in range(3)] == [float(s) for s in state.scores()]


def test_a_player_who_is_not_seated_is_refused() -> None:
    state = random_position(2, 3, 7)
    with pytest.raises(IndexError, match="no player 2 in a 2-player game"):
        metro_heuristic(state, 2)
    with pytest.raises(IndexError, match="no player -1"):
        metro_heuristic(state, -1)
