"""Playing bot games: one at a time or many in worker processes, with statistics.

The statistics hooks live here, not in the engine. Every game is reproducible: game ``i`` of a
run with base seed ``S`` is dealt from seed ``S + i`` and its bots are seeded ``S + i`` too.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypedDict

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.core.protocol import Action, JsonObject, JsonValue, State
from metrogames.games import game_engine, game_from_options


@dataclass(frozen=True)
class Task:
    """One game to play: game name, bot codes, seed (for the deal unless ``deal`` is given),
    options (JSON form), a deal record or ``None``, and whether to keep the record."""

    game: str
    bots: tuple[str, ...]
    seed: int
    options: JsonValue = None
    deal: JsonValue = None
    keep_record: bool = False


@dataclass(frozen=True)
class Result:
    """One finished game: scores (points per seat), winners, components per seat, record."""

    scores: list[int]
    winners: list[int]
    components: list[dict[str, int]]
    record: JsonObject | None


def start_state(task: Task) -> State[Action]:
    """The first state of ``task``'s game: its deal record's, else dealt from its seed.

    Raises:
        OptionError, RecordError, NotationError: a bad game, player count, options or deal.
    """
    n = len(task.bots)
    if task.deal is not None:
        return game_engine(task.game).from_deal(task.deal, n)
    return game_from_options(task.game, n, task.options).new_game(task.seed)


def run_task(task: Task) -> Result:
    """Play one :class:`Task` (also the worker function of :func:`run_many`)."""
    state = start_state(task)
    bots = [make_bot(code, task.seed + seat) for seat, code in enumerate(task.bots)]
    play_bots(state, bots)
    record = None
    if task.keep_record:
        names = [f"bot:{code}" for code in task.bots]
        seed = None if task.deal is not None else task.seed
        record = state.game.to_record(state, names, seed=seed, reveal=True)
    components = [state.score_components(p) for p in range(len(task.bots))]
    return Result([c["total"] for c in components], state.winners(), components, record)


def run_many(tasks: Sequence[Task], workers: int = 1) -> Iterator[Result]:
    """Results of ``tasks`` in input order, played in ``workers`` processes (1: this one;
    never more than the machine's CPUs or the number of tasks). Workers ignore Ctrl-C: the
    caller stops them by closing the iterator (the pool is terminated)."""
    workers = max(1, min(workers, os.cpu_count() or 1, len(tasks)))
    if workers == 1:
        yield from map(run_task, tasks)
        return
    import multiprocessing  # only here: one process needs none of it

    chunk = max(1, min(50, len(tasks) // (workers * 8) or 1))
    with multiprocessing.get_context("spawn").Pool(workers, initializer=_ignore_sigint) as pool:
        yield from pool.imap(run_task, tasks, chunksize=chunk)


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True)
class Stats:
    """Mean, standard deviation (population), min and max of a list of numbers."""

    mean: float
    std: float
    min: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Stats:
        if not values:
            return cls(0.0, 0.0, 0.0, 0.0)
        mean = sum(values) / len(values)
        var = sum((v - mean) ** 2 for v in values) / len(values)
        return cls(mean, math.sqrt(var), min(values), max(values))


class SeatSummary(TypedDict):
    """One seat's summary of a run (:func:`summarise`)."""

    score: Stats
    """The seat's final scores."""
    components: dict[str, float]
    """Each score component's mean."""
    wins: float
    """Games won, a shared victory counting as a fraction."""


def summarise(results: Sequence[Result], seats: int) -> list[SeatSummary]:
    """Per seat: ``{"score": Stats, "components": {name: mean}, "wins": float}`` (wins count
    shared victories as a fraction)."""
    out: list[SeatSummary] = []
    for seat in range(seats):
        scores = [float(r.scores[seat]) for r in results]
        names = list(results[0].components[seat]) if results else []
        comps = {
            name: sum(r.components[seat][name] for r in results) / len(results) for name in names
        }
        wins = sum(1 / len(r.winners) for r in results if seat in r.winners)
        out.append({"score": Stats.of(scores), "components": comps, "wins": wins})
    return out

