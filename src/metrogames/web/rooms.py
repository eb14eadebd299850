"""The room service: create, join, start, act, bots, turn clocks, seat handover, records.

Contract: ``docs/web-api.md``, "Rooms" and "Playing". The server is authoritative: each action
is checked by the engine (``state.apply``); nothing is stored when it is refused. A game is
stored as its seed (secret until the end), its options and every action (chance included);
its state lives in memory per room and is rebuilt from the database (off the event loop) when
a request needs it (:meth:`RoomService.table`). Each room has one :class:`asyncio.Lock`; every
change happens under it in the same order: check the request, write the change to the database
in one transaction, and only once that committed change the room in memory (a new game position
or seat replaces the old one) and push it to the room's listeners. A write that fails, for any
reason, leaves the room in memory as it was.

A turn clock's deadline and whether a bot is to move are stored with the change that sets them,
so a restarted server resumes every such room's clock and bots (:meth:`RoomService.resume`). A
room leaves memory once nothing uses it — no request, socket, bot or clock — for
``room_idle`` seconds (finished rooms: ``finished_idle``), and is reloaded on demand
(:meth:`RoomService.evict_idle`).

Several workers (``METROGAMES_REDIS_URL`` set, :mod:`.cluster`): the database stays the only
truth and each worker's rooms in memory are caches. Every change runs under
:meth:`RoomService.locked` — the room's lock in this process and across the workers — and
first catches the room up with the database (:meth:`RoomService._sync`: the actions, seats and
room facts stored by other workers) unless the room's version in Redis is the one its copy was
read at; the primary key ``(room, step)`` of the stored actions is the last guard against a
step played twice. A change gives the room a new version and is published when the lock is
released (a socket's hello also catches up, :meth:`RoomService.catch_up`); the other workers
mark their copy stale and, when they have sockets on it, catch up and push views.
Turn clocks and bots run wherever the room is in memory (each fire catches up first, so the
second finds nothing left to do), and every worker takes over, every
:data:`TAKEOVER_SECONDS`, the rooms whose clock is overdue or whose bots are due
(:meth:`RoomService.take_over`): a dead worker's rooms go on.

Bodies arrive parsed (:mod:`.bodies`); errors are :class:`~metrogames.web.errors.RoomError`;
rooms in memory are :class:`~metrogames.web.tables.Table` values.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import secrets
import string
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from cachetools import LRUCache
from sqlalchemy import Connection, Engine, bindparam, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metrogames.bots.base import make_bot
from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    MetrogamesError,
    NotYourTurnError,
    RecordError,
    message_of,
)
from metrogames.core.protocol import CHANCE
from metrogames.games import game_from_options, game_names, game_type, preset_of
from metrogames.i18n import N_, Message, msg, plural
from metrogames.web.api.bodies import ActionBody, HintBody, JoinBody, RoomBody
from metrogames.web.checks import bot_name, hash_token, new_token, seat_label
from metrogames.web.errors import RoomError, bad_request, shown
from metrogames.web.infra import metrics
from metrogames.web.infra.admission import Admission
from metrogames.web.infra.cluster import Cluster
from metrogames.web.infra.config import Settings
from metrogames.web.infra.db import session_factory
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.models import ActionRow, RoomRow, SeatRow
from metrogames.web.tables import (
    FinishHook,
    Listener,
    Progress,
    Seat,
    Table,
    loaded_seed,
    stored_seed,
    timed_out_notices,
)
from metrogames.web.tutorial import tutorial_bot_move, tutorial_seed
from metrogames.web.views import (
    Frame,
    Mode,
    PresetJson,
    RoomSummary,
    SeatView,
    Status,
    SummarySeat,
    build_view,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
ACTIONS = ActionRow.metadata.tables["actions"]
ROOMS = RoomRow.metadata.tables["rooms"]
INSERT_ACTIONS = insert(ACTIONS)
UPDATE_ROOM = update(ROOMS).where(ROOMS.c.id == bindparam("room"))
"""The hot writes, built once, in Core (no ORM unit of work per action): the actions of a
step (parameters: the rows), the room's facts that changed with it (parameters: ``room`` and
the changed columns)."""

ROOM_ALPHABET = string.ascii_lowercase + string.digits
CLOCK_BOT = "medium"
"""The bot that plays a Metro turn whose clock ran out (a level: the greedy player closes its
own routes too early in Metro)."""
RETRY_SECONDS = 1.0
"""How long a bot or a turn clock whose action could not be stored waits before trying again."""
REPLAY_CACHE_BYTES = 64 * 1024 * 1024
"""Finished rooms' replays kept as JSON text (a London solo game: about 110 KB)."""
HINT_MOVES = 3
"""How many moves a hint shows."""
QUICK_BOTS = frozenset({"easy", "medium", "random", "greedy"})
"""The bots whose decisions take a few milliseconds at most (measured: ``benchmarks/bots.py``):
they decide on a thinking thread of the serving process; every other bot's decision is a
heavy job (:mod:`.jobs`, the ``play`` lane)."""
TAKEOVER_SECONDS = 2.0
"""With several workers: how often each looks for rooms whose clock or bots nobody runs."""
TAKEOVER_GRACE = 2.0
"""Seconds past a turn clock's deadline before any worker takes the room over."""


IN_USE = 10.0
"""Seconds after its last request during which a room copy with no socket, clock or bot
still takes other workers' changes as they come (a socket usually follows a room's set-up);
after that it is only marked stale."""


Origin = tuple[str | None, str | None]
"""Who claims a seat: the keyed digest of the client address and the SHA-256 of its sign-in
session's token (``None``: unknown, or not signed in) — kept with the seat so that seats one
person holds in a game do not rate each other (:mod:`.ratings`)."""


def check_room_id(room: str) -> None:
    """Refuse what cannot be a room id (8 lowercase letters/digits).

    Raises:
        RoomError: 404 ``not-found``.
    """
    if not (isinstance(room, str) and len(room) == 8 and set(room) <= set(ROOM_ALPHABET)):
        raise RoomError(404, "not-found", msg(N_("no room {room}"), room=repr(room[:20])))


def position_job(view: Any, seat: int) -> dict[str, Any]:
    """The plain data of a position job (:mod:`metrogames.web.infra.jobs.work`): ``seat``'s
    ``view`` as its game, player count, options and snapshot, and the seat."""
    game = view.game
    return {
        "game": game.name,
        "players": game.num_players,
        "options": game.options_json(),
        "snapshot": view.snapshot(),
        "seat": seat,
    }


def _digest(data: Any) -> str:
    """The SHA-256 of ``data``'s canonical JSON (hex)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _seed_of(text: str) -> int:
    """A search's seed (63 bits) derived from ``text``: the same text, the same search."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def _stale(step: int, current: int) -> Message:
    return msg(N_("step {step} is not the current step {current}"), step=step, current=current)


class RoomService:
    """Rooms over a database: the in-memory tables, their locks, bots and clocks.

    Args:
        settings: ``bot_delay``, ``clock_unit``, ``handover_grace``, ``room_idle`` and
            ``finished_idle`` are read here.
        engine: a migrated database (:func:`~metrogames.web.infra.db.migrate`).
    """

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self.sessions = session_factory(engine)
        self.tables: dict[str, Table] = {}
        self.clock: Callable[[], float] = time.time
        """The clock of seat presence and idleness (wall-clock seconds, as every worker
        reads them alike; tests replace it)."""
        self._presence: set[asyncio.Task[None]] = set()
        """Seat presence counts on their way to Redis (kept until sent)."""
        self._presence_tail: asyncio.Task[None] | None = None
        """The last seat presence count on its way (the next one goes after it)."""
        self._loading: dict[str, asyncio.Task[Table]] = {}
        """Rooms being loaded (one load per room, shared by the requests waiting for it)."""
        self._heard_presence: dict[str, list[tuple[str, int, int]]] = {}
        """Seat presence heard for rooms being loaded: (worker, seat, count), in order."""
        self.on_finish: list[FinishHook] = []
        self.hide_seed: Callable[[Table], bool] = lambda _table: False
        """Whether a room is private to its players: its record keeps its seed and decks
        hidden and spectators are refused (the daily challenge's rooms until their day
        closes)."""
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metrogames-db")
        """One thread for the rooms' writes: they never wait on each other's database locks,
        and the event loop never waits on the database."""
        self.replays: LRUCache[tuple[str, bool], str] = LRUCache(REPLAY_CACHE_BYTES, getsizeof=len)
        """Finished rooms' replays as JSON text, by (room, seed shown)."""
        self._heavy = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metrogames-heavy")
        """Two threads for reads whose cost grows with a record or with the stored games
        (replays, published records): off the event loop, and at most two at a time."""
        self._thinker = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metrogames-think")
        """Two threads for the quick bots' decisions (:data:`QUICK_BOTS`): off the event
        loop; the searching bots and hints are heavy jobs (:attr:`jobs`)."""
        self.jobs = Jobs(settings)
        """Where searches run, out of this process (the app gives it the Redis client with
        several workers)."""
        self.no_hints: Callable[[Table], bool] = lambda _table: False
        """Whether hints are refused in a room (a ranked daily game)."""
        self.admission = Admission(settings.admissions)
        """Room creations, seat claims, starts and hellos, a few at a time (:mod:`.admission`)."""
        self.cluster: Cluster | None = None
        """The link to the other workers (``None``: this process is the only one)."""

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run the database write ``fn(*args)`` on the writer thread and wait for its result
        (its duration goes to the metrics: :mod:`.metrics`)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer, metrics.timed_write, fn, *args)

    async def offload(self, fn: Callable[..., T], *args: Any) -> T:
        """Run the heavy read ``fn(*args)`` on a worker thread and wait for its result."""
        return await asyncio.get_running_loop().run_in_executor(self._heavy, fn, *args)

    async def think(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` (a quick bot's decision) on a thinking thread and wait
        for its result."""
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._thinker, call)

    # -- loading --------------------------------------------------------------------------
    async def table(self, room: str) -> Table:
        """The room ``room`` in memory, rebuilt from the database when not cached (the replay
        runs on a worker thread; requests for a room being loaded wait for the same load). A
        playing room loaded here resumes its clock and bots (:meth:`_resume`).

        Raises:
            RoomError: 404 ``not-found``.
        """
        table = self.tables.get(room)
        if table is None:
            check_room_id(room)
            loading = self._loading.get(room)
            if loading is None:
                loading = asyncio.get_running_loop().create_task(self._load_and_keep(room))
                self._loading[room] = loading
                loading.add_done_callback(lambda _task: self._loading.pop(room, None))
            table = await asyncio.shield(loading)
        elif table.stale:
            async with table.lock:
                await self._sync(table)
        table.touched = self.clock()
        return table

    async def _load_and_keep(self, room: str) -> Table:
        # the version read before the database: a change made meanwhile changes it; so do
        # the seats' presence, whose changes heard meanwhile are applied after it
        version: str | None = None
        elsewhere: dict[str, Counter[int]] = {}
        if self.cluster is not None:
            version, elsewhere = await self.cluster.opening(room)
        try:
            table = await asyncio.to_thread(self._load, room)
        finally:
            heard = self._heard_presence.pop(room, [])
        table.version, table.elsewhere = version, elsewhere
        self._register(table)
        for worker, seat, count in heard:
            self.presence_changed(room, worker, seat, count)
        await self._resume(table)
        return table

    @contextlib.asynccontextmanager
    async def held(self, room: str) -> AsyncIterator[Table]:
        """The room ``room`` (as :meth:`table`), kept in memory while the block runs."""
        table = await self.table(room)
        table.holds += 1
        try:
            yield table
        finally:
            table.holds -= 1
            table.touched = self.clock()

    @contextlib.asynccontextmanager
    async def locked(self, table: Table) -> AsyncIterator[Table]:
        """Hold ``table``'s lock while the block changes the room. With several workers the
        room's lock is also held across them, the room is first caught up with the database
        (:meth:`_sync`) unless its copy is at the room's version, and a change (seen in
        :meth:`_fingerprint`) gives the room a new version and is published at the end."""
        async with table.lock:
            if self.cluster is None:
                yield table
                return
            async with self.cluster.lock(table.id) as lease:
                if table.stale or lease.version is None or lease.version != table.version:
                    await self._sync(table)
                before = self._fingerprint(table)
                table.written = []
                try:
                    yield table
                finally:
                    after = self._fingerprint(table)
                    lease.changed = after != before
                    if lease.changed:
                        lease.change = self._change(table, before, after, table.written)
                    table.written = None
            table.version = lease.version

    @staticmethod
    def _fingerprint(table: Table) -> tuple[Any, ...]:
        """What other workers must catch up on when it changes."""
        seats = tuple(table.seats)
        return table.progress.step, table.status, table.deadline, table.bots_due, seats

    @staticmethod
    def _change(
        table: Table, before: tuple[Any, ...], after: tuple[Any, ...], written: list[str]
    ) -> str:
        """The change from fingerprint ``before`` to ``after`` as the JSON text other workers
        apply (:meth:`_apply_change`): ``[step, [status, deadline, bots_due], [[player,
        action JSON]...], seats]``, the actions stored from ``step`` on and, when they
        changed, the seats (``[[seat, name, human, bot, token_hash]...]``, else ``null``);
        ``""`` when the stored actions are not exactly the steps gone by (the others read the
        database)."""
        if len(written) != after[0] - before[0]:
            return ""
        facts = json.dumps([table.status, table.deadline, table.bots_due])
        seats = json.dumps([dataclasses.astuple(s) for s in after[4]]) if before[4] != after[4] else "null"
        return f'[{before[0]},{facts},[{",".join(written)}],{seats}]'

    def _apply_change(self, table: Table, change: str) -> bool:
        """Apply another worker's published ``change`` (:meth:`_change`) to ``table``, whose
        copy is at the version it was made at; ``False`` (the table untouched) when it does
        not start at the copy's step or the engine refuses it."""
        try:
            step, (status, deadline, due), moves, seat_rows = json.loads(change)
            if step != table.progress.step:
                return False
            progress = table.progress.copy() if moves else table.progress
            for player, action in moves:
                progress.apply(player, progress.state.action_from_json(player, action))
            seats = None if seat_rows is None else [Seat(*row) for row in seat_rows]
        except Exception:
            log.exception("room %s: a published change did not apply", table.id)
            return False
        table.progress = progress
        if seats is not None:
            table.seats = seats
        self._saw_acting(table, moves)
        table.status, table.deadline, table.bots_due = status, deadline, due
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
                await self._sync(table)
                table.version = version

    async def _sync(self, table: Table) -> None:
        """Adopt what other workers stored in ``table``'s room since it was read: its
        actions from the step it is at, its seats, status, deadline and ``bots_due`` (the
        room's lock is held; single-process: nothing to do)."""
        if self.cluster is None:
            return
        table.stale = False
        try:
            fetched = await asyncio.to_thread(self._fetch, table.id, table.progress.step)
        except Exception:
            table.stale = True
            raise
        if fetched is None:
            return
        row, seats, actions = fetched
        if actions:
            progress = table.progress.copy()
            for player, action in actions:
                progress.apply(player, progress.state.action_from_json(player, json.loads(action)))
            table.progress = progress
        table.seats = seats
        self._saw_acting(table, actions)
        table.status, table.deadline, table.bots_due = row.status, row.deadline, row.bots_due

    def _fetch(self, room: str, step: int) -> tuple[Any, list[Seat], list[Any]] | None:
        """The stored room facts (``status``, ``deadline``, ``bots_due``), seats and actions
        from ``step`` on (``None``: no such room), read with three indexed queries."""
        with self.sessions() as session:
            row = session.execute(
                select(RoomRow.status, RoomRow.deadline, RoomRow.bots_due).where(RoomRow.id == room)
            ).first()
            if row is None:
                return None
            seats = session.execute(
                select(SeatRow.seat, SeatRow.name, SeatRow.human, SeatRow.bot, SeatRow.token_hash)
                .where(SeatRow.room_id == room)
                .order_by(SeatRow.seat)
            ).all()
            actions = session.execute(
                select(ActionRow.player, ActionRow.action)
                .where(ActionRow.room_id == room, ActionRow.step >= step)
                .order_by(ActionRow.step)
            ).all()
        return row, [Seat(*s) for s in seats], list(actions)

    def room_changed(
        self,
        room: str,
        version: str | None = None,
        previous: str | None = None,
        change: str = "",
    ) -> None:
        """Another worker changed ``room`` (its new ``version``, if known) from ``previous``
        (if known) by ``change`` (:meth:`_change`, or ``""``). A copy in memory at
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
            and self._apply_change(table, change)
        ):
            table.version = version
        else:
            table.stale, table.heard = True, version
        self._push_soon(table)

    def _push_soon(self, table: Table) -> None:
        """Push views to this worker's sockets on ``table`` soon (in the background, once it
        is caught up: :meth:`_refresh`)."""
        if table.listeners:
            table.unpushed = True
            if table.refresh_task is None:
                table.refresh_task = asyncio.get_running_loop().create_task(self._refresh(table))

    def presence_changed(self, room: str, worker: str, seat: int, count: int) -> None:
        """Another worker (``worker``) holds ``count`` sockets on ``room``'s ``seat`` from now
        on: this worker's views of the room mark the seat accordingly."""
        table = self.tables.get(room)
        if table is None:
            if room in self._loading:  # applied once loaded
                self._heard_presence.setdefault(room, []).append((worker, seat, count))
            return
        before = self.seat_connected(table, seat)
        seats = table.elsewhere.setdefault(worker, Counter())
        seats[seat] = count
        if count <= 0:
            del seats[seat]
            if not seats:
                del table.elsewhere[worker]
        if self.seat_connected(table, seat) != before:
            self._push_soon(table)

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
                self._push_soon(table)
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
                    self._count_socket(table, seat)
        if self.tables:
            task = asyncio.get_running_loop().create_task(self._reread_presence())
            self._presence.add(task)
            task.add_done_callback(self._presence.discard)

    async def _reread_presence(self) -> None:
        """Read every room's presence again from Redis and push the views."""
        if self.cluster is None:
            return
        for table in list(self.tables.values()):
            table.elsewhere = await self.cluster.presence(table.id)
            self._push_soon(table)

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
                            await self._sync(table)
                            table.version = version
                except Exception:
                    log.exception("room %s: could not catch up", table.id)
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
                await self._notify(table)
        finally:
            table.refresh_task = None

    async def take_over(self) -> int:
        """With several workers: load the playing rooms whose turn clock is overdue by
        ``TAKEOVER_GRACE`` seconds or whose bots are due and that run no clock or bot task
        here, catch them up and run their clock and bots (another worker that does the same
        finds, once it holds the room's lock, nothing left to do); returns their number."""
        rooms = await asyncio.to_thread(self._overdue, time.time() - TAKEOVER_GRACE)
        taken = 0
        for room in rooms:
            table = self.tables.get(room)
            if table is not None and (table.clock_task or table.bot_task):
                continue
            try:
                async with self.held(room) as table:
                    async with self.locked(table):
                        pass
                    table.clock_for = None  # a deadline seen here before runs out now
                    self._after_change(table, background=True)
                taken += 1
            except Exception:
                log.exception("room %s: could not be taken over", room)
        return taken

    def _overdue(self, before: float) -> list[str]:
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(RoomRow.id).where(
                        RoomRow.status == "playing",
                        or_(RoomRow.bots_due, RoomRow.deadline < before),
                    )
                )
            )

    def snapshot(self, room: str) -> Table:
        """The room in memory when cached, else rebuilt from the database without caching it
        (for reading finished games on a worker thread, e.g. a daily deal's records).

        Raises:
            RoomError: 404 ``not-found``.
        """
        return self.tables.get(room) or self._load(room)

    def _register(self, table: Table) -> None:
        """Keep ``table`` in memory; its players count as present from now (the grace period
        of a seat handover starts when the room is created or loaded)."""
        now = self.clock()
        table.present = {s.seat: now for s in table.seats}
        table.touched = now
        self.tables[table.id] = table

    async def resume(self) -> int:
        """At start-up: load every playing room whose turn clock runs or whose bots are to
        move, so its clock and bots go on without anyone opening it; returns their number.
        The rooms are found by an index (``ix_rooms_resume``) and loaded one by one off the
        event loop."""
        rooms = await asyncio.to_thread(self._to_resume)
        for room in rooms:
            try:
                await self.table(room)
            except Exception:  # one room that cannot be loaded does not stop the others
                log.exception("room %s: could not be resumed", room)
        return len(rooms)

    def _to_resume(self) -> list[str]:
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(RoomRow.id).where(
                        RoomRow.status == "playing",
                        or_(RoomRow.bots_due, RoomRow.deadline.is_not(None)),
                    )
                )
            )

    async def _resume(self, table: Table) -> None:
        """A loaded room goes on: its clock runs to its stored deadline (a deadline that passed
        while the server was down runs out at once) and its bots move (in the background).
        A stored ``bots_due`` that no longer holds is cleared (or left for the next start,
        should that write fail)."""
        if table.status != "playing":
            return
        self._after_change(table, background=True)
        if table.bots_due and not self._bot_move(table):
            async with self.locked(table):
                try:
                    await self.write(self._save_room, table.id, {"bots_due": False})
                    table.bots_due = False
                except Exception:
                    log.exception("room %s: could not clear its bots_due", table.id)

    def _save_room(self, room: str, values: dict[str, Any]) -> None:
        with self.sessions.begin() as session:
            session.execute(update(RoomRow).where(RoomRow.id == room).values(**values))

    def evict_idle(self) -> list[str]:
        """Drop from memory every room nothing uses — no request or socket holds it, no bot or
        clock task runs, its lock is free — and that was last touched ``room_idle`` seconds
        ago (finished rooms: ``finished_idle``); returns their ids. The next request reloads
        such a room from the database, which holds everything it is."""
        now = self.clock()
        gone = []
        for room, table in list(self.tables.items()):
            idle = (
                self.settings.finished_idle
                if table.status == "finished"
                else self.settings.room_idle
            )
            busy = (
                table.holds
                or table.listeners
                or table.lock.locked()
                or table.bot_task is not None
                or table.clock_task is not None
                or table.refresh_task is not None
            )
            if not busy and now - table.touched >= idle:
                del self.tables[room]
                gone.append(room)
        return gone

    async def stop(self) -> None:
        """At shutdown: stop every room's clock and bot tasks (what they would do next is
        stored: a restarted server resumes it)."""
        tasks = []
        for table in self.tables.values():
            for task in (table.clock_task, table.bot_task, table.refresh_task):
                if task is not None:
                    task.cancel()
                    tasks.append(task)
        await asyncio.gather(*tasks, return_exceptions=True)

    def _load(self, room: str) -> Table:
        check_room_id(room)
        with self.sessions() as session:
            row = session.get(RoomRow, room)
            if row is None:
                raise RoomError(404, "not-found", msg(N_("no room {room}"), room=repr(room)))
            seats = session.scalars(
                select(SeatRow).where(SeatRow.room_id == room).order_by(SeatRow.seat)
            ).all()
            actions = session.execute(
                select(ActionRow.player, ActionRow.action, ActionRow.clock_step)
                .where(ActionRow.room_id == room)
                .order_by(ActionRow.step)
            ).all()
        options = json.loads(row.options)
        seed = loaded_seed(row.seed)
        progress = Progress(game_from_options(row.game, len(seats), options).new_game(seed))
        for player, action, _ in actions:
            progress.apply(player, progress.state.action_from_json(player, json.loads(action)))
        return Table(
            id=row.id,
            game=row.game,
            mode=row.mode,
            options=options,
            seed=seed,
            status=row.status,
            turn_clock=row.turn_clock,
            host_hash=row.host_hash,
            created=row.created,
            seats=[Seat(s.seat, s.name, s.human, s.bot, s.token_hash) for s in seats],
            progress=progress,
            deadline=row.deadline,
            bots_due=row.bots_due,
            timed_out=timed_out_notices(actions),
        )

    # -- rooms ----------------------------------------------------------------------------
    async def create(
        self, body: RoomBody, origin: Origin = (None, None)
    ) -> tuple[Table, dict[str, str], str]:
        """``POST /api/rooms``: a new room; non-online rooms start at once. The seats handed
        to the creator are stored as claimed from ``origin`` (:data:`Origin`).

        Returns:
            The table, the seat tokens handed to the creator (seat number as text → token)
            and the host token.

        Raises:
            RoomError: ``bad-request`` for unknown games, seat counts that do not fit the game
                or the mode, or options the game refuses (with the engine's message).
        """
        game, mode = body.game, body.mode
        names = game_names()
        if game not in names:
            raise bad_request(
                f"a room: game: unknown game {shown(game)} (one of {', '.join(names)})"
            )
        kind = game_type(game)
        if len(body.seats) not in kind.players:
            low, high = kind.players[0], kind.players[-1]
            raise bad_request(f"a room: seats: {game} takes {low} to {high} seats")
        seats: list[Seat] = []
        tokens: dict[str, str] = {}
        for i, spec in enumerate(body.seats):
            if spec.bot is not None:
                name = bot_name(spec.name, spec.bot)
                taken = {s.name for s in seats}
                if name in taken:  # two bots at one table have distinct names
                    name = next(f"{name} {k}" for k in range(2, 99) if f"{name} {k}" not in taken)
                seats.append(Seat(i, name, False, spec.bot, None))
            elif mode == "online" and i > 0:  # waits for a player (its name: a placeholder)
                seats.append(Seat(i, spec.name or "", True, None, None))
            else:
                token = tokens[str(i)] = new_token()
                seats.append(Seat(i, spec.name or f"Player {i + 1}", True, None, hash_token(token)))
        humans = [s for s in seats if s.human]
        if mode == "solo" and (len(seats) != 1 or len(humans) != 1):
            raise bad_request("a room: seats: a solo room has exactly one human seat")
        if mode == "bots" and (len(humans) != 1 or len(seats) < 2):
            raise bad_request("a room: seats: a bots room has one human seat and at least one bot")
        if not humans:
            raise bad_request("a room: seats: a room needs at least one human seat")
        if mode == "online" and not seats[0].human:
            raise bad_request("a room: seats: an online room's creator holds seat 0, a human seat")
        options = body.options or {}
        seed = tutorial_seed(body) if body.tutorial else secrets.randbits(63)
        try:
            state = game_from_options(game, len(seats), options).new_game(seed)
        except (MetrogamesError, ValueError) as exc:
            raise bad_request(msg(N_("a room: options: {detail}"), detail=message_of(exc))) from None
        host = new_token()
        table = self._new_table(game, mode, options, seed, seats, state, body.turn_clock, host)
        claims = {int(seat): origin for seat in tokens}
        if mode == "online":
            await self._open(table, "waiting", [], claims=claims)
        else:
            await self._open(table, "playing", table.progress.chance_actions(), claims=claims)
            await self._settle(table)
        return table, tokens, host

    async def create_dealt(
        self,
        game: str,
        mode: str,
        seed: int,
        seats: list[Seat],
        extra: Callable[[Session, Table], None] | None = None,
    ) -> Table:
        """A room of ``game`` dealt from a given ``seed`` (no options), started at once; its
        seats come with their token hashes set (the daily challenge: one seat played with the
        player token). ``extra(session, table)`` adds rows in the same transaction, so the room
        and what refers to it are stored together or not at all.

        Raises:
            IntegrityError: from ``extra`` (e.g. a unique constraint); nothing is stored.
        """
        state = game_from_options(game, len(seats), {}).new_game(seed)
        table = self._new_table(game, mode, {}, seed, seats, state, None, new_token())
        await self._open(table, "playing", table.progress.chance_actions(), extra)
        await self._settle(table)
        return table

    @staticmethod
    def _new_table(
        game: str,
        mode: str,
        options: Any,
        seed: int,
        seats: list[Seat],
        state: Any,
        turn_clock: int | None,
        host: str,
    ) -> Table:
        """A new room with a random id and the ``host`` token, not yet stored nor shared."""
        return Table(
            id="".join(secrets.choice(ROOM_ALPHABET) for _ in range(8)),
            game=game,
            mode=mode,
            options=options,
            seed=seed,
            status="waiting",
            turn_clock=turn_clock,
            host_hash=hash_token(host),
            created=time.time(),
            seats=seats,
            progress=Progress(state),
        )

    async def _open(
        self,
        table: Table,
        status: str,
        moves: list[tuple[int, Any]],
        extra: Callable[[Session, Table], None] | None = None,
        claims: dict[int, Origin] | None = None,
    ) -> None:
        """Store a new room with ``status`` (``playing``: ``moves``, its first chance actions,
        were made on its progress; its turn clock starts) and the seats of ``claims`` as
        claimed from their origins, then keep it in memory: a failed write leaves nothing
        anywhere."""
        playing = status == "playing"
        deadline = self._new_deadline(table) if playing else None
        due = playing and bool(self._bot_move(table))
        await self.write(
            self._write_room, table, status, moves, extra, deadline, due, claims or {}
        )
        table.status, table.deadline, table.bots_due = status, deadline, due
        if self.cluster is not None:  # no other worker knows the room yet: its first version
            table.version = await self.cluster.new_version(table.id)
        self._register(table)

    def _write_room(
        self,
        table: Table,
        status: str,
        moves: list[tuple[int, Any]],
        extra: Callable[[Session, Table], None] | None,
        deadline: float | None,
        due: bool,
        claims: dict[int, Origin],
    ) -> None:
        """Add a new room's row (with ``status``, ``deadline`` and ``bots_due``), its seats'
        rows (those of ``claims`` with the origin that claimed them) and its first actions."""
        with self.sessions.begin() as session:
            session.add(
                RoomRow(
                    id=table.id,
                    game=table.game,
                    mode=table.mode,
                    options=json.dumps(table.options),
                    seed=stored_seed(table.seed),
                    status=status,
                    turn_clock=table.turn_clock,
                    host_hash=table.host_hash,
                    created=table.created,
                    deadline=deadline,
                    bots_due=due,
                )
            )
            session.flush()
            for s in table.seats:
                address, signed_in = claims.get(s.seat, (None, None))
                session.add(
                    SeatRow(
                        room_id=table.id,
                        seat=s.seat,
                        name=s.name,
                        human=s.human,
                        bot=s.bot,
                        token_hash=s.token_hash,
                        address=address,
                        session=signed_in,
                    )
                )
            self._add_actions(session, table.id, 0, moves, table.progress.state)
            if extra is not None:
                session.flush()
                extra(session, table)

    @staticmethod
    def _add_actions(
        target: Session | Connection,
        room: str,
        first: int,
        moves: Sequence[tuple[int, Any]],
        state: Any,
        clock_step: int | None = None,
    ) -> list[str]:
        """Add ``moves`` as the actions of steps ``first``, ``first + 1``… of ``room`` (one
        Core ``INSERT``, after what a session holds: no ORM unit of work on the hot path; the
        first marked as the turn clock's, played when its time ran out at ``clock_step``);
        returns the actions' JSON texts."""
        if not moves:
            return []
        if isinstance(target, Session):
            target.flush()
        rows: list[dict[str, Any]] = [
            {
                "room_id": room,
                "step": first + i,
                "player": player,
                "action": json.dumps(state.action_to_json(player, action)),
                "clock_step": clock_step if i == 0 else None,
            }
            for i, (player, action) in enumerate(moves)
        ]
        target.execute(INSERT_ACTIONS, rows)
        return [row["action"] for row in rows]

    def seat_of(self, table: Table, token: str | None) -> int:
        """The seat whose token is ``token``.

        Raises:
            RoomError: 401 ``bad-token`` without a token, 403 ``bad-token`` for a wrong one.
        """
        if not token:
            raise RoomError(
                401, "bad-token", msg(N_("this needs a seat token (Authorization: Bearer)"))
            )
        digest = hash_token(token)
        for s in table.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, digest):
                return s.seat
        raise RoomError(403, "bad-token", msg(N_("this token holds no seat of this room")))

    @staticmethod
    def check_seat_token(table: Table, seat: int, token_hash: str | None) -> None:
        """Refuse ``token_hash`` unless it is still ``seat``'s token's digest.

        Raises:
            RoomError: 403 ``bad-token`` (the seat's token was replaced: a new daily start, a
                claimed guest).
        """
        held = table.seats[seat].token_hash if 0 <= seat < len(table.seats) else None
        if token_hash is None or held is None or not secrets.compare_digest(held, token_hash):
            raise RoomError(
                403, "bad-token", msg(N_("this token no longer holds seat {seat}"), seat=seat_label(seat))
            )

    def viewer(self, table: Table, token: str | None) -> int | None:
        """The seat of ``token``, or ``None`` (a spectator) without one.

        Raises:
            RoomError: 403 ``bad-token`` for a token of no seat; 409 ``day-open`` for a
                spectator of a daily room whose day is still open (its flipped cards are the
                day's deal: only its player sees the game until the day closes).
        """
        if token:
            return self.seat_of(table, token)
        self.check_public(table, token)
        return None

    def check_public(self, table: Table, token: str | None) -> None:
        """Refuse to show a private room (a daily game of a day still open, see
        :attr:`hide_seed`) to anyone but its players; any other room is public, whatever
        ``token`` is.

        Raises:
            RoomError: 409 ``day-open`` without a token, 401/403 ``bad-token`` for a token
                of no seat of the private room.
        """
        if not self.hide_seed(table):
            return
        if not token:
            raise RoomError(
                409,
                "day-open",
                msg(N_("a daily game is seen only by its player until its day closes")),
            )
        self.seat_of(table, token)

    def _check_host(self, table: Table, token: str | None) -> None:
        if not token:
            raise RoomError(401, "bad-token", msg(N_("this needs the host token")))
        if not secrets.compare_digest(hash_token(token), table.host_hash):
            raise RoomError(403, "bad-token", msg(N_("only the room's host may do this")))

    async def join(self, room: str, body: JoinBody, origin: Origin = (None, None)) -> str:
        """``POST /api/rooms/{room}/join``: claim an open human seat from ``origin``; returns
        its token.

        Raises:
            RoomError: ``bad-request``, 409 ``seat-taken`` (claimed, a bot's, or not waiting).
        """
        async with self.held(room) as table:
            seat = body.seat
            if seat >= len(table.seats):
                last = len(table.seats) - 1
                raise bad_request(
                    msg(N_("a join: seat: this room's seats are 0 to {last}"), last=last)
                )
            async with self.locked(table):
                s = table.seats[seat]
                if table.status != "waiting" or not s.human or s.token_hash is not None:
                    raise RoomError(
                        409, "seat-taken", msg(N_("seat {seat} is not open"), seat=seat_label(seat))
                    )
                token = new_token()
                name = body.name or f"Player {seat + 1}"
                changes = {"name": name, "token_hash": hash_token(token)}
                await self._change_seat(table, seat, claim=origin, **changes)
            await self._notify(table)
        return token

    async def start(self, room: str, host: str | None) -> Table:
        """``POST /api/rooms/{room}/start`` (host): deal and play the first chance actions.

        Raises:
            RoomError: ``bad-token``; 409 ``already-started``; 409 ``seats-open`` while a human
                seat is unclaimed.
        """
        async with self.held(room) as table:
            self._check_host(table, host)
            async with self.locked(table):
                if table.status != "waiting":
                    raise RoomError(409, "already-started", msg(N_("the game has already started")))
                open_seats = [s.seat for s in table.seats if s.human and s.token_hash is None]
                if open_seats:
                    raise RoomError(
                        409,
                        "seats-open",
                        plural(
                            "seat {seats} waits for a player",
                            "seats {seats} wait for players",
                            len(open_seats),
                            seats=", ".join(str(seat_label(s)) for s in open_seats),
                        ),
                    )
                await self._start(table)
            await self._settle(table)
        return table

    async def _start(self, table: Table) -> None:
        trial = table.progress.copy()
        moves = trial.chance_actions()
        await self._store(table, trial, moves, status="playing")

    async def hand_to_bot(self, room: str, seat: int, host: str | None, bot: str) -> Table:
        """``POST /api/rooms/{room}/seats/{seat}/bot`` (host): the bot ``bot`` plays a human
        seat whose player has left: no connection and no action for the grace period
        (``handover_grace``). A seat already played by a bot may change bots at any time.

        Raises:
            RoomError: ``bad-token``, ``bad-request`` (not a human seat), 404 (no such seat),
                409 ``not-started`` / ``game-over``, 409 ``player-present``.
        """
        async with self.held(room) as table:
            self._check_host(table, host)
            async with self.locked(table):
                s = self._seat(table, seat)
                self._check_playing(table)
                if not s.human:
                    raise bad_request(msg(N_("seat {seat} is a bot's seat"), seat=seat_label(seat)))
                if s.bot is None:
                    await self._check_departed(table, seat)
                await self._change_seat(table, seat, bot=bot)
            await self._settle(table)
        return table

    async def _check_departed(self, table: Table, seat: int) -> None:
        """Refuse to hand ``seat`` over while its player is connected or was present (connected
        or acting) less than ``handover_grace`` seconds ago — to any worker: with several, the
        others' sockets and departures come from Redis (:meth:`Cluster.seat_elsewhere`), their
        actions from the room's changes.

        Raises:
            RoomError: 409 ``player-present``.
        """
        grace = self.settings.handover_grace
        rule = msg(
            N_("a seat goes to a bot once its player has been gone for {grace} s"),
            grace=f"{grace:g}",
        )
        connected, seen = table.connected[seat], table.present[seat]
        if self.cluster is not None:
            elsewhere, left = await self.cluster.seat_elsewhere(table.id, seat)
            connected += elsewhere
            seen = max(seen, left or seen)
        if connected > 0:
            message = msg(
                N_("seat {seat}'s player is connected: {rule}"), seat=seat_label(seat), rule=rule
            )
            raise RoomError(409, "player-present", message)
        away = self.clock() - seen
        if away < grace:
            message = msg(
                N_("seat {seat}'s player was here {away} s ago: {rule}"),
                seat=seat_label(seat),
                away=f"{away:.0f}",
                rule=rule,
            )
            raise RoomError(409, "player-present", message)

    async def reclaim(self, room: str, seat: int, token: str | None) -> Table:
        """``POST /api/rooms/{room}/seats/{seat}/reclaim`` (that seat's token): play again.

        Raises:
            RoomError: ``bad-token`` (no token, or another seat's), 404 for no such seat.
        """
        async with self.held(room) as table:
            async with self.locked(table):
                s = self._seat(table, seat)
                if self.seat_of(table, token) != seat:
                    raise RoomError(
                        403, "bad-token", msg(N_("this token does not hold seat {seat}"), seat=seat_label(seat))
                    )
                if s.bot is not None:
                    await self._change_seat(table, seat, bot=None)
                table.present[seat] = self.clock()
            await self._settle(table)
        return table

    def _seat(self, table: Table, seat: int) -> Seat:
        if not 0 <= seat < len(table.seats):
            raise RoomError(404, "not-found", msg(N_("no seat {seat} in this room"), seat=seat_label(seat)))
        return table.seats[seat]

    async def _change_seat(
        self, table: Table, seat: int, claim: Origin | None = None, **changes: Any
    ) -> None:
        """Store ``seat`` with ``changes`` (``name``, ``bot``, ``token_hash``) and whether a bot
        is now to move, then put the changed seat in place of the old one (under the room's
        lock). ``claim`` (the claimer's :data:`Origin`, stored with it): the seat must still
        be unclaimed in the database (else 409 ``seat-taken``: another worker claimed it
        meanwhile)."""
        changed = dataclasses.replace(table.seats[seat], **changes)
        seats = [changed if s.seat == seat else s for s in table.seats]
        due = table.status == "playing" and bool(self._bot_move(table, seats))
        flag = None if due == table.bots_due else due
        await self.write(self._save_seat, table.id, changed, flag, claim)
        table.seats[seat] = changed
        table.bots_due = due

    async def new_seat_token(self, table: Table, seat: int) -> str:
        """A new token for a human ``seat`` (the older one stops working), stored before it
        is handed out: the daily challenge gives an account's seat a fresh token at each start.
        """
        token = new_token()
        async with self.locked(table):
            await self._change_seat(table, seat, token_hash=hash_token(token))
        return token

    def _save_seat(
        self, room: str, s: Seat, due: bool | None, claim: Origin | None = None
    ) -> None:
        with self.sessions.begin() as session:
            row = session.get(SeatRow, (room, s.seat), with_for_update=claim is not None)
            if row is None:
                message = msg(N_("no seat {seat} in this room"), seat=seat_label(s.seat))
                raise RoomError(404, "not-found", message)
            if claim is not None:
                if row.token_hash is not None:
                    message = msg(N_("seat {seat} is not open"), seat=seat_label(s.seat))
                    raise RoomError(409, "seat-taken", message)
                row.address, row.session = claim
            row.name, row.bot, row.token_hash = s.name, s.bot, s.token_hash
            if due is not None:
                session.execute(update(RoomRow).where(RoomRow.id == room).values(bots_due=due))

    # -- playing ----------------------------------------------------------------------------
    def _check_playing(self, table: Table) -> None:
        if table.status == "waiting":
            raise RoomError(409, "not-started", msg(N_("the game has not started")))
        if table.status == "finished":
            raise RoomError(409, "game-over", msg(N_("the game is over")))

    async def act(
        self,
        room: str,
        token: str | None,
        body: ActionBody,
        admit: Callable[[str, int], None] | None = None,
    ) -> tuple[Table, int]:
        """``POST /api/rooms/{room}/actions``: play ``{"action", "step"}`` for the token's seat
        (``admit(room, seat)`` first: the seat's flood control, :mod:`.flood`).

        Returns:
            The table and the acting seat (bots that follow have played when ``bot_delay`` is
            0, else they play in the background).

        Raises:
            RoomError: ``bad-token``; ``bad-request``; 409 ``not-started``, ``game-over``,
                ``stale-step``, ``not-your-turn``; 400 with the engine's reason
                (``bad-notation`` for an action that does not parse).
        """
        async with self.held(room) as table:
            seat = self.seat_of(table, token)
            if admit is not None:
                admit(table.id, seat)
            await self.act_as(table, seat, body, hash_token(token or ""))
        return table, seat

    async def act_as(
        self, table: Table, seat: int, body: ActionBody, token_hash: str | None
    ) -> None:
        """Play ``{"action", "step"}`` for ``seat``, whose token (``token_hash``, its digest)
        is checked again under the room's lock, the room caught up (a token replaced since
        the caller saw it no longer acts); errors as :meth:`act`."""
        step = body.step
        async with self.locked(table):
            self.check_seat_token(table, seat, token_hash)
            self._check_playing(table)
            if not self._step_current(table, seat, step):
                raise RoomError(409, "stale-step", _stale(step, table.progress.step))
            if table.seats[seat].bot is not None:
                raise RoomError(
                    409,
                    "not-your-turn",
                    msg(N_("seat {seat} is played by a bot; reclaim it first"), seat=seat_label(seat)),
                )
            state = table.progress.state
            try:
                action = state.action_from_json(seat, body.action)
            except MetrogamesError as exc:
                raise RoomError(400, "bad-notation", message_of(exc)) from None
            await self._play(table, seat, action)
            table.present[seat] = self.clock()
        await self._settle(table)

    async def hint(
        self, room: str, token: str | None, body: HintBody, who: Sequence[str] = ()
    ) -> dict[str, Any]:
        """``POST /api/rooms/{room}/hint``: the coach's best moves for the token's seat at
        ``step`` (:func:`metrogames.bots.coach.hints` on the seat's own view, never the full
        state), with the estimate of ``about`` when given. The search is a heavy job
        (:mod:`.jobs`, for the requesters ``who``) keyed by the position as the seat sees it
        and ``about`` (:func:`position_job`), its seed derived from that key: the same
        position gets the same hints in any room, computed once. It runs without the room's
        lock: the position it read stays the answer's ``step``.

        Returns:
            ``{"step", "seat", "figure", "moves": [...], "about": ... | null}``.

        Raises:
            RoomError: ``bad-token``; 409 ``ranked-game`` (a ranked daily game),
                ``not-started``, ``game-over``, ``stale-step``, ``not-your-turn`` (the seat
                is not to move, or played by a bot); 400 ``bad-notation`` (``about`` does not
                parse), ``not-legal`` (``about`` is not a legal move now); the refusals of
                :meth:`~metrogames.web.infra.jobs.service.Jobs.run` (429, 503 ``busy``).
        """
        async with self.held(room) as table:
            seat = self.seat_of(table, token)
            if self.no_hints(table):
                raise RoomError(409, "ranked-game", msg(N_("hints are off in a ranked daily game")))
            self._check_playing(table)
            step = body.step
            if not self._step_current(table, seat, step):
                raise RoomError(409, "stale-step", _stale(step, table.progress.step))
            state = table.progress.state
            if seat not in state.to_move() or table.seats[seat].bot is not None:
                raise RoomError(
                    409, "not-your-turn", msg(N_("seat {seat} is not to move"), seat=seat_label(seat))
                )
            view = state.view(seat)
            about = None
            if body.about is not None:
                try:
                    about = view.action_from_json(seat, body.about)
                except MetrogamesError as exc:
                    raise RoomError(400, "bad-notation", message_of(exc)) from None
                if not view.is_legal(seat, about):
                    text = view.action_to_string(seat, about)
                    raise RoomError(
                        400, "not-legal", msg(N_("{move} is not a legal move now"), move=text)
                    )
            job = position_job(view, seat)
            job["about"] = None if about is None else view.action_to_json(seat, about)
            key = "hint:" + _digest(job)
            job |= {"seed": _seed_of(key), "k": HINT_MOVES}
            found = await self.jobs.run("hint", job, key=key, who=who)
        return {"step": step, "seat": seat, **found}

    @staticmethod
    def _step_current(table: Table, seat: int, step: int) -> bool:
        """Whether an action sent at ``step`` is for the position now. In a simultaneous Next
        Station turn the other seats' actions move the step on without changing what ``seat``
        decides, so any step since the turn's card counts while ``seat`` has not acted; a
        resent action (the seat has acted since) or one from an earlier turn does not."""
        progress = table.progress
        if step == progress.step:
            return True
        return (
            game_type(table.game).dynamics == "simultaneous"
            and progress.turn_step <= step < progress.step
            and seat in progress.state.to_move()
        )

    async def _play(
        self, table: Table, seat: int, action: Any, clock_step: int | None = None
    ) -> None:
        """Check and store one player action and the chance actions it makes due (with the new
        turn's deadline when a turn begins). ``clock_step``: the turn clock plays the action
        for ``seat``, whose time ran out at that step (the seat is told, :attr:`Table.timed_out`);
        any other action of the seat ends that notice."""
        before = table.progress.state
        trial = table.progress.copy()
        try:
            trial.apply(seat, action)
        except NotYourTurnError:  # the engine's text names players 0-based: say it as the page
            message = msg(N_("seat {seat} is not to move"), seat=seat_label(seat))
            raise RoomError(409, "not-your-turn", message) from None
        except GameOverError as exc:
            raise RoomError(409, "game-over", exc.detail_message()) from None
        except IllegalActionError as exc:
            raise RoomError(400, exc.reason, exc.as_message(), item=exc.item) from None
        moves = [(seat, action), *trial.chance_actions()]
        status = "finished" if trial.state.is_over() else None
        await self._store(table, trial, moves, status, clock_step)
        metrics.ACTIONS.labels(table.game).inc()
        if clock_step is None:
            table.timed_out.pop(seat, None)
        else:
            notice = table.timed_out.get(seat)
            if notice is None or notice["step"] != clock_step:
                notice = table.timed_out[seat] = {"step": clock_step, "actions": []}
            notice["actions"].append(before.action_to_json(seat, action))

    async def _store(
        self,
        table: Table,
        trial: Progress,
        moves: list[tuple[int, Any]],
        status: str | None,
        clock_step: int | None = None,
    ) -> None:
        """Write ``moves`` (and what they change of the room: its status, the turn clock's
        deadline when a turn begins — in Metro every action, in Next Station a card flip —,
        whether a bot is to move) in one transaction, then adopt ``trial``. The write runs on
        the writer thread (the room's lock is held), so other rooms go on."""
        state = table.progress.state
        playing = (status or table.status) == "playing"
        deadline = table.deadline if playing else None
        sequential = game_type(table.game).dynamics == "sequential"
        if playing and (sequential or any(p == CHANCE for p, _ in moves)):
            deadline = self._new_deadline(table)
        due = playing and bool(self._bot_move(table, progress=trial))
        room: dict[str, Any] = {}
        if status is not None:
            room["status"] = status
        if deadline != table.deadline:
            room["deadline"] = deadline
        if due != table.bots_due:
            room["bots_due"] = due
        try:
            texts = await self.write(self._write, table, trial, moves, room, state, clock_step)
        except IntegrityError:
            table.stale, table.version = True, None  # another worker played: catch up next
            raise RoomError(409, "stale-step", msg(N_("another action took this step"))) from None
        table.progress = trial
        if status is not None:
            table.status = status
        table.deadline, table.bots_due = deadline, due
        if table.written is not None:
            table.written += (f"[{p},{text}]" for (p, _), text in zip(moves, texts, strict=True))

    def _new_deadline(self, table: Table) -> float | None:
        """The deadline of a turn beginning now (``None`` without a turn clock)."""
        if table.turn_clock is None:
            return None
        return time.time() + table.turn_clock * self.settings.clock_unit

    def _write(
        self,
        table: Table,
        trial: Progress,
        moves: list[tuple[int, Any]],
        room: dict[str, Any],
        state: Any,
        clock_step: int | None,
    ) -> list[str]:
        """Store ``moves`` and the ``room`` facts in one transaction; returns the actions'
        JSON texts as stored."""
        # Core on one connection, one transaction; an ORM session only for the finish hooks
        with self.engine.begin() as connection:
            first = trial.step - len(moves)
            texts = self._add_actions(connection, table.id, first, moves, state, clock_step)
            if room:
                connection.execute(UPDATE_ROOM, {"room": table.id, **room})
            if room.get("status") == "finished" and self.on_finish:
                with self.sessions(bind=connection) as session:  # joins the transaction
                    for hook in self.on_finish:
                        hook(session, table, trial)
                    session.flush()
        return texts

    async def _settle(self, table: Table) -> None:
        """After a change: start the clock of a new turn (its deadline is in the views), tell
        the listeners, then run the bots (inline when ``bot_delay`` is 0, else in a background
        task that spaces their actions out)."""
        self._after_change(table)
        await self._notify(table)
        if self.settings.bot_delay <= 0 and table.bot_task is None:
            await self._run_bots(table)

    def _after_change(self, table: Table, background: bool = False) -> None:
        """Run the turn clock to the room's deadline (started again when the deadline
        changed; stopped once the game is over) and start the bot task when bots are to move
        and ``bot_delay`` > 0 (or ``background``: a resumed room)."""
        table.touched = self.clock()
        if table.status != "playing":
            self._stop_clock(table)
            return
        spaced = self.settings.bot_delay > 0 or background
        if spaced and table.bot_task is None and self._bot_move(table):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))
        if table.deadline is None:
            self._stop_clock(table)
        elif table.deadline != table.clock_for:
            self._start_clock(table)

    def _bot_move(
        self, table: Table, seats: list[Seat] | None = None, progress: Progress | None = None
    ) -> list[int]:
        """Bot seats to act now (in ``progress`` with ``seats``; default: the room's): in Next
        Station once every human of the turn has acted; in Metro the seat in turn when it is
        a bot's."""
        seats = table.seats if seats is None else seats
        movers = (table.progress if progress is None else progress).state.to_move()
        bots = [p for p in sorted(movers) if p != CHANCE and seats[p].bot]
        if len(bots) != len(movers):
            return []
        return bots[:1]

    async def _run_bots(self, table: Table, pause: float | None = None) -> None:
        """Play bot actions one step at a time until a human is to move or the game ends,
        ``pause`` seconds before the first (default ``bot_delay``) and ``bot_delay`` between
        the others. A bot action that cannot be stored is tried again later by a background
        task (``RETRY_SECONDS``): the game waits for it, unchanged."""
        delay = self.settings.bot_delay
        pause = delay if pause is None else pause
        failed = False
        try:
            while True:
                if pause > 0:
                    await asyncio.sleep(pause)
                pause = delay
                async with self.locked(table):
                    if table.status != "playing":
                        return
                    movers = self._bot_move(table)
                    if not movers:
                        return
                    seat = movers[0]
                    code = table.seats[seat].bot or CLOCK_BOT
                    try:
                        await self._bot_play(table, seat, code)
                    except Exception:
                        log.exception("room %s: seat %d's bot action failed", table.id, seat)
                        failed = True
                        return
                self._after_change(table)
                await self._notify(table)
        finally:
            if table.bot_task is asyncio.current_task():
                table.bot_task = None
            if failed:
                table.bot_task = asyncio.get_running_loop().create_task(
                    self._run_bots(table, RETRY_SECONDS)
                )

    async def _bot_play(
        self, table: Table, seat: int, code: str, clock_step: int | None = None
    ) -> Any:
        """One bot action for ``seat`` (it sees the turn's start, or its Metro view; played
        for the turn clock when ``clock_step`` is given: see :meth:`_play`); returns the
        action's JSON."""
        state = table.progress.state
        seen = state.view(seat)
        step = table.progress.step
        seed = _seed_of(f"metrogames/bot/{table.seed}/{seat}/{step}")
        scripted = tutorial_bot_move(table.game, table.seed, seat, seen)
        if scripted is not None:  # a guided first game's opening, as its steps tell it
            action = scripted
        elif code in QUICK_BOTS:
            bot = make_bot(code, seed=seed)
            action = await self.think(bot.decide, seen, seat, seen.legal_actions(seat))
        else:  # the room's lock is held meanwhile
            job = position_job(seen, seat) | {"bot": code, "seed": seed}
            decided = await self.jobs.run("decide", job)
            action = seen.action_from_json(seat, decided["action"])
        await self._play(table, seat, action, clock_step)
        return state.action_to_json(seat, action)

    # -- the turn clock -------------------------------------------------------------------
    def _start_clock(self, table: Table) -> None:
        """Start the turn clock's task: it wakes at the room's deadline."""
        self._stop_clock(table)
        deadline = table.deadline
        assert deadline is not None
        table.clock_for = deadline
        table.clock_task = asyncio.get_running_loop().create_task(self._clock(table, deadline))

    def _stop_clock(self, table: Table) -> None:
        task = table.clock_task
        table.clock_task = None
        table.clock_for = None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _clock(self, table: Table, deadline: float) -> None:
        """When the turn's time runs out: the humans yet to act pass, in a game with a pass
        (Next Station); else a bot plays the turn (``CLOCK_BOT``, Metro). Each such seat is
        told what was played for it (``timed_out`` in its views). An action that cannot be
        stored is tried again ``RETRY_SECONDS`` later."""
        await asyncio.sleep(max(0.0, deadline - time.time()))
        async with self.locked(table):
            if table.clock_task is not asyncio.current_task():
                return
            if table.status != "playing" or table.deadline != deadline:  # done elsewhere
                self._stop_clock(table)
                return
            table.clock_task = None  # clock_for stays: this deadline is spent
            state = table.progress.state
            late = [p for p in sorted(state.to_move()) if p != CHANCE and not table.seats[p].bot]
            if not late:
                return
            pass_action = state.game.pass_action
            step = table.progress.step
            try:
                if pass_action is not None:
                    for p in late:
                        await self._play(table, p, pass_action, step)
                else:
                    actor = late[0]
                    while table.status == "playing" and actor in table.progress.state.to_move():
                        await self._bot_play(table, actor, CLOCK_BOT, step)
            except Exception:
                log.exception("room %s: the turn clock's action failed", table.id)
                table.deadline = time.time() + RETRY_SECONDS  # in memory: the stored one passed
        await self._settle(table)

    # -- listeners ------------------------------------------------------------------------
    def listen(self, table: Table, seat: int | None, send: Listener) -> int:
        """Register a WebSocket's ``send`` (called after each change); returns its key."""
        key = id(send)
        table.listeners[key] = (seat, send)
        table.touched = self.clock()
        if seat is not None:
            table.connected[seat] += 1
            self._count_socket(table, seat)
        return key

    def unlisten(self, table: Table, key: int) -> None:
        """Forget a listener (its seat counts one connection less; with none left, its player
        left now)."""
        entry = table.listeners.pop(key, None)
        table.touched = self.clock()
        if entry is not None and entry[0] is not None:
            seat = entry[0]
            table.connected[seat] -= 1
            left = None
            if table.connected[seat] == 0:
                table.present[seat] = left = self.clock()
            self._count_socket(table, seat, left)

    def _count_socket(self, table: Table, seat: int, left: float | None = None) -> None:
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
        self._presence.add(task)
        task.add_done_callback(self._presence.discard)

    def _saw_acting(self, table: Table, moves: Sequence[tuple[int, Any]]) -> None:
        """Another worker stored ``moves``: their human players were present just now."""
        now = self.clock()
        for player, _ in moves:
            if 0 <= player < len(table.seats) and table.seats[player].bot is None:
                table.present[player] = now

    async def _notify(self, table: Table) -> None:
        for _, send in list(table.listeners.values()):
            with contextlib.suppress(Exception):  # a closed socket is dropped by its reader
                await send()

    async def notify(self, table: Table) -> None:
        """Push the current view to every listener (after a connection change)."""
        await self._notify(table)

    # -- reading --------------------------------------------------------------------------
    @staticmethod
    def seat_connected(table: Table, seat: int) -> bool:
        """Whether ``seat``'s player has a socket on the room, on this worker or another."""
        return table.connected[seat] > 0 or any(c[seat] > 0 for c in table.elsewhere.values())

    def seats_json(self, table: Table) -> list[SummarySeat]:
        """The summary's seats: ``[{"seat", "name", "kind", "bot", "claimed", "connected"}]``."""
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                "bot": s.bot,
                "claimed": s.token_hash is not None or not s.human,
                "connected": bool(s.bot) or self.seat_connected(table, s.seat),
            }
            for s in table.seats
        ]

    @staticmethod
    def preset_json(table: Table) -> PresetJson | None:
        """``{"name", "title"}`` of the rule set the room's options match, or ``None``."""
        kind = game_type(table.game)
        name = preset_of(kind, table.progress.state.game.options_json())
        return None if name is None else {"name": name, "title": kind.presets[name].title}

    def summary(self, table: Table) -> dict[str, Any]:
        """``GET /api/rooms/{room}``: the room summary of ``docs/web-api.md``
        (:class:`~metrogames.web.views.RoomSummary`)."""
        summary: RoomSummary = {
            "room": table.id,
            "game": table.game,
            "mode": cast(Mode, table.mode),  # the room's facts hold what their writers checked
            "options": table.options,
            "preset": self.preset_json(table),
            "status": cast(Status, table.status),
            "seats": self.seats_json(table),
            "turn_clock": table.turn_clock,
            "created": table.created,
            "day_open": self.hide_seed(table),
        }
        return dict(summary)

    def view(self, table: Table, you: int | None) -> dict[str, Any]:
        """The view of ``docs/web-api.md`` for seat ``you`` (``None``: a spectator)."""
        return build_view(self.frame(table, you), table.progress.state, you)

    def frame(self, table: Table, you: int | None) -> Frame:
        """The room-level facts of seat ``you``'s view (``None``: a spectator)."""
        seats: list[SeatView] = [
            {"seat": s["seat"], "name": s["name"], "kind": s["kind"], "connected": s["connected"]}
            for s in self.seats_json(table)
        ]
        return Frame(
            table.id,
            table.game,
            table.status,
            table.progress.step,
            seats,
            table.deadline,
            None if you is None else table.timed_out.get(you),
        )

    def record(self, table: Table) -> dict[str, Any]:
        """``GET /api/rooms/{room}/record``. Finished: the whole record with seed and decks
        (without them while :attr:`hide_seed` says so: a daily room of a day still open).
        Playing: the record of the spectator's view — no seed, no unflipped card or undrawn
        tile, no action of a simultaneous turn in progress.

        Raises:
            RoomError: 409 ``hidden-information`` when the public view has no record (a Metro
                hand-mode game in progress: its drawn tiles include the players' held tiles).
        """
        state = table.progress.state
        names = table.names()
        if table.status == "finished":
            if self.hide_seed(table):
                return dict(state.game.to_record(state, names))
            return dict(state.game.to_record(state, names, seed=table.seed, reveal=True))
        public = state.view(None)
        try:
            return dict(public.game.to_record(public, names))
        except RecordError:
            raise RoomError(
                409, "hidden-information", "this game in progress has no public record yet"
            ) from None
