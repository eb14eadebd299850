"""The one publish/subscribe hub of a worker: events by *topic* and *key* (an account's events:
topic ``account``, key the account's id; a change of the lobby: topic ``lobby``, key the room),
delivered to this worker's subscribers at once and, with several workers, to every other
worker's through Redis pub/sub.

:meth:`Hub.publish` delivers an event (a JSON object) here — to the :class:`Inbox` es
subscribed to its topic and key, and to the handlers of its topic (:meth:`Hub.on`) — and
publishes it on :data:`CHANNEL` (``{"worker", "topic", "key", "event"}`` JSON); every other
worker's :meth:`Hub.run` hears it and delivers it to its own. What Redis loses is lost (as on
the room channels of :mod:`~metrogames.web.infra.cluster`): an event is a wake-up, and the
database stays the truth — a stream that opens, or whose client reconnects, starts from what
the database holds. Delivering never waits: each inbox has a bounded queue and one whose
queue is full is ``dropped`` (its client reconnects). No lock is held while a client is
written to: the streams read their own queues.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from redis.asyncio import Redis
from redis.exceptions import RedisError

from metrogames.core.protocol import JsonObject, is_object

log = logging.getLogger("metrogames.web.events")  # the name its log lines always had
CHANNEL = "metrogames:hub"
"""The Redis channel of the hub's events."""
QUEUE_LIMIT = 256
"""The most events waiting for one inbox, unless its subscriber says otherwise."""
RECONNECT_SECONDS = 1.0
"""The wait before subscribing again after Redis failed."""

T = TypeVar("T")
Handler = Callable[[str, JsonObject], None]
"""What a topic's handler is called with: the event's key and the event (it must not wait)."""


@dataclass(eq=False)
class Inbox(Generic[T]):
    """One subscriber's bounded ``queue`` of events (``topic``, ``key``: what it hears) and
    whether it was ``dropped`` (its queue overflowed: events were lost)."""

    topic: str
    key: str
    queue: asyncio.Queue[T] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False

    def offer(self, event: T) -> None:
        """Queue ``event`` without waiting; a full queue drops the inbox."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped = True


class Hub:
    """The hub of this worker; ``redis``: the shared client (``None``: a single process,
    events stay in memory)."""

    def __init__(self, redis: Redis | None = None) -> None:
        self.redis = redis
        self.worker = secrets.token_hex(6)
        self.inboxes: dict[tuple[str, str], set[Inbox[JsonObject]]] = {}
        self.handlers: dict[str, list[Handler]] = {}
        self._warned = 0.0

    def on(self, topic: str, handler: Handler) -> None:
        """Call ``handler(key, event)`` for each event of ``topic``, this worker's or
        another's."""
        self.handlers.setdefault(topic, []).append(handler)

    def subscribe(self, topic: str, key: str, limit: int = QUEUE_LIMIT) -> Inbox[JsonObject]:
        """A new inbox of ``topic``'s events for ``key`` (at most ``limit`` waiting;
        :meth:`unsubscribe` it when done)."""
        inbox: Inbox[JsonObject] = Inbox(topic, key, asyncio.Queue(limit))
        self.inboxes.setdefault((topic, key), set()).add(inbox)
        return inbox

    def unsubscribe(self, inbox: Inbox[JsonObject]) -> None:
        """Forget an inbox."""
        held = self.inboxes.get((inbox.topic, inbox.key))
        if held is not None:
            held.discard(inbox)
            if not held:
                del self.inboxes[(inbox.topic, inbox.key)]

    def subscribers(self, topic: str, key: str) -> int:
        """How many inboxes of this worker hear ``topic``'s events for ``key``."""
        return len(self.inboxes.get((topic, key), ()))

    def deliver(self, topic: str, key: str, event: JsonObject) -> None:
        """Hand ``event`` to this worker's inboxes of ``topic`` and ``key`` and to the
        topic's handlers (a handler that fails is logged; the others still hear it)."""
        for inbox in list(self.inboxes.get((topic, key), ())):
            inbox.offer(event)
        for handler in self.handlers.get(topic, ()):
            try:
                handler(key, event)
            except Exception:
                log.exception("a handler of %s events failed", topic)

    async def publish(self, topic: str, key: str, event: JsonObject) -> None:
        """Deliver ``event`` here and on every other worker (a Redis failure is logged: the
        others miss it)."""
        self.deliver(topic, key, event)
        if self.redis is None:
            return
        body = {"worker": self.worker, "topic": topic, "key": key, "event": event}
        try:
            await self.redis.publish(CHANNEL, json.dumps(body))
        except (RedisError, OSError) as exc:
            log.warning("redis: publishing a %s event failed (%s)", topic, exc)

    def heard(self, data: bytes) -> None:
        """Deliver an event another worker published (this worker's own, and anything not
        shaped as :meth:`publish` sends it, are skipped)."""
        body = json.loads(data.decode())
        if not is_object(body) or body.get("worker") == self.worker:
            return
        topic, key, event = body.get("topic"), body.get("key"), body.get("event")
        if isinstance(topic, str) and isinstance(key, str) and is_object(event):
            self.deliver(topic, key, event)

    async def run(self) -> None:
        """Until cancelled: hear the other workers' events (nothing to do without Redis)."""
        if self.redis is None:
            return
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None:
                        self.heard(message["data"])
            except (RedisError, OSError) as exc:
                log.warning("redis: listening to the hub failed (%s)", exc)
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
