"""Heavy work beside the moves: what one client's hints, analyses and wrong sign-ins cost
everyone else (issue 21, "Hardened", item 2).

Starts ``metrogames serve`` (one process, SQLite in a temporary folder) from the sources at
``--src`` (default: this checkout's ``src``; pass another checkout's to compare before and
after) and measures, over loopback only:

* ``moves``: a few players' action round trips in solo rooms, and another room's bot turn
  (a human's action answered after the ``hard`` bot's reply: ``METROGAMES_BOT_DELAY=0``),
  first quiet, then while one address asks hints (20 rooms, one hint each: its minute's
  allowance) and uploads analyses (6 different records: its minute's allowance) at once;
* ``signins``: ``/api/health`` and a leaderboard read, quiet and during 50 wrong sign-ins
  from 10 loopback addresses (5 each: under every per-address limit).

Prints one JSON object (seconds: median, p99 and maximum of each series, and the refusals).
Run: ``python benchmarks/heavy_work.py [--src /path/to/src] [--seconds 20]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def figures(values: list[float]) -> dict[str, float]:
    """Median, p99 and maximum (seconds, 4 decimals) and the count."""
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "n": len(values),
        "median": round(statistics.median(ordered), 4),
        "p99": round(p99, 4),
        "max": round(ordered[-1], 4),
    }


def solo_records(count: int) -> list[dict[str, Any]]:
    """``count`` finished solo London games of the greedy bot (different deals)."""
    from metrogames.bots import make_bot
    from metrogames.bots.play import play_bots
    from metrogames.games import load_game

    game = load_game("london", players=1)
    out = []
    for seed in range(1000, 1000 + count):
        final = play_bots(game.new_game(seed), [make_bot("greedy", seed)])
        out.append(dict(game.to_record(final, ["Eve"], seed=seed, reveal=True)))
    return out


class Server:
    def __init__(self, src: str, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": src, "METROGAMES_BOT_DELAY": "0"}
        env.pop("METROGAMES_REDIS_URL", None)
        command = [str(Path(sys.executable).with_name("metrogames")), "serve"]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        command += ["--db", f"sqlite:///{folder / 'bench.db'}"]
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)

    async def ready(self, client: httpx.AsyncClient) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                if (await client.get(self.url + "/api/health")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            await asyncio.sleep(0.2)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def room(client: httpx.AsyncClient, url: str, seats: list[dict[str, Any]], game: str) -> tuple[str, str]:
    mode = "solo" if len(seats) == 1 else "bots"
    r = await client.post(url + "/api/rooms", json={"game": game, "mode": mode, "seats": seats})
    r.raise_for_status()
    made = r.json()
    return made["room"]["room"], made["tokens"]["0"]


def own_client(address: str) -> httpx.AsyncClient:
    """A client whose requests come from the loopback ``address`` (each its own limits)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, timeout=300)


async def player(
    address: str, url: str, until: float, times: list[float], game: str, bot: str | None
) -> None:
    """Play one room (solo, or against ``bot``), a new one when it ends, timing each action."""
    async with own_client(address) as client:
        await play(client, url, until, times, game, bot)


async def play(
    client: httpx.AsyncClient, url: str, until: float, times: list[float], game: str, bot: str | None
) -> None:
    rng = random.Random(len(times))
    seats: list[dict[str, Any]] = [{"name": "Ada"}] + ([{"bot": bot}] if bot else [])
    name, token = await room(client, url, seats, game)
    auth = {"Authorization": f"Bearer {token}"}
    while time.monotonic() < until:
        v = (await client.get(f"{url}/api/rooms/{name}/view", headers=auth)).json()
        if v["status"] != "playing":
            name, token = await room(client, url, seats, game)
            auth = {"Authorization": f"Bearer {token}"}
            continue
        if not v.get("legal"):
            await asyncio.sleep(0.05)
            continue
        body = {"action": rng.choice(v["legal"]), "step": v["step"]}
        started = time.perf_counter()
        r = await client.post(f"{url}/api/rooms/{name}/actions", headers=auth, json=body)
        if r.status_code == 200:
            times.append(time.perf_counter() - started)
        await asyncio.sleep(0.1)


async def moves(url: str, seconds: float, attack: bool) -> dict[str, Any]:
    """Players' round trips and another room's bot turns, with or without the attack."""
    async with own_client("127.0.0.50") as client:
        until = time.monotonic() + seconds
        solo: list[float] = []
        bot: list[float] = []
        tasks = [
            asyncio.create_task(player(f"127.0.0.{20 + i}", url, until, solo, "london", None))
            for i in range(4)
        ]
        tasks.append(asyncio.create_task(player("127.0.0.30", url, until, bot, "metro", "hard")))
        answers: Counter[str] = Counter()
        attacking = asyncio.create_task(attacker(client, url, answers)) if attack else None
        await asyncio.gather(*tasks)
        if attacking is not None:  # what has not answered by the end stays unanswered
            attacking.cancel()
            await asyncio.gather(attacking, return_exceptions=True)
    return {"moves": figures(solo), "bot_turns": figures(bot), "attack": dict(answers)}


async def attacker(client: httpx.AsyncClient, url: str, answers: Counter[str]) -> None:
    """One address: 20 hints (one per room) and 6 analyses, all at once."""
    rooms = [await room(client, url, [{"name": "Eve"}], "london") for _ in range(20)]

    async def hint(name: str, token: str) -> None:
        auth = {"Authorization": f"Bearer {token}"}
        step = (await client.get(f"{url}/api/rooms/{name}/view", headers=auth)).json()["step"]
        answers["hint unanswered"] += 1
        r = await client.post(f"{url}/api/rooms/{name}/hint", headers=auth, json={"step": step})
        answers["hint unanswered"] -= 1
        answers[f"hint {r.status_code}"] += 1

    async def analysis(record: dict[str, Any]) -> None:
        answers["analysis unanswered"] += 1
        r = await client.post(f"{url}/api/analyses", json=record)
        answers["analysis unanswered"] -= 1
        answers[f"analysis {r.status_code}"] += 1

    records = solo_records(6)
    await asyncio.gather(*(hint(*r) for r in rooms), *(analysis(r) for r in records))


async def signins(url: str) -> dict[str, Any]:
    """``/api/health`` and a leaderboard read, quiet and during 50 wrong sign-ins."""
    async with httpx.AsyncClient(timeout=120) as client:
        body = {"name": "Ada", "password": "correct horse battery"}
        (await client.post(url + "/api/accounts", json=body)).raise_for_status()
        day = (await client.get(url + "/api/daily")).json()["date"]
        board = f"{url}/api/daily/london/{day}/leaderboard"

        async def probe(times: dict[str, list[float]], codes: Counter[str], until: float) -> None:
            while time.monotonic() < until:
                for name, path in (("health", url + "/api/health"), ("leaderboard", board)):
                    started = time.perf_counter()
                    try:
                        r = await client.get(path)
                        codes[f"{name} {r.status_code}"] += 1
                    except httpx.HTTPError as exc:
                        codes[f"{name} {type(exc).__name__}"] += 1
                    times[name].append(time.perf_counter() - started)
                await asyncio.sleep(0.05)

        quiet: dict[str, list[float]] = {"health": [], "leaderboard": []}
        quiet_codes: Counter[str] = Counter()
        await probe(quiet, quiet_codes, time.monotonic() + 3)
        busy: dict[str, list[float]] = {"health": [], "leaderboard": []}
        codes: Counter[str] = Counter()
        wrong: Counter[str] = Counter()

        async def sign_in(address: str, name: str) -> None:
            async with own_client(address) as own:
                attempt = {"name": name, "password": "wrong one!"}
                try:
                    r = await own.post(url + "/api/sessions", json=attempt)
                    wrong[str(r.status_code)] += 1
                except httpx.HTTPError as exc:
                    wrong[type(exc).__name__] += 1

        # 10 addresses, 5 names each (unknown names are checked against a dummy hash: as
        # costly), Ada's among them
        crowd = [sign_in(f"127.0.0.{2 + i // 5}", "Ada" if i == 0 else f"user{i}") for i in range(50)]
        started = time.monotonic()
        attack = asyncio.gather(*crowd)
        watcher = asyncio.create_task(probe(busy, codes, started + 600))
        await attack
        took = time.monotonic() - started
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
    return {
        "quiet": {k: figures(v) for k, v in quiet.items()},
        "during": {k: figures(v) for k, v in busy.items()},
        "answers_during": dict(codes),
        "sign_ins": dict(wrong),
        "sign_ins_seconds": round(took, 2),
    }


async def main(src: str, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="metrogames-heavy-") as folder:
        server = Server(src, Path(folder))
        try:
            async with httpx.AsyncClient() as client:
                await server.ready(client)
            await moves(server.url, 5, attack=False)  # warm: worker processes started
            quiet = await moves(server.url, seconds, attack=False)
            loaded = await moves(server.url, seconds, attack=True)
            signin = await signins(server.url)
        finally:
            server.stop()
    return {"src": src, "quiet": quiet, "attacked": loaded, "signins": signin}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.src, args.seconds)), indent=1))
