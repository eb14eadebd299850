"""Per-account events: what the server tells one account's open streams (a bot's event
stream: :mod:`metrogames.web.api.bots`; later, a person's notifications), on any worker.

:meth:`AccountEvents.publish` delivers an event (a JSON object) to the account's streams on
this worker at once and, with several workers, publishes it on :data:`CHANNEL`
(``{"worker", "account", "event"}`` JSON); every other worker's :meth:`AccountEvents.run`
hears it and delivers it to its own streams. Like the other channels
(:mod:`~metrogames.web.infra.cluster`), what Redis loses is lost: an event is a wake-up, and
the database stays the truth (a stream that opens, or whose client reconnects, starts from
what the database holds). Delivering never waits: each stream has a bounded queue
(:data:`QUEUE_LIMIT`) and a stream whose queue is full is ``dropped`` (its client reconnects).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from dataclasses import dataclass, field

from redis.asyncio import Redis
from redis.exceptions import RedisError

from metrogames.core.protocol import JsonObject, is_object

log = logging.getLogger("metrogames.web.events")
CHANNEL = "metrogames:accounts"
"""The Redis channel of account events."""
QUEUE_LIMIT = 256
"""The most events waiting for one stream."""
RECONNECT_SECONDS = 1.0
"""The wait before subscribing again after Redis failed."""


@dataclass(eq=False)
class Inbox:
    """One open stream of an account: its bounded ``queue`` of events and whether it was
    ``dropped`` (its queue overflowed: events were lost)."""

    account: str
    queue: asyncio.Queue[JsonObject] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False

    def offer(self, event: JsonObject) -> None:
        """Queue ``event`` without waiting; a full queue drops the stream."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped = True


class AccountEvents:
    """The account events of this worker; ``redis``: the shared client (``None``: a single
    process, events stay in memory)."""

    def __init__(self, redis: Redis | None = None) -> None:
        self.redis = redis
        self.worker = secrets.token_hex(6)
        self.inboxes: dict[str, set[Inbox]] = {}

    def subscribe(self, account: str) -> Inbox:
        """A new stream of ``account``'s events (:meth:`unsubscribe` it when done)."""
        inbox = Inbox(account)
        self.inboxes.setdefault(account, set()).add(inbox)
        return inbox

    def unsubscribe(self, inbox: Inbox) -> None:
        """Forget a stream."""
        held = self.inboxes.get(inbox.account)
        if held is not None:
            held.discard(inbox)
            if not held:
                del self.inboxes[inbox.account]

    def deliver(self, account: str, event: JsonObject) -> None:
        """Hand ``event`` to ``account``'s streams on this worker."""
        for inbox in list(self.inboxes.get(account, ())):
            inbox.offer(event)

    async def publish(self, account: str, event: JsonObject) -> None:
        """Deliver ``event`` to ``account``'s streams here and on every other worker (a
        Redis failure is logged: the others miss it)."""
        self.deliver(account, event)
        if self.redis is None:
            return
        payload = json.dumps({"worker": self.worker, "account": account, "event": event})
        try:
            await self.redis.publish(CHANNEL, payload)
        except (RedisError, OSError) as exc:
            log.warning("redis: publishing an account event failed (%s)", exc)

    def heard(self, data: bytes) -> None:
        """Deliver an event another worker published (this worker's own are skipped)."""
        body = json.loads(data.decode())
        if not is_object(body) or body.get("worker") == self.worker:
            return
        account, event = body.get("account"), body.get("event")
        if isinstance(account, str) and is_object(event):
            self.deliver(account, event)

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
                log.warning("redis: listening to account events failed (%s)", exc)
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
