"""Regenerate the greedy bot's reference score distribution stored in a city's data file.

The terminal and web tables show a solo player's percentile against it (rules/next-station-
paris.md: Paris has no solo rating table, "show the player's percentile instead").

    .venv/bin/python scripts/reference_scores.py paris --games 2000 --workers 2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metrogames.sim.runner import Task, run_many

DATA = Path(__file__).resolve().parent.parent / "src" / "metrogames" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("city")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1_000_000)
    args = parser.parse_args()
    tasks = [Task(args.city, ("greedy",), args.seed + i) for i in range(args.games)]
    scores = sorted(r.scores[0] for r in run_many(tasks, args.workers))
    path = DATA / f"{args.city}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["reference_scores"] = {
        "bot": "greedy",
        "games": len(scores),
        "seeds": f"{args.seed}..{args.seed + args.games - 1}",
        "histogram": {str(s): scores.count(s) for s in sorted(set(scores))},
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{args.city}: {len(scores)} games, mean {sum(scores) / len(scores):.1f}")


if __name__ == "__main__":
    main()
