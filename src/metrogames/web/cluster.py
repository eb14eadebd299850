"""What several server workers share through Redis: room change fan-out, chat fan-out and
per-room locks (``METROGAMES_REDIS_URL``; without it a single process needs none of this).

The database stays the only source of truth: Redis carries only what must cross processes
and may be lost at any time. A change of room ``r`` committed by one worker is published on
:data:`ROOMS` (payload ``"{worker} {room}"``); every other worker that holds ``r`` in memory
catches up from the database and pushes views to its own sockets. A chat message goes on
:data:`CHAT` (``{"worker", "room", "message"}`` JSON). A room's changes run under
:meth:`Cluster.lock` (``SET NX PX`` with a :data:`LOCK_TTL` lease, released by a
compare-and-delete script): a worker killed while holding it delays the room by at most the
lease. When Redis cannot be reached, publishing is skipped (logged), locks are passed over
(the database's unique ``(room, step)`` still refuses a second action for a step) and the
subscriber reconnects on its own, then tells its worker to catch up every room
(:meth:`Cluster.listen`'s ``on_reconnect``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
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
RECONNECT_SECONDS = 0.5
"""Pause before the subscriber tries Redis again."""
_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
    "else return 0 end"
)


def connect(url: str) -> Redis:
    """A redis.asyncio client for ``url`` (``redis://host:port/db``) with short timeouts.

    Raises:
        ValueError: a URL redis-py cannot read.
    """
    return Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)


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

    async def publish_room(self, room: str) -> None:
        """Tell the other workers that ``room`` changed (skipped when Redis fails)."""
        try:
            await self.redis.publish(ROOMS, f"{self.worker} {room}")
        except (RedisError, OSError) as exc:
            self._warn("publishing a room change", exc)

    async def publish_chat(self, room: str, message: dict[str, Any]) -> None:
        """Hand a stored chat message of ``room`` to the other workers."""
        payload = json.dumps({"worker": self.worker, "room": room, "message": message})
        try:
            await self.redis.publish(CHAT, payload)
        except (RedisError, OSError) as exc:
            self._warn("publishing a chat message", exc)

    @contextlib.asynccontextmanager
    async def lock(self, room: str) -> AsyncIterator[None]:
        """Hold room ``room``'s lock across workers while the block runs (waiting up to
        :data:`LOCK_WAIT` s for it, then going on without it, as when Redis fails)."""
        key, token = f"metrogames:lock:{room}", secrets.token_hex(8)
        held = False
        try:
            give_up = time.monotonic() + LOCK_WAIT
            while not held:
                held = bool(await self.redis.set(key, token, nx=True, px=int(LOCK_TTL * 1000)))
                if not held:
                    if time.monotonic() >= give_up:
                        log.warning("room %s: its lock stayed busy; going on without it", room)
                        break
                    await asyncio.sleep(LOCK_POLL)
        except (RedisError, OSError) as exc:
            self._warn("taking a room lock", exc)
        try:
            yield
        finally:
            if held:
                try:
                    await self.redis.eval(_RELEASE, 1, key, token)
                except (RedisError, OSError) as exc:
                    self._warn("releasing a room lock", exc)

    async def listen(
        self,
        on_room: Callable[[str], None],
        on_chat: Callable[[str, dict[str, Any]], Awaitable[None]],
        on_reconnect: Callable[[], None],
    ) -> None:
        """Until cancelled: call ``on_room(room)`` for each other worker's room change and
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
        on_room: Callable[[str], None],
        on_chat: Callable[[str, dict[str, Any]], Awaitable[None]],
    ) -> None:
        channel = message["channel"].decode()
        data = message["data"].decode()
        if channel == ROOMS:
            worker, _, room = data.partition(" ")
            if worker != self.worker:
                on_room(room)
        elif channel == CHAT:
            body = json.loads(data)
            if body["worker"] != self.worker:
                await on_chat(body["room"], body["message"])
