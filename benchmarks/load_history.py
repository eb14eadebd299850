"""Benchmark of the requests whose cost grows with the stored games, with a light request timed
during each of them.

Run: ``.venv/bin/python benchmarks/load_history.py [--games 10000] [--veteran-days 1000]
[--db URL] [--json]``.

It seeds a fresh database (a temporary SQLite file, or ``--db``: an EMPTY PostgreSQL database)
with ``--games`` finished daily games of London, written as rows directly (rooms, seats, every
action, players, their accounts, attempts) after playing each game with the engine by seeded random legal
actions: all but ``--veteran-days`` of them on yesterday's deal by as many players (one
leaderboard of ~9,000 shared ranked games), the rest by one player on the days before (a long
history). Then it starts ``metrogames serve`` on a free port of 127.0.0.1 (the helpers of
``load_web.py``) and, for each heavy request below, sends it while a probe requests the view of
a live room every 10 ms, and reports the heavy request's latency and the probe's p50 / p99 /
max during it (and, first, with no heavy request at all):

* ``deal``: ``GET /api/daily/london/{yesterday}/deal`` (every leaderboard game's record), cold
  then warm, and its pages (``limit``, ``offset``);
* ``leaderboard``: the board's last page; ``history``: the veteran's 1,000 days; ``best``;
* ``result``: the veteran's result of yesterday;
* ``replay``: ``GET /api/rooms/{room}/replay`` of a stored game (cold, then warm);
* ``upload``: ``POST /api/replays`` of a long Metro game for six players;
* ``deal x4``: four cold deal pages at once.

Each request has a timeout; the server is always stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadserver import cpu_seconds, percentile, rss_mb, server_process

from metrogames.core.rng import Rng
from metrogames.games import load_game, replay_record
from metrogames.web.checks import hash_token
from metrogames.web.daily.deal import daily_seed
from metrogames.web.infra.db import migrate, open_database
from metrogames.web.infra.models import (
    AccountRow,
    ActionRow,
    DailyAttemptRow,
    PlayerRow,
    RoomRow,
    SeatRow,
)
from metrogames.web.rooms.tables import stored_seed

SECRET = "load-history-secret"
TIMEOUT = 600.0


def play(game: Any, seed: int, rng: Rng) -> tuple[Any, list[tuple[int, Any]]]:
    """A solo game dealt from ``seed`` played to the end by random legal actions (the dealt
    chance actions included); returns the final state and its (player, action) history."""
    state = game.new_game(seed)
    while not state.is_over():
        player = min(state.to_move())
        legal = state.legal_actions(player)
        action = legal[0] if player < 0 else rng.choice(legal)
        state.apply_in_place(player, action, check=False)
    return state, list(state.history())


def seed_database(url: str, games: int, veteran_days: int) -> dict[str, Any]:
    """Write ``games`` finished daily London games; returns what the measurements need."""
    engine = open_database(url)
    migrate(engine)
    game = load_game("london", players=1)
    today = datetime.now(UTC).date()
    yesterday = (today - timedelta(days=1)).isoformat()
    now = time.time()
    rooms: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    players: list[dict[str, Any]] = []
    attempts: list[dict[str, Any]] = []
    veteran = "veteran000"
    players.append(
        {"id": veteran, "name": "Veteran", "token_hash": hash_token("veteran"), "created": now}
    )
    seeds: dict[str, int] = {}
    t0 = time.perf_counter()
    for i in range(games):
        if i < veteran_days:
            day, player = (date.fromisoformat(yesterday) - timedelta(days=i)).isoformat(), veteran
        else:
            day, player = yesterday, f"p{i:09d}"
            players.append(
                {"id": player, "name": f"Player {i}", "token_hash": hash_token(player),
                 "created": now}
            )
        seed = seeds.setdefault(day, daily_seed(SECRET.encode(), "london", day))
        state, history = play(game, seed, Rng(i, "load-history"))
        room = f"{i:08d}"
        rooms.append(
            {"id": room, "game": "london", "mode": "daily", "options": "{}",
             "seed": stored_seed(seed), "status": "finished", "turn_clock": None,
             "host_hash": hash_token(room), "created": now}
        )
        seats.append(
            {"room_id": room, "seat": 0, "name": player, "human": True, "bot": None,
             "token_hash": hash_token(player)}
        )
        actions.extend(
            {"room_id": room, "step": step, "player": p,
             "action": json.dumps(state.action_to_json(p, a))}
            for step, (p, a) in enumerate(history)
        )
        attempts.append(
            {"player_id": player, "game": "london", "day": day, "ranked": True,
             "shared": i % 10 != 0, "room_id": room, "started": now, "finished_at": now + i,
             "score": int(state.scores()[0])}
        )
    played = time.perf_counter() - t0
    # every player is an account's own player: the leaderboard lists accounts only
    accounts = [
        {"id": p["id"], "name": p["name"], "name_key": p["id"], "password_hash": "-",
         "player_id": p["id"], "created": now}
        for p in players
    ]
    with engine.begin() as conn:
        for model, rows in (
            (PlayerRow, players), (AccountRow, accounts), (RoomRow, rooms), (SeatRow, seats),
            (ActionRow, actions), (DailyAttemptRow, attempts),
        ):
            for start in range(0, len(rows), 5000):
                conn.execute(insert(model), rows[start : start + 5000])
    engine.dispose()
    return {
        "yesterday": yesterday,
        "veteran": veteran,
        "veteran_token": "veteran",
        "room": rooms[-1]["id"],
        "games": games,
        "veteran_days": veteran_days,
        "actions": len(actions),
        "seed_seconds": round(time.perf_counter() - t0, 1),
        "play_seconds": round(played, 1),
    }


def long_record() -> dict[str, Any]:
    """The record of a Metro game for six players played out by random legal actions."""
    game = load_game("metro", players=6)
    state, _ = play(game, 20261201, Rng(1, "load-history"))
    return dict(game.to_record(state, [f"P{i}" for i in range(6)], seed=20261201, reveal=True))


@dataclass
class Probe:
    """Latencies (ms) of the light request while one heavy request runs."""

    latency: list[float] = field(default_factory=list)
    failures: int = 0


async def probe(http: httpx.AsyncClient, path: str, stop: asyncio.Event, out: Probe) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            r = await http.get(path)
            if r.status_code != 200:
                out.failures += 1
        except httpx.HTTPError:
            out.failures += 1
        out.latency.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.01)


async def measure(
    http: httpx.AsyncClient, light: str, name: str, requests: list[tuple[str, str, Any]]
) -> dict[str, Any]:
    """Send ``requests`` (method, path, body) at once while probing ``light``."""
    stop, seen = asyncio.Event(), Probe()
    task = asyncio.create_task(probe(http, light, stop, seen))
    await asyncio.sleep(0.1)
    t0 = time.perf_counter()
    answers = await asyncio.gather(
        *(http.request(method, path, json=body) for method, path, body in requests)
    )
    if not requests:
        await asyncio.sleep(1.0)
    heavy = (time.perf_counter() - t0) * 1000
    await asyncio.sleep(0.05)
    stop.set()
    await task
    statuses = sorted({r.status_code for r in answers})
    seen.latency.sort()
    return {
        "request": name,
        "status": statuses,
        "bytes": max((len(r.content) for r in answers), default=0),
        "heavy_ms": round(heavy),
        "probe_p50_ms": round(percentile(seen.latency, 50), 1),
        "probe_p99_ms": round(percentile(seen.latency, 99), 1),
        "probe_max_ms": round(max(seen.latency), 1),
        "probes": len(seen.latency),
        "probe_failures": seen.failures,
    }


async def run(url: str, facts: dict[str, Any]) -> list[dict[str, Any]]:
    day, vet, room = facts["yesterday"], facts["veteran"], facts["room"]
    deal = f"/api/daily/london/{day}/deal"
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
        r = await http.post("/api/rooms", json={"game": "london", "mode": "solo",
                                               "seats": [{"name": "Probe"}]})
        r.raise_for_status()
        light = f"/api/rooms/{r.json()['room']['room']}/view"
        results = [await measure(http, light, "(none: probe alone)", [])]
        token = {"Authorization": f"Bearer {facts['veteran_token']}"}
        plan: list[tuple[str, list[tuple[str, str, Any]]]] = [
            ("deal page 1 (cold)", [("GET", deal, None)]),
            ("deal page 1 (warm)", [("GET", deal, None)]),
            ("deal last page (cold)", [("GET", f"{deal}?offset=8000&limit=1000", None)]),
            ("deal, 4 cold pages at once",
             [("GET", f"{deal}?offset={o}&limit=1000", None) for o in (1000, 3000, 5000, 7000)]),
            ("leaderboard last page",
             [("GET", f"/api/daily/london/{day}/leaderboard?offset=8000&limit=1000", None)]),
            ("history, 1,000 days", [("GET", f"/api/players/{vet}/history?limit=1000", None)]),
            ("best", [("GET", "/api/daily/london/best?limit=100", None)]),
            ("replay (cold)", [("GET", f"/api/rooms/{room}/replay", None)]),
            ("replay (warm)", [("GET", f"/api/rooms/{room}/replay", None)]),
            ("upload a Metro 6-player record", [("POST", "/api/replays", long_record())]),
        ]
        for name, requests in plan:
            results.append(await measure(http, light, name, requests))
        t0 = time.perf_counter()
        r = await http.get(f"/api/daily/london/{day}/result", headers=token)
        results.append({"request": "result", "status": [r.status_code],
                        "heavy_ms": round((time.perf_counter() - t0) * 1000)})
        facts["checked"] = await check(http, deal, facts)
    return results


async def check(http: httpx.AsyncClient, deal: str, facts: dict[str, Any]) -> dict[str, Any]:
    """The published deal counts every shared game of the crowd, and its first records (at
    most 100) replay to their scores."""
    page = (await http.get(f"{deal}?limit=100")).json()
    crowd = range(facts["veteran_days"], facts["games"])
    replayed = [replay_record(rec).scores()[0] == rec["meta"]["score"] for rec in page["games"]]
    return {
        "deal_total": page["total"],
        "deal_total_ok": page["total"] == sum(1 for i in crowd if i % 10 != 0),
        "replayed": len(replayed),
        "replayed_ok": all(replayed),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--veteran-days", type=int, default=1000)
    parser.add_argument("--db", default=None, help="an empty database URL (default: temp SQLite)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="metrogames-history-") as tmp:
        work = Path(tmp)
        db = args.db or f"sqlite:///{work / 'history.db'}"
        facts = seed_database(db, args.games, args.veteran_days)
        env = {"METROGAMES_DAILY_SECRET": SECRET}
        with server_process(db, work, env) as (url, proc):
            cpu0 = cpu_seconds(proc.pid)
            results = asyncio.run(run(url, facts))
            cpu = cpu_seconds(proc.pid)
            facts["server_cpu_s"] = round((cpu or 0) - (cpu0 or 0), 1)
            facts["server_rss_mb"] = rss_mb(proc.pid)
    if args.json:
        print(json.dumps({"facts": facts, "results": results}, indent=1))
        return 0
    print(
        f"{facts['games']} stored games ({facts['actions']} actions), seeded in "
        f"{facts['seed_seconds']} s; server CPU {facts['server_cpu_s']} s, "
        f"RSS {facts['server_rss_mb']} MiB; checked: {facts['checked']}"
    )
    print(f"{'request':34} {'status':>8} {'bytes':>10} {'heavy ms':>9} "
          f"{'probe p50':>9} {'p99':>7} {'max':>7}")
    for r in results:
        print(f"{r['request']:34} {','.join(map(str, r['status'])):>8} {r.get('bytes', 0):>10} "
              f"{r['heavy_ms']:>9} {r.get('probe_p50_ms', ''):>9} {r.get('probe_p99_ms', ''):>7} "
              f"{r.get('probe_max_ms', ''):>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
