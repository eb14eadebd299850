"""Server settings, read from the environment (prefix ``METROGAMES_``) or given directly.

``METROGAMES_DB`` (SQLAlchemy URL: ``sqlite:///var/metrogames.db`` by default, or
``postgresql+psycopg://user@host:port/db``), ``METROGAMES_HOST``, ``METROGAMES_PORT``,
``METROGAMES_BOT_DELAY`` (seconds between two bot actions, so clients can show them one by one)
``METROGAMES_CLOCK_UNIT`` (real seconds per turn-clock second: 1, or tiny in tests),
``METROGAMES_HANDOVER_GRACE`` (seconds a seat's player must have been gone, without a
connection or an action, before the host may hand the seat to a bot),
``METROGAMES_DAILY_SECRET`` (the daily challenge's secret; when unset, a random one is made once
and kept in the database), ``METROGAMES_DAILY_EXPERT`` (the strong bot whose score on each daily
deal is shown beside the reference bot's, computed once in the background: ``expert``; empty:
none), ``METROGAMES_ROOM_IDLE`` and ``METROGAMES_FINISHED_IDLE`` (seconds
a room, or a finished room, stays in memory once nothing uses it; reloaded on demand),
``METROGAMES_RATE_ROOMS``, ``METROGAMES_RATE_PLAYERS``, ``METROGAMES_RATE_JOINS``,
``METROGAMES_RATE_REPLAYS``, ``METROGAMES_RATE_SCORES``, ``METROGAMES_RATE_MAPS``, ``METROGAMES_RATE_MAP_REPORTS``,
``METROGAMES_RATE_HINTS``,
``METROGAMES_RATE_ACCOUNTS``, ``METROGAMES_RATE_SIGNINS`` and ``METROGAMES_RATE_ANALYSES`` (how
many rooms, players, seat claims, uploaded replays, scored sheets, hints, sign-ups, sign-in
attempts and hindsight analyses one client address may ask for, in the ``limits`` library's
notation, e.g. ``20/minute;200/hour``), ``METROGAMES_RATE_CHAT`` (how many table chat messages
one seat of a room may send, same notation), ``METROGAMES_ANALYSIS_BUDGET`` (``rough``, ``quick``,
``normal`` or ``deep``: the hindsight analyses' search, :data:`~metrogames.bots.analysis.BUDGETS`),
``METROGAMES_TRUSTED_PROXIES`` (comma-separated addresses or networks of reverse proxies whose
``X-Forwarded-For`` names the client; empty: the direct peer is the client),
``METROGAMES_RATE_EXEMPT`` (comma-separated addresses or networks the per-address load limits
do not count — the rate limits, the socket cap and the job quota by address: the operator's
own monitoring, bots or load tests; empty: none),
``METROGAMES_ALLOWED_ORIGINS`` (comma-separated origins, ``https://host[:port]``, of other sites
whose pages may send requests that change something; empty: the server's own pages only,
:mod:`.csrf`),
``METROGAMES_SECURE_COOKIES`` (mark the session cookie ``Secure``: set it behind HTTPS),
``METROGAMES_SESSION_DAYS`` (how long a sign-in lasts), ``METROGAMES_SIGNIN_FREE``,
``METROGAMES_SIGNIN_BACKOFF`` and ``METROGAMES_SIGNIN_BACKOFF_CAP`` (the attempts at one
account's password that go through before it is locked, the first lock and the longest, in
seconds: :mod:`~metrogames.web.accounts.backoff`) and ``METROGAMES_DAILY_GUEST_RANKED``
(how many ranked guest games of one daily game one client address may start per UTC day),
``METROGAMES_REDIS_URL`` (``redis://host:port/db``: several workers share rate limits, room
changes and locks through this Redis server, :mod:`metrogames.web.infra.cluster`; unset: one process,
no Redis).
``METROGAMES_RATE_LOBBY`` (lobby reads and event streams one client address, and one
account, may open), ``METROGAMES_LOBBY_EXPIRY`` (seconds a listed room nobody fills stays in
the lobby; 1800) and ``METROGAMES_LOBBY_QUEUE`` (lobby events one event stream may hold unsent
before it is dropped; 64; a now playing stream's too): :mod:`metrogames.web.lobby`.
``METROGAMES_RATE_FRIENDS`` (requests about friends, blocks and invitations one client
address, and one account, may send: :mod:`metrogames.web.api.friends`).
``METROGAMES_RATE_WATCH`` (now playing reads and event streams one client address may open):
:mod:`metrogames.web.watch`.
Play now (:mod:`metrogames.web.matchmaking`): ``METROGAMES_RATE_QUICKMATCH`` (requests to
queue, cancel or take the bots one client address, and one account, may send),
``METROGAMES_QUICKMATCH_WINDOW`` and ``METROGAMES_QUICKMATCH_WIDEN`` (the rating points a
request accepts at once, 3, and how many more per second waited, 0.5),
``METROGAMES_QUICKMATCH_BOTS_AFTER`` (seconds of waiting before the bots are offered, 30),
``METROGAMES_QUICKMATCH_EXPIRY`` (seconds a request waits at most, 900) and
``METROGAMES_QUICKMATCH_LIVE_CLOCK`` and ``METROGAMES_QUICKMATCH_TURN_CLOCK`` (the turn clock,
seconds, of a live table, 90, and of a turn-based one, 86400).
``METROGAMES_EXPORT_SECRET`` (the key of the exports' pseudonyms; when unset, a random one is
made once and kept in the database) and ``METROGAMES_RATE_EXPORTS`` (monthly exports one client
address may download; ``4/minute;20/hour``): :mod:`metrogames.web.exports`.
``METROGAMES_LOG_FORMAT`` (``json``: one JSON object per line; ``text``: plain lines for
development) and ``METROGAMES_LOG_LEVEL`` (``warning``; ``info`` adds the access log):
:mod:`.logs`.
``METROGAMES_WS_PER_ADDRESS`` (how many WebSockets one client address may hold open at once, per
worker). ``METROGAMES_GAMES`` (plug-in games to serve beside the built-in and installed ones:
comma-separated ``module`` or ``module:attribute`` targets, :mod:`metrogames.games.plugins`;
empty: none). ``METROGAMES_ADMISSIONS`` (how many admissions — room creations, seat claims, starts,
sockets' hellos — one worker sets up at once; the others wait their turn, and moves never wait
for them: :mod:`metrogames.web.infra.admission`).
Deadlines on clients (:mod:`metrogames.web.infra.deadlines`, :mod:`metrogames.web.api.ws`):
``METROGAMES_HEADER_SECONDS`` (a request's line and headers, from its first byte; 10),
``METROGAMES_HEADER_BYTES`` (their largest size; 32 KiB), ``METROGAMES_BODY_SECONDS`` (a body,
from the end of its headers; 30), ``METROGAMES_SEND_SECONDS`` (how long a client may leave what
it is sent unread, HTTP or WebSocket; 30), ``METROGAMES_HELLO_SECONDS`` (a WebSocket's first
message; 10), ``METROGAMES_DENIAL_SECONDS`` (how long a WebSocket denied at the handshake, its
address told to wait, is held before its 429: :class:`~metrogames.web.infra.sockets.Tarpit`;
1); ``METROGAMES_SOCKET_RATE`` and ``METROGAMES_SOCKET_BURST`` (messages a second one
WebSocket, and one seat, may send, and the burst allowed above that rate; 20 and 40:
:mod:`metrogames.web.infra.flood`).
Heavy jobs (:mod:`metrogames.web.infra.jobs`: hints, searching bots' decisions, analyses, uploaded
replays, the daily expert's games, password hashing) never run in a serving process:
``METROGAMES_JOB_WORKERS`` (processes of the ``play`` lane: bots' decisions, then hints; 2) and
``METROGAMES_JOB_SLOW_WORKERS`` (processes of the ``slow`` lane: replays, expert games,
analyses; 1) — a process pool per lane in the single-process start, RQ workers started by
``serve --workers N`` (or ``metrogames jobs worker``) with Redis; ``METROGAMES_JOB_QUEUE``
(jobs a lane may hold queued; past it: 503 ``busy``) and ``METROGAMES_JOB_QUOTA`` (jobs one
client address, or one account, may have queued or running at once; past it: 429);
``METROGAMES_JOB_WARM`` (start this process's job processes when the server starts, not at
their first jobs; ``true``); ``METROGAMES_JOB_CPUS`` (the CPUs the job processes may run on, in
Linux's list notation, ``1`` or ``2-3,6``: the others are left to the serving processes; empty:
any CPU); ``METROGAMES_JOB_IDLE`` (run a job whose cost a client chooses on the idle scheduling
policy: ``true``; ``false`` on a machine shared with other busy work, a CI runner, where an idle
job could wait long for a free CPU).
"""

from __future__ import annotations

import ipaddress
import os
import re

from limits import parse_many
from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS
from metrogames.web.infra.csrf import parse_origins
from metrogames.web.infra.logs import log_config

DEFAULT_DB = "sqlite:///var/metrogames.db"


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


MAX_CPUS = 4096
"""CPU numbers a list may name are below this (Linux's own default limit)."""


def cpu_list(value: str) -> frozenset[int]:
    """The CPUs of a list in Linux's notation (``"1"``, ``"0,2-3"``; empty: none), each one this
    process may run on.

    Raises:
        ValueError: naming the entry that is no CPU number or range, or the CPUs this process
            may not use (or that the system cannot pin a process to).
    """
    found: set[int] = set()
    for entry in filter(None, (e.strip() for e in value.split(","))):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", entry, re.ASCII)
        if match is None:
            raise ValueError(f"{entry!r} is no CPU number or range (e.g. 1 or 2-3)")
        low, high = int(match[1]), int(match[2] or match[1])
        if high < low:
            raise ValueError(f"{entry!r} is an empty range")
        if high >= MAX_CPUS:
            raise ValueError(f"no CPU {high} here (at most {MAX_CPUS})")
        found.update(range(low, high + 1))
    if found:
        if not hasattr(os, "sched_getaffinity"):
            raise ValueError("this system cannot pin processes to CPUs")
        if missing := found - os.sched_getaffinity(0):
            usable = ",".join(map(str, sorted(os.sched_getaffinity(0))))
            raise ValueError(f"no CPU {','.join(map(str, sorted(missing)))} here (usable: {usable})")
    return frozenset(found)


def networks(value: str) -> tuple[Network, ...]:
    """The addresses or networks of a comma-separated setting (``"10.0.0.0/8, ::1"``; an
    address is a network of one).

    Raises:
        ValueError: naming the first entry that is no IP address or network.
    """
    found = []
    for entry in filter(None, (e.strip() for e in value.split(","))):
        try:
            found.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is no IP address or network") from None
    return tuple(found)


class Settings(BaseSettings):
    """The web table's settings (see the module docstring for the environment names)."""

    model_config = SettingsConfigDict(env_prefix="METROGAMES_")

    db: str = DEFAULT_DB
    host: str = "127.0.0.1"
    port: int = 8000
    bot_delay: float = 0.6
    clock_unit: float = 1.0
    handover_grace: float = 30.0
    daily_secret: str | None = None
    export_secret: str | None = None
    daily_expert: str = "expert"
    room_idle: float = 600.0
    finished_idle: float = 60.0
    rate_rooms: str = "20/minute;200/hour"
    rate_players: str = "10/minute;100/hour"
    rate_joins: str = "30/minute;300/hour"
    rate_replays: str = "30/minute;300/hour"
    rate_scores: str = "120/minute;2000/hour"
    rate_maps: str = "240/minute;5000/hour"
    rate_map_reports: str = "6/minute;30/hour"
    rate_hints: str = "20/minute;200/hour"
    rate_accounts: str = "3/minute;20/day"
    rate_signins: str = "10/minute;100/hour"
    rate_analyses: str = "6/minute;30/hour"
    rate_chat: str = "10/minute;100/hour"
    rate_sockets: str = "60/minute;1000/hour"
    rate_lobby: str = "60/minute;1000/hour"
    rate_watch: str = "60/minute;1000/hour"
    rate_exports: str = "4/minute;20/hour"
    rate_bot: str = "120/minute;3000/hour"
    rate_friends: str = "60/minute;600/hour"
    lobby_expiry: float = Field(default=1800.0, gt=0, le=30 * 86_400)
    lobby_queue: int = Field(default=64, ge=1, le=10_000)
    rate_quickmatch: str = "30/minute;300/hour"
    quickmatch_window: float = Field(default=3.0, ge=0, le=1000)
    quickmatch_widen: float = Field(default=0.5, ge=0, le=1000)
    quickmatch_bots_after: float = Field(default=30.0, ge=0, le=86_400)
    quickmatch_expiry: float = Field(default=900.0, gt=0, le=86_400)
    quickmatch_live_clock: int = Field(default=90, ge=10, le=7 * 86_400)
    quickmatch_turn_clock: int = Field(default=86_400, ge=10, le=7 * 86_400)
    analysis_budget: str = "normal"
    trusted_proxies: str = ""
    rate_exempt: str = ""
    allowed_origins: str = ""
    secure_cookies: bool = False
    session_days: float = Field(default=30.0, gt=0, le=3650)
    signin_free: int = Field(default=5, ge=1, le=1000)
    signin_backoff: float = Field(default=30.0, gt=0, le=86_400)
    signin_backoff_cap: float = Field(default=900.0, gt=0, le=86_400)
    daily_guest_ranked: int = Field(default=3, ge=0, le=10_000)
    log_format: str = "json"
    log_level: str = "warning"
    redis_url: str | None = None
    ws_per_address: int = Field(default=32, ge=1, le=100_000)
    admissions: int = Field(default=2, ge=1, le=10_000)
    header_seconds: float = Field(default=10.0, gt=0, le=3600)
    header_bytes: int = Field(default=32 * 1024, ge=1024, le=1024 * 1024)
    body_seconds: float = Field(default=30.0, gt=0, le=3600)
    send_seconds: float = Field(default=30.0, gt=0, le=3600)
    hello_seconds: float = Field(default=10.0, gt=0, le=3600)
    denial_seconds: float = Field(default=1.0, ge=0, le=60)
    socket_rate: float = Field(default=20.0, gt=0, le=1_000_000)
    socket_burst: int = Field(default=40, ge=1, le=1_000_000)
    games: str = ""
    job_workers: int = Field(default=2, ge=1, le=256)
    job_slow_workers: int = Field(default=1, ge=1, le=256)
    job_queue: int = Field(default=32, ge=1, le=100_000)
    job_quota: int = Field(default=3, ge=1, le=1000)
    job_warm: bool = True
    job_cpus: str = ""
    job_idle: bool = True

    @field_validator("analysis_budget")
    @classmethod
    def _budget(cls, value: str) -> str:
        if value not in BUDGETS:
            raise ValueError(f"{value!r} is no analysis budget (known: {', '.join(BUDGETS)})")
        return value

    @field_validator(
        "rate_rooms",
        "rate_players",
        "rate_joins",
        "rate_replays",
        "rate_scores",
        "rate_maps",
        "rate_map_reports",
        "rate_hints",
        "rate_accounts",
        "rate_signins",
        "rate_analyses",
        "rate_chat",
        "rate_sockets",
        "rate_lobby",
        "rate_watch",
        "rate_quickmatch",
        "rate_bot",
        "rate_exports",
        "rate_friends",
    )
    @classmethod
    def _rate(cls, value: str) -> str:
        parse_many(value)  # ValueError naming the text it cannot read
        return value

    @field_validator("log_format", "log_level")
    @classmethod
    def _logs(cls, value: str, info: ValidationInfo) -> str:
        if info.field_name == "log_format":
            log_config(fmt=value)  # ValueError naming the formats
        else:
            log_config(level=value)
        return value

    @field_validator("daily_expert")
    @classmethod
    def _expert(cls, value: str) -> str:
        if value:
            make_bot(value)  # ValueError naming the known codes
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        parse_origins(value)  # ValueError naming the entry that is no origin
        return value

    @field_validator("job_cpus")
    @classmethod
    def _cpus(cls, value: str) -> str:
        cpu_list(value)  # ValueError naming the entry, or the CPUs not here
        return value

    @field_validator("trusted_proxies", "rate_exempt")
    @classmethod
    def _networks(cls, value: str) -> str:
        networks(value)  # ValueError naming the entry that is no address or network
        return value
