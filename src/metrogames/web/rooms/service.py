r"""The room service: the use cases of rooms — create, join, start, act, hints, seat handover,
resuming rooms at start, evicting idle rooms.

Contract: ``docs/web-api.md``, "Rooms" and "Playing". The server is authoritative: each action
is checked by the engine (``state.apply``); nothing is stored when it is refused. A game is
stored as its seed (secret until the end), its options and every action (chance included:
:mod:`.store`); its state lives in memory per room and is rebuilt from the database (off the
event loop) when a request needs it (:meth:`RoomService.table`). Each room has one
:class:`asyncio.Lock`; every change happens under it in the same order: check the request,
write the change to the database in one transaction, and only once that committed change the
room in memory (:func:`~metrogames.web.rooms.changes.apply_change`: a new game position or seat
replaces the old one) and push it to the room's listeners. A write that fails, for any reason,
leaves the room in memory as it was.

A turn clock's deadline and whether a bot is to move are stored with the change that sets them,
so a restarted server resumes every such room's clock and bots (:meth:`RoomService.resume`,
:mod:`.scheduler`). A room leaves memory once nothing uses it — no request, socket, bot or
clock — for ``room_idle`` seconds (finished rooms: ``finished_idle``), and is reloaded on
demand (:meth:`RoomService.evict_idle`).

Several workers (``METROGAMES_REDIS_URL`` set): the database stays the only truth and each
worker's rooms in memory are caches kept in step by :mod:`.sync` (every change runs under
:meth:`RoomService.locked`, the room's lock across the workers too). Every worker takes over,
every :data:`TAKEOVER_SECONDS`, the rooms whose clock is overdue or whose bots are due
(:meth:`RoomService.take_over`): a dead worker's rooms go on.

Features plug in at construction: :class:`~metrogames.web.rooms.listeners.RoomListener`\ s are
told of finished games in the transaction that stores the last action,
:class:`~metrogames.web.rooms.listeners.RoomWatcher`\ s of every change and seat connection, and
:class:`~metrogames.web.rooms.listeners.RoomRules` say which rooms are private and where hints
are off. Requests arrive parsed (:mod:`.requests`: the shapes the use cases read); errors are
:class:`~metrogames.web.errors.RoomError`; rooms in memory are
:class:`~metrogames.web.rooms.tables.Table` values.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence

from cachetools import LRUCache
from sqlalchemy import Engine

from metrogames.core.capabilities import MapChecks
from metrogames.core.errors import DataError
from metrogames.core.protocol import Action, JsonObject, State
from metrogames.games import game_engine, game_from_options
from metrogames.i18n import N_, msg
from metrogames.web.checks import hash_token, new_token
from metrogames.web.errors import RoomError
from metrogames.web.infra.admission import Admission
from metrogames.web.infra.cluster import Cluster
from metrogames.web.infra.config import Settings
from metrogames.web.rooms import summary
from metrogames.web.rooms.access import seat_of
from metrogames.web.rooms.boards import map_key, room_map
from metrogames.web.rooms.changes import Change, apply_change
from metrogames.web.rooms.listeners import (
    OPEN_ROOMS,
    JobRunner,
    Origin,
    RoomListener,
    RoomRules,
    RoomWatcher,
)
from metrogames.web.rooms.moves import Playing, new_deadline
from metrogames.web.rooms.opening import (
    check_game,
    check_seats,
    first_state,
    listed_until,
    requested_seats,
)
from metrogames.web.rooms.requests import RoomRequest
from metrogames.web.rooms.scheduler import Scheduler, bots_to_move
from metrogames.web.rooms.seats import Seats
from metrogames.web.rooms.store import (
    ROOM_ALPHABET,
    Extra,
    Moves,
    RoomChange,
    RoomStore,
    check_room_id,
)
from metrogames.web.rooms.sync import RoomSync
from metrogames.web.rooms.tables import SPECTATORS, Listener, Progress, Seat, Table
from metrogames.web.rooms.views import RoomSummary

log = logging.getLogger("metrogames.web.rooms")  # one logger for the room core
REPLAY_CACHE_BYTES = 64 * 1024 * 1024
"""Finished rooms' replays kept as JSON text (a London solo game: about 110 KB)."""
TAKEOVER_SECONDS = 2.0
"""With several workers: how often each looks for rooms whose clock or bots nobody runs."""
TAKEOVER_GRACE = 2.0
"""Seconds past a turn clock's deadline before any worker takes the room over."""


class RoomService:
    """Rooms over a database: the in-memory tables and the use cases that change them.

    Args:
        settings: ``bot_delay``, ``clock_unit``, ``handover_grace``, ``room_idle``,
            ``finished_idle`` and ``admissions`` are read here.
        engine: a migrated database (:func:`~metrogames.web.infra.db.migrate`).
        jobs: where searches run, out of this process (hints, searching bots).
        cluster: the link to the other workers (``None``: this process is the only one).
        listeners: told of every finished game, in the transaction that stores its last
            action (the daily challenge's scores, the ratings).
        rules: which rooms are private and where hints are off (default: none).
        watchers: told of every change and seat connection (the lobby).
    """

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        jobs: JobRunner,
        cluster: Cluster | None = None,
        listeners: Sequence[RoomListener] = (),
        rules: RoomRules = OPEN_ROOMS,
        watchers: Sequence[RoomWatcher] = (),
    ) -> None:
        self.settings = settings
        self.watchers = tuple(watchers)
        self.jobs = jobs
        self.cluster = cluster
        self.rules = rules
        self.store = RoomStore(engine, listeners)
        """Every SQL statement about rooms, and the writer thread."""
        self.sessions = self.store.sessions
        """The database's sessions (the features' reads and writes)."""
        self.tables: dict[str, Table] = {}
        self.clock: Callable[[], float] = time.time
        """The clock of seat presence and idleness (wall-clock seconds, as every worker
        reads them alike; tests replace it)."""
        self._loading: dict[str, asyncio.Task[Table]] = {}
        """Rooms being loaded (one load per room, shared by the requests waiting for it)."""
        self.sync = RoomSync(self.store, cluster, self.tables, self._loading, self._now)
        """Changes shared with the other workers, and the seats' presence."""
        self.scheduler = Scheduler(settings, jobs, self.locked, self._play, self._now)
        """The turn clocks and bots."""
        settle = self.scheduler.settle
        self.seats = Seats(settings, self.store, cluster, self.held, self.locked, settle, self._now)
        """The seats' use cases: join, hand over to a bot, reclaim, new seat tokens."""
        self.playing = Playing(
            settings, self.store, rules, jobs, self.held, self.locked, settle, self._now
        )
        """The game's use cases: start, act, hints."""
        self.replays: LRUCache[tuple[str, bool], str] = LRUCache(REPLAY_CACHE_BYTES, getsizeof=len)
        """Finished rooms' replays as JSON text, by (room, seed shown)."""
        self.admission = Admission(settings.admissions)
        """Room creations, seat claims, starts and hellos, a few at a time
        (:mod:`~metrogames.web.infra.admission`)."""

    def _now(self) -> float:
        """:attr:`clock`, read at each call (tests replace it)."""
        return self.clock()

    async def _play(self, table: Table, seat: int, action: Action, clock_step: int | None) -> None:
        """A bot's or the turn clock's action (:meth:`~metrogames.web.rooms.moves.Playing.play`)."""
        await self.playing.play(table, seat, action, clock_step)

    @contextlib.asynccontextmanager
    async def locked(self, table: Table) -> AsyncIterator[Table]:
        """Hold ``table``'s lock while the block changes the room (with several workers,
        across them: :meth:`~metrogames.web.rooms.sync.RoomSync.locked`); the watchers are
        told once it is released."""
        if self.cluster is None:  # one worker: the room's own lock, without RoomSync's layer
            async with table.lock:
                yield table
        else:
            async with self.sync.locked(table):
                yield table
        for watcher in self.watchers:
            watcher.changed(table)

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
                await self.sync.sync(table)
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
            await self._checked_map(room)
            table = await asyncio.to_thread(self.store.load, room)
        finally:
            heard = self.sync.heard_presence.pop(room, [])
        table.version, table.elsewhere = version, elsewhere
        self._register(table)
        for worker, seat, count in heard:
            self.sync.presence_changed(room, worker, seat, count)
        await self._resume(table)
        return table

    async def _checked_map(self, room: str) -> None:
        """Before a room on a custom map is rebuilt (after a restart, or once evicted): its map
        checked by the ``mapcheck`` heavy job (a cache hit when checked lately) and kept as
        checked (``MapChecks.adopt_map``, on a worker thread), so neither the event loop nor the
        load's thread runs the checker. A job refused or failed (busy, late, stopping) leaves
        the check to the load's thread, as before."""
        found = await asyncio.to_thread(self.store.room_options, room)
        data = None if found is None else room_map(*found)
        engine = None if found is None else game_engine(found[0])
        if data is None or not isinstance(engine, MapChecks):
            return
        try:
            report = await self.jobs.run("mapcheck", {"map": data}, key=map_key(data))
            await asyncio.to_thread(engine.adopt_map, data, report)
        except (RoomError, DataError, RuntimeError) as exc:
            log.warning("room %s: its map is checked on the load's thread: %s", room, exc)

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

    async def take_over(self) -> int:
        """With several workers: load the playing rooms whose turn clock is overdue by
        ``TAKEOVER_GRACE`` seconds or whose bots are due and that run no clock or bot task
        here, catch them up and run their clock and bots (another worker that does the same
        finds, once it holds the room's lock, nothing left to do); returns their number."""
        rooms = await asyncio.to_thread(self.store.overdue, time.time() - TAKEOVER_GRACE)
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
                    self.scheduler.after_change(table, background=True)
                taken += 1
            except Exception:
                log.exception("room %s: could not be taken over", room)
        return taken

    def snapshot(self, room: str) -> Table:
        """The room in memory when cached, else rebuilt from the database without caching it
        (for reading finished games on a worker thread, e.g. a daily deal's records).

        Raises:
            RoomError: 404 ``not-found``.
        """
        return self.tables.get(room) or self.store.load(room)

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
        rooms = await asyncio.to_thread(self.store.to_resume)
        for room in rooms:
            try:
                await self.table(room)
            except Exception:  # one room that cannot be loaded does not stop the others
                log.exception("room %s: could not be resumed", room)
        return len(rooms)

    async def _resume(self, table: Table) -> None:
        """A loaded room goes on: its clock runs to its stored deadline (a deadline that passed
        while the server was down runs out at once) and its bots move (in the background).
        A stored ``bots_due`` that no longer holds is cleared (or left for the next start,
        should that write fail)."""
        if table.status != "playing":
            return
        self.scheduler.after_change(table, background=True)
        if table.bots_due and not bots_to_move(table):
            async with self.locked(table):
                try:
                    idle: RoomChange = {"bots_due": False}
                    await self.store.on_writer(self.store.save_room, table.id, idle)
                    apply_change(table, Change(table.progress, table.status, table.deadline, False))
                except Exception:
                    log.exception("room %s: could not clear its bots_due", table.id)

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
        await self.scheduler.stop(self.tables.values())

    # -- rooms ----------------------------------------------------------------------------
    async def create(
        self, body: RoomRequest, origin: Origin = (None, None)
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
        check_game(body)
        seats, tokens = requested_seats(body)
        check_seats(body.mode, seats)
        seed, state = first_state(body, len(seats))
        game, mode, options = body.game, body.mode, dict(body.options or {})
        host = new_token()
        table = self._new_table(game, mode, options, seed, seats, state, body.turn_clock, host)
        table.listed_until = listed_until(body, table.created, self.settings.lobby_expiry)
        claims = {int(seat): origin for seat in tokens}
        if mode == "online":
            await self._open(table, "waiting", [], claims=claims)
        else:
            await self._open(table, "playing", table.progress.chance_actions(), claims=claims)
            await self.scheduler.settle(table)
        return table, tokens, host

    async def create_dealt(
        self,
        game: str,
        mode: str,
        seed: int,
        seats: list[Seat],
        extra: Extra | None = None,
        turn_clock: int | None = None,
        claims: dict[int, Origin] | None = None,
        public: bool = False,
    ) -> Table:
        """A room of ``game`` dealt from a given ``seed`` (no options), started at once; its
        seats come with their token hashes set (the daily challenge: one seat played with the
        player token; play now: each seat with its player's). ``extra(session, table)`` adds
        rows in the same transaction, so the room and what refers to it are stored together or
        not at all; ``turn_clock`` (seconds) is the room's, and the seats of ``claims`` are
        stored as claimed from their origins. ``public``: anyone may find it to watch, as a
        listed room (it is listed from its creation on: in "now playing", never in the lobby,
        which shows waiting rooms only) — a play now table.

        Raises:
            IntegrityError: from ``extra`` (e.g. a unique constraint); nothing is stored.
        """
        state = game_from_options(game, len(seats), {}).new_game(seed)
        table = self._new_table(game, mode, {}, seed, seats, state, turn_clock, new_token())
        if public:
            table.listed_until = table.created
        await self._open(table, "playing", table.progress.chance_actions(), extra, claims)
        await self.scheduler.settle(table)
        return table

    @staticmethod
    def _new_table(
        game: str,
        mode: str,
        options: JsonObject,
        seed: int,
        seats: list[Seat],
        state: State[Action],
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
        moves: Moves,
        extra: Extra | None = None,
        claims: dict[int, Origin] | None = None,
    ) -> None:
        """Store a new room with ``status`` (``playing``: ``moves``, its first chance actions,
        were made on its progress; its turn clock starts) and the seats of ``claims`` as
        claimed from their origins, then keep it in memory: a failed write leaves nothing
        anywhere."""
        playing = status == "playing"
        deadline = new_deadline(table, self.settings.clock_unit) if playing else None
        due = playing and bool(bots_to_move(table))
        await self.store.on_writer(
            self.store.write_room, table, status, moves, extra, deadline, due, claims or {}
        )
        apply_change(table, Change(table.progress, status, deadline, due))
        if self.cluster is not None:  # no other worker knows the room yet: its first version
            table.version = await self.cluster.new_version(table.id)
        self._register(table)
        for watcher in self.watchers:
            watcher.changed(table)

    def viewer(self, table: Table, token: str | None) -> int | None:
        """The seat of ``token``, or ``None`` (a spectator) without one.

        Raises:
            RoomError: 403 ``bad-token`` for a token of no seat; 409 ``day-open`` for a
                spectator of a daily room whose day is still open (its flipped cards are the
                day's deal: only its player sees the game until the day closes).
        """
        if token:
            return seat_of(table, token)
        self.check_public(table, token)
        return None

    def check_public(self, table: Table, token: str | None) -> None:
        """Refuse to show a private room (a daily game of a day still open, see
        :meth:`~metrogames.web.rooms.listeners.RoomRules.private`) to anyone but its players; any other room is public, whatever
        ``token`` is.

        Raises:
            RoomError: 409 ``day-open`` without a token, 401/403 ``bad-token`` for a token
                of no seat of the private room.
        """
        if not self.rules.private(table):
            return
        if not token:
            raise RoomError(
                409,
                "day-open",
                msg(N_("a daily game is seen only by its player until its day closes")),
            )
        seat_of(table, token)

    # -- playing ----------------------------------------------------------------------------

    # -- listeners ------------------------------------------------------------------------
    def listen(self, table: Table, seat: int | None, send: Listener) -> int:
        """Register a WebSocket's ``send`` (called after each change) for ``seat`` (``None``: a
        spectator, counted under :data:`~metrogames.web.rooms.tables.SPECTATORS`); returns its
        key."""
        key = id(send)
        table.listeners[key] = (seat, send)
        table.touched = self.clock()
        if seat is None:  # a spectator: counted, for the room's and the now playing list
            table.connected[SPECTATORS] += 1
            self.sync.count_socket(table, SPECTATORS)
        else:
            table.connected[seat] += 1
            self.sync.count_socket(table, seat)
            for watcher in self.watchers:
                watcher.connected(table, seat)
        return key

    def unlisten(self, table: Table, key: int) -> None:
        """Forget a listener (its seat counts one connection less; with none left, its player
        left now)."""
        entry = table.listeners.pop(key, None)
        table.touched = self.clock()
        if entry is None:
            return
        seat = entry[0]
        if seat is None:
            table.connected[SPECTATORS] -= 1
            self.sync.count_socket(table, SPECTATORS)
        else:
            table.connected[seat] -= 1
            left = None
            if table.connected[seat] == 0:
                table.present[seat] = left = self.clock()
            self.sync.count_socket(table, seat, left)
            for watcher in self.watchers:
                watcher.connected(table, seat)

    # -- reading --------------------------------------------------------------------------
    def summary(self, table: Table) -> RoomSummary:
        """``GET /api/rooms/{room}``: the room summary (:func:`.summary.summary`)."""
        return summary.summary(table, self.rules.private(table))

    def view(self, table: Table, you: int | None) -> JsonObject:
        """The view of ``docs/web-api.md`` for seat ``you`` (``None``: a spectator)."""
        return summary.view(table, you)

    def record(self, table: Table) -> JsonObject:
        """``GET /api/rooms/{room}/record`` (:func:`.summary.record`; without seed and decks
        while the room is private)."""
        return summary.record(table, self.rules.private(table))
