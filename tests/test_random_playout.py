"""The engines' fast random playouts give exactly the games of random bots asked one step at
a time through the protocol (``metrogames.core.playout.random_playout``): same actions, same
scores, for every game and option set — so ``simulate --bots random`` may use the fast path."""

from __future__ import annotations

import pytest

from metrogames.core.playout import random_playout, uniform_choice
from metrogames.core.rng import Rng
from metrogames.games import load_game

CASES = [
    ("london", 1, {}),
    ("london", 3, {}),
    ("london", 1, {"powers": "random", "objectives": "random"}),
    ("london", 4, {"powers": "random"}),
    ("paris", 1, {}),
    ("paris", 2, {"objectives": "random"}),
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


def test_playout_midway_continues_the_same_game() -> None:
    game = load_game("london", players=2, powers="random")
    state = game.new_game(99)
    random_playout(state, [Rng(1, "a"), Rng(2, "b")])
    partial = game.new_game(99)
    rngs = [Rng(1, "a"), Rng(2, "b")]
    for _ in range(25):  # part of the game one step at a time, the rest by the fast path
        movers = sorted(partial.to_move())
        if movers == [-1]:
            partial.apply_in_place(-1, partial.legal_actions(-1)[0], check=False)
            continue
        for p in movers:
            legal = partial.legal_actions(p)
            partial.apply_in_place(p, uniform_choice(rngs[p], legal, game.pass_action), check=False)
    partial.random_playout(rngs)
    assert partial.history() == state.history()


def test_playout_needs_one_generator_per_player() -> None:
    state = load_game("metro", players=3).new_game(1)
    with pytest.raises(ValueError, match="3 generators"):
        state.random_playout([Rng(1)])
