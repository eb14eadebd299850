"""Hindsight on solo deals: a bot's score against the best line found with the whole deck
known (``metrogames analyse``), the game's upper bound of the score on the deal, and the
analysis time. With ``--bot expert`` it measures how far the best policy is from the
clairvoyant one (issue "minds", item 6: the hindsight gap).

Measurements, not tests. Run from the repository root::

    .venv/bin/python benchmarks/hindsight.py [--game london] [--bot greedy] [--deals 20]
        [--first-deal 0] [--deal-seed 2026] [--budget normal] [--no-ranking]
        [--results deals.jsonl [--resume]] [--json]

Deal ``i`` is the deal of seed ``deal_seed + i``; the bot, seeded ``1 + i``, plays it (as
``benchmarks/bots.py`` does, so its scores are that benchmark's on the same manifest), and its
record is analysed with the named budget (:data:`metrogames.bots.analysis.BUDGETS`), the bot's
own final position among the search's candidates (so the best found is never below the bot's
score: ``gap`` = best found − bot, points). Times are CPU seconds (``time.process_time``) of the
bot's game, the search and the Monte Carlo ranking of the player's decisions, one core.
``--results FILE`` appends each deal's row as soon as it is measured; ``--resume`` skips the
deals already there (a long run in parts gives the same figures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS, check_record
from metrogames.bots.hindsight import player_losses, search_best
from metrogames.bots.play import play_bots
from metrogames.core.capabilities import ScoreBounded
from metrogames.games import load_game


def one(
    game: str, seed: int, bot: str, bot_seed: int, budget: str, ranking: bool = True
) -> dict[str, Any]:
    """One deal's row: the bot's score, the best found, the gap, the bound and the times."""
    rules = load_game(game, players=1)
    t0 = time.process_time()
    final = play_bots(rules.new_game(seed), [make_bot(bot, bot_seed)])
    t1 = time.process_time()
    record = rules.to_record(final, [f"bot:{bot}"], seed=seed, reveal=True)
    start, final = check_record(record)
    chosen = BUDGETS[budget]
    line, stats = search_best(start, chosen, 0, candidates=[final])
    t2 = time.process_time()
    decisions = player_losses(start, final, chosen.coach, 0) if ranking else []
    t3 = time.process_time()
    bound = start.score_bound(0) if isinstance(start, ScoreBounded) else None
    played = final.scores()[0]
    return {
        "seed": seed,
        "bot": bot,
        "played": played,
        "best_found": line.score,
        "gap": line.score - played,
        "states": stats.states,
        "game_s": round(t1 - t0, 2),
        "search_s": round(t2 - t1, 2),
        "ranking_s": round(t3 - t2, 2) if ranking else None,
        "decisions": len(decisions) if ranking else None,
        "top_loss": round(max((d.loss for d in decisions), default=0.0), 1) if ranking else None,
        "upper_bound": bound["total"] if bound is not None else None,
    }


def measured(path: Path | None, bot: str, budget: str) -> dict[int, dict[str, Any]]:
    """The rows already in ``path`` for this bot and budget, by deal seed."""
    if path is None or not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {r["seed"]: r for r in rows if r["bot"] == bot and r.get("budget") == budget}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="london")
    parser.add_argument("--bot", default="greedy", help="the level or algorithm that plays")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--deal-seed", type=int, default=2026)
    parser.add_argument("--budget", default="normal", choices=list(BUDGETS))
    parser.add_argument("--no-ranking", action="store_true", help="skip ranking the decisions")
    parser.add_argument("--results", type=Path, help="append each deal's row to this JSON lines")
    parser.add_argument("--resume", action="store_true", help="skip the deals in --results")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    done = measured(args.results, args.bot, args.budget) if args.resume else {}
    rows = []
    for i in range(args.first_deal, args.first_deal + args.deals):
        seed = args.deal_seed + i
        row = done.get(seed)
        if row is None:
            row = one(args.game, seed, args.bot, 1 + i, args.budget, not args.no_ranking)
            row["budget"] = args.budget
            if args.results is not None:
                with args.results.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(row) + "\n")
        rows.append(row)
        if not args.json:
            print(json.dumps(row), file=sys.stderr, flush=True)
    gaps = [r["gap"] for r in rows]
    ranked = [r["ranking_s"] for r in rows if r["ranking_s"] is not None]
    summary = {
        "game": args.game,
        "bot": args.bot,
        "budget": args.budget,
        "deals": len(rows),
        "played_mean": round(statistics.mean(r["played"] for r in rows), 1),
        "best_found_mean": round(statistics.mean(r["best_found"] for r in rows), 1),
        "gap_mean": round(statistics.mean(gaps), 1),
        "gap_ci95": round(1.96 * statistics.stdev(gaps) / len(gaps) ** 0.5, 1)
        if len(gaps) > 1
        else None,
        "gap_min": min(gaps),
        "gap_max": max(gaps),
        "upper_bound_mean": round(statistics.mean(r["upper_bound"] or 0 for r in rows), 1),
        "game_s_mean": round(statistics.mean(r["game_s"] for r in rows), 2),
        "search_s_mean": round(statistics.mean(r["search_s"] for r in rows), 2),
        "ranking_s_mean": round(statistics.mean(ranked), 2) if ranked else None,
    }
    print(json.dumps({"summary": summary, "deals": rows} if args.json else summary))


if __name__ == "__main__":
    main()
