"""Engine benchmarks: games per second on one core (``metrogames bench``).

Measurements, not tests: the figures go in ``docs/performance.md``. Each benchmark
plays whole games (deal included) from consecutive seeds for about the requested CPU time, as
``simulate`` does: ``*-random-*`` tables are played by the engine's fast path
(``state.random_playout``), ``*-greedy-*`` through the bot interface and the unchecked
``apply_in_place``; ``*-stepwise-*`` plays the same random games one protocol step at a time
(:func:`metrogames.core.playout.random_playout`), to show what the fast path saves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypedDict

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.core.playout import random_playout
from metrogames.core.rng import Rng
from metrogames.games import load_game

# name -> (game, bot codes); the bot code "stepwise" is a random bot asked one step at a time
BENCHMARKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "london-random-solo": ("london", ("random",)),
    "london-stepwise-solo": ("london", ("stepwise",)),
    "london-greedy-solo": ("london", ("greedy",)),
    "london-random-4p": ("london", ("random",) * 4),
    "paris-random-solo": ("paris", ("random",)),
    "paris-stepwise-solo": ("paris", ("stepwise",)),
    "paris-greedy-solo": ("paris", ("greedy",)),
    "metro-random-2p": ("metro", ("random",) * 2),
    "metro-random-6p": ("metro", ("random",) * 6),
    "metro-stepwise-2p": ("metro", ("stepwise",) * 2),
    "metro-greedy-2p": ("metro", ("greedy",) * 2),
}


class Measurement(TypedDict):
    """One benchmark's figures (``bench --json``, ``docs/performance.md``)."""

    games: int
    seconds: float
    """The CPU time asked for."""
    games_per_second: float
    """The best trial's rate."""
    median_games_per_second: float
    mean_score: float
    """Seat 0's mean final score (the same for the same code: a check on the games)."""


class Benchmark(Measurement):
    """A named benchmark's figures (:data:`BENCHMARKS`)."""

    name: str


def measure(game: str, bots: tuple[str, ...], seconds: float, trials: int = 5) -> Measurement:
    """Play games of ``game`` with ``bots`` for about ``seconds`` of CPU time, split into
    ``trials`` runs; the rate is the best run's (the least disturbed by other processes on a
    shared machine), and the median run's is given beside it."""
    n = len(bots)
    rules = load_game(game, players=n)
    played = 0
    total = 0
    rates = []
    for _ in range(trials):
        start = time.process_time()
        deadline = start + seconds / trials
        count = 0
        while True:
            seed = played + 1
            state = rules.new_game(seed)
            if bots[0] == "stepwise":
                random_playout(state, [Rng(seed + i, "bot:random") for i in range(n)])
            else:
                play_bots(state, [make_bot(code, seed + i) for i, code in enumerate(bots)])
            total += state.scores()[0]
            played += 1
            count += 1
            now = time.process_time()
            if now >= deadline:
                break
        rates.append(count / (now - start))
    rates.sort()
    return {
        "games": played,
        "seconds": seconds,
        "games_per_second": rates[-1],
        "median_games_per_second": rates[len(rates) // 2],
        "mean_score": total / played,
    }


def run_benchmarks(
    names: list[str], seconds: float, log: Callable[[str], None] = lambda _: None
) -> list[Benchmark]:
    """Run the named benchmarks in order; ``log`` hears about each one as it starts."""
    results: list[Benchmark] = []
    for name in names:
        game, bots = BENCHMARKS[name]
        log(f"{name}: {seconds:g} s ...")
        results.append({"name": name, **measure(game, bots, seconds)})
    return results
