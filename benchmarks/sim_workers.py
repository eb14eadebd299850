"""How ``metrogames simulate`` scales from 1 to 2 workers, in processes and on a local Ray.

Runs the same bot games (default: 1,500 London games, greedy against random) in four modes —
``--workers 1``, ``--workers 2``, ``--ray --workers 1``, ``--ray --workers 2`` — interleaved over
``--rounds`` rounds, checks that every mode wrote the same results file, and prints each mode's
wall time (best and median, process and Ray start included), the CPU time of the command and
the processes it waited for, and the machine's load average before the run (other jobs share
the cores: read the speed-ups against it).

    .venv/bin/python benchmarks/sim_workers.py [--games 1500] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = {
    "1 process": ["--workers", "1"],
    "2 processes": ["--workers", "2"],
    "Ray, 1 CPU": ["--ray", "--workers", "1"],
    "Ray, 2 CPUs": ["--ray", "--workers", "2"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default="london")
    parser.add_argument("--bots", default="greedy,random")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("metrogames"))
    walls: dict[str, list[float]] = {m: [] for m in MODES}
    cpus: dict[str, list[float]] = {m: [] for m in MODES}
    loads: list[float] = []
    digests = set()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.jsonl"
        for _ in range(args.rounds):
            for mode, flags in MODES.items():
                loads.append(os.getloadavg()[0])
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(
                    [exe, "simulate", args.game, "--bots", args.bots, "--games",
                     str(args.games), *flags, "--results", str(out), "--json"],
                    check=True, capture_output=True,
                )  # fmt: skip
                walls[mode].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[mode].append(
                    after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                )
                digests.add(hashlib.sha256(out.read_bytes()).hexdigest())
    if len(digests) != 1:
        sys.exit("the modes wrote different results files")
    base = statistics.median(walls["1 process"])
    rows = [
        {
            "mode": mode,
            "wall_best": min(walls[mode]),
            "wall_median": statistics.median(walls[mode]),
            "speedup_median": base / statistics.median(walls[mode]),
            "cpu_median": statistics.median(cpus[mode]),
        }
        for mode in MODES
    ]
    if args.json:
        print(json.dumps({"games": args.games, "load": loads, "modes": rows}))
        return
    print(f"{args.games} {args.game} games ({args.bots}), {args.rounds} rounds; load average "
          f"before each run {min(loads):.1f}-{max(loads):.1f}; same results in every mode")  # fmt: skip
    for r in rows:
        print(f"{r['mode']:<12} wall best {r['wall_best']:6.2f} s, median {r['wall_median']:6.2f} s"
              f" (x{r['speedup_median']:.2f}); CPU {r['cpu_median']:6.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
