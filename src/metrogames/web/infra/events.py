"""Per-account events: what the server tells one account's open streams (a bot's event
stream: :mod:`metrogames.web.api.bots`; a person's page: :mod:`metrogames.web.api.friends`),
on any worker.

They are the ``account`` topic of the worker's one pub/sub hub (:mod:`.pubsub`, key the
account's id): :meth:`AccountEvents.publish` delivers an event (a JSON object) to the
account's streams on this worker at once and to every other worker's through Redis. What
Redis loses is lost: an event is a wake-up, and the database stays the truth (a stream that
opens, or whose client reconnects, starts from what the database holds). Delivering never
waits: each stream has a bounded queue (:data:`~.pubsub.QUEUE_LIMIT`) and a stream whose queue
is full is ``dropped`` (its client reconnects).
"""

from __future__ import annotations

from metrogames.core.protocol import JsonObject
from metrogames.web.infra.pubsub import Hub, Inbox

TOPIC = "account"
"""The hub's topic of account events."""


class AccountEvents:
    """The account events of this worker, over ``hub``."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def subscribe(self, account: str) -> Inbox[JsonObject]:
        """A new stream of ``account``'s events (:meth:`unsubscribe` it when done)."""
        return self.hub.subscribe(TOPIC, account)

    def unsubscribe(self, inbox: Inbox[JsonObject]) -> None:
        """Forget a stream."""
        self.hub.unsubscribe(inbox)

    async def publish(self, account: str, event: JsonObject) -> None:
        """Deliver ``event`` to ``account``'s streams here and on every other worker (a
        Redis failure is logged: the others miss it)."""
        await self.hub.publish(TOPIC, account, event)
