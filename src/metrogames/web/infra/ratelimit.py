"""How fast one client may create things — rooms, players, seat claims, accounts — try to
sign in, or have records replayed, score sheets scored or moves hinted, per client address
(``docs/web-api.md``, "Errors": 429 ``rate-limited``).

The counting is the ``limits`` library's moving window (its asyncio API), in this process's
memory, or with several workers (``METROGAMES_REDIS_URL``) in Redis, shared by all of them. A
request is counted *before* its work, atomically: each window's count is one Redis script (or
one step of the event loop), so requests that arrive together — on one worker or several —
can never all pass a limit that only some of them fit under (:meth:`RateLimits.take`). Redis is
never waited for long on the event loop: a count that Redis does not answer within
:data:`REDIS_TIMEOUT` is made in this process instead, and so is every count for the next
:data:`REDIS_PAUSE` seconds (a paused or unreachable Redis costs each request at most that
wait, once: it is awaited, so no other request waits for it). The address
is the request's client as the ASGI server gives it, after
:class:`uvicorn.middleware.proxy_headers.ProxyHeadersMiddleware` has replaced it by the one
``X-Forwarded-For`` names — which the app asks of it only for the configured trusted proxies
(``METROGAMES_TRUSTED_PROXIES``), so a client cannot pick its own address. IPv6 clients are
counted by their /64 network (one host usually holds a whole /64). The addresses of
``METROGAMES_RATE_EXEMPT`` are counted by no per-address limit (:func:`exempt`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import time

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection

from metrogames.i18n import N_, Message, msg
from metrogames.web.errors import RoomError
from metrogames.web.infra.config import Network, Settings, networks

log = logging.getLogger("metrogames.web.ratelimit")  # the name its log lines always had
REDIS_TIMEOUT = 1.0
"""Seconds a rate-limit count waits for Redis before counting in this process instead."""
REDIS_PAUSE = 5.0
"""Seconds the counts stay in this process after Redis failed to answer one."""

WHAT = {
    "rooms": N_("rooms"),
    "players": N_("players"),
    "joins": N_("seat claims"),
    "replays": N_("replays"),
    "accounts": N_("sign-ups"),
    "signins": N_("sign-in attempts"),
    "scores": N_("score sheets"),
    "maps": N_("map checks"),
    "hints": N_("hints"),
    "analyses": N_("analyses"),
    "chat": N_("chat messages"),
    "sockets": N_("WebSocket connections"),
    "lobby": N_("lobby requests"),
    "watch": N_("now playing requests"),
    "quickmatch": N_("play now requests"),
    "exports": N_("export downloads"),
    "bot": N_("bot requests"),
    "friends": N_("friends and invitations requests"),
}
"""The limited kinds of request and how a refusal names them."""


def client_key(connection: HTTPConnection) -> str:
    """The address a request is counted under: its client's IP address (an IPv6 address:
    its /64 network), or whatever the server named the client when it is no IP address."""
    host = connection.client.host if connection.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def exempt(connection: HTTPConnection, exempted: tuple[Network, ...]) -> bool:
    """Whether the client of ``connection`` (its address as :func:`client_key` takes it) is
    in one of the ``exempted`` networks (``METROGAMES_RATE_EXEMPT``)."""
    if not exempted or connection.client is None:
        return False
    try:
        address = ipaddress.ip_address(connection.client.host)
    except ValueError:
        return False
    return any(address in network for network in exempted)


class RateLimits:
    """The limits of :class:`~metrogames.web.infra.config.Settings` (``rate_rooms``,
    ``rate_players``, ``rate_joins``, ``rate_replays``, ``rate_scores``, ``rate_maps``, ``rate_map_reports``, ``rate_hints``,
    ``rate_accounts``, ``rate_signins``, ``rate_analyses``, ``rate_chat``, ``rate_sockets``, ``rate_lobby``,
    ``rate_watch``, ``rate_quickmatch``, ``rate_exports``, ``rate_bot``: per bot token,
    ``rate_friends``)."""

    def __init__(self, settings: Settings) -> None:
        self.local = MovingWindowRateLimiter(MemoryStorage())
        """The counts of this process (single-process, or while Redis does not answer)."""
        self.shared = (
            MovingWindowRateLimiter(
                RedisStorage(
                    "async+" + settings.redis_url,
                    implementation="redispy",
                    key_prefix="metrogames",
                    socket_timeout=REDIS_TIMEOUT,
                    socket_connect_timeout=REDIS_TIMEOUT,
                )
            )
            if settings.redis_url
            else None
        )
        """The counts shared by every worker, in Redis (``None``: single-process)."""
        self.exempted = networks(settings.rate_exempt)
        """The addresses no per-address limit counts (``METROGAMES_RATE_EXEMPT``)."""
        self.paused_until = 0.0
        """Until when (monotonic seconds) the counts stay local: Redis failed to answer."""
        self.rules: dict[str, list[RateLimitItem]] = {
            "rooms": parse_many(settings.rate_rooms),
            "players": parse_many(settings.rate_players),
            "joins": parse_many(settings.rate_joins),
            "replays": parse_many(settings.rate_replays),
            "accounts": parse_many(settings.rate_accounts),
            "signins": parse_many(settings.rate_signins),
            "scores": parse_many(settings.rate_scores),
            "maps": parse_many(settings.rate_maps),
            "map_reports": parse_many(settings.rate_map_reports),
            "hints": parse_many(settings.rate_hints),
            "analyses": parse_many(settings.rate_analyses),
            "chat": parse_many(settings.rate_chat),
            "sockets": parse_many(settings.rate_sockets),
            "lobby": parse_many(settings.rate_lobby),
            "watch": parse_many(settings.rate_watch),
            "quickmatch": parse_many(settings.rate_quickmatch),
            "exports": parse_many(settings.rate_exports),
            "bot": parse_many(settings.rate_bot),
            "friends": parse_many(settings.rate_friends),
        }

    async def charge(self, kind: str, connection: HTTPConnection) -> None:
        """Count one request of ``kind`` by the request's client address (:meth:`take`); an
        exempt address (:func:`exempt`) is not counted.

        Raises:
            RoomError: 429 ``rate-limited``.
        """
        if exempt(connection, self.exempted):
            return
        await self.take(kind, client_key(connection), N_("address"))

    async def take(self, kind: str, key: str, who: str) -> None:
        """Count one request of ``kind`` by ``key`` in every window of the kind, or refuse it
        when one window is full. Each window is first tested (a refused request is normally
        counted nowhere), then counted atomically: a count that would pass the window's
        limit is refused and not made, so no number of requests at once, on any number of
        workers, gets past a limit (when two race for a window's last place, the loser may
        have been counted in the windows before it).

        Raises:
            RoomError: 429 ``rate-limited`` with the limit and how long to wait (also as
                ``Retry-After``); ``who`` names the key's kind (``address``, ``seat``).
        """
        limiter = self.local
        refused: RateLimitItem | None = None
        if self.shared is not None and time.monotonic() >= self.paused_until:
            try:
                async with asyncio.timeout(REDIS_TIMEOUT):
                    refused = await self._take(self.shared, kind, key)
                limiter = self.shared
            except (RedisError, StorageError, OSError, TimeoutError) as exc:
                self.paused_until = time.monotonic() + REDIS_PAUSE
                log.warning(
                    "rate limits: redis did not answer (%s); counting in this process for %g s",
                    exc or type(exc).__name__,
                    REDIS_PAUSE,
                )
        if limiter is self.local:
            refused = await self._take(self.local, kind, key)
        if refused is None:
            return
        wait = 1
        try:
            async with asyncio.timeout(REDIS_TIMEOUT):
                stats = await limiter.get_window_stats(refused, kind, key)
            wait = max(1, math.ceil(stats.reset_time - time.time()))
        except (RedisError, StorageError, OSError, TimeoutError):
            pass
        raise RoomError(
            429,
            "rate-limited",
            msg(
                N_("too many {what} from this {who}: at most {limit} (try again in {wait} s)"),
                what=Message(WHAT[kind]),
                who=Message(who),
                limit=str(refused),
                wait=wait,
            ),
            headers={"Retry-After": str(wait)},
        )

    async def _take(
        self, limiter: MovingWindowRateLimiter, kind: str, key: str
    ) -> RateLimitItem | None:
        """Test, then count, every window of ``kind`` for ``key``; the first window found
        full (``None``: counted in all)."""
        items = self.rules[kind]
        for item in items:
            if not await limiter.test(item, kind, key):
                return item
        for item in items:
            if not await limiter.hit(item, kind, key):
                return item
        return None
