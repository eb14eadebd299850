"""Hindsight on solo deals: the greedy bot's score against the best line found with the whole
deck known (``metrogames analyse``), the game's upper bound of the score on the deal, and the
analysis time.

Measurements, not tests. Run from the repository root::

    .venv/bin/python benchmarks/hindsight.py [--game london] [--deals 20] [--deal-seed 2026]
        [--budget normal] [--json]

Deal ``i`` is the deal of seed ``deal_seed + i``; the greedy bot, seeded ``1 + i``, plays it
(as ``benchmarks/bots.py`` does), and its record is analysed with the named budget
(:data:`metrogames.bots.analysis.BUDGETS`). Times are CPU seconds (``time.process_time``) of
the search and of the Monte Carlo ranking of the player's decisions, one core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS, check_record
from metrogames.bots.hindsight import player_losses, search_best
from metrogames.bots.play import play_bots
from metrogames.core.capabilities import ScoreBounded
from metrogames.games import load_game


def one(game: str, seed: int, bot_seed: int, budget: str) -> dict[str, Any]:
    rules = load_game(game, players=1)
    final = play_bots(rules.new_game(seed), [make_bot("greedy", bot_seed)])
    record = rules.to_record(final, ["bot:greedy"], seed=seed, reveal=True)
    start, final = check_record(record)
    chosen = BUDGETS[budget]
    t0 = time.process_time()
    line, stats = search_best(start, chosen, 0, candidates=[final])
    t1 = time.process_time()
    decisions = player_losses(start, final, chosen.coach, 0)
    t2 = time.process_time()
    bound = start.score_bound(0) if isinstance(start, ScoreBounded) else None
    return {
        "seed": seed,
        "greedy": final.scores()[0],
        "best_found": line.score,
        "states": stats.states,
        "search_s": round(t1 - t0, 2),
        "ranking_s": round(t2 - t1, 2),
        "decisions": len(decisions),
        "top_loss": round(max((d.loss for d in decisions), default=0.0), 1),
        "upper_bound": bound["total"] if bound is not None else None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="london")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--deal-seed", type=int, default=2026)
    parser.add_argument("--budget", default="normal", choices=list(BUDGETS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for i in range(args.deals):
        row = one(args.game, args.deal_seed + i, 1 + i, args.budget)
        rows.append(row)
        if not args.json:
            print(json.dumps(row), file=sys.stderr, flush=True)
    gains = [r["best_found"] - r["greedy"] for r in rows]
    summary = {
        "game": args.game,
        "budget": args.budget,
        "deals": args.deals,
        "greedy_mean": round(statistics.mean(r["greedy"] for r in rows), 1),
        "best_found_mean": round(statistics.mean(r["best_found"] for r in rows), 1),
        "gain_mean": round(statistics.mean(gains), 1),
        "gain_min": min(gains),
        "gain_max": max(gains),
        "upper_bound_mean": round(statistics.mean(r["upper_bound"] or 0 for r in rows), 1),
        "search_s_mean": round(statistics.mean(r["search_s"] for r in rows), 2),
        "ranking_s_mean": round(statistics.mean(r["ranking_s"] for r in rows), 2),
    }
    print(json.dumps({"summary": summary, "deals": rows} if args.json else summary))


if __name__ == "__main__":
    main()
