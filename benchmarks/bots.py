"""Bot strength and time per decision, by level (``docs/performance.md``, "Bots").

Measurements, not tests. Run from the repository root::

    .venv/bin/python benchmarks/bots.py [--games london,paris,metro] [--levels easy,...]
        [--deals 200] [--first-deal 0] [--deal-seed 2026] [--metro-games 40] [--metro-versus-games N]
        [--workers 2] [--results games.jsonl [--resume]] [--json]

* London and Paris: every level plays the same solo deals (deal ``i`` is the deal of seed
  ``deal_seed + i``, the bot is seeded ``1 + i``: exactly ``metrogames deals london --games N
  --seed S --out deals.jsonl`` then ``metrogames simulate london --bots LEVEL --deals
  deals.jsonl``); the mean score, its 95 % confidence half-width and the mean difference to
  ``greedy`` on the same deals (paired). ``--first-deal k`` plays deals ``k .. k+deals-1``
  (a manifest measured in parts).
* Metro: each level's win rate in 2-player games against ``random`` in every turn mode, and
  for ``expert`` against ``medium`` (2 players) and against three ``medium`` bots (4 players),
  these first (``--metro-versus-games`` each); seats rotate game by game, shared wins count
  as a fraction.
* Time per decision: CPU time (``time.process_time``) of each ``decide`` call of the level's
  seat(s), mean and 95th percentile; one process per worker, so each figure is one core's.
* ``--results FILE``: every game's result is appended to ``FILE`` (JSON lines) as soon as it
  is played; with ``--resume`` the games already there are not played again (a long run
  stopped and continued gives the same figures).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metrogames.bots import Bot, make_bot
from metrogames.bots.play import play_bots
from metrogames.bots.valuesearch import ValueSearchBot
from metrogames.core.protocol import Action, State
from metrogames.games import game_engine, load_game

LEVEL_CODES = ("easy", "medium", "hard", "expert")
EXTRA_BOTS = {"valuesearch": ValueSearchBot}
"""Bots this benchmark plays beside the package's codes (the learned-value search, not a level:
kept out of the package's registry and its seat menus)."""
MODES = ("draw", "hand", "official-hand")


def bench_bot(code: str, seed: int) -> Bot:
    """The bot of ``code`` (a package code, or one of :data:`EXTRA_BOTS`) seeded with ``seed``."""
    extra = EXTRA_BOTS.get(code)
    return extra(seed) if extra is not None else make_bot(code, seed)


class Timed:
    """A bot whose ``decide`` calls are timed in CPU seconds."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.sees_state = bot.sees_state
        self.times: list[float] = []

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        start = time.process_time()
        action = self.bot.decide(state, player, legal_actions)
        self.times.append(time.process_time() - start)
        return action


@dataclass(frozen=True)
class Job:
    """One game: ``game`` and its options, bot codes by seat, the seats measured (scores,
    wins, decision times), the deal's seed and the bots' base seed (seat ``p``'s bot is
    seeded ``bot_seed + p``, as ``simulate`` seeds its seats)."""

    game: str
    options: tuple[tuple[str, str], ...]
    bots: tuple[str, ...]
    measured: tuple[int, ...]
    deal_seed: int
    bot_seed: int


def play_job(job: Job) -> dict[str, Any]:
    """Play one :class:`Job`; the measured seats' scores, wins and decision times."""
    rules = load_game(job.game, players=len(job.bots), **dict(job.options))
    state = game_engine(job.game).from_deal(rules.deal_record(job.deal_seed), len(job.bots))
    bots = [Timed(bench_bot(code, job.bot_seed + p)) for p, code in enumerate(job.bots)]
    play_bots(state, bots)
    winners = state.winners()
    scores = state.scores()
    return {
        "scores": [scores[p] for p in job.measured],
        "wins": sum(1 / len(winners) for p in job.measured if p in winners) / len(job.measured),
        "times": [t for p in job.measured for t in bots[p].times],
    }


class Store:
    """Per-game results, keyed by the job, kept in a JSON-lines file once opened."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.done: dict[str, dict[str, Any]] = {}

    def open(self, path: str | None, resume: bool) -> None:
        """Append the results to ``path``; ``resume``: first read the games it has."""
        self.path = path
        if path and resume:
            try:
                with open(path, encoding="utf-8") as lines:
                    for line in lines:
                        if line.strip():
                            row = json.loads(line)
                            self.done[row["key"]] = row["result"]
            except FileNotFoundError:
                pass

    def add(self, job: Job, result: dict[str, Any]) -> None:
        self.done[key(job)] = result
        if self.path:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"key": key(job), "result": result}) + "\n")


def key(job: Job) -> str:
    return json.dumps([job.game, job.options, job.bots, job.measured, job.deal_seed, job.bot_seed])


STORE = Store()


def run(jobs: list[Job], workers: int) -> list[dict[str, Any]]:
    todo = [job for job in jobs if key(job) not in STORE.done]
    if workers <= 1:
        for job in todo:
            STORE.add(job, play_job(job))
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for job, result in zip(todo, pool.imap(play_job, todo, chunksize=1), strict=True):
                STORE.add(job, result)
    return [STORE.done[key(job)] for job in jobs]


def timing(results: list[dict[str, Any]]) -> dict[str, float]:
    times = sorted(t for r in results for t in r["times"])
    if not times:
        return {"decisions": 0, "mean_s": 0.0, "p95_s": 0.0, "max_s": 0.0}
    return {
        "decisions": len(times),
        "mean_s": sum(times) / len(times),
        "p95_s": times[min(len(times) - 1, int(0.95 * len(times)))],
        "max_s": times[-1],
    }


def solo(
    game: str, levels: list[str], deals: range, deal_seed: int, workers: int
) -> list[dict[str, Any]]:
    """Each level (and ``greedy``, the paired reference) on the same solo deals (indices
    into the manifest)."""
    out = []
    reference: list[int] | None = None
    for code in ["greedy", *levels]:
        jobs = [Job(game, (), (code,), (0,), deal_seed + i, 1 + i) for i in deals]
        start = time.time()
        results = run(jobs, workers)
        scores = [r["scores"][0] for r in results]
        if code == "greedy":
            reference = scores
        assert reference is not None
        diffs = [a - b for a, b in zip(scores, reference, strict=True)]
        row = {
            "game": game,
            "bot": code,
            "deals": len(deals),
            "mean": mean(scores),
            "ci95": ci95(scores),
            "vs_greedy": mean(diffs),
            "vs_greedy_ci95": ci95(diffs),
            **timing(results),
            "wall_s": time.time() - start,
        }
        out.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return out


def metro(levels: list[str], games: int, versus: int, workers: int) -> list[dict[str, Any]]:
    """Win rates: expert against medium (2 players, draw mode) and against three mediums
    (4 players, draw mode), ``versus`` games each, first (the slowest and most telling);
    then each level against random (2 players, every turn mode), ``games`` games each."""
    matches: list[tuple[str, str, int, str, int]] = []  # (level, opponent, players, mode, n)
    if "expert" in levels:
        matches.append(("expert", "medium", 2, "draw", versus))
        matches.append(("expert", "medium", 4, "draw", versus))
    for code in levels:
        if code == "easy":
            continue
        for mode in MODES:
            matches.append((code, "random", 2, mode, games))
    out = []
    for code, opponent, players, mode, n in matches:
        jobs = []
        for i in range(n):
            seat = i % players
            bots = [opponent] * players
            bots[seat] = code
            options = (("turn_mode", mode),)
            jobs.append(Job("metro", options, tuple(bots), (seat,), 5000 + i, 1 + i * players))
        start = time.time()
        results = run(jobs, workers)
        wins = [r["wins"] for r in results]
        row = {
            "game": "metro",
            "bot": code,
            "opponent": opponent,
            "players": players,
            "turn_mode": mode,
            "games": n,
            "win_rate": mean(wins),
            "mean_score": mean([r["scores"][0] for r in results]),
            **timing(results),
            "wall_s": time.time() - start,
        }
        out.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return out


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def ci95(values: Sequence[float]) -> float:
    """Half-width of the normal 95 % confidence interval of the mean."""
    n = len(values)
    if n < 2:
        return 0.0
    m = mean(values)
    return 1.96 * math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1) / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="london,paris,metro")
    parser.add_argument("--levels", default=",".join(LEVEL_CODES))
    parser.add_argument("--deals", type=int, default=200, help="solo deals (London, Paris)")
    parser.add_argument("--first-deal", type=int, default=0, help="index of the first deal")
    parser.add_argument("--deal-seed", type=int, default=2026)
    parser.add_argument("--metro-games", type=int, default=40, help="games per Metro match")
    parser.add_argument(
        "--metro-versus-games",
        type=int,
        default=None,
        help="games of each expert-against-medium match (default: --metro-games)",
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--results", help="append every game's result to this JSON-lines file")
    parser.add_argument("--resume", action="store_true", help="skip the games --results has")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    STORE.open(args.results, args.resume)
    levels = [c for c in args.levels.split(",") if c]
    rows = []
    for game in args.games.split(","):
        if game == "metro":
            versus = args.metro_versus_games or args.metro_games
            rows += metro(levels, args.metro_games, versus, args.workers)
        else:
            deals = range(args.first_deal, args.first_deal + args.deals)
            rows += solo(game, levels, deals, args.deal_seed, args.workers)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        timed = f"mean {row['mean_s'] * 1000:.1f} ms, p95 {row['p95_s'] * 1000:.1f} ms"
        if row["game"] == "metro":
            print(
                f"metro {row['bot']:>7} vs {row['opponent']} ({row['players']}p, "
                f"{row['turn_mode']}): wins {row['win_rate']:.1%} of {row['games']}; {timed}"
            )
        else:
            print(
                f"{row['game']} {row['bot']:>7}: mean {row['mean']:.1f} ± {row['ci95']:.1f} "
                f"over {row['deals']} deals, vs greedy {row['vs_greedy']:+.1f} "
                f"± {row['vs_greedy_ci95']:.1f}; {timed}"
            )


if __name__ == "__main__":
    main()
