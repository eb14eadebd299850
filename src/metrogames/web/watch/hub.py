"""Now playing on one worker: the list as last read, and the event streams it feeds.

The database is the only truth for which games are in progress (:func:`.entries.playing_rooms`)
and Redis for how many spectators each has across the workers
(:meth:`~metrogames.web.infra.cluster.Cluster.spectators`; one process: the rooms in memory,
:func:`~metrogames.web.rooms.summary.spectators`). While a stream is open, the worker reads
the list every :data:`WATCH_SECONDS` (and at once for a new stream), one read at a time, and
sends each stream its ranking (:func:`.entries.ranked`) as a ``snapshot`` event whenever it
differs from the last one sent. With no stream open nothing is read. Offering an event never
waits: each stream has its own bounded queue, and a stream whose queue is full is dropped (its
client reconnects and starts from a new snapshot). No lock is held while a client is written to.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session, sessionmaker

from metrogames.web.infra.cluster import Cluster
from metrogames.web.lobby.hub import Event
from metrogames.web.rooms.summary import spectators
from metrogames.web.rooms.tables import Table
from metrogames.web.watch.entries import (
    NowPlaying,
    WatchEntry,
    playing_rooms,
    ranked,
    with_spectators,
)

log = logging.getLogger("metrogames.web.watch")
WATCH_SECONDS = 3.0
"""How often a worker with open streams reads the list again."""
RETRY_SECONDS = 1.0
"""The wait after a read that failed (the database down) before the next."""


@dataclass(eq=False)
class WatchStream:
    """One client's event stream: its ``game`` filter (``None``: any), its ranking length
    ``limit``, its bounded ``queue``, whether it was ``dropped`` (its queue overflowed) and
    the ``last`` ranking offered (``None``: none yet)."""

    game: str | None
    limit: int
    queue: asyncio.Queue[Event] = field(default_factory=asyncio.Queue)
    dropped: bool = False
    last: NowPlaying | None = None

    def offer(self, ranking: NowPlaying) -> None:
        """Queue ``ranking`` as a ``snapshot`` unless it is the last one offered, without
        waiting; a full queue drops the stream."""
        if self.dropped or ranking == self.last:
            return
        self.last = ranking
        try:
            self.queue.put_nowait(("snapshot", ranking))
        except asyncio.QueueFull:
            self.dropped = True


class Watch:
    """Now playing on this worker.

    Args:
        sessions: the database's sessions.
        cluster: the other workers (their spectators), or ``None``.
        tables: the rooms in memory (one process: where the spectators are counted).
        queue: the events one stream may hold unsent (``METROGAMES_LOBBY_QUEUE``).
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        cluster: Cluster | None,
        tables: Mapping[str, Table],
        queue: int,
    ) -> None:
        self.sessions = sessions
        self.cluster = cluster
        self.tables = tables
        self.queue = queue
        self.streams: set[WatchStream] = set()
        self._wake = asyncio.Event()

    def _rows(self) -> list[WatchEntry]:
        with self.sessions() as session:
            return playing_rooms(session)

    async def counts(self, rooms: Sequence[str]) -> dict[str, int]:
        """Room -> its spectator sockets on every worker (absent: none known)."""
        if self.cluster is not None:
            return await self.cluster.spectators(rooms)
        return {r: spectators(t) for r in rooms if (t := self.tables.get(r)) is not None}

    async def read(self) -> list[WatchEntry]:
        """Every game of the list, newest first, with its spectators (the database read off
        the event loop)."""
        found = await asyncio.to_thread(self._rows)
        return with_spectators(found, await self.counts([e["room"] for e in found]))

    async def refresh(self) -> None:
        """Read the list and offer each stream its ranking."""
        entries = await self.read()
        for stream in list(self.streams):
            stream.offer(ranked(entries, stream.game, stream.limit))

    async def run(self) -> None:
        """Until cancelled: while streams are open, read every :data:`WATCH_SECONDS` (and at
        once when a stream opens: :meth:`subscribe`)."""
        while True:
            self._wake.clear()
            if self.streams:
                try:
                    await self.refresh()
                except Exception:
                    log.exception("the now playing list could not be read")
                    await asyncio.sleep(RETRY_SECONDS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), WATCH_SECONDS)

    def subscribe(self, game: str | None, limit: int) -> WatchStream:
        """A new stream; its first ``snapshot`` comes with the read it starts."""
        stream = WatchStream(game, limit, asyncio.Queue(self.queue))
        self.streams.add(stream)
        self._wake.set()
        return stream

    def unsubscribe(self, stream: WatchStream) -> None:
        """Forget ``stream`` (its client left, or it was dropped)."""
        self.streams.discard(stream)
