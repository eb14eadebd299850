"""The engine benchmarks run (a few games each): their names, games and bot codes hold."""

from __future__ import annotations

import pytest

from metrogames.sim.bench import BENCHMARKS, measure


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_each_benchmark_plays_whole_games(name: str) -> None:
    game, bots = BENCHMARKS[name]
    assert name.startswith(f"{game}-{bots[0]}-")
    result = measure(game, bots, seconds=0.01, trials=1)
    assert result["games"] >= 1 and result["games_per_second"] > 0
    assert result["mean_score"] > 0


def test_the_fast_and_stepwise_random_games_are_the_same() -> None:
    """The ``*-random-*`` and ``*-stepwise-*`` rows play the same games: equal first game."""
    fast = measure("london", ("random",), seconds=0.0, trials=1)
    slow = measure("london", ("stepwise",), seconds=0.0, trials=1)
    assert fast["games"] == slow["games"] == 1
    assert fast["mean_score"] == slow["mean_score"]
