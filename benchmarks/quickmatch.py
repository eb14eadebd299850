"""Load benchmark of play now: many players queueing at once, all seated, none twice.

Run: ``.venv/bin/python benchmarks/quickmatch.py --players 300 --workers 2 [--ramp 10] [--json]``

It starts ``metrogames serve`` itself (:func:`loadserver.server_process`: loopback only,
127.0.0.1 exempt from the per-address limits) — with ``--workers N`` (N > 1) on throwaway
PostgreSQL and Redis servers (:mod:`services`) unless ``--db`` / ``--redis`` name them, as
``load_web.py`` does — and signs up ``--players`` accounts (play now knows a guest by its
address, and every client here has the same one). Then each player, at a random moment of the
first ``--ramp`` seconds, asks for a table (``POST /api/quickmatch``, ``--game``,
``--count`` players, a live clock) on a connection of its own (the kernel hands each to one of
the workers) and reads its request's event stream until ``seated``. Its **wait** is the time
from sending the request to reading its seat.

Checked at the end: every player was seated, and nobody twice — every (room, seat) is one
player's, each room's seats are tied to as many distinct accounts as the count, and each
account sits at exactly one room (read back from ``GET /api/rooms/{room}/ratings``). Reported:
seated, rooms, duplicates, the waits' p50 / p90 / p99 / max (seconds), and wall time. Every
wait has a deadline (``--timeout``, per player; the server has 300 s to start: a busy
machine); the server is killed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from loadserver import percentile, server_process, wait_for_workers

COOKIE = "metrogames_session"
JSON = {"Content-Type": "application/json"}


@dataclass
class Result:
    """What a run measured (see the module's docstring)."""

    players: int
    workers: int
    database: str
    seated: int = 0
    rooms: int = 0
    duplicates: int = 0
    failures: list[str] = field(default_factory=list)
    wait_p50_s: float = 0.0
    wait_p90_s: float = 0.0
    wait_p99_s: float = 0.0
    wait_max_s: float = 0.0
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.seated == self.players and not self.duplicates and not self.failures


async def sign_up(base: str, gate: asyncio.Semaphore) -> str:
    """A new account's session cookie (set-up, not measured: a dropped connection or a 503
    is tried again, five times at most)."""
    async with gate, httpx.AsyncClient(base_url=base, timeout=60) as client:
        name = "qm" + secrets.token_hex(5)
        body = {"name": name, "password": "long enough"}
        for attempt in range(5):
            try:
                r = await client.post("/api/accounts", json=body)
            except httpx.TransportError:
                await asyncio.sleep(1 + attempt)
                continue
            if r.status_code != 503:
                r.raise_for_status()
                return str(r.cookies[COOKIE])
            await asyncio.sleep(1 + attempt)
        raise RuntimeError(f"could not sign up {name}")


async def play_now(
    client: httpx.AsyncClient, cookie: str, delay: float, body: dict[str, Any], timeout: float
) -> tuple[float, dict[str, Any]]:
    """One player: wait ``delay``, ask, read the stream until seated; (wait, seating)."""
    await asyncio.sleep(delay)
    headers = {"Cookie": f"{COOKIE}={cookie}"}
    t0 = time.monotonic()
    async with asyncio.timeout(timeout):
        r = await client.post("/api/quickmatch", json=body, headers=JSON | headers)
        r.raise_for_status()
        ticket = r.json()["ticket"]
        async with client.stream(
            "GET", f"/api/quickmatch/{ticket}/events", headers=headers
        ) as s:
            s.raise_for_status()
            name = None
            async for line in s.aiter_lines():
                if line.startswith("event: "):
                    name = line[len("event: ") :]
                elif line.startswith("data: ") and name in ("seated", "gone"):
                    if name == "gone":
                        raise RuntimeError(f"request {ticket} is gone")
                    return time.monotonic() - t0, json.loads(line[len("data: ") :])
        raise RuntimeError(f"the stream of {ticket} ended unseated")


async def check(base: str, seatings: list[dict[str, Any]], count: int, res: Result) -> None:
    """Nobody twice: each (room, seat) once, each room's seats distinct accounts, each account
    at one room."""
    places = Counter((s["room"], s["seat"]) for s in seatings)
    res.duplicates = sum(n - 1 for n in places.values() if n > 1)
    rooms = sorted({s["room"] for s in seatings})
    res.rooms = len(rooms)
    accounts: Counter[str] = Counter()
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for room in rooms:
            r = await client.get(f"/api/rooms/{room}/ratings")
            r.raise_for_status()
            held = [s["account"] for s in r.json()["seats"] if s["account"] is not None]
            if len(held) != count or len(set(held)) != count:
                res.failures.append(f"room {room}: accounts {held}")
            accounts.update(held)
    res.duplicates += sum(n - 1 for n in accounts.values() if n > 1)


async def run(base: str, args: argparse.Namespace, res: Result) -> None:
    gate = asyncio.Semaphore(8)
    cookies = await asyncio.gather(*(sign_up(base, gate) for _ in range(args.players)))
    rng = random.Random(args.seed)
    body = {"game": args.game, "players": args.count, "clock": "live"}
    # one client, a connection per request in flight (each stream holds one): the kernel
    # hands each new connection to one of the workers
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=base, timeout=args.timeout, limits=limits) as client:
        t0 = time.monotonic()
        outcomes = await asyncio.gather(
            *(play_now(client, c, rng.uniform(0, args.ramp), body, args.timeout) for c in cookies),
            return_exceptions=True,
        )
    res.wall_s = round(time.monotonic() - t0, 2)
    waits: list[float] = []
    seatings: list[dict[str, Any]] = []
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            res.failures.append(repr(outcome)[:200])
        else:
            waits.append(outcome[0])
            seatings.append(outcome[1])
    res.seated = len(seatings)
    waits.sort()
    if waits:
        res.wait_p50_s = round(percentile(waits, 50), 3)
        res.wait_p90_s = round(percentile(waits, 90), 3)
        res.wait_p99_s = round(percentile(waits, 99), 3)
        res.wait_max_s = round(max(waits), 3)
    await check(base, seatings, args.count, res)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--game", default="london")
    parser.add_argument("--count", type=int, default=2, help="players per table")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds the arrivals spread")
    parser.add_argument("--timeout", type=float, default=120.0, help="each player's deadline")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", help="database URL (default: throwaway)")
    parser.add_argument("--redis", help="Redis URL (default: throwaway with --workers > 1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.players < 1 or args.players % args.count or args.workers < 1:
        parser.error("--players must be a positive multiple of --count; --workers at least 1")
    import services  # beside this script (benchmarks/services.py)

    scale_out = args.workers > 1
    with (
        tempfile.TemporaryDirectory(prefix="metrogames-quickmatch-") as tmp,
        services.throwaway(scale_out and not args.db, scale_out and not args.redis) as (pg, rd),
    ):
        db = args.db or (pg.url if pg else f"sqlite:///{tmp}/quickmatch.db")
        redis = args.redis or (rd.url if rd else None)
        res = Result(args.players, args.workers, db.split(":", 1)[0].split("+")[0])
        with server_process(
            db, Path(tmp), None, workers=args.workers, redis=redis, start_seconds=300
        ) as (url, _):
            if redis:
                wait_for_workers(redis, args.workers)
            asyncio.run(run(url, args, res))
    if args.json:
        print(json.dumps(asdict(res) | {"ok": res.ok}, indent=2))
    else:
        print(
            f"{res.seated}/{res.players} seated at {res.rooms} tables on {res.workers} worker(s) "
            f"({res.database}); duplicates {res.duplicates}; wait p50 {res.wait_p50_s} s, "
            f"p90 {res.wait_p90_s} s, p99 {res.wait_p99_s} s, max {res.wait_max_s} s; "
            f"wall {res.wall_s} s"
        )
        for failure in res.failures[:10]:
            print("  failure:", failure)
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
