"""An event stream as server-sent events (``text/event-stream``): the lobby's
(``GET /api/lobby/events``, ``docs/web-api.md``, "Lobby") and now playing's
(``GET /api/watch/events``, "Now playing": ``snapshot`` events only).

The stream opens with ``retry: 2000`` (a browser's ``EventSource`` reconnects two seconds
after the stream ends) and a ``snapshot`` event, then sends ``room`` and ``gone`` events as
the lobby changes (:class:`~metrogames.web.lobby.hub.Lobby`), and a comment line every
:data:`KEEPALIVE_SECONDS` when nothing else went (a proxy keeps the connection; a client that
left is noticed). A stream whose queue overflowed (its client reads too slowly) ends: its
client reconnects and starts again from a new snapshot. Writing to the client is the server's
to bound (a client that leaves what it is sent unread for ``METROGAMES_SEND_SECONDS`` is
closed: :mod:`~metrogames.web.infra.deadlines`); the lobby never waits for it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from metrogames.web.lobby.hub import Event

KEEPALIVE_SECONDS = 15.0
"""The longest a stream stays silent (a comment line then)."""
RETRY_MILLISECONDS = 2000
"""How long a browser waits before it reconnects a stream that ended."""
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
"""Sent with a stream: no cache, no proxy buffering."""


def event_text(name: str, data: object) -> str:
    """One server-sent event: ``event: {name}`` and its data as one line of JSON."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Feed(Protocol):
    """What a stream of events is to :func:`events`: its ``queue`` of events and whether it
    was ``dropped`` (the lobby's :class:`~metrogames.web.lobby.hub.Stream`, now playing's
    :class:`~metrogames.web.watch.hub.WatchStream`)."""

    @property
    def queue(self) -> asyncio.Queue[Event]: ...
    @property
    def dropped(self) -> bool: ...


async def events(
    stream: Feed,
    done: Callable[[], None],
    keepalive: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[str]:
    """The text of ``stream``'s events until it is dropped or its client leaves; at the end
    ``done()`` is called (the stream unsubscribed, its connection no longer counted)."""
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n"
        while True:
            try:
                name, data = await asyncio.wait_for(stream.queue.get(), keepalive)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            if stream.dropped:  # events were lost: the client starts again from a snapshot
                return
            yield event_text(name, data)
    finally:
        done()
