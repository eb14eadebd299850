"""How fast one client may create things — rooms, players, seat claims, accounts — try to
sign in, or have records replayed, score sheets scored or moves hinted, per client address
(``docs/web-api.md``, "Errors": 429 ``rate-limited``).

The counting is the ``limits`` library's moving window, in this process's memory, or with
several workers (``METROGAMES_REDIS_URL``) in Redis, shared by all of them (while Redis cannot
be reached, each worker counts in its own memory meanwhile). The address
is the request's client as the ASGI server gives it, after
:class:`uvicorn.middleware.proxy_headers.ProxyHeadersMiddleware` has replaced it by the one
``X-Forwarded-For`` names — which the app asks of it only for the configured trusted proxies
(``METROGAMES_TRUSTED_PROXIES``), so a client cannot pick its own address. IPv6 clients are
counted by their /64 network (one host usually holds a whole /64).
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from typing import Any

from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection

from metrogames.i18n import N_, Message, msg
from metrogames.web.checks import RoomError
from metrogames.web.config import Settings

log = logging.getLogger(__name__)
REDIS_TIMEOUT = 1.0
"""Seconds a rate-limit count waits for Redis before counting in this process instead."""

WHAT = {
    "rooms": N_("rooms"),
    "players": N_("players"),
    "joins": N_("seat claims"),
    "replays": N_("replays"),
    "accounts": N_("sign-ups"),
    "signins": N_("sign-in attempts"),
    "scores": N_("score sheets"),
    "hints": N_("hints"),
    "analyses": N_("analyses"),
    "chat": N_("chat messages"),
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


class RateLimits:
    """The limits of :class:`~metrogames.web.config.Settings` (``rate_rooms``,
    ``rate_players``, ``rate_joins``, ``rate_replays``, ``rate_scores``, ``rate_hints``,
    ``rate_accounts``, ``rate_signins``, ``rate_analyses``, ``rate_chat``)."""

    def __init__(self, settings: Settings) -> None:
        self.local = MovingWindowRateLimiter(MemoryStorage())
        """The counts of this process (single-process, or while Redis cannot be reached)."""
        self.shared = (
            MovingWindowRateLimiter(
                RedisStorage(
                    settings.redis_url,
                    key_prefix="metrogames",
                    socket_timeout=REDIS_TIMEOUT,
                    socket_connect_timeout=REDIS_TIMEOUT,
                )
            )
            if settings.redis_url
            else None
        )
        """The counts shared by every worker, in Redis (``None``: single-process)."""
        self.rules: dict[str, list[RateLimitItem]] = {
            "rooms": parse_many(settings.rate_rooms),
            "players": parse_many(settings.rate_players),
            "joins": parse_many(settings.rate_joins),
            "replays": parse_many(settings.rate_replays),
            "accounts": parse_many(settings.rate_accounts),
            "signins": parse_many(settings.rate_signins),
            "scores": parse_many(settings.rate_scores),
            "hints": parse_many(settings.rate_hints),
            "analyses": parse_many(settings.rate_analyses),
            "chat": parse_many(settings.rate_chat),
        }

    def charge(self, kind: str, connection: HTTPConnection) -> None:
        """Count one request of ``kind`` by the request's client address, or refuse it
        (nothing counted) when one of the kind's limits is reached.

        Raises:
            RoomError: 429 ``rate-limited`` with the limit and how long to wait (also as
                ``Retry-After``).
        """
        key = client_key(connection)
        self.check(kind, key, N_("address"))
        self.count(kind, key)

    def check(self, kind: str, key: str, who: str) -> None:
        """Refuse one more request of ``kind`` by ``key`` when one of the kind's limits is
        reached (nothing is counted: :meth:`count` does, e.g. once the request's write
        committed).

        Raises:
            RoomError: 429 ``rate-limited`` with the limit and how long to wait (also as
                ``Retry-After``).
        """
        for item in self.rules[kind]:
            if not self._use("test", item, kind, key):
                reset = self._use("get_window_stats", item, kind, key).reset_time
                wait = max(1, math.ceil(reset - time.time()))
                raise RoomError(
                    429,
                    "rate-limited",
                    msg(
                        N_(
                            "too many {what} from this {who}: at most {limit} (try again in {wait} s)"
                        ),
                        what=Message(WHAT[kind]),
                        who=Message(who),
                        limit=str(item),
                        wait=wait,
                    ),
                    headers={"Retry-After": str(wait)},
                )

    def count(self, kind: str, key: str) -> None:
        """Count one request of ``kind`` by ``key``."""
        for item in self.rules[kind]:
            self._use("hit", item, kind, key)

    def _use(self, method: str, *args: Any) -> Any:
        """The limiter's ``method(*args)`` on the shared counts, or on this process's own
        when there are none or Redis fails."""
        if self.shared is not None:
            try:
                return getattr(self.shared, method)(*args)
            except (RedisError, StorageError, OSError) as exc:
                log.warning("rate limits: redis failed (%s); counting in this process", exc)
        return getattr(self.local, method)(*args)
