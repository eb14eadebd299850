"""The engines' fast random playouts give exactly the games of random bots asked one step at
a time through the protocol (``metrogames.core.playout.random_playout``): same actions, same
scores, for every game and option set — so ``simulate --bots random`` may use the fast path."""

from __future__ import annotations

import pytest

from metrogames.core.playout import random_playout, uniform_choice
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games import load_game

CASES = [
    ("london", 1, {}),
    ("london", 3, {}),
    ("london", 1, {"powers": "random", "objectives": "random"}),
    ("london", 2, {"powers": "random", "objectives": "random"}),
    ("london", 4, {"powers": "random"}),
    ("paris", 1, {}),
    ("paris", 2, {"objectives": "random"}),
    ("paris", 4, {}),
    ("metro", 2, {}),
    ("metro", 3, {"turn_mode": "hand"}),
    ("metro", 5, {"turn_mode": "official-hand", "one_tile_routes": "forbidden"}),
]


@pytest.mark.parametrize(("name", "players", "options"), CASES, ids=str)
def test_fast_playout_equals_stepwise_play(name: str, players: int, options: dict) -> None:
    game = load_game(name, players=players, **options)
    for seed in range(1, 16):
        fast = game.new_game(seed)
        slow = game.new_game(seed)
        fast.random_playout([Rng(seed + p, "bot:random") for p in range(players)])
        random_playout(slow, [Rng(seed + p, "bot:random") for p in range(players)])
        assert fast.is_over() and slow.is_over()
        assert fast.history() == slow.history()
        assert fast.scores() == slow.scores()
        assert fast.winners() == slow.winners()


@pytest.mark.parametrize(
    ("name", "players", "options"),
    [("london", 2, {"powers": "random"}), ("london", 3, {}), ("paris", 3, {})],
    ids=str,
)
def test_playout_midway_continues_the_same_game(name: str, players: int, options: dict) -> None:
    """Started anywhere — mid-turn, between cards, after a switch — the fast path goes on
    with the draws of the stepwise loop."""
    game = load_game(name, players=players, **options)
    for seed, steps in enumerate([1, 2, 5, 9, 25, 26, 40, 77, 100, 150], start=90):
        state = game.new_game(seed)
        random_playout(state, [Rng(seed, f"{p}") for p in range(players)])
        partial = game.new_game(seed)
        rngs = [Rng(seed, f"{p}") for p in range(players)]
        for _ in range(steps):  # part of the game one step at a time, the rest by the fast path
            movers = sorted(partial.to_move())
            if not movers:
                break
            if movers == [CHANCE]:
                partial.apply_in_place(CHANCE, partial.legal_actions(CHANCE)[0], check=False)
                continue
            p = movers[0]  # one player at a time: the turn may be left in progress
            legal = partial.legal_actions(p)
            partial.apply_in_place(p, uniform_choice(rngs[p], legal, game.pass_action), check=False)
        partial.random_playout(rngs)
        assert partial.history() == state.history()
        assert partial.scores() == state.scores()


def test_a_generator_shared_by_seats_draws_in_the_stepwise_order() -> None:
    game = load_game("london", players=3)
    fast, slow = game.new_game(5), game.new_game(5)
    shared = Rng(1, "shared")
    fast.random_playout([shared] * 3)
    random_playout(slow, [Rng(1, "shared")] * 3)
    assert fast.history() == slow.history()


@pytest.mark.parametrize("name", ["london", "paris"])
def test_a_view_or_an_unknown_deck_is_refused_unchanged(name: str) -> None:
    game = load_game(name, players=2)
    state = game.new_game(3)
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    view = state.view(0)
    before = view.snapshot()
    with pytest.raises(ValueError, match="resample a view first"):
        view.random_playout([Rng(1), Rng(2)])
    assert view.snapshot() == before


def test_playout_needs_one_generator_per_player() -> None:
    state = load_game("metro", players=3).new_game(1)
    with pytest.raises(ValueError, match="3 generators"):
        state.random_playout([Rng(1)])
