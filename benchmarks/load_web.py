"""Load benchmark of the web table: many concurrent WebSocket players through complete games.

Run: ``.venv/bin/python benchmarks/load_web.py --players 200 --duration 60 [--db URL] [--json]``
(scale-out: ``--players 1000 --think 2 --duration 60 --workers 2 --json``).

It starts ``metrogames serve`` itself as a subprocess on a free port of 127.0.0.1 (loopback
only) with a fresh temporary SQLite database (or ``--db postgresql+psycopg://...``) and
``METROGAMES_BOT_DELAY=0``, then runs ``--players`` WebSocket clients in groups, one group per
room, cycling through the room kinds of ``--mix``:

* ``london-solo``   — one human (mode ``solo``);
* ``london-online`` — two humans (mode ``online``: create, join, both say hello, start);
* ``metro-online``  — two humans (mode ``online``);
* ``metro-bots``    — one human and a ``random`` bot (mode ``bots``; the bot plays inline).

Each client plays as a browser would: on every view where it is to move it sends the first legal
action (``--policy random``: a seeded random legal one), one action in flight at a time, after an
optional think time (``--think``, mean seconds, exponential). A group plays game after game
(a new room each time) until ``--duration`` has passed or ``--max-games`` have been started.

Measured per action: the round trip from sending it to the first view that reflects it (matched
by ``step``: a view of a later step in which the action is visible — Next Station multiplayer:
the seat ``acted`` in the same turn, or the turn has moved on). A ``stale-step`` refusal (two
seats of a simultaneous turn racing for the same step) is counted as ``refused`` and the client
plays again on the newer view, as a browser does.

Checked at the end, per room: its record is downloaded (``GET /api/rooms/{room}/record``) and
replayed with the engine (``metrogames.games.replay_record``). A finished game must end with the same
scores as the server's final view. Every action the clients sent and that was not refused must
be in the replayed history (Metro: at exactly the step it was sent for; Next Station, whose
records keep a turn's actions in seat order rather than arrival order: as that seat's n-th
action), else it is **lost**; every history entry of a client's seat must match exactly one
accepted send, else it is **duplicated** (a refused action found applied counts there too).
Actions of a Next Station turn still in progress when the run stops are not in the record and
are reported as ``unverified``.

Everything is bounded: ``--duration``, ``--max-games``, an idle timeout per socket, a grace
period for in-flight actions and a step limit per game; the server is always killed at the end.

Scale-out: ``--workers N`` (N > 1) runs ``metrogames serve --workers N`` on PostgreSQL and Redis
— throwaway servers on loopback (:mod:`services`) unless ``--db`` / ``--redis`` name them — and
waits until every worker listens. A client whose socket drops opens it again (to whichever
worker takes it) and sends again an action the new view does not show; a 503 ``unavailable``
(the database is down) is sent again too: such sends count as refused (reasons
:data:`RETRIED`), their resend is the one matched against the record. Fault modes, halfway
through the run: ``--kill-worker`` (SIGKILL one worker; uvicorn starts another),
``--restart-redis`` and ``--stop-db SECONDS`` (the throwaway servers). The JSON adds
``workers``, ``reconnects``, ``unavailable`` (requests sent again, by kind: 503 answers,
transport errors such as a request dropped by a dying worker) and ``faults``; the server's CPU and memory are those of all its processes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.request import urlopen

import aiohttp
import orjson
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from metrogames.core.protocol import CHANCE
from metrogames.games import replay_record
from metrogames.games.metro import metro_action_from_json, metro_action_to_json
from metrogames.games.nextstation.actions import action_from_json, action_to_json

LOOPBACK = "127.0.0.1"

TEMPLATES: dict[str, dict[str, Any]] = {
    "london-solo": {"game": "london", "mode": "solo", "seats": [{"name": "solo"}]},
    "london-online": {"game": "london", "mode": "online", "seats": [{"name": "host"}, {}]},
    "metro-online": {"game": "metro", "mode": "online", "seats": [{"name": "host"}, {}]},
    "metro-bots": {"game": "metro", "mode": "bots", "seats": [{"name": "solo"}, {"bot": "random"}]},
}
DEFAULT_MIX = ("london-solo", "london-online", "metro-online", "metro-bots")
RETRIED = ("unavailable", "disconnected")
"""Refusals after which a client sends the same action again: the database was down for a
moment (503), or the socket dropped before the action was seen played (its worker died). A
send refused so that was not played: should it have been, its step's record entry matches no
accepted send and counts as duplicated."""
WINDOW = 10.0
"""Seconds per window of ``rtt_p99_by_window``."""
MAX_STEPS = 3000
"""No game of these rooms comes near this many steps; a client stops there (an error)."""


@dataclass
class LoadConfig:
    """What to run (see the module docstring)."""

    players: int = 200
    duration: float = 60.0
    max_games: int = 5000
    mix: tuple[str, ...] = DEFAULT_MIX
    policy: str = "first"
    think: float = 0.0
    seed: int = 1
    idle_timeout: float = 30.0
    grace: float = 15.0
    ramp: float = 2.0
    """Seconds over which the groups start (a burst of 200 room creations is not a player)."""


@dataclass
class Sent:
    """One action message: where and when it was sent, and what came of it."""

    seat: int
    step: int
    action: Any
    turn: tuple[int, int] | None
    t_send: float
    t_done: float | None = None
    outcome: str = "pending"  # reflected | refused | pending
    reason: str | None = None


@dataclass
class RoomRun:
    """One game played by one group."""

    room: str
    game: str
    kind: str
    seats: list[int]
    sent: dict[int, list[Sent]] = field(default_factory=dict)
    final: dict[str, Any] | None = None
    t_arrive: float = 0.0
    """When the group asked for the room (its creation request sent)."""
    seated: dict[int, float] = field(default_factory=dict)
    """Seat -> when its first view came (the player is at the table)."""


@dataclass
class Stats:
    """Counters shared by every client of a run."""

    connected: int = 0
    peak_connected: int = 0
    games_started: int = 0
    games_completed: int = 0
    out_of_order: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    rooms: list[RoomRun] = field(default_factory=list)
    first_send: float | None = None
    last_done: float | None = None
    reconnects: int = 0
    unavailable: Counter[str] = field(default_factory=Counter)

    def connect(self) -> None:
        self.connected += 1
        self.peak_connected = max(self.peak_connected, self.connected)


@dataclass
class Result:
    """The summary printed (and ``--json``)."""

    players: int
    players_held: int
    db: str
    games_started: int
    games_completed: int
    actions: int
    seconds: float
    actions_per_second: float
    rtt_ms: dict[str, float]
    rtt_p99_by_window: list[float]
    """The p99 round trip (ms) of the actions sent in each :data:`WINDOW` seconds of the run,
    in order: the players' arrival (all within ``--ramp`` s) against the steady state."""
    seated_ms: dict[str, float]
    """How long players took to reach their table: from the room's creation request to the
    seat's first view (a room claimed, the socket greeted), p50 / p90 / p99 / max, ms."""
    refused: int
    lost: int
    duplicated: int
    unverified: int
    score_mismatches: int
    out_of_order_views: int
    errors: dict[str, int]
    client_cpu_s: float
    server_cpu_s: float | None = None
    server_rss_mb: float | None = None
    workers: int = 1
    reconnects: int = 0
    unavailable: dict[str, int] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        bad = self.lost or self.duplicated or self.score_mismatches or self.errors
        return not bad and self.actions > 0


# -- one client -----------------------------------------------------------------------------
def _turn_of(view: dict[str, Any]) -> tuple[int, int] | None:
    return (view["round"], view["turn"]) if "turn" in view else None


def _reflects(sent: Sent, view: dict[str, Any]) -> bool:
    """Whether ``view`` shows ``sent`` applied (it is of a later step and, in a simultaneous
    Next Station turn, the seat has acted in that turn or the turn is over)."""
    if view["step"] <= sent.step:
        return False
    if view["status"] == "finished" or sent.turn is None or len(view["seats"]) == 1:
        return True
    if _turn_of(view) != sent.turn:
        return True  # the turn could not end without this seat's action
    me = next(p for p in view["players"] if p["seat"] == sent.seat)
    return bool(me["acted"])


async def play_seat(
    ws_url: str,
    token: str,
    seat: int,
    run: RoomRun,
    stats: Stats,
    cfg: LoadConfig,
    stop_at: float,
    rng: random.Random,
    greeted: asyncio.Event,
) -> None:
    """Play one seat of one room over a WebSocket until the game ends or the run stops; a
    dropped socket (its worker died) is opened again — to whichever worker takes it — and an
    action it carried that the new view does not show is played again."""
    seat_play = SeatPlay(seat, run.sent.setdefault(seat, []), rng)
    loop = asyncio.get_running_loop()
    while True:
        try:
            async with connect(ws_url, open_timeout=cfg.idle_timeout, max_size=2**22) as ws:
                stats.connect()
                try:
                    await _play_connection(
                        ws, token, seat_play, run, stats, cfg, stop_at, greeted
                    )
                    return
                finally:
                    stats.connected -= 1
        except (ConnectionClosed, OSError, TimeoutError):
            if loop.time() >= stop_at + cfg.grace:
                stats.errors["unresolved-at-stop"] += 1
                return
            stats.reconnects += 1
            seat_play.reconnected = True
            await asyncio.sleep(0.05 + rng.random() * 0.2)


@dataclass
class SeatPlay:
    """What one seat's client keeps across its connections."""

    seat: int
    log: list[Sent]
    rng: random.Random
    pending: Sent | None = None
    latest: dict[str, Any] | None = None
    last_sent: int = -1
    send_at: float | None = None
    reconnected: bool = False


async def _play_connection(
    ws: Any,
    token: str,
    me: SeatPlay,
    run: RoomRun,
    stats: Stats,
    cfg: LoadConfig,
    stop_at: float,
    greeted: asyncio.Event,
) -> None:
    """Say hello on ``ws`` and play until the game ends or the run stops (returns), or the
    socket drops (raises)."""
    loop = asyncio.get_running_loop()
    hello = json.dumps({"type": "hello", "token": token})
    await ws.send(hello)
    while True:
        now = loop.time()
        stopping = now >= stop_at
        if stopping and me.pending is None:
            return
        if stopping and now >= stop_at + cfg.grace:
            stats.errors["unresolved-at-stop"] += 1
            return
        latest = me.latest
        # send when it is our turn (after the think time)
        if (
            me.pending is None
            and not me.reconnected
            and latest is not None
            and latest["status"] == "playing"
            and latest["step"] > me.last_sent
            and me.seat in latest["to_move"]
            and latest["legal"]
        ):
            if me.send_at is None:
                think = me.rng.expovariate(1 / cfg.think) if cfg.think > 0 else 0
                me.send_at = now + think
            if now >= me.send_at:
                legal = latest["legal"]
                action = legal[0] if cfg.policy == "first" else me.rng.choice(legal)
                step = latest["step"]
                if step >= MAX_STEPS:
                    stats.errors["game-too-long"] += 1
                    return
                me.pending = Sent(me.seat, step, action, _turn_of(latest), time.perf_counter())
                me.log.append(me.pending)
                if stats.first_send is None:
                    stats.first_send = me.pending.t_send
                await ws.send(json.dumps({"type": "action", "action": action, "step": step}))
                me.last_sent = step
                me.send_at = None
        wait = cfg.idle_timeout
        if me.send_at is not None:
            wait = max(0.0, me.send_at - now)
        elif not stopping:
            wait = min(wait, max(0.0, stop_at - now) + 0.001)
        else:
            wait = min(wait, max(0.0, stop_at + cfg.grace - now) + 0.001)
        try:
            text = await asyncio.wait_for(ws.recv(), timeout=wait)
        except TimeoutError:
            if me.send_at is None and loop.time() - now >= cfg.idle_timeout:
                stats.errors["idle-timeout"] += 1
                return
            continue
        t = time.perf_counter()
        message = orjson.loads(text)
        if message["type"] == "error":
            reason = message.get("reason")
            if reason == "unavailable":  # the database is down for a moment: try again
                stats.unavailable["action:503"] += 1
                await asyncio.sleep(0.2)
                if me.latest is None or me.reconnected:
                    await ws.send(hello)
                if me.pending is not None:
                    me.pending.outcome, me.pending.reason, me.pending.t_done = "refused", reason, t
                    me.pending = None
                    me.last_sent = -1  # not played: play this step again
                continue
            if me.pending is None:
                stats.errors[f"unsolicited-error:{reason}"] += 1
                continue
            me.pending.outcome, me.pending.reason, me.pending.t_done = "refused", reason, t
            if reason != "stale-step":
                stats.errors[f"refused:{reason}"] += 1
            me.pending = None
            continue
        if message["type"] == "chat":
            continue
        if message["type"] != "view":
            stats.errors["unknown-message"] += 1
            continue
        view = message["view"]
        if me.reconnected:  # the first view on a new socket: was the last action played?
            me.reconnected = False
            if me.pending is not None and not _reflects(me.pending, view):
                me.pending.outcome, me.pending.reason = "refused", "disconnected"
                me.pending.t_done = t
                me.pending = None
                me.last_sent = -1
        if me.latest is not None and view["step"] < me.latest["step"]:
            stats.out_of_order += 1  # an older view after a newer one: keep the newer
            continue
        me.latest = view
        run.seated.setdefault(me.seat, t)
        greeted.set()
        if me.pending is not None and _reflects(me.pending, view):
            me.pending.outcome, me.pending.t_done = "reflected", t
            stats.last_done = t
            me.pending = None
        if view["status"] == "finished" and me.pending is None:
            if run.final is None:
                run.final = view
            return


# -- HTTP ----------------------------------------------------------------------------------
class HttpStatusError(Exception):
    """An HTTP answer of 400 or more: ``status`` and the decoded JSON ``body`` (or ``None``)."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


HTTP_ERRORS = (HttpStatusError, aiohttp.ClientError, TimeoutError)
"""What a request of the load client may raise (an answer >= 400, a transport failure)."""


class Http:
    """The clients' REST side: one aiohttp session (connection pool of ``limit``) on
    ``base_url``; answers decoded from JSON. aiohttp, not httpx: with hundreds of requests
    queued for the pool, httpx's pool spent most of the client's CPU choosing connections."""

    def __init__(self, base_url: str, timeout: float, limit: int = 64) -> None:
        self.session = aiohttp.ClientSession(
            base_url=base_url,
            timeout=aiohttp.ClientTimeout(total=timeout),
            connector=aiohttp.TCPConnector(limit=limit, keepalive_timeout=2),
            json_serialize=lambda value: orjson.dumps(value).decode(),
        )

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """``(status, decoded body)`` of ``method path`` with the JSON ``body`` and a bearer
        ``token``.

        Raises:
            HttpStatusError: the server answered 400 or more.
            aiohttp.ClientError, TimeoutError: the request did not get an answer.
        """
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if method != "GET":  # the server refuses a change not said to be JSON, body or not
            headers["Content-Type"] = "application/json"
        async with self.session.request(method, path, json=body, headers=headers) as r:
            raw = await r.read()
            decoded = orjson.loads(raw) if raw else None
            if r.status >= 400:
                raise HttpStatusError(r.status, decoded)
            return r.status, decoded

    async def post(self, path: str, body: Any = None, token: str | None = None) -> Any:
        """The decoded answer of ``POST path`` (raises as :meth:`request`)."""
        return (await self.request("POST", path, body, token))[1]

    async def close(self) -> None:
        await self.session.close()


# -- one group of players, game after game --------------------------------------------------
async def setup_room(
    http: Http, kind: str, group: int
) -> tuple[str, dict[int, str], str]:
    """Create a room of ``kind``; claim its open seats. Returns room, seat tokens, host token."""
    body = json.loads(json.dumps(TEMPLATES[kind]))
    made = await http.post("/api/rooms", body)
    room = made["room"]["room"]
    tokens = {int(k): v for k, v in made["tokens"].items()}
    for seat, entry in enumerate(body["seats"]):
        if body["mode"] == "online" and seat > 0 and not entry:
            joined = await http.post(
                f"/api/rooms/{room}/join", {"seat": seat, "name": f"g{group}s{seat}"}
            )
            tokens[seat] = joined["token"]
    return room, tokens, made["host_token"]


async def start_when_greeted(
    http: Http,
    room: str,
    host: str,
    greeted: dict[int, asyncio.Event],
    tasks: list[asyncio.Task[None]],
    stats: Stats,
    cfg: LoadConfig,
) -> None:
    """Start an online room once every seat has its first view (not when a client has
    already left: the run stopped before the room was ready)."""
    everyone = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in greeted.values())))
    waits: list[asyncio.Future[Any]] = [everyone, *tasks]
    done, _ = await asyncio.wait(
        waits, timeout=cfg.idle_timeout, return_when=asyncio.FIRST_COMPLETED
    )
    if everyone not in done:
        everyone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await everyone
        if not done:
            stats.errors["start:TimeoutError"] += 1
        return
    for _ in range(int(cfg.idle_timeout / 0.5)):
        try:
            await http.post(f"/api/rooms/{room}/start", token=host)
            return
        except HTTP_ERRORS as exc:
            if already_started(exc):
                return  # an earlier try started it; its answer was lost with its worker
            if not unavailable(exc):
                stats.errors[f"start:{type(exc).__name__}"] += 1
                return
            stats.unavailable[f"start:{retry_kind(exc)}"] += 1  # sent again
            await asyncio.sleep(0.5)
    stats.errors["start:unavailable"] += 1


async def run_group(
    group: int,
    kind: str,
    http: Http,
    ws_base: str,
    stats: Stats,
    cfg: LoadConfig,
    stop_at: float,
    delay: float,
) -> None:
    """Play games of ``kind`` with this group's players until the run stops."""
    await asyncio.sleep(delay)
    rng = random.Random(f"{cfg.seed}:{group}")
    loop = asyncio.get_running_loop()
    while loop.time() < stop_at and stats.games_started < cfg.max_games:
        stats.games_started += 1
        t_arrive = time.perf_counter()
        try:
            room, tokens, host = await setup_room(http, kind, group)
        except (*HTTP_ERRORS, KeyError, ValueError) as exc:
            stats.games_started -= 1
            if unavailable(exc):
                stats.unavailable[f"setup:{retry_kind(exc)}"] += 1  # sent again
            else:
                stats.errors[f"setup:{type(exc).__name__}"] += 1
            await asyncio.sleep(0.5)
            continue
        if loop.time() >= stop_at:
            stats.games_started -= 1
            break  # ready too late to play
        run = RoomRun(room, TEMPLATES[kind]["game"], kind, sorted(tokens), t_arrive=t_arrive)
        stats.rooms.append(run)
        greeted = {seat: asyncio.Event() for seat in tokens}
        tasks = [
            asyncio.create_task(
                play_seat(
                    f"{ws_base}/ws/rooms/{room}",
                    token,
                    seat,
                    run,
                    stats,
                    cfg,
                    stop_at,
                    random.Random(rng.random()),
                    greeted[seat],
                )
            )
            for seat, token in tokens.items()
        ]
        if TEMPLATES[kind]["mode"] == "online":
            await start_when_greeted(http, room, host, greeted, tasks, stats, cfg)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for res in results:
            if isinstance(res, BaseException):
                stats.errors[f"client:{type(res).__name__}"] += 1
        if run.final is not None:
            stats.games_completed += 1


def quiet_collector() -> None:
    """Keep the client's garbage collector from pausing it mid-run: what exists now is frozen
    and full collections wait for the end (young ones still free short-lived cycles). A full
    collection of 1,000 players' sockets and views paused the client 130–310 ms, measured into
    the round trips of every action in flight."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 1_000_000)


def retry_kind(exc: BaseException) -> str:
    """``503`` or the name of the transport error."""
    return "503" if isinstance(exc, HttpStatusError) else type(exc).__name__


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` is the server's 503 (its database cannot be reached for a moment) or a
    connection its dying worker dropped: a request to send again."""
    if isinstance(exc, HttpStatusError):
        return exc.status == 503
    return isinstance(exc, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError | TimeoutError)


def already_started(exc: BaseException) -> bool:
    if not isinstance(exc, HttpStatusError) or exc.status != 409:
        return False
    return isinstance(exc.body, dict) and exc.body.get("reason") == "already-started"


# -- checking against the records -----------------------------------------------------------
def _canon(state: Any, value: Any) -> str:
    """An action (notation JSON or engine value) in one canonical JSON text."""
    if hasattr(state, "city"):
        action = value if not isinstance(value, str | dict) else action_from_json(state.city, value)
        return json.dumps(action_to_json(state.city, action), sort_keys=True)
    action = value if not isinstance(value, dict) else metro_action_from_json(value)
    return json.dumps(metro_action_to_json(action), sort_keys=True)


@dataclass
class Check:
    lost: int = 0
    duplicated: int = 0
    unverified: int = 0
    score_mismatches: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def note(self, run: RoomRun, what: str, **facts: Any) -> None:
        """Keep the first few lost/duplicated cases, to be shown with ``--json``."""
        if len(self.examples) < 10:
            self.examples.append({"what": what, "room": run.room, "kind": run.kind, **facts})


def match_by_seat(
    check: Check, run: RoomRun, state: Any, history: list[Any], finished: bool
) -> None:
    """Next Station: a record keeps each turn's actions in seat order, not in the order they
    came, so each seat's accepted actions must be its history entries, one for one, in order."""
    for seat, log in run.sent.items():
        played = [_canon(state, a) for who, a in history if who == seat]
        accepted = [s for s in log if s.outcome != "refused"]
        for i, sent in enumerate(accepted):
            facts = {"seat": seat, "step": sent.step, "sent": sent.action, "n": i}
            if i >= len(played):
                if finished:
                    check.lost += 1
                    check.note(run, "lost", **facts)
                else:
                    check.unverified += 1  # the turn in progress is not in the record
            elif played[i] != _canon(state, sent.action):
                check.lost += 1
                check.note(run, "lost", history=played[i], **facts)
        for i in range(len(accepted), len(played)):
            check.duplicated += 1  # applied without an accepted send: resent or doubled
            check.note(run, "unmatched", seat=seat, n=i, history=played[i])


def match_by_step(
    check: Check, run: RoomRun, state: Any, history: list[Any], finished: bool
) -> None:
    """Metro: turns are sequential, so each accepted action is the history entry of the step
    it was sent for; every history entry of a client's seat matches one sent action."""
    matched: set[int] = set()
    for seat, log in run.sent.items():
        for sent in log:
            if sent.reason in RETRIED:
                continue  # not played, and sent again: the later send is the one to match
            if sent.step >= len(history):
                if finished or sent.outcome == "refused":
                    check.lost += sent.outcome != "refused"
                else:
                    check.unverified += 1
                continue
            who, action = history[sent.step]
            here = who == seat and _canon(state, action) == _canon(state, sent.action)
            facts = {
                "seat": seat,
                "step": sent.step,
                "sent": sent.action,
                "outcome": sent.outcome,
                "reason": sent.reason,
                "history": [who, _canon(state, action) if who != CHANCE else action],
            }
            if sent.outcome == "refused":
                if here:
                    check.duplicated += 1  # refused, yet applied: a client would resend it
                    check.note(run, "refused-but-applied", **facts)
                    matched.add(sent.step)
            elif here and sent.step not in matched:
                matched.add(sent.step)
            else:
                check.lost += 1
                check.note(run, "lost", **facts)
    mine = set(run.sent)
    for k, (who, action) in enumerate(history):
        if who != CHANCE and who in mine and k not in matched:
            check.duplicated += 1
            check.note(run, "unmatched", seat=who, step=k, history=_canon(state, action))


async def verify(http: Http, rooms: list[RoomRun]) -> Check:
    """Replay every room's record and match it against what its clients sent."""
    check = Check()
    for run in rooms:
        try:
            _, record = await http.request("GET", f"/api/rooms/{run.room}/record")
        except HttpStatusError as exc:
            check.errors[f"record:{exc.status}"] += 1
            continue
        state = replay_record(record)
        history = state.history()
        finished = state.is_over()
        if run.final is not None:
            if not finished:
                check.errors["finished-view-but-record-not-over"] += 1
            elif state.scores() != run.final["scores"]:
                check.score_mismatches += 1
        if hasattr(state, "city"):
            match_by_seat(check, run, state, history, finished)
        else:
            match_by_step(check, run, state, history, finished)
    return check


# -- a run ----------------------------------------------------------------------------------
def groups_for(players: int, mix: tuple[str, ...]) -> list[str]:
    """Room kinds for ``players`` clients, cycling ``mix`` (a last single player plays solo)."""
    kinds: list[str] = []
    left, i = players, 0
    while left > 0:
        kind = mix[i % len(mix)]
        size = sum(1 for s in TEMPLATES[kind]["seats"] if "bot" not in s)
        if size > left:
            kind = next(
                k for k in mix if sum(1 for s in TEMPLATES[k]["seats"] if "bot" not in s) <= left
            )
            size = 1
        kinds.append(kind)
        left -= size
        i += 1
    return kinds


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (0 for none)."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, math.ceil(q / 100 * len(values)) - 1))]


async def run_load(base_url: str, cfg: LoadConfig, db: str = "") -> Result:
    """Run the load against a server at ``base_url`` (http://127.0.0.1:port)."""
    quiet_collector()
    ws_base = "ws" + base_url[len("http") :]
    stats = Stats()
    cpu0 = time.process_time()
    http = Http(base_url, cfg.idle_timeout)
    try:
        loop = asyncio.get_running_loop()
        stop_at = loop.time() + cfg.duration
        kinds = groups_for(cfg.players, cfg.mix)
        spacing = cfg.ramp / max(1, len(kinds))
        await asyncio.gather(
            *(
                run_group(g, kind, http, ws_base, stats, cfg, stop_at, g * spacing)
                for g, kind in enumerate(kinds)
            )
        )
        client_cpu = time.process_time() - cpu0
        check = await verify(http, stats.rooms)
    finally:
        await http.close()
    sent = [s for run in stats.rooms for log in run.sent.values() for s in log]
    done = sorted(
        (s.t_done - s.t_send) * 1000 for s in sent if s.outcome == "reflected" and s.t_done
    )
    seconds = (stats.last_done - stats.first_send) if stats.first_send and stats.last_done else 0.0
    windows: dict[int, list[float]] = {}
    for x in sent:
        if x.outcome == "reflected" and x.t_done and stats.first_send is not None:
            window = int((x.t_send - stats.first_send) // WINDOW)
            windows.setdefault(window, []).append((x.t_done - x.t_send) * 1000)
    errors = Counter(stats.errors) + check.errors
    seated = sorted((t - run.t_arrive) * 1000 for run in stats.rooms for t in run.seated.values())
    return Result(
        players=cfg.players,
        players_held=stats.peak_connected,
        db=db,
        games_started=stats.games_started,
        games_completed=stats.games_completed,
        actions=len(done),
        seconds=round(seconds, 2),
        actions_per_second=round(len(done) / seconds, 1) if seconds else 0.0,
        rtt_ms={
            "p50": round(percentile(done, 50), 2),
            "p90": round(percentile(done, 90), 2),
            "p99": round(percentile(done, 99), 2),
            "max": round(done[-1], 2) if done else 0.0,
        },
        rtt_p99_by_window=[
            round(percentile(sorted(windows.get(w, [])), 99), 1)
            for w in range(max(windows, default=-1) + 1)
        ],
        seated_ms={
            "p50": round(percentile(seated, 50), 1),
            "p90": round(percentile(seated, 90), 1),
            "p99": round(percentile(seated, 99), 1),
            "max": round(seated[-1], 1) if seated else 0.0,
        },
        refused=sum(1 for s in sent if s.outcome == "refused"),
        lost=check.lost,
        duplicated=check.duplicated,
        unverified=check.unverified,
        score_mismatches=check.score_mismatches,
        out_of_order_views=stats.out_of_order,
        errors=dict(errors),
        client_cpu_s=round(client_cpu, 2),
        reconnects=stats.reconnects,
        unavailable=dict(stats.unavailable),
        examples=check.examples,
    )


# -- the server -----------------------------------------------------------------------------
def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``), or ``None``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants now (Linux ``/proc``): a server and its workers."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    return tree


def tree_cpu_seconds(pid: int) -> dict[int, float]:
    """CPU seconds of ``pid`` and each of its descendants, by process."""
    found = {p: cpu_seconds(p) for p in process_tree(pid)}
    return {p: c for p, c in found.items() if c is not None}


def workers_of(pid: int) -> list[int]:
    """The worker processes of ``metrogames serve --workers N`` (pid): the children that run
    the app (uvicorn spawns them; Python's resource tracker is left out)."""
    found = []
    for p in process_tree(pid)[1:]:
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes():
                found.append(p)
    return found


def rss_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB (Linux ``/proc``), or ``None``."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


@contextlib.contextmanager
def server_process(
    db: str,
    workdir: Path,
    env: dict[str, str] | None = None,
    workers: int = 1,
    redis: str | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``metrogames serve`` on a free loopback port with ``db`` (and settings ``env``; with
    ``workers`` processes sharing ``redis``); killed on exit."""
    port = free_port()
    script = Path(sys.executable).with_name("metrogames")
    cmd = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from metrogames.cli.main import app; app()"]
    )
    cmd += ["serve", "--host", LOOPBACK, "--port", str(port), "--db", db]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    if redis:
        cmd += ["--redis", redis]
    # every load client comes from 127.0.0.1: creation rate limits lifted
    lifted = {
        f"METROGAMES_RATE_{k}": "1000000/minute"
        for k in ("ROOMS", "PLAYERS", "JOINS", "REPLAYS", "ACCOUNTS", "SIGNINS")
    }
    # every load client comes from 127.0.0.1: no cap on its ranked guest games either
    lifted["METROGAMES_DAILY_GUEST_RANKED"] = "10000"
    lifted["METROGAMES_WS_PER_ADDRESS"] = "100000"  # nor on its open sockets
    env = dict(os.environ, METROGAMES_BOT_DELAY="0", **lifted, **(env or {}))
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://{LOOPBACK}:{port}"
    try:
        deadline = time.monotonic() + 30 + 30 * workers
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the server exited: {(workdir / 'server.log').read_text()[-2000:]}"
                )
            with contextlib.suppress(URLError, OSError), urlopen(f"{url}/api/games", timeout=1) as r:
                if r.status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not come up in time")
            time.sleep(0.1)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT if workers == 1 else signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()


@contextlib.asynccontextmanager
async def server_in_process(db: str, **settings: Any) -> AsyncIterator[str]:
    """The app served by uvicorn on this event loop (a free loopback port; more ``settings``
    given); for tests."""
    import uvicorn

    from metrogames.web.app import create_app
    from metrogames.web.config import Settings

    lifted = "1000000/minute"  # every load client comes from 127.0.0.1
    app = create_app(
        Settings(
            db=db,
            bot_delay=0,
            rate_rooms=lifted,
            rate_players=lifted,
            rate_joins=lifted,
            rate_replays=lifted,
            rate_accounts=lifted,
            rate_signins=lifted,
            daily_guest_ranked=10_000,
            **settings,
        )
    )
    sock = socket.socket()
    sock.bind((LOOPBACK, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(200):
            if server.started or task.done():
                break
            await asyncio.sleep(0.05)
        if not server.started:
            raise RuntimeError("the in-process server did not start")
        yield f"http://{LOOPBACK}:{port}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 15)
        sock.close()


def print_summary(res: Result) -> None:
    rtt = res.rtt_ms
    print(
        f"players {res.players} (held {res.players_held} sockets at once), db {res.db}\n"
        f"games started {res.games_started}, completed {res.games_completed}\n"
        f"actions {res.actions} in {res.seconds} s: {res.actions_per_second} actions/s\n"
        f"round trip ms: p50 {rtt['p50']}  p90 {rtt['p90']}  p99 {rtt['p99']}  max {rtt['max']}\n"
        f"p99 per {WINDOW:g} s: {' '.join(f'{v:g}' for v in res.rtt_p99_by_window)}\n"
        f"to the table (room asked for to first view) ms: "
        f"{'  '.join(f'{k} {v:g}' for k, v in res.seated_ms.items())}\n"
        f"lost {res.lost}, duplicated {res.duplicated}, unverified (turn in progress) "
        f"{res.unverified}, score mismatches {res.score_mismatches}\n"
        f"refused (stale-step races) {res.refused}, out-of-order views {res.out_of_order_views}, "
        f"errors {res.errors or 0}\n"
        f"CPU s: client {res.client_cpu_s}, server {res.server_cpu_s}; "
        f"server memory {res.server_rss_mb} MiB at the end"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play (max)")
    parser.add_argument("--max-games", type=int, default=5000)
    parser.add_argument("--db", help="database URL (default: a fresh temporary SQLite file)")
    parser.add_argument(
        "--mix", default=",".join(DEFAULT_MIX), help=f"room kinds: {', '.join(TEMPLATES)}"
    )
    parser.add_argument("--policy", choices=("first", "random"), default="first")
    parser.add_argument("--think", type=float, default=0.0, help="mean think time, seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ramp", type=float, default=2.0, help="seconds over which the players arrive"
    )
    parser.add_argument(
        "--profile",
        metavar="OUT",
        help="py-spy record the server into OUT (.svg, or .txt: collapsed)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server worker processes; more than one: on PostgreSQL + Redis (throwaway servers "
        "on loopback unless --db / --redis name them)",
    )
    parser.add_argument("--redis", help="Redis URL for the workers (default: a throwaway server)")
    parser.add_argument(
        "--kill-worker", action="store_true", help="fault: SIGKILL one worker mid-run"
    )
    parser.add_argument(
        "--restart-redis", action="store_true", help="fault: restart the throwaway Redis mid-run"
    )
    parser.add_argument(
        "--stop-db",
        type=float,
        metavar="SECONDS",
        help="fault: stop the throwaway PostgreSQL for SECONDS mid-run",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if args.workers < 1 or (args.kill_worker and args.workers < 2):
        parser.error("--workers must be at least 1 (--kill-worker: at least 2)")
    if args.restart_redis and args.redis:
        parser.error("--restart-redis restarts the throwaway Redis: leave out --redis")
    if args.stop_db is not None and (args.db or not 0 < args.stop_db < args.duration):
        parser.error("--stop-db stops the throwaway PostgreSQL (leave out --db) for less than "
                     "--duration")
    mix = tuple(k.strip() for k in args.mix.split(",") if k.strip())
    unknown = [k for k in mix if k not in TEMPLATES]
    if unknown or not mix or args.players < 1 or args.duration <= 0:
        parser.error(f"bad --mix/--players/--duration ({', '.join(unknown)})")
    cfg = LoadConfig(
        players=args.players,
        duration=args.duration,
        max_games=args.max_games,
        mix=mix,
        policy=args.policy,
        think=args.think,
        seed=args.seed,
        ramp=args.ramp,
    )
    result = run_server_and_load(args, cfg)
    if args.json:
        print(json.dumps(asdict(result) | {"ok": result.ok}, indent=2))
    else:
        print_summary(result)
    return 0 if result.ok else 1


def run_server_and_load(args: argparse.Namespace, cfg: LoadConfig) -> Result:
    """Start what ``args`` ask for (throwaway PostgreSQL and Redis, the server with its
    workers), run the load with the fault asked for halfway through, and measure."""
    import services  # beside this script (benchmarks/services.py)

    scale_out = args.workers > 1
    need_pg = (scale_out or args.stop_db is not None) and not args.db
    need_redis = (scale_out or args.restart_redis) and not args.redis
    with (
        tempfile.TemporaryDirectory(prefix="metrogames-load-") as tmp,
        services.throwaway(need_pg, need_redis) as (pg, rd),
    ):
        db = args.db or (pg.url if pg else f"sqlite:///{tmp}/load.db")
        redis = args.redis or (rd.url if rd else None)
        shown = "postgresql" if db.startswith("postgresql") else "sqlite"
        with server_process(db, Path(tmp), workers=args.workers, redis=redis) as (url, proc):
            if redis:
                wait_for_workers(redis, args.workers)
            spy = start_profile(args.profile, proc.pid, args.duration)
            cpu0 = tree_cpu_seconds(proc.pid)
            faults: list[str] = []
            fault = threading.Thread(
                target=inject_fault, args=(args, cfg, proc.pid, pg, rd, faults), daemon=True
            )
            fault.start()
            result = asyncio.run(run_load(url, cfg, shown))
            fault.join()
            cpu1 = tree_cpu_seconds(proc.pid)
            result.server_cpu_s = round(
                sum(c - cpu0.get(p, 0.0) for p, c in cpu1.items()), 2
            )  # a worker started again mid-run counts from its start
            result.server_rss_mb = round(sum(rss_mb(p) or 0.0 for p in cpu1), 1)
            result.workers, result.faults = args.workers, faults
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                try:
                    spy.wait(30)
                except subprocess.TimeoutExpired:
                    spy.kill()
    return result


def wait_for_workers(redis_url: str, workers: int, timeout: float = 120.0) -> None:
    """Wait until every worker listens to the others (subscribed to the room channel)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = dict(client.pubsub_numsub("metrogames:rooms"))
            if counts.get(b"metrogames:rooms", 0) >= workers:
                return
            time.sleep(0.2)
        raise RuntimeError(f"not all {workers} workers came up in {timeout:.0f} s")
    finally:
        client.close()


def inject_fault(
    args: argparse.Namespace,
    cfg: LoadConfig,
    server: int,
    pg: Any,
    rd: Any,
    faults: list[str],
) -> None:
    """Halfway through the run: the fault asked for (on a thread beside the load), told in
    ``faults`` (``pg``, ``rd``: the throwaway servers of :mod:`services`, or ``None``)."""
    if not (args.kill_worker or args.restart_redis or args.stop_db):
        return
    time.sleep(cfg.ramp + cfg.duration / 2)
    if args.kill_worker:
        victim = workers_of(server)[0]
        os.kill(victim, signal.SIGKILL)
        faults.append(f"SIGKILL worker {victim}")
    if args.restart_redis and rd is not None:
        rd.stop()
        rd.start()
        faults.append("redis restarted")
    if args.stop_db and pg is not None:
        t0 = time.monotonic()
        pg.stop()
        time.sleep(args.stop_db)
        pg.start()
        faults.append(f"postgresql stopped for {time.monotonic() - t0:.1f} s")


def start_profile(out: str | None, pid: int, duration: float) -> subprocess.Popen[bytes] | None:
    """py-spy recording the server into ``out`` (``.svg``, or ``.txt``: collapsed)."""
    if not out:
        return None
    fmt = "flamegraph" if out.endswith(".svg") else "raw"
    spy_bin = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return subprocess.Popen(
        [
            spy_bin, "record", "--pid", str(pid), "--rate", "200", "--format", fmt,
            "--output", out, "--duration", str(int(duration) + 5), "--nonblocking", "--subprocesses",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
