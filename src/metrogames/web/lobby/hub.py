"""The lobby of one worker: the listed rooms as last read, and the event streams it feeds.

The database is the only truth (:func:`.entries.open_rooms`); each worker keeps the lobby as
it last read it and reads it again whenever something may have changed it, one read at a
time (a change heard during a read gets a read of its own after it):

* a listed room changed on this worker (:meth:`Lobby.changed`, a
  :class:`~metrogames.web.rooms.listeners.RoomWatcher` of the room service: created, a seat
  claimed or linked to an account, started) — the other workers are told through the
  worker's pub/sub hub (:mod:`~metrogames.web.infra.pubsub`, topic :data:`TOPIC`), and read
  it too (:meth:`Lobby.heard`);
* the host's seat of a listed waiting room lost its last socket or got one back
  (:meth:`Lobby.connected`): the room is marked ``host_away`` (abandoned, out of the lobby)
  or back in;
* the next listed room's expiry comes, and every :data:`SWEEP_SECONDS` anyway (what Redis
  lost is read again).

Each read is compared with the last: an entry new or changed goes to the streams as ``room``,
one that left as ``gone`` (:meth:`Lobby.refresh`). Offering an event never waits: each stream
has its own bounded queue (a hub's :class:`~metrogames.web.infra.pubsub.Inbox`), and a
stream whose queue is full is dropped (its client reconnects
and starts again from a snapshot: :mod:`.stream`). No lock is held while a client is written to.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Never

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from metrogames.web.infra.cluster import Cluster
from metrogames.web.infra.config import Settings
from metrogames.web.infra.models import RoomRow
from metrogames.web.infra.pubsub import Hub, Inbox
from metrogames.web.lobby.entries import LobbyEntry, aged, matches, open_rooms
from metrogames.web.rooms.tables import Table

log = logging.getLogger("metrogames.web.lobby")
SWEEP_SECONDS = 5.0
"""The longest a worker goes without reading the lobby again."""
RETRY_SECONDS = 1.0
"""The wait after a read that failed (the database down) before the next."""
HOST = 0
"""The host's seat."""
TOPIC = "lobby"
"""The hub's topic of lobby changes (key: the listed room that changed)."""

Event = tuple[str, object]
"""An event for a stream: its name (``snapshot``, ``room``, ``gone``) and its JSON data."""


class Stream(Inbox[Event]):
    """One client's event stream: its filters (``game``, ``players``; ``None``: any) and,
    as every inbox, its bounded ``queue`` of events and whether it was ``dropped``."""

    def __init__(self, game: str | None, players: int | None, queue: asyncio.Queue[Event]):
        super().__init__(TOPIC, "", queue)
        self.game = game
        self.players = players


class Lobby:
    """The lobby of this worker (a :class:`~metrogames.web.rooms.listeners.RoomWatcher`).

    Args:
        settings: ``lobby_queue`` (a stream's queue) is read here.
        sessions: the database's sessions.
        cluster: the other workers, or ``None``.
        hub: the worker's pub/sub hub (the other workers' lobby changes come through it).
        clock: epoch seconds (tests replace it).
    """

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        cluster: Cluster | None,
        hub: Hub,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.hub = hub
        hub.on(TOPIC, self.heard)
        self.sessions = sessions
        self.cluster = cluster
        self.clock = clock
        self.entries: dict[str, LobbyEntry] = {}
        """The lobby as last read: room -> entry, newest first."""
        self.streams: set[Stream] = set()
        self.reads = 0
        """How many times the lobby was read (tests wait on it)."""
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._host_turns: dict[str, tuple[asyncio.Lock, int]] = {}

    # -- reading ----------------------------------------------------------------------------
    def read(self) -> list[LobbyEntry]:
        """The lobby now, from the database (run it off the event loop)."""
        with self.sessions() as session:
            return open_rooms(session, self.clock())

    async def refresh(self) -> None:
        """Read the lobby and offer each stream what changed since the last read (as
        ``room`` and ``gone`` events, filtered by the stream's game and player count)."""
        found = await asyncio.to_thread(self.read)
        new = {entry["room"]: entry for entry in found}
        old, self.entries = self.entries, new
        self.reads += 1
        now = self.clock()
        opened = [e for room, e in new.items() if _moved(old.get(room), e)]
        gone = [e for room, e in old.items() if room not in new]
        for stream in list(self.streams):
            for entry in opened:
                if matches(entry, stream.game, stream.players):
                    stream.offer(("room", aged(entry, now)))
            for entry in gone:
                if matches(entry, stream.game, stream.players):
                    stream.offer(("gone", {"room": entry["room"]}))

    async def run(self) -> None:
        """Until cancelled: read the lobby whenever told to (:meth:`wake`), when the next
        listed room expires, and at least every :data:`SWEEP_SECONDS` (first at once)."""
        while True:
            self._wake.clear()  # a wake during the read reads again right after it
            try:
                await self.refresh()
            except Exception:
                log.exception("the lobby could not be read")
                await asyncio.sleep(RETRY_SECONDS)
            expiries = [e["expires"] for e in self.entries.values()]
            wait = min([SWEEP_SECONDS, *(t - self.clock() for t in expiries)])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, wait))

    def wake(self) -> None:
        """Read the lobby again soon (:meth:`run`)."""
        self._wake.set()

    # -- what changes it ------------------------------------------------------------------
    def changed(self, table: Table) -> None:
        """A room changed on this worker: a listed room waiting for players, or one that was
        in the lobby, makes it read again here and on the other workers."""
        if table.listed_until is None:
            return
        if table.status == "waiting" or table.id in self.entries:
            self._touch(table.id)

    def connected(self, table: Table, seat: int) -> None:
        """A socket of ``seat`` came or went: the host's seat of a listed waiting room with
        no socket left on any worker marks the room abandoned (``host_away``), with one
        marks it back (in the background)."""
        if seat == HOST and table.listed_until is not None and table.status == "waiting":
            self._spawn(self._host_seen(table))

    def heard(self, room: str, event: object = None) -> None:
        """The listed room ``room`` changed (here or on another worker): read the lobby
        again."""
        self.wake()

    def _touch(self, room: str) -> None:
        self.wake()
        self._spawn(self.hub.publish(TOPIC, room, {}))

    async def _host_seen(self, table: Table) -> None:
        """Store whether the host of ``table`` is away, one socket's news at a time per room:
        each looks at the seat when its turn comes, so the last stored is the seat as it is
        (two writes on the database's threads could otherwise land in either order, and a
        host who left stay listed)."""
        lock, waiting = self._host_turns.get(table.id, (asyncio.Lock(), 0))
        self._host_turns[table.id] = (lock, waiting + 1)
        try:
            async with lock:
                await self._store_host_seen(table)
        finally:
            lock, waiting = self._host_turns[table.id]
            if waiting == 1:
                del self._host_turns[table.id]
            else:
                self._host_turns[table.id] = (lock, waiting - 1)

    async def _store_host_seen(self, table: Table) -> None:
        away = table.connected[HOST] == 0
        if away and self.cluster is not None:
            sockets, _ = await self.cluster.seat_elsewhere(table.id, HOST)
            away = sockets == 0
        try:
            await asyncio.to_thread(self._mark_away, table.id, away)
        except Exception:
            log.exception("room %s: its host's presence could not be stored", table.id)
            return
        self._touch(table.id)

    def _mark_away(self, room: str, away: bool) -> None:
        with self.sessions.begin() as session:
            session.execute(update(RoomRow).where(RoomRow.id == room).values(host_away=away))

    def _spawn(self, work: Coroutine[object, Never, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- streams --------------------------------------------------------------------------
    def subscribe(self, game: str | None, players: int | None) -> Stream:
        """A new stream with the lobby's rooms that pass the filters as its first event
        (``snapshot``: ``{"rooms": [...]}``)."""
        stream = Stream(game, players, asyncio.Queue(self.settings.lobby_queue))
        now = self.clock()
        rooms = [aged(e, now) for e in self.entries.values() if matches(e, game, players)]
        stream.offer(("snapshot", {"rooms": rooms}))
        self.streams.add(stream)
        return stream

    def unsubscribe(self, stream: Stream) -> None:
        """Forget ``stream`` (its client left, or it was dropped)."""
        self.streams.discard(stream)


def _moved(before: LobbyEntry | None, after: LobbyEntry) -> bool:
    """Whether an entry is new or changed (its ``age`` aside)."""
    if before is None:
        return True
    return {**before, "age": 0} != {**after, "age": 0}
