"""Load benchmark of the daily challenge: many players play the same day's deal at once while
others read the day's list (anonymous players: the guests list, ``.../guests``, which reads
like the accounts' leaderboard).

Run: ``.venv/bin/python benchmarks/load_daily.py --players 100 --readers 20 --duration 30
[--max-games N] [--game london] [--db URL] [--json]``.

It starts ``metrogames serve`` as a subprocess on a free port of 127.0.0.1 only (loopback; the
helpers of ``benchmarks/load_web.py``) with a fresh temporary SQLite database (or ``--db``),
then runs, for at most ``--duration`` seconds (a game still going then is abandoned) and
``--max-games`` games:

* ``--players`` REST clients, each in a loop: create an anonymous player (``POST
  /api/players``), start today's ranked game (``POST /api/daily/{game}/{today}/start``, 80 %
  shared), play it to the end by seeded random legal actions (``POST
  /api/rooms/{room}/actions``; each answer is the next view), then ask for the result (rank,
  percentile, greedy bot score);
* ``--readers`` clients reading ``GET /api/daily/{game}/{today}/guests`` in a loop.

Measured: completed games per second, and p50/p99 latency of actions, starts, results and
leaderboard reads. Checked at the end: every result's score equals the final view's score, the
leaderboard's total grew by the shared games completed, and its ranks are 1, 2, 2, 4-style. Every
request has a timeout; the server is always stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadserver import cpu_seconds, percentile, rss_mb, server_process


@dataclass
class DailyStats:
    """Latencies (ms) per kind of request and counters of one run."""

    latency: dict[str, list[float]] = field(
        default_factory=lambda: {"action": [], "start": [], "result": [], "leaderboard": []}
    )
    games_completed: int = 0
    shared_completed: int = 0
    games_started: int = 0
    abandoned: int = 0
    mismatches: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def timed(stats: DailyStats, kind: str, request: Any) -> httpx.Response:
    """Await ``request`` and note its latency under ``kind``."""
    t0 = time.perf_counter()
    response: httpx.Response = await request
    stats.latency[kind].append((time.perf_counter() - t0) * 1000)
    return response


async def one_game(
    http: httpx.AsyncClient,
    game: str,
    day: str,
    rng: random.Random,
    stats: DailyStats,
    stop_at: float,
) -> None:
    """A new player plays today's ranked game through and asks for the result (a game still
    going at ``stop_at`` is abandoned: the run's duration is a hard bound)."""
    r = await http.post("/api/players", json={"name": f"load-{rng.randrange(10**6)}"})
    if r.status_code != 201:
        stats.error(f"player:{r.status_code}")
        return
    auth = {"Authorization": f"Bearer {r.json()['token']}"}
    share = rng.random() < 0.8
    url = f"/api/daily/{game}/{day}/start"
    r = await timed(stats, "start", http.post(url, json={"share": share}, headers=auth))
    if r.status_code != 200:
        stats.error(f"start:{r.status_code}:{r.json().get('reason')}")
        return
    room = r.json()["room"]
    r = await http.get(f"/api/rooms/{room}/view", headers=auth)
    view = r.json()
    loop = asyncio.get_running_loop()
    for _ in range(500):
        if view["status"] == "finished":
            break
        if loop.time() > stop_at:
            stats.abandoned += 1
            return
        action = rng.choice(view["legal"]) if view["legal"] else "pass"
        body = {"action": action, "step": view["step"]}
        r = await timed(
            stats, "action", http.post(f"/api/rooms/{room}/actions", json=body, headers=auth)
        )
        if r.status_code != 200:
            stats.error(f"action:{r.status_code}:{r.json().get('reason')}")
            return
        view = r.json()
    else:
        stats.error("game-too-long")
        return
    stats.games_completed += 1
    stats.shared_completed += share
    r = await timed(stats, "result", http.get(f"/api/daily/{game}/{day}/result", headers=auth))
    if r.status_code != 200:
        stats.error(f"result:{r.status_code}")
    elif r.json()["score"] != view["scores"][0]:
        stats.mismatches += 1


async def player_loop(
    http: httpx.AsyncClient,
    game: str,
    day: str,
    seed: int,
    stop_at: float,
    stats: DailyStats,
    max_games: int,
) -> None:
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    while loop.time() < stop_at and stats.games_started < max_games:
        stats.games_started += 1
        try:
            await one_game(http, game, day, rng, stats, stop_at)
        except httpx.HTTPError as exc:
            stats.error(f"http:{type(exc).__name__}")


async def reader_loop(
    http: httpx.AsyncClient,
    game: str,
    day: str,
    stop_at: float,
    stats: DailyStats,
    done: dict[str, bool],
) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < stop_at and not done["players"]:
        try:
            url = f"/api/daily/{game}/{day}/guests?limit=100"
            r = await timed(stats, "leaderboard", http.get(url))
            if r.status_code != 200:
                stats.error(f"leaderboard:{r.status_code}")
        except httpx.HTTPError as exc:
            stats.error(f"http:{type(exc).__name__}")


def check_board(board: dict[str, Any]) -> bool:
    """True when the entries are sorted best first and equal scores share a rank (1, 2, 2, 4)."""
    entries = board["entries"]
    for i, e in enumerate(entries):
        if i and e["score"] > entries[i - 1]["score"]:
            return False
        expected = entries[i - 1]["rank"] if i and e["score"] == entries[i - 1]["score"] else i + 1
        if e["rank"] != expected:
            return False
    return True


async def run_daily(
    base_url: str,
    game: str,
    players: int,
    readers: int,
    duration: float,
    max_games: int = 100_000,
) -> dict[str, Any]:
    """Run the load against the server at ``base_url`` for at most ``duration`` seconds and
    ``max_games`` games (the readers stop with the last player); the summary as a dict."""
    stats = DailyStats()
    cpu0 = time.process_time()
    limits = httpx.Limits(max_connections=players + readers + 4)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as http:
        day = (await http.get("/api/daily")).json()["date"]
        board_url = f"/api/daily/{game}/{day}/guests?limit=1000"
        before = (await http.get(board_url)).json()["total"]  # a reused database has some
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        stop_at = t0 + duration
        playing = asyncio.gather(
            *(player_loop(http, game, day, k, stop_at, stats, max_games) for k in range(players))
        )
        done = {"players": False}
        reading = asyncio.gather(
            *(reader_loop(http, game, day, stop_at, stats, done) for _ in range(readers))
        )
        await playing
        done["players"] = True
        await reading
        seconds = loop.time() - t0
        board = (await http.get(board_url)).json()
    ms = {
        kind: {
            "n": len(values),
            "p50": round(percentile(sorted(values), 50), 2),
            "p99": round(percentile(sorted(values), 99), 2),
        }
        for kind, values in stats.latency.items()
    }
    return {
        "game": game,
        "day": day,
        "players": players,
        "readers": readers,
        "seconds": round(seconds, 2),
        "games_completed": stats.games_completed,
        "games_abandoned_at_stop": stats.abandoned,
        "games_per_second": round(stats.games_completed / seconds, 2) if seconds else 0.0,
        "actions_per_second": round(len(stats.latency["action"]) / seconds, 1) if seconds else 0,
        "latency_ms": ms,
        "board_total": board["total"],
        "board_ok": board["total"] == before + stats.shared_completed and check_board(board),
        "score_mismatches": stats.mismatches,
        "errors": stats.errors,
        "client_cpu_s": round(time.process_time() - cpu0, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of play (max)")
    parser.add_argument("--max-games", type=int, default=100_000)
    parser.add_argument("--game", choices=("london", "paris"), default="london")
    parser.add_argument("--db", help="database URL (default: a fresh temporary SQLite file)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if args.players < 1 or args.readers < 0 or args.max_games < 1 or not 0 < args.duration <= 3600:
        parser.error("--players ≥ 1, --readers ≥ 0, 0 < --duration ≤ 3600")
    with tempfile.TemporaryDirectory(prefix="metrogames-daily-load-") as tmp:
        workdir = Path(tmp)
        db = args.db or f"sqlite:///{workdir / 'load.db'}"
        with server_process(db, workdir) as (url, proc):
            cpu0 = cpu_seconds(proc.pid)
            res = asyncio.run(
                run_daily(url, args.game, args.players, args.readers, args.duration, args.max_games)
            )
            cpu1 = cpu_seconds(proc.pid)
            res["server_cpu_s"] = round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 else None
            res["server_rss_mb"] = rss_mb(proc.pid)
            res["db"] = db.split(":", 1)[0]
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        lat = res["latency_ms"]
        print(
            f"{res['players']} players + {res['readers']} leaderboard readers, {res['game']} "
            f"{res['day']}, db {res['db']}, {res['seconds']} s\n"
            f"games completed {res['games_completed']} (abandoned at the stop "
            f"{res['games_abandoned_at_stop']}): {res['games_per_second']} games/s, "
            f"{res['actions_per_second']} actions/s\n"
            + "\n".join(
                f"  {k:<11} n {v['n']:>6}  p50 {v['p50']:>8} ms  p99 {v['p99']:>8} ms"
                for k, v in lat.items()
            )
            + f"\nleaderboard total {res['board_total']} (ok: {res['board_ok']}), score "
            f"mismatches {res['score_mismatches']}, errors {res['errors'] or 0}\n"
            f"CPU s: client {res['client_cpu_s']}, server {res['server_cpu_s']}; server memory "
            f"{res['server_rss_mb']} MiB"
        )
    ok = res["board_ok"] and not res["score_mismatches"] and not res["errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
