"""Several workers: changes shared across them, and the seats' presence.

With ``METROGAMES_REDIS_URL`` set (:mod:`~metrogames.web.infra.cluster`) the database stays the
only truth and each worker's rooms in memory are caches. Every change runs under
:meth:`RoomSync.locked` — the room's lock in this process and across the workers — and first
catches the room up with the database (:meth:`RoomSync.sync`: the actions, seats and room facts
stored by other workers) unless the room's version in Redis is the one its copy was read at;
the primary key ``(room, step)`` of the stored actions is the last guard against a step played
twice. A change gives the room a new version and is published when the lock is released (a
socket's hello also catches up, :meth:`RoomSync.catch_up`); the other workers mark their copy
stale and, when they have sockets on it, catch up and push views. Both ways in go through
:func:`~metrogames.web.rooms.changes.apply_change`.

Presence: each worker tells the others (through Redis) how many sockets it holds on each seat,
one count after the other; counts heard for a room being loaded are kept and applied once it
is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Sequence

from metrogames.web.infra.cluster import Cluster
from metrogames.web.rooms.changes import Change, apply_change, replayed
from metrogames.web.rooms.store import RoomStore
from metrogames.web.rooms.summary import seat_connected
from metrogames.web.rooms.tables import SPECTATORS, Seat, Table

log = logging.getLogger("metrogames.web.rooms")  # one logger for the room core
RETRY_SECONDS = 1.0
"""How long a catch-up whose read failed waits before trying again (as the bots' and clocks'
retries: :data:`~metrogames.web.rooms.scheduler.RETRY_SECONDS`)."""
IN_USE = 10.0
"""Seconds after its last request during which a room copy with no socket, clock or bot
still takes other workers' changes as they come (a socket usually follows a room's set-up);
after that it is only marked stale."""
Fingerprint = tuple[int, str, float | None, bool, tuple[Seat, ...]]
"""What other workers must catch up on when it changes: step, status, deadline, ``bots_due``
and seats."""


class RoomSync:
    """A worker's rooms kept in step with the other workers' (single-process: ``cluster`` is
    ``None`` and every method is a no-op or plain).

    Args:
        store: the rooms' rows (catch-ups read them).
        cluster: the link to the other workers, or ``None``.
        tables: the rooms in memory (shared with the room service).
        loading: the rooms being loaded (shared with the room service).
        clock: seat presence and idleness (wall-clock seconds).
    """

    def __init__(
        self,
        store: RoomStore,
        cluster: Cluster | None,
        tables: dict[str, Table],
        loading: dict[str, asyncio.Task[Table]],
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.cluster = cluster
        self.tables = tables
        self.loading = loading
        self.clock = clock
        self.presence_tasks: set[asyncio.Task[None]] = set()
        """Seat presence counts on their way to Redis (kept until sent)."""
        self._presence_tail: asyncio.Task[None] | None = None
        """The last seat presence count on its way (the next one goes after it)."""
        self.heard_presence: dict[str, list[tuple[str, int, int]]] = {}
        """Seat presence heard for rooms being loaded: (worker, seat, count), in order."""

    @contextlib.asynccontextmanager
    async def locked(self, table: Table) -> AsyncIterator[Table]:
        """Hold ``table``'s lock while the block changes the room. With several workers the
        room's lock is also held across them, the room is first caught up with the database
        (:meth:`sync`) unless its copy is at the room's version, and a change (seen in
        :meth:`fingerprint`) gives the room a new version and is published at the end."""
        async with table.lock:
            if self.cluster is None:
                yield table
                return
            async with self.cluster.lock(table.id) as lease:
                if table.stale or lease.version is None or lease.version != table.version:
                    await self.sync(table)
                before = self.fingerprint(table)
                table.written = []
                try:
                    yield table
                finally:
                    after = self.fingerprint(table)
                    lease.changed = after != before
                    if lease.changed:
                        lease.change = self.change_text(table, before, after, table.written)
                    table.written = None
            table.version = lease.version

    @staticmethod
    def fingerprint(table: Table) -> Fingerprint:
        """What other workers must catch up on when it changes."""
        seats = tuple(table.seats)
        return table.progress.step, table.status, table.deadline, table.bots_due, seats

    @staticmethod
    def change_text(
        table: Table, before: Fingerprint, after: Fingerprint, written: list[str]
    ) -> str:
        """The change from fingerprint ``before`` to ``after`` as the JSON text other workers
        apply (:meth:`apply_published`): ``[step, [status, deadline, bots_due], [[player,
        action JSON]...], seats]``, the actions stored from ``step`` on and, when they
        changed, the seats (``[[seat, name, human, bot, token_hash]...]``, else ``null``);
        ``""`` when the stored actions are not exactly the steps gone by (the others read the
        database)."""
        if len(written) != after[0] - before[0]:
            return ""
        facts = json.dumps([table.status, table.deadline, table.bots_due])
        seats = json.dumps([dataclasses.astuple(s) for s in after[4]]) if before[4] != after[4] else "null"
        return f'[{before[0]},{facts},[{",".join(written)}],{seats}]'

    def apply_published(self, table: Table, change: str) -> bool:
        """Apply another worker's published ``change`` (:meth:`change_text`) to ``table``, whose
        copy is at the version it was made at; ``False`` (the table untouched) when it does
        not start at the copy's step or the engine refuses it."""
        try:
            step, (status, deadline, due), moves, seat_rows = json.loads(change)
            if step != table.progress.step:
                return False
            progress = replayed(table.progress, moves)
            seats = None if seat_rows is None else [Seat(*row) for row in seat_rows]
        except Exception:
            log.exception("room %s: a published change did not apply", table.id)
            return False
        apply_change(table, Change(progress, status, deadline, due, seats))
        self.saw_acting(table, moves)
        return True

    async def catch_up(self, table: Table) -> None:
        """With several workers: catch ``table`` up with the database unless its version is
        the room's (a socket's hello: a worker that died after its write may not have told
        the others)."""
        if self.cluster is None:
            return
        version = await self.cluster.version(table.id)
        async with table.lock:
            if table.stale or version is None or version != table.version:
                await self.sync(table)
                table.version = version

    async def sync(self, table: Table) -> None:
        """Adopt what other workers stored in ``table``'s room since it was read: its
        actions from the step it is at, its seats, status, deadline and ``bots_due`` (the
        room's lock is held; single-process: nothing to do)."""
        if self.cluster is None:
            return
        table.stale = False
        try:
            fetched = await asyncio.to_thread(self.store.fetch, table.id, table.progress.step)
        except Exception:
            table.stale = True
            raise
        if fetched is None:
            return
        row, seats, actions = fetched
        progress = replayed(table.progress, ((p, json.loads(a)) for p, a in actions))
        apply_change(table, Change(progress, row.status, row.deadline, row.bots_due, seats))
        self.saw_acting(table, actions)

    def room_changed(
        self,
        room: str,
        version: str | None = None,
        previous: str | None = None,
        change: str = "",
    ) -> None:
        """Another worker changed ``room`` (its new ``version``, if known) from ``previous``
        (if known) by ``change`` (:meth:`change_text`, or ``""``). A copy in memory at
        ``previous`` whose lock is free and that serves something here (sockets, a clock or
        a bot, or a request less than :data:`IN_USE` seconds ago) takes the change as it
        is; any other copy is stale (caught up only if it is asked for again). With sockets
        on it, it catches up (if stale) and they get views now."""
        table = self.tables.get(room)
        if table is None:
            return
        serving = (
            table.listeners
            or table.clock_task is not None
            or table.bot_task is not None
            or self.clock() - table.touched < IN_USE
        )
        if (
            serving
            and change
            and version is not None
            and previous is not None
            and previous == table.version
            and not table.stale
            and not table.lock.locked()
            and self.apply_published(table, change)
        ):
            table.version = version
        else:
            table.stale, table.heard = True, version
        self.push_soon(table)

    def push_soon(self, table: Table) -> None:
        """Push views to this worker's sockets on ``table`` soon (in the background, once it
        is caught up: :meth:`_refresh`)."""
        if table.listeners:
            table.unpushed = True
            if table.refresh_task is None:
                table.refresh_task = asyncio.get_running_loop().create_task(self._refresh(table))

    async def connected_among(self, seats: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of ``seats`` (room, seat) have a socket open on any worker: this worker's copy
        of the room (its own sockets and those heard from the others), else the other live
        workers' counts in Redis, read for them all in at most two round trips
        (:meth:`~metrogames.web.infra.cluster.Cluster.presence_of`; none without Redis, or when
        Redis fails)."""
        wanted = set(seats)
        here = {(r, s) for r, s in wanted if r in self.tables and seat_connected(self.tables[r], s)}
        rest = sorted({r for r, _ in wanted - here})
        if self.cluster is None or not rest:
            return here
        held = await self.cluster.presence_of(rest)
        elsewhere = {
            (r, s) for r, s in wanted - here if any(by[s] > 0 for by in held.get(r, {}).values())
        }
        return here | elsewhere

    def presence_changed(self, room: str, worker: str, seat: int, count: int) -> None:
        """Another worker (``worker``) holds ``count`` sockets on ``room``'s ``seat`` from now
        on (:data:`~metrogames.web.rooms.tables.SPECTATORS`: spectators): this worker's views
        of the room mark the seat, or count the spectators, accordingly."""
        table = self.tables.get(room)
        if table is None:
            if room in self.loading:  # applied once loaded
                self.heard_presence.setdefault(room, []).append((worker, seat, count))
            return
        before = seat_connected(table, seat)
        seats = table.elsewhere.setdefault(worker, Counter())
        seats[seat] = count
        if count <= 0:
            del seats[seat]
            if not seats:
                del table.elsewhere[worker]
        if seat == SPECTATORS or seat_connected(table, seat) != before:
            self.push_soon(table)  # a seat's mark, or the spectators' count, changed

    async def forget_departed(self) -> None:
        """Drop the sockets counted for workers that stopped saying they are alive (killed:
        they never said goodbye), and push the views whose marks change."""
        if self.cluster is None:
            return
        counted = {worker for table in self.tables.values() for worker in table.elsewhere}
        if not counted:
            return
        live = await self.cluster.live(counted)
        if live is None:  # Redis failed: next time
            return
        for table in list(self.tables.values()):
            gone = [worker for worker in table.elsewhere if worker not in live]
            if gone:
                fields = [f"{w}:{seat}" for w in gone for seat in table.elsewhere.pop(w)]
                self.push_soon(table)
                await self.cluster.forget(table.id, fields)

    def all_changed(self) -> None:
        """What other workers published may have been lost (Redis came back, perhaps empty):
        every room in memory is stale, this worker tells its sockets again and reads the
        others'."""
        for room in list(self.tables):
            self.room_changed(room)
        for table in list(self.tables.values()):
            for seat, count in table.connected.items():
                if count > 0:
                    self.count_socket(table, seat)
        if self.tables:
            task = asyncio.get_running_loop().create_task(self._reread_presence())
            self.presence_tasks.add(task)
            task.add_done_callback(self.presence_tasks.discard)

    async def _reread_presence(self) -> None:
        """Read every room's presence again from Redis and push the views."""
        if self.cluster is None:
            return
        for table in list(self.tables.values()):
            table.elsewhere = await self.cluster.presence(table.id)
            self.push_soon(table)

    async def _refresh(self, table: Table) -> None:
        """Catch a stale room up and push views to this worker's sockets, until it is no
        longer stale and every change heard was pushed (a failed read is tried again
        ``RETRY_SECONDS`` later)."""
        try:
            while table.listeners and (table.stale or table.unpushed):
                table.unpushed = False
                try:
                    async with table.lock:
                        if table.stale:
                            version = table.heard  # the state read next is at least this one
                            await self.sync(table)
                            table.version = version
                except Exception:
                    log.exception("room %s: could not catch up", table.id)
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
                await table.notify()
        finally:
            table.refresh_task = None

    def count_socket(self, table: Table, seat: int, left: float | None = None) -> None:
        """With several workers: tell the others (through Redis, in the background) how many
        sockets this worker holds on ``seat`` (``left``: when its player left the last one).
        The counts go one after the other, each read when it goes, so the last one told is
        the count now."""
        cluster = self.cluster
        if cluster is None:
            return
        before = self._presence_tail

        async def send() -> None:
            if before is not None:
                await asyncio.wait([before])
            await cluster.count_socket(table.id, seat, table.connected[seat], left)

        task = asyncio.get_running_loop().create_task(send())
        self._presence_tail = task
        self.presence_tasks.add(task)
        task.add_done_callback(self.presence_tasks.discard)

    def saw_acting(self, table: Table, moves: Sequence[tuple[int, object]]) -> None:
        """Another worker stored ``moves``: their human players were present just now."""
        now = self.clock()
        for player, _ in moves:
            if 0 <= player < len(table.seats) and table.seats[player].bot is None:
                table.present[player] = now
