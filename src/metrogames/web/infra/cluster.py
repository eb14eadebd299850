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
the room on :data:`ROOMS` (payload ``"{worker} {room} {version} {previous} {change}"``: the
versions after and before, ``-`` when unknown, and the holder's :attr:`Lease.change`, the
change itself as JSON, or nothing) in one script; every other worker that holds the room in
memory applies the change to its copy when that copy is at the previous version, else catches
up from the database, and pushes views to its own sockets. A worker that does not hold the
room reads no further than the room id. A chat message goes on :data:`CHAT` (``{"worker", "room", "message"}`` JSON). How many
sockets each worker holds on each seat is kept in a hash per room and each change of it goes
on :data:`PRESENCE`, so every worker's views mark a seat connected wherever its player is.
Events for one account and changes of the lobby go through the worker's pub/sub hub
(:mod:`~metrogames.web.infra.pubsub`), on a channel of their own.

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
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError
from typing_extensions import TypedDict

log = logging.getLogger("metrogames.web.cluster")  # the name its log lines always had

ROOMS = "metrogames:rooms"
"""The channel of room changes."""
CHAT = "metrogames:chat"
"""The channel of chat messages."""
PRESENCE = "metrogames:presence"
"""The channel of seat presence: ``"{worker} {room} {seat} {count}"``, the sockets the worker
holds on the seat from now on."""
_ROOMS_BYTES, _CHAT_BYTES, _PRESENCE_BYTES = ROOMS.encode(), CHAT.encode(), PRESENCE.encode()
Message = TypeVar("Message")
"""A chat message as the chat service gives it to :meth:`Cluster.publish_chat` (a JSON
object), handed to :meth:`Cluster.listen`'s ``on_chat`` as the other worker published it."""
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
ALIVE_TTL = 10.0
"""Seconds a worker counts as alive after it last said so (:meth:`Cluster.alive`, every
couple of seconds): the sockets a dead worker held stop counting after that."""
PRESENCE_TTL = 86400
"""Seconds a room's seat presence entries live after their last change."""
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
_READ_VERSION = (
    "local version = '' "
    "if redis.call('exists', KEYS[2]) == 0 then version = redis.call('get', KEYS[1]) or '' end "
)
"""Lua: ``version``, the room's version (KEYS[1]), unknown (``''``) while it is being changed
(KEYS[2]) or its last holder died."""
_VERSION = _READ_VERSION + "return version"
"""The room's version (:data:`_READ_VERSION`)."""
_OPENING = _READ_VERSION + "return {version, redis.call('hgetall', KEYS[3])}"
"""The room's version and its seat presence hash (KEYS[3]), in one step."""


class _Published(TypedDict):
    """A message of a subscribed channel as redis-py's ``PubSub.get_message`` gives it
    (``ignore_subscribe_messages``: only ``"message"`` ones; no ``decode_responses``: bytes)."""

    type: str
    pattern: bytes | None
    channel: bytes
    data: bytes


@dataclass
class Lease:
    """A room lock as taken: ``held`` (else Redis failed or the wait ran out), ``version``
    (the room's version when taken, ``None``: unknown; after release: the version the room
    now has, if known), ``changed`` (set by the holder: the room was changed) and ``change``
    (set by the holder: the change as JSON text, published with it when the version it was
    made at is known; empty: the others read the database)."""

    held: bool = False
    version: str | None = None
    changed: bool = False
    change: str = ""


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
        # sent by their SHA-1 (EVALSHA), loaded again by redis-py when Redis lost them
        self._acquire = redis.register_script(_ACQUIRE)
        self._release_script = redis.register_script(_RELEASE)
        self._version = redis.register_script(_VERSION)
        self._opening = redis.register_script(_OPENING)

    def _warn(self, what: str, exc: Exception) -> None:
        """Log a Redis failure at most once a second."""
        now = time.monotonic()
        if now - self._warned >= 1.0:
            self._warned = now
            log.warning("redis: %s failed (%s); going on without it", what, exc)

    async def publish_chat(self, room: str, message: Mapping[str, object]) -> None:
        """Hand a stored chat message of ``room`` to the other workers."""
        payload = json.dumps({"worker": self.worker, "room": room, "message": message})
        try:
            await self.redis.publish(CHAT, payload)
        except (RedisError, OSError) as exc:
            self._warn("publishing a chat message", exc)

    async def alive(self) -> None:
        """Say this worker is alive for the next :data:`ALIVE_TTL` seconds."""
        try:
            await self.redis.set(f"metrogames:alive:{self.worker}", "1", px=int(ALIVE_TTL * 1000))
        except (RedisError, OSError) as exc:
            self._warn("saying this worker is alive", exc)

    async def count_socket(self, room: str, seat: int, count: int, left: float | None) -> None:
        """This worker holds ``count`` sockets on ``room``'s ``seat`` from now on (``left``:
        its player just left the last of them, at that time in the room service's clock:
        wall-clock seconds), for the other workers' views and seat handover checks."""
        presence, seen = _presence_key(room), f"metrogames:seen:{room}"
        try:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hset(presence, f"{self.worker}:{seat}", count)
            pipe.expire(presence, PRESENCE_TTL)
            if left is not None:
                pipe.hset(seen, str(seat), repr(left))
                pipe.expire(seen, PRESENCE_TTL)
            pipe.publish(PRESENCE, f"{self.worker} {room} {seat} {count}")
            await pipe.execute()
        except (RedisError, OSError) as exc:
            self._warn("counting a seat's sockets", exc)

    async def presence(self, room: str) -> dict[str, Counter[int]]:
        """The sockets the other live workers hold on ``room``: worker -> seat -> count (only
        counts above 0); empty when Redis fails.

        Raises nothing: a Redis failure is logged."""
        return (await self.presence_of([room])).get(room, {})

    async def presence_of(self, rooms: Sequence[str]) -> dict[str, dict[str, Counter[int]]]:
        """:meth:`presence` for each of ``rooms`` (room -> worker -> seat -> count; rooms no
        other live worker holds a socket on are left out), in one round trip for the counts
        and one for the workers, whatever the number of rooms; empty when Redis fails.

        Raises nothing: a Redis failure is logged."""
        hashes = await self._presence_hashes(rooms, "reading the rooms' presence")
        held = {room: self._held(fields.items()) for room, fields in hashes.items()}
        live = await self.live({w for by in held.values() for w in by})
        if live is None:
            return {}
        found = {room: {w: s for w, s in by.items() if w in live} for room, by in held.items()}
        return {room: by for room, by in found.items() if by}

    async def _presence_hashes(
        self, rooms: Sequence[str], doing: str
    ) -> dict[str, dict[bytes | str, bytes | str]]:
        """The presence hashes of ``rooms`` in one pipelined round trip (empty when Redis
        fails: logged as ``doing``)."""
        if not rooms:
            return {}
        try:
            pipe = self.redis.pipeline(transaction=False)
            for room in rooms:
                pipe.hgetall(_presence_key(room))
            hashes = await pipe.execute()
        except (RedisError, OSError) as exc:
            self._warn(doing, exc)
            return {}
        return dict(zip(rooms, hashes, strict=True))

    async def opening(self, room: str) -> tuple[str | None, dict[str, Counter[int]]]:
        """What a worker loading ``room`` needs of Redis, in one round trip: the room's
        version (``None``: unknown) and the sockets the other workers hold on it, as
        :meth:`presence` without its check that they are alive (a dead worker's counts go
        at the loader's next :meth:`live` check, within a few seconds); ``(None, {})`` when
        Redis fails.

        Raises nothing: a Redis failure is logged."""
        try:
            version, flat = await self._opening(keys=[*self._keys(room)[1:], _presence_key(room)])
        except (RedisError, OSError) as exc:
            self._warn("reading a room's version", exc)
            return None, {}
        return version.decode() or None, self._held(zip(flat[::2], flat[1::2], strict=True))

    def _held(self, counts: Iterable[tuple[bytes | str, bytes | str]]) -> dict[str, Counter[int]]:
        """Presence hash entries (``worker:seat`` -> count) as the other workers' counts above
        0: worker -> seat -> count."""
        held: dict[str, Counter[int]] = {}
        for field, count in counts:
            text = field.decode() if isinstance(field, bytes) else str(field)
            worker, _, seat = text.partition(":")
            if worker != self.worker and int(count) > 0:
                held.setdefault(worker, Counter())[int(seat)] = int(count)
        return held

    async def forget(self, room: str, fields: list[str]) -> None:
        """Drop ``worker:seat`` entries of dead workers from ``room``'s presence hash (logged
        when Redis fails)."""
        try:
            await self.redis.hdel(_presence_key(room), *fields)
        except (RedisError, OSError) as exc:
            self._warn("forgetting a dead worker's sockets", exc)

    async def live(self, workers: Iterable[str]) -> set[str] | None:
        """Which of ``workers`` said they were alive less than :data:`ALIVE_TTL` s ago
        (``None``: Redis failed, logged)."""
        names = list(workers)
        if not names:
            return set()
        try:
            found = await self.redis.mget([f"metrogames:alive:{w}" for w in names])
        except (RedisError, OSError) as exc:
            self._warn("reading which workers are alive", exc)
            return None
        return {w for w, up in zip(names, found, strict=True) if up}

    async def spectators(self, rooms: Sequence[str]) -> dict[str, int]:
        """How many spectator sockets (seat :data:`~metrogames.web.rooms.tables.SPECTATORS`,
        ``-1``) the live workers, this one included, hold on each of ``rooms``, in one round
        trip for the counts and one for the workers; empty when Redis fails.

        Raises nothing: a Redis failure is logged."""
        hashes = await self._presence_hashes(rooms, "reading the rooms' spectators")
        counts: dict[str, dict[str, int]] = {}
        for room, fields in hashes.items():
            for field, count in fields.items():
                text = field.decode() if isinstance(field, bytes) else str(field)
                worker, _, seat = text.partition(":")
                if seat == "-1" and int(count) > 0:
                    counts.setdefault(room, {})[worker] = int(count)
        live = await self.live({w for by in counts.values() for w in by})
        if live is None:
            return {}
        return {room: sum(n for w, n in by.items() if w in live) for room, by in counts.items()}

    async def seat_elsewhere(self, room: str, seat: int) -> tuple[int, float | None]:
        """``room``'s ``seat`` as the other live workers know it: how many sockets they hold
        on it and when its player was last seen leaving one of theirs (``None``: never);
        ``(0, None)`` when Redis fails.

        Raises nothing: a Redis failure is logged."""
        sockets = sum(seats[seat] for seats in (await self.presence(room)).values())
        try:
            seen = await self.redis.hget(f"metrogames:seen:{room}", str(seat))
        except (RedisError, OSError) as exc:
            self._warn("reading a seat's presence", exc)
            return 0, None
        return sockets, None if seen is None else float(seen)

    async def version(self, room: str) -> str | None:
        """The room's version now (``None``: unknown, or Redis failed)."""
        try:
            found = await self._version(keys=self._keys(room)[1:])
        except (RedisError, OSError) as exc:
            self._warn("reading a room's version", exc)
            return None
        if isinstance(found, bytes):
            found = found.decode()
        return found or None

    async def new_version(self, room: str) -> str | None:
        """Give the new room ``room`` its first version and return it (``None``: Redis
        failed, the version stays unknown)."""
        version = secrets.token_hex(8)
        try:
            await self.redis.set(self._keys(room)[1], version)
        except (RedisError, OSError) as exc:
            self._warn("setting a new room's version", exc)
            return None
        return version

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
                taken, seen = await self._acquire(keys=keys, args=[token, int(LOCK_TTL * 1000)])
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
        a new version, and a change is published (with the change itself when the version it
        was made at is known)."""
        new = secrets.token_hex(8) if lease.changed or lease.version is None else ""
        if lease.held and lease.version is not None and lease.change:
            message = f"{self.worker} {room} {new} {lease.version} {lease.change}"
        else:
            message = f"{self.worker} {room} {new or '-'} - "
        try:
            if lease.held:
                channel = ROOMS if lease.changed else ""
                args = [token, new, channel, message]
                await self._release_script(keys=keys, args=args)
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
        on_room: Callable[[str, str | None, str | None, str], None],
        on_chat: Callable[[str, Message], Awaitable[None]],
        on_reconnect: Callable[[], None],
        on_presence: Callable[[str, str, int, int], None],
    ) -> None:
        """Until cancelled: call ``on_room(room, version, previous, change)`` for each other
        worker's room change (``version``: the room's new one, ``previous``: the one the change
        was made at, each ``None`` when unknown; ``change``: the holder's
        :attr:`Lease.change`, or ``""``), ``on_chat(room, message)`` for its chat messages,
        and ``on_presence(room, worker, seat, count)`` when the sockets it holds on a seat
        change; after each
        (re)subscription, call ``on_reconnect()`` (what was published meanwhile is lost)."""
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(ROOMS, CHAT, PRESENCE)
                if not first:
                    log.warning("redis: subscribed again; every room catches up")
                    on_reconnect()
                first = False
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is None:
                        continue
                    await self._dispatch(message, on_room, on_chat, on_presence)
            except (RedisError, OSError) as exc:
                self._warn("listening", exc)
                first = False
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _dispatch(
        self,
        message: _Published,
        on_room: Callable[[str, str | None, str | None, str], None],
        on_chat: Callable[[str, Message], Awaitable[None]],
        on_presence: Callable[[str, str, int, int], None],
    ) -> None:
        channel = message["channel"]
        data = message["data"]
        if channel == _ROOMS_BYTES:
            worker, room, version, previous, change = data.decode().split(" ", 4)
            if worker != self.worker:
                on_room(room, _known(version), _known(previous), change)
        elif channel == _CHAT_BYTES:
            body = json.loads(data.decode())
            if body["worker"] != self.worker:
                await on_chat(body["room"], body["message"])
        elif channel == _PRESENCE_BYTES:
            worker, room, seat, count = data.decode().split(" ")
            if worker != self.worker:
                on_presence(room, worker, int(seat), int(count))


def _presence_key(room: str) -> str:
    """The hash of ``room``'s seat presence: ``worker:seat`` -> that worker's sockets on it."""
    return f"metrogames:presence:{room}"


def _known(version: str) -> str | None:
    """A published version (``-``: unknown)."""
    return None if version == "-" else version
