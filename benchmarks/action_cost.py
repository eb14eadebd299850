"""CPU cost of one action on the server, measured in-process and split by part.

Run: ``nice -n 10 PYTHONPATH=src .venv/bin/python benchmarks/action_cost.py --rooms 40
[--spectators 1] [--db URL] [--json]``.

A fixed workload, repeatable to the action: ``--rooms`` rooms cycling through the kinds of
``benchmarks/load_web.py`` (London solo, London online with two humans, Metro online with two
humans, Metro with a human and a ``random`` bot; ``--spectators`` more sockets per room without
a token), each played once to its end by clients that always send the first legal action. The
clients talk to the real ASGI app (routes, WebSocket endpoint, room service, database on a
fresh SQLite file) on this event loop, without a network: what is measured is the server's
own work from a received message to the views handed to the ASGI ``send`` — everything but
uvicorn's socket code. The clients' own work (reading views, choosing) is excluded.

Printed, for the fastest of ``--repeat`` runs (the least disturbed by other processes): CPU
milliseconds (process time: every thread, the database writer's too) per player
action (human or bot; chance actions it triggers included), and how they split, each part
timed by the CPU time of the thread that runs it (:func:`time.thread_time` around the named
functions, patched in for the run):

* ``engine``   — check and apply the action on a copy of the state, chance included
  (:class:`~metrogames.web.rooms.tables.Progress` ``copy`` and ``apply``);
* ``views``    — each listener's view: ``state.view(seat)``, legal actions, the game's
  ``view_json`` (:func:`metrogames.web.rooms.views.build_view`);
* ``encode``   — the views' JSON text;
* ``send``     — Starlette's WebSocket send (the ASGI message to the server);
* ``db write`` — the writer thread: the transaction storing the action(s);
* ``bots``     — the ``random`` bot's decisions (thinking threads);
* ``other``    — the rest: reading and parsing the message, the event loop, locks, the
  hand-off to the writer thread, turn clock and bot bookkeeping.
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
import types
from collections.abc import Callable
from typing import Any
from unittest import mock

import httpx
import starlette.websockets

from metrogames.core.protocol import CHANCE
from metrogames.web.app import create_app
from metrogames.web.infra.config import Settings
from metrogames.web.rooms import summary as summary_module
from metrogames.web.rooms import tables
from metrogames.web.rooms import views as views_module
from metrogames.web.rooms.service import RoomService

TEMPLATES: dict[str, dict[str, Any]] = {
    "london-solo": {"game": "london", "mode": "solo", "seats": [{"name": "solo"}]},
    "london-online": {"game": "london", "mode": "online", "seats": [{"name": "host"}, {}]},
    "metro-online": {"game": "metro", "mode": "online", "seats": [{"name": "host"}, {}]},
    "metro-bots": {"game": "metro", "mode": "bots", "seats": [{"name": "solo"}, {"bot": "random"}]},
}
LIFTED = "1000000/minute"
DEALS = 2026
"""The seed of the rooms' seeds: every run plays the same games."""
PARTS = ("engine", "views", "encode", "send", "db write", "bots")
CLIENT = [0.0]
"""The clients' own CPU seconds (excluded)."""


class Timers:
    """CPU seconds per part, from wrappers patched around the functions that do each part."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self._undo: list[Callable[[], None]] = []

    def patch(self, owner: Any, name: str, part: str) -> None:
        """Time ``owner.name`` (a function; absent: nothing) as ``part``."""
        fn = getattr(owner, name, None)
        if fn is None:
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            started, client = time.thread_time(), CLIENT[0]
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.thread_time() - started - (CLIENT[0] - client)

        self._set(owner, name, timed)

    def patch_async(self, owner: Any, name: str, part: str) -> None:
        """Time the coroutine function ``owner.name`` (it must not really wait: the
        in-process clients answer at once)."""
        fn = getattr(owner, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started, client = time.thread_time(), CLIENT[0]
            try:
                return await fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.thread_time() - started - (CLIENT[0] - client)

        self._set(owner, name, timed)

    def _set(self, owner: Any, name: str, value: Any) -> None:
        old = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, old))

    def undo(self) -> None:
        for step in reversed(self._undo):
            step()
        self._undo.clear()


def instrument(timers: Timers, service: RoomService) -> None:
    """Patch the timers around each part's functions."""
    timers.patch(tables.Progress, "copy", "engine")
    timers.patch(tables.Progress, "apply", "engine")
    timers.patch(summary_module, "build_view", "views")
    timers.patch(views_module, "build_view", "views")
    timers.patch(views_module, "encode", "encode")
    shim = types.SimpleNamespace(dumps=json.dumps, loads=json.loads)
    timers.patch(shim, "dumps", "encode")
    timers._set(starlette.websockets, "json", shim)
    timers.patch_async(starlette.websockets.WebSocket, "send", "send")
    timers.patch(service.store, "write", "db write")
    think = service.scheduler.think

    async def timed_think(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        def run() -> Any:
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                timers.seconds["bots"] += time.thread_time() - started

        return await think(run)

    timers._set(service.scheduler, "think", timed_think)


class Client:
    """One socket of one room on the in-process ASGI app: plays the first legal action."""

    def __init__(self, app: Any, room: str, seat: int | None, token: str | None) -> None:
        self.app, self.room, self.seat, self.token = app, room, seat, token
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.done = asyncio.Event()
        self.greeted = asyncio.Event()
        self.pending: int | None = None
        self.errors = 0

    def start(self) -> asyncio.Task[None]:
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "path": f"/ws/rooms/{self.room}",
            "raw_path": f"/ws/rooms/{self.room}".encode(),
            "query_string": b"",
            "headers": [],
            "client": ("127.0.0.1", 1),
            "server": ("bench", 80),
            "subprotocols": [],
        }
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.put({"type": "hello", "token": self.token})
        return asyncio.get_running_loop().create_task(self.app(scope, self.receive, self.send))

    def put(self, message: dict[str, Any]) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send(self, message: dict[str, Any]) -> None:
        started = time.thread_time()
        try:
            self.read(message)
        finally:
            CLIENT[0] += time.thread_time() - started

    def read(self, message: dict[str, Any]) -> None:
        if message["type"] != "websocket.send":
            return
        data = json.loads(message.get("text") or message["bytes"])
        if data["type"] == "error":
            self.errors += 1
            self.pending = None
            return
        if data["type"] != "view":
            return
        view = data["view"]
        self.greeted.set()
        if view["status"] == "finished":
            self.done.set()
            return
        step, me = view["step"], self.seat
        if self.pending is not None and (me not in view["to_move"] or step >= self.pending + 2):
            self.pending = None
        if view["status"] == "playing" and self.pending is None and view["legal"]:
            self.pending = step
            self.put({"type": "action", "action": view["legal"][0], "step": step})


async def setup(http: httpx.AsyncClient, kind: str, n: int) -> tuple[str, dict[int, str], str]:
    body = json.loads(json.dumps(TEMPLATES[kind]))
    made = (await http.post("/api/rooms", json=body)).raise_for_status().json()
    room = made["room"]["room"]
    tokens = {int(k): v for k, v in made["tokens"].items()}
    if body["mode"] == "online":
        j = await http.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": f"r{n}"})
        tokens[1] = j.raise_for_status().json()["token"]
    return room, tokens, made["host_token"]


async def run(rooms: int, spectators: int, db: str) -> dict[str, Any]:
    """Play the workload once; returns CPU seconds (total and per part) and actions."""
    settings = Settings(
        db=db,
        bot_delay=0,
        daily_expert="",
        rate_rooms=LIFTED,
        rate_players=LIFTED,
        rate_joins=LIFTED,
        rate_sockets=LIFTED,  # every client opens its socket from one address
        ws_per_address=100_000,  # and holds it open (the cap, 32, refused the 33rd: no greeting)
    )
    app = create_app(settings)
    service: RoomService = app.state.rooms
    kinds = list(TEMPLATES)
    clients: list[Client] = []
    hosts: list[tuple[str, str]] = []
    timers = Timers()
    deals = random.Random(DEALS)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://bench"
    ) as http:
        with mock.patch.object(secrets, "randbits", deals.getrandbits):  # the same deals
            for n in range(rooms):
                kind = kinds[n % len(kinds)]
                room, tokens, host = await setup(http, kind, n)
                clients += [Client(app, room, seat, token) for seat, token in tokens.items()]
                clients += [Client(app, room, None, None) for _ in range(spectators)]
                if TEMPLATES[kind]["mode"] == "online":
                    hosts.append((room, host))
        tasks = [c.start() for c in clients]
        await asyncio.wait_for(asyncio.gather(*(c.greeted.wait() for c in clients)), 120)
        instrument(timers, service)
        try:
            CLIENT[0] = 0.0
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for room, host in hosts:
                auth = {"Authorization": f"Bearer {host}", "Content-Type": "application/json"}
                (await http.post(f"/api/rooms/{room}/start", headers=auth)).raise_for_status()
            await asyncio.wait_for(asyncio.gather(*(c.done.wait() for c in clients)), 600)
            cpu = time.process_time() - cpu0 - CLIENT[0]
            wall = time.perf_counter() - wall0
        finally:
            timers.undo()
    for c in clients:
        c.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    await asyncio.gather(*tasks, return_exceptions=True)
    actions = sum(
        sum(1 for p, _ in t.progress.state.history() if p != CHANCE)
        for t in service.tables.values()
    )
    await service.stop()
    split = dict(timers.seconds)
    split["other"] = cpu - sum(split.values())
    return {
        "cpu": cpu,
        "wall": wall,
        "actions": actions,
        "errors": sum(c.errors for c in clients),
        "parts": split,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=40)
    parser.add_argument("--spectators", type=int, default=0, help="more sockets per room")
    parser.add_argument("--db", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the fastest is shown")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # warm-up: one room of each kind fills the engines' caches built on first use
        asyncio.run(run(len(TEMPLATES), 0, f"sqlite:///{tmp}/w.db"))
        runs = [
            asyncio.run(run(args.rooms, args.spectators, args.db or f"sqlite:///{tmp}/{i}.db"))
            for i in range(args.repeat)
        ]
    plain = min(runs, key=lambda r: r["cpu"])  # the least disturbed by other processes
    per_action = 1000 * plain["cpu"] / plain["actions"]
    split = {k: 1000 * v / plain["actions"] for k, v in plain["parts"].items()}
    out = {
        "rooms": args.rooms,
        "spectators": args.spectators,
        "actions": plain["actions"],
        "errors": plain["errors"],
        "cpu_ms_per_action": round(per_action, 3),
        "parts_ms": {k: round(v, 3) for k, v in split.items()},
        "wall_s": round(plain["wall"], 2),
    }
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print(
        f"{out['rooms']} rooms, {args.spectators} spectator(s) each: {out['actions']} actions "
        f"({out['errors']} refused), {per_action:.3f} CPU ms per action ({out['wall_s']} s)"
    )
    for name, ms in split.items():
        print(f"  {name:<9} {ms:7.3f} ms  {100 * ms / per_action:5.1f} %")


if __name__ == "__main__":
    main()
