"""The players of the web load benchmark (:mod:`load_web`): the room kinds, one WebSocket
client per human seat playing as a browser would, one group of players game after game, and
their REST side (aiohttp).

What each client does and measures is told in :mod:`load_web`'s docstring; :func:`run_group`
plays the games of one group, every :class:`Sent` action logged in its :class:`RoomRun` for the
check against the records (:mod:`loadcheck`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

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
                    await _play_connection(ws, token, seat_play, run, stats, cfg, stop_at, greeted)
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
    hello = json.dumps({"type": "hello", "token": token})
    await ws.send(hello)
    await _Connection(ws, hello, me, run, stats, cfg, stop_at, greeted).play()


@dataclass
class _Connection:
    """One socket of a seat's client: :meth:`play` is its loop."""

    ws: Any
    hello: str
    me: SeatPlay
    run: RoomRun
    stats: Stats
    cfg: LoadConfig
    stop_at: float
    greeted: asyncio.Event

    async def play(self) -> None:
        """Send on our turns and read messages until the game ends or the run stops."""
        me, cfg, stop_at = self.me, self.cfg, self.stop_at
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            stopping = now >= stop_at
            if stopping and me.pending is None:
                return
            if stopping and now >= stop_at + cfg.grace:
                self.stats.errors["unresolved-at-stop"] += 1
                return
            if not await self._send_when_due(now):
                return
            try:
                text = await asyncio.wait_for(self.ws.recv(), timeout=self._wait(now, stopping))
            except TimeoutError:
                if me.send_at is None and loop.time() - now >= cfg.idle_timeout:
                    self.stats.errors["idle-timeout"] += 1
                    return
                continue
            if await self._receive(orjson.loads(text), time.perf_counter()):
                return

    def _our_turn(self) -> bool:
        me, latest = self.me, self.me.latest
        return (
            me.pending is None
            and not me.reconnected
            and latest is not None
            and latest["status"] == "playing"
            and latest["step"] > me.last_sent
            and me.seat in latest["to_move"]
            and bool(latest["legal"])
        )

    async def _send_when_due(self, now: float) -> bool:
        """On our turn, once the think time is over, send an action; ``False``: the game is
        too long (the run stops playing it)."""
        me, cfg, stats = self.me, self.cfg, self.stats
        if not self._our_turn():
            return True
        latest = me.latest
        assert latest is not None
        if me.send_at is None:
            think = me.rng.expovariate(1 / cfg.think) if cfg.think > 0 else 0
            me.send_at = now + think
        if now < me.send_at:
            return True
        legal = latest["legal"]
        action = legal[0] if cfg.policy == "first" else me.rng.choice(legal)
        step = latest["step"]
        if step >= MAX_STEPS:
            stats.errors["game-too-long"] += 1
            return False
        me.pending = Sent(me.seat, step, action, _turn_of(latest), time.perf_counter())
        me.log.append(me.pending)
        if stats.first_send is None:
            stats.first_send = me.pending.t_send
        await self.ws.send(json.dumps({"type": "action", "action": action, "step": step}))
        me.last_sent = step
        me.send_at = None
        return True

    def _wait(self, now: float, stopping: bool) -> float:
        """How long to wait for a message: until our send is due, the run stops or its grace
        ends, at most the idle timeout."""
        me, cfg = self.me, self.cfg
        if me.send_at is not None:
            return max(0.0, me.send_at - now)
        if not stopping:
            return min(cfg.idle_timeout, max(0.0, self.stop_at - now) + 0.001)
        return min(cfg.idle_timeout, max(0.0, self.stop_at + cfg.grace - now) + 0.001)

    async def _receive(self, message: dict[str, Any], t: float) -> bool:
        """Handle one message received at ``t``; ``True``: the game is over for us."""
        if message["type"] == "error":
            await self._on_error(message.get("reason"), t)
            return False
        if message["type"] == "chat":
            return False
        if message["type"] != "view":
            self.stats.errors["unknown-message"] += 1
            return False
        return self._on_view(message["view"], t)

    async def _on_error(self, reason: Any, t: float) -> None:
        me, stats = self.me, self.stats
        if reason == "unavailable":  # the database is down for a moment: try again
            stats.unavailable["action:503"] += 1
            await asyncio.sleep(0.2)
            if me.latest is None or me.reconnected:
                await self.ws.send(self.hello)
            if me.pending is not None:
                me.pending.outcome, me.pending.reason, me.pending.t_done = "refused", reason, t
                me.pending = None
                me.last_sent = -1  # not played: play this step again
            return
        if me.pending is None:
            stats.errors[f"unsolicited-error:{reason}"] += 1
            return
        me.pending.outcome, me.pending.reason, me.pending.t_done = "refused", reason, t
        if reason != "stale-step":
            stats.errors[f"refused:{reason}"] += 1
        me.pending = None

    def _on_view(self, view: dict[str, Any], t: float) -> bool:
        me, run = self.me, self.run
        if me.reconnected:  # the first view on a new socket: was the last action played?
            me.reconnected = False
            if me.pending is not None and not _reflects(me.pending, view):
                me.pending.outcome, me.pending.reason = "refused", "disconnected"
                me.pending.t_done = t
                me.pending = None
                me.last_sent = -1
        if me.latest is not None and view["step"] < me.latest["step"]:
            self.stats.out_of_order += 1  # an older view after a newer one: keep the newer
            return False
        me.latest = view
        run.seated.setdefault(me.seat, t)
        self.greeted.set()
        if me.pending is not None and _reflects(me.pending, view):
            me.pending.outcome, me.pending.t_done = "reflected", t
            self.stats.last_done = t
            me.pending = None
        if view["status"] == "finished" and me.pending is None:
            if run.final is None:
                run.final = view
            return True
        return False


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
async def setup_room(http: Http, kind: str, group: int) -> tuple[str, dict[int, str], str]:
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
    return isinstance(
        exc, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError | TimeoutError
    )


def already_started(exc: BaseException) -> bool:
    if not isinstance(exc, HttpStatusError) or exc.status != 409:
        return False
    return isinstance(exc.body, dict) and exc.body.get("reason") == "already-started"
