"""What several server workers share through Redis: room change fan-out, chat fan-out and
per-room locks (``METROGAMES_REDIS_URL``; without it a single process needs none of this).

The database stays the only source of truth: Redis carries only what must cross processes
and may be lost at any time. A room's changes run under :meth:`Cluster.lock`: a ``SET NX PX``
lease of :data:`LOCK_TTL` (a worker killed while holding it delays the room by at most that),
taken together with the room's *version* — a random token that each change replaces. A worker
whose copy of the room was read at the version it finds needs no database read to catch up;
any other catches up first. While the lock is held the room is marked as being changed, and
the mark goes only with a release: a worker that dies between its write and its release
leaves the version unknown, so the next holder catches up. Releasing the lease after a change sets a new version and publishes
the room on :data:`ROOMS` (payload ``"{worker} {room} {version}"``) in one script; every other
worker that holds the room in memory catches up from the database and pushes views to its own
sockets. A chat message goes on :data:`CHAT` (``{"worker", "room", "message"}`` JSON).

When Redis cannot be reached, publishing is skipped (logged), locks are passed over (the
version unknown: the room is caught up from the database; its unique ``(room, step)`` still
refuses a second action for a step) and the subscriber reconnects on its own, then tells its
worker that every room may be stale (:meth:`Cluster.listen`'s ``on_reconnect``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

ROOMS = "metrogames:rooms"
"""The channel of room changes."""
CHAT = "metrogames:chat"
"""The channel of chat messages."""
LOCK_TTL = 5.0
"""Seconds a room lock lives unless released (a dead worker's lock frees itself)."""
LOCK_WAIT = 6.0
"""Seconds a worker waits for a room lock before going on without it (the database guards)."""
LOCK_POLL = 0.003
"""Seconds between two tries to take a busy lock."""
CONNECTIONS = 32
"""The most Redis connections one worker opens at once (its pub/sub listener holds one)."""
RECONNECT_SECONDS = 0.5
"""Pause before the subscriber tries Redis again."""
_ACQUIRE = (
    "if not redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0, ''} end "
    "local dirty = redis.call('exists', KEYS[3]) "
    "redis.call('set', KEYS[3], '1', 'EX', 86400) "
    "if dirty == 1 then return {1, ''} end "
    "return {1, redis.call('get', KEYS[2]) or ''}"
)
"""Take the lease (KEYS[1]), mark the room as being changed (KEYS[3]) and read its version
(KEYS[2]; unknown when the mark was already there: the last holder died or lost its lease)."""
_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1], KEYS[3]) end "
    "if ARGV[2] ~= '' then redis.call('set', KEYS[2], ARGV[2]) end "
    "if ARGV[3] ~= '' then redis.call('publish', ARGV[3], ARGV[4]) end "
    "return 1"
)
"""Give the lease back and clear the mark (if the lease is still ours), set a new version
(ARGV[2], or none), publish the change (channel ARGV[3], or none)."""
_VERSION = "if redis.call('exists', KEYS[2]) == 1 then return '' end return redis.call('get', KEYS[1]) or ''"
"""The room's version, unknown while it is being changed (or its last holder died)."""


@dataclass
class Lease:
    """A room lock as taken: ``held`` (else Redis failed or the wait ran out), ``version``
    (the room's version when taken, ``None``: unknown; after release: the version the room
    now has, if known) and ``changed`` (set by the holder: the room was changed)."""

    held: bool = False
    version: str | None = None
    changed: bool = False


def connect(url: str) -> Redis:
    """A redis.asyncio client for ``url`` (``redis://host:port/db``) with short timeouts and
    at most :data:`CONNECTIONS` connections (a burst of requests waits for one).

    Raises:
        ValueError: a URL redis-py cannot read.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=CONNECTIONS,
        timeout=2.0,
        socket_timeout=2.0,
        socket_connect_timeout=2.0,
    )
    return Redis(connection_pool=pool)


class Cluster:
    """This worker's link to the others: ``redis`` (the shared client) and ``worker`` (a
    random id that tells this worker's own messages apart)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.worker = secrets.token_hex(6)
        self._warned = 0.0

    def _warn(self, what: str, exc: Exception) -> None:
        """Log a Redis failure at most once a second."""
        now = time.monotonic()
        if now - self._warned >= 1.0:
            self._warned = now
            log.warning("redis: %s failed (%s); going on without it", what, exc)

    async def publish_chat(self, room: str, message: dict[str, Any]) -> None:
        """Hand a stored chat message of ``room`` to the other workers."""
        payload = json.dumps({"worker": self.worker, "room": room, "message": message})
        try:
            await self.redis.publish(CHAT, payload)
        except (RedisError, OSError) as exc:
            self._warn("publishing a chat message", exc)

    async def claim(self, name: str, seconds: float) -> bool:
        """Whether this worker is the one to do the work ``name`` for the next ``seconds``
        (the first to ask; ``True`` when Redis fails: the work is rather done twice than
        not at all)."""
        try:
            return bool(
                await self.redis.set(f"metrogames:claim:{name}", self.worker, nx=True, px=int(seconds * 1000))
            )
        except (RedisError, OSError) as exc:
            self._warn("claiming a piece of work", exc)
            return True

    async def version(self, room: str) -> str | None:
        """The room's version now (``None``: unknown, or Redis failed)."""
        try:
            found = await self.redis.eval(_VERSION, 2, *self._keys(room)[1:])
        except (RedisError, OSError) as exc:
            self._warn("reading a room's version", exc)
            return None
        if isinstance(found, bytes):
            found = found.decode()
        return found or None

    @contextlib.asynccontextmanager
    async def lock(self, room: str) -> AsyncIterator[Lease]:
        """Hold room ``room``'s lock across workers while the block runs (waiting up to
        :data:`LOCK_WAIT` s for it, then going on without it, as when Redis fails); the block
        sets ``changed`` on the :class:`Lease` when it changed the room."""
        keys = self._keys(room)
        token = secrets.token_hex(8)
        lease = Lease()
        try:
            give_up = time.monotonic() + LOCK_WAIT
            while True:
                taken, seen = await self.redis.eval(
                    _ACQUIRE, 3, *keys, token, int(LOCK_TTL * 1000)
                )
                if taken:
                    lease.held, lease.version = True, seen.decode() or None
                    break
                if time.monotonic() >= give_up:
                    log.warning("room %s: its lock stayed busy; going on without it", room)
                    break
                await asyncio.sleep(LOCK_POLL)
        except (RedisError, OSError) as exc:
            self._warn("taking a room lock", exc)
        try:
            yield lease
        finally:
            await self._release(room, keys, token, lease)

    @staticmethod
    def _keys(room: str) -> tuple[str, str, str]:
        """The room's lock, version and being-changed mark."""
        return (
            f"metrogames:lock:{room}",
            f"metrogames:version:{room}",
            f"metrogames:changing:{room}",
        )

    async def _release(
        self, room: str, keys: tuple[str, str, str], token: str, lease: Lease
    ) -> None:
        """Give the lease back; after a change (or while the version is unknown) the room gets
        a new version, and a change is published."""
        new = secrets.token_hex(8) if lease.changed or lease.version is None else ""
        message = f"{self.worker} {room} {new or '-'}"
        try:
            if lease.held:
                channel = ROOMS if lease.changed else ""
                await self.redis.eval(_RELEASE, 3, *keys, token, new, channel, message)
                lease.version = new or lease.version
            else:
                lease.version = None
                if lease.changed:
                    await self.redis.publish(ROOMS, message)
        except (RedisError, OSError) as exc:
            lease.version = None
            self._warn("releasing a room lock", exc)

    async def listen(
        self,
        on_room: Callable[[str, str | None], None],
        on_chat: Callable[[str, dict[str, Any]], Awaitable[None]],
        on_reconnect: Callable[[], None],
    ) -> None:
        """Until cancelled: call ``on_room(room, version)`` for each other worker's room change
        (``version``: the room's new one, or ``None``) and
        ``on_chat(room, message)`` for its chat messages; after each (re)subscription, call
        ``on_reconnect()`` (what was published meanwhile is lost)."""
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(ROOMS, CHAT)
                if not first:
                    log.warning("redis: subscribed again; every room catches up")
                    on_reconnect()
                first = False
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is None:
                        continue
                    await self._dispatch(message, on_room, on_chat)
            except (RedisError, OSError) as exc:
                self._warn("listening", exc)
                first = False
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _dispatch(
        self,
        message: dict[str, Any],
        on_room: Callable[[str, str | None], None],
        on_chat: Callable[[str, dict[str, Any]], Awaitable[None]],
    ) -> None:
        channel = message["channel"].decode()
        data = message["data"].decode()
        if channel == ROOMS:
            worker, room, version = data.split(" ")
            if worker != self.worker:
                on_room(room, None if version == "-" else version)
        elif channel == CHAT:
            body = json.loads(data)
            if body["worker"] != self.worker:
                await on_chat(body["room"], body["message"])
