"""The room service: create, join, start, act, bots, turn clocks, seat handover, records.

Contract: ``docs/web-api.md``, "Rooms" and "Playing". The server is authoritative: each action
is checked by the engine (``state.apply``); nothing is stored when it is refused. A game is
stored as its seed (secret until the end), its options and every action (chance included);
its state lives in memory per room and is rebuilt from the database after a restart
(:meth:`RoomService.table`). Each room has one :class:`asyncio.Lock`; every change happens
under it, is written to the database in one transaction, then pushed to the room's listeners.

Errors are :class:`~metrogames.web.checks.RoomError`; rooms in memory are
:class:`~metrogames.web.tables.Table` values.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import string
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metrogames.bots.base import make_bot
from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    MetrogamesError,
    NotYourTurnError,
    RecordError,
)
from metrogames.core.protocol import CHANCE
from metrogames.games import game_from_options, game_names, game_type
from metrogames.web.checks import (
    RoomError,
    bad_request,
    check_bot,
    check_int,
    check_keys,
    check_name,
    hash_token,
    new_token,
)
from metrogames.web.config import Settings
from metrogames.web.db import session_factory
from metrogames.web.models import ActionRow, RoomRow, SeatRow
from metrogames.web.tables import (
    FinishHook,
    Listener,
    Progress,
    Seat,
    Table,
    loaded_seed,
    stored_seed,
)
from metrogames.web.views import Frame, build_view

MODES = ("solo", "bots", "hotseat", "online")
ROOM_ALPHABET = string.ascii_lowercase + string.digits
CLOCK_RANGE = (10, 600)
CLOCK_BOT = "greedy"
"""The bot that plays a Metro turn whose clock ran out."""


class RoomService:
    """Rooms over a database: the in-memory tables, their locks, bots and clocks.

    Args:
        settings: ``bot_delay`` and ``clock_unit`` are read here.
        engine: a migrated database (:func:`~metrogames.web.db.migrate`).
    """

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.sessions = session_factory(engine)
        self.tables: dict[str, Table] = {}
        self._loading = asyncio.Lock()
        self.on_finish: list[FinishHook] = []
        self.hide_seed: Callable[[Table], bool] = lambda _table: False
        """Whether a finished room's record keeps its seed and decks hidden (the daily
        challenge's rooms until their day closes)."""
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metrogames-db")
        """One thread for the rooms' writes: they never wait on each other's database locks,
        and the event loop never waits on the database."""

    async def write(self, fn: Callable[..., None], *args: Any) -> None:
        """Run the database write ``fn(*args)`` on the writer thread and wait for it."""
        await asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)

    # -- loading --------------------------------------------------------------------------
    async def table(self, room: str) -> Table:
        """The room ``room`` in memory, rebuilt from the database when not cached.

        Raises:
            RoomError: 404 ``not-found``.
        """
        table = self.tables.get(room)
        if table is not None:
            return table
        async with self._loading:
            table = self.tables.get(room)
            if table is None:
                table = self._load(room)
                self.tables[room] = table
                if table.status == "playing":
                    table.turn_changed = True
                    self._after_change(table)
        return table

    def snapshot(self, room: str) -> Table:
        """The room in memory when cached, else rebuilt from the database without caching it
        (for reading many finished games, e.g. a daily deal's records).

        Raises:
            RoomError: 404 ``not-found``.
        """
        return self.tables.get(room) or self._load(room)

    def _load(self, room: str) -> Table:
        if not (isinstance(room, str) and len(room) == 8 and set(room) <= set(ROOM_ALPHABET)):
            raise RoomError(404, "not-found", f"no room {room[:20]!r}")
        with self.sessions() as session:
            row = session.get(RoomRow, room)
            if row is None:
                raise RoomError(404, "not-found", f"no room {room!r}")
            seats = session.scalars(
                select(SeatRow).where(SeatRow.room_id == room).order_by(SeatRow.seat)
            ).all()
            actions = session.scalars(
                select(ActionRow).where(ActionRow.room_id == room).order_by(ActionRow.step)
            ).all()
        options = json.loads(row.options)
        seed = loaded_seed(row.seed)
        progress = Progress(game_from_options(row.game, len(seats), options).new_game(seed))
        for a in actions:
            state = progress.state
            progress.apply(a.player, state.action_from_json(a.player, json.loads(a.action)))
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
        )

    # -- rooms ----------------------------------------------------------------------------
    async def create(self, body: Any) -> tuple[Table, dict[str, str], str]:
        """``POST /api/rooms``: a new room; non-online rooms start at once.

        Returns:
            The table, the seat tokens handed to the creator (seat number as text → token)
            and the host token.

        Raises:
            RoomError: ``bad-request`` for unknown keys, games, modes, bots, seat counts,
                names, clocks or options (with the engine's message).
        """
        body = check_keys(body, {"game", "mode", "seats"}, {"options", "turn_clock"}, "a room")
        game, mode = body["game"], body["mode"]
        names = game_names()
        if game not in names:
            raise bad_request(f"unknown game {str(game)[:40]!r} (one of {', '.join(names)})")
        if mode not in MODES:
            raise bad_request(f"unknown mode {str(mode)[:40]!r} (one of {', '.join(MODES)})")
        kind = game_type(game)
        raw_seats = body["seats"]
        if not isinstance(raw_seats, list) or len(raw_seats) not in kind.players:
            low, high = kind.players[0], kind.players[-1]
            raise bad_request(f"{game} takes {low} to {high} seats")
        seats: list[Seat] = []
        for i, raw in enumerate(raw_seats):
            entry = check_keys(raw, set(), {"name", "bot"}, f"seat {i}")
            if entry.get("bot") is not None:
                code = check_bot(entry["bot"])
                seats.append(
                    Seat(i, check_name(entry.get("name"), f"bot:{code}"), False, code, None)
                )
            else:
                name = entry.get("name")
                open_seat = mode == "online" and i > 0 and name is None
                seats.append(Seat(i, check_name(name, f"Player {i + 1}"), True, None, None))
                if open_seat:
                    seats[-1].name = ""
        humans = [s for s in seats if s.human]
        if mode == "solo" and (len(seats) != 1 or len(humans) != 1):
            raise bad_request("a solo room has exactly one human seat")
        if mode == "bots" and (len(humans) != 1 or len(seats) < 2):
            raise bad_request("a bots room has one human seat and at least one bot")
        if not humans:
            raise bad_request("a room needs at least one human seat")
        if mode == "online" and not seats[0].human:
            raise bad_request("an online room's creator holds seat 0, a human seat")
        clock = body.get("turn_clock")
        if clock is not None:
            clock = check_int(clock, "turn_clock", *CLOCK_RANGE)
        options = body.get("options") or {}
        seed = secrets.randbits(63)
        try:
            state = game_from_options(game, len(seats), options).new_game(seed)
        except (MetrogamesError, ValueError) as exc:
            raise bad_request(f"options: {exc}") from None
        tokens: dict[str, str] = {}
        for s in seats:
            if s.human and (mode != "online" or s.seat == 0):
                token = new_token()
                tokens[str(s.seat)] = token
                s.token_hash = hash_token(token)
        host = new_token()
        room_id = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(8))
        table = Table(
            id=room_id,
            game=game,
            mode=mode,
            options=options,
            seed=seed,
            status="waiting",
            turn_clock=clock,
            host_hash=hash_token(host),
            created=time.time(),
            seats=seats,
            progress=Progress(state),
        )
        with self.sessions.begin() as session:
            self._add_rows(session, table, "waiting")
        self.tables[room_id] = table
        if mode != "online":
            async with table.lock:
                await self._start(table)
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
        room_id = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(8))
        table = Table(
            id=room_id,
            game=game,
            mode=mode,
            options={},
            seed=seed,
            status="waiting",
            turn_clock=None,
            host_hash=hash_token(new_token()),
            created=time.time(),
            seats=seats,
            progress=Progress(state),
        )
        trial = table.progress.copy()
        moves = trial.chance_actions()
        with self.sessions.begin() as session:
            self._add_rows(session, table, "playing")
            for i, (player, action) in enumerate(moves):
                session.add(
                    ActionRow(
                        room_id=room_id,
                        step=i,
                        player=player,
                        action=json.dumps(state.action_to_json(player, action)),
                    )
                )
            if extra is not None:
                session.flush()
                extra(session, table)
        table.progress = trial
        table.status = "playing"
        self.tables[room_id] = table
        await self._settle(table)
        return table

    @staticmethod
    def _add_rows(session: Session, table: Table, status: str) -> None:
        """Add a new room's row (with ``status``) and its seats' rows to ``session``."""
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
            )
        )
        session.flush()
        for s in table.seats:
            session.add(
                SeatRow(
                    room_id=table.id,
                    seat=s.seat,
                    name=s.name,
                    human=s.human,
                    bot=s.bot,
                    token_hash=s.token_hash,
                )
            )

    def seat_of(self, table: Table, token: str | None) -> int:
        """The seat whose token is ``token``.

        Raises:
            RoomError: 401 ``bad-token`` without a token, 403 ``bad-token`` for a wrong one.
        """
        if not token:
            raise RoomError(401, "bad-token", "this needs a seat token (Authorization: Bearer)")
        digest = hash_token(token)
        for s in table.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, digest):
                return s.seat
        raise RoomError(403, "bad-token", "this token holds no seat of this room")

    def viewer(self, table: Table, token: str | None) -> int | None:
        """The seat of ``token``, or ``None`` (a spectator) without one.

        Raises:
            RoomError: 403 ``bad-token`` for a token of no seat.
        """
        return None if not token else self.seat_of(table, token)

    def _check_host(self, table: Table, token: str | None) -> None:
        if not token:
            raise RoomError(401, "bad-token", "this needs the host token")
        if not secrets.compare_digest(hash_token(token), table.host_hash):
            raise RoomError(403, "bad-token", "only the room's host may do this")

    async def join(self, room: str, body: Any) -> str:
        """``POST /api/rooms/{room}/join``: claim an open human seat; returns its token.

        Raises:
            RoomError: ``bad-request``, 409 ``seat-taken`` (claimed, a bot's, or not waiting).
        """
        table = await self.table(room)
        body = check_keys(body, {"seat"}, {"name"}, "a join")
        seat = check_int(body["seat"], "seat", 0, len(table.seats) - 1)
        name = check_name(body.get("name"), f"Player {seat + 1}")
        async with table.lock:
            s = table.seats[seat]
            if table.status != "waiting" or not s.human or s.token_hash is not None:
                raise RoomError(409, "seat-taken", f"seat {seat} is not open")
            token = new_token()
            s.name, s.token_hash = name, hash_token(token)
            await self.write(self._save_seat, table, s)
        await self._notify(table)
        return token

    async def start(self, room: str, host: str | None) -> Table:
        """``POST /api/rooms/{room}/start`` (host): deal and play the first chance actions.

        Raises:
            RoomError: ``bad-token``; 409 ``already-started``; 409 ``seats-open`` while a human
                seat is unclaimed.
        """
        table = await self.table(room)
        self._check_host(table, host)
        async with table.lock:
            if table.status != "waiting":
                raise RoomError(409, "already-started", "the game has already started")
            open_seats = [s.seat for s in table.seats if s.human and s.token_hash is None]
            if open_seats:
                raise RoomError(409, "seats-open", f"seat(s) {open_seats} wait for players")
            await self._start(table)
        await self._settle(table)
        return table

    async def _start(self, table: Table) -> None:
        trial = table.progress.copy()
        moves = trial.chance_actions()
        await self._store(table, trial, moves, status="playing")

    async def hand_to_bot(self, room: str, seat: int, host: str | None, body: Any) -> Table:
        """``POST /api/rooms/{room}/seats/{seat}/bot`` (host): a bot plays a human seat.

        Raises:
            RoomError: ``bad-token``, ``bad-request`` (unknown bot, not a human seat),
                409 ``not-started`` / ``game-over``.
        """
        table = await self.table(room)
        self._check_host(table, host)
        body = check_keys(body, {"bot"}, set(), "a seat handover")
        code = check_bot(body["bot"])
        async with table.lock:
            s = self._seat(table, seat)
            self._check_playing(table)
            if not s.human:
                raise bad_request(f"seat {seat} is a bot's seat")
            s.bot = code
            table.bots.pop(seat, None)
            await self.write(self._save_seat, table, s)
        await self._settle(table)
        return table

    async def reclaim(self, room: str, seat: int, token: str | None) -> Table:
        """``POST /api/rooms/{room}/seats/{seat}/reclaim`` (that seat's token): play again.

        Raises:
            RoomError: ``bad-token`` (no token, or another seat's), 404 for no such seat.
        """
        table = await self.table(room)
        async with table.lock:
            s = self._seat(table, seat)
            if self.seat_of(table, token) != seat:
                raise RoomError(403, "bad-token", f"this token does not hold seat {seat}")
            if s.bot is not None:
                s.bot = None
                await self.write(self._save_seat, table, s)
        await self._settle(table)
        return table

    def _seat(self, table: Table, seat: int) -> Seat:
        if not 0 <= seat < len(table.seats):
            raise RoomError(404, "not-found", f"no seat {seat} in this room")
        return table.seats[seat]

    def _save_seat(self, table: Table, s: Seat) -> None:
        with self.sessions.begin() as session:
            row = session.get(SeatRow, (table.id, s.seat))
            if row is None:
                raise RoomError(404, "not-found", f"no seat {s.seat}")
            row.name, row.bot, row.token_hash = s.name, s.bot, s.token_hash

    # -- playing ----------------------------------------------------------------------------
    def _check_playing(self, table: Table) -> None:
        if table.status == "waiting":
            raise RoomError(409, "not-started", "the game has not started")
        if table.status == "finished":
            raise RoomError(409, "game-over", "the game is over")

    async def act(self, room: str, token: str | None, body: Any) -> tuple[Table, int]:
        """``POST /api/rooms/{room}/actions``: play ``{"action", "step"}`` for the token's seat.

        Returns:
            The table and the acting seat (bots that follow have played when ``bot_delay`` is
            0, else they play in the background).

        Raises:
            RoomError: ``bad-token``; ``bad-request``; 409 ``not-started``, ``game-over``,
                ``stale-step``, ``not-your-turn``; 400 with the engine's reason
                (``bad-notation`` for an action that does not parse).
        """
        table = await self.table(room)
        seat = self.seat_of(table, token)
        await self.act_as(table, seat, body)
        return table, seat

    async def act_as(self, table: Table, seat: int, body: Any) -> None:
        """Play ``{"action", "step"}`` (``"type"`` allowed, for WebSocket messages) for
        ``seat``, whose token was checked; errors as :meth:`act`."""
        body = check_keys(body, {"action", "step"}, {"type"}, "an action message")
        step = check_int(body["step"], "step", 0, 10**6)
        async with table.lock:
            self._check_playing(table)
            if not self._step_current(table, seat, step):
                raise RoomError(
                    409,
                    "stale-step",
                    f"step {step} is not the current step {table.progress.step}",
                )
            if table.seats[seat].bot is not None:
                raise RoomError(
                    409, "not-your-turn", f"seat {seat} is played by a bot; reclaim it first"
                )
            state = table.progress.state
            try:
                action = state.action_from_json(seat, body["action"])
            except MetrogamesError as exc:
                raise RoomError(400, "bad-notation", str(exc)) from None
            await self._play(table, seat, action)
        await self._settle(table)

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

    async def _play(self, table: Table, seat: int, action: Any) -> None:
        """Check and store one player action and the chance actions it makes due."""
        trial = table.progress.copy()
        try:
            trial.apply(seat, action)
        except NotYourTurnError as exc:
            raise RoomError(409, "not-your-turn", str(exc)) from None
        except GameOverError as exc:
            raise RoomError(409, "game-over", str(exc)) from None
        except IllegalActionError as exc:
            raise RoomError(400, exc.reason, str(exc)) from None
        moves = [(seat, action), *trial.chance_actions()]
        await self._store(table, trial, moves, "finished" if trial.state.is_over() else None)

    async def _store(
        self, table: Table, trial: Progress, moves: list[tuple[int, Any]], status: str | None
    ) -> None:
        """Write ``moves`` (and a new status) in one transaction, then adopt ``trial``. The
        write runs on the writer thread (the room's lock is held), so other rooms go on."""
        state = table.progress.state
        try:
            await self.write(self._write, table, trial, moves, status, state)
        except IntegrityError:
            raise RoomError(409, "stale-step", "another action took this step") from None
        table.progress = trial
        if status is not None:
            table.status = status
        sequential = game_type(table.game).dynamics == "sequential"
        if sequential or any(p == CHANCE for p, _ in moves):
            table.turn_changed = True  # the clock starts again (see _after_change)

    def _write(
        self,
        table: Table,
        trial: Progress,
        moves: list[tuple[int, Any]],
        status: str | None,
        state: Any,
    ) -> None:
        first = trial.step - len(moves)
        with self.sessions.begin() as session:
            for i, (player, action) in enumerate(moves):
                session.add(
                    ActionRow(
                        room_id=table.id,
                        step=first + i,
                        player=player,
                        action=json.dumps(state.action_to_json(player, action)),
                    )
                )
            if status is not None:
                row = session.get(RoomRow, table.id)
                if row is not None:
                    row.status = status
            if status == "finished":
                for hook in self.on_finish:
                    hook(session, table, trial)

    async def _settle(self, table: Table) -> None:
        """After a change: tell the listeners, then run the bots (inline when ``bot_delay``
        is 0, else in a background task that spaces their actions out) and the clock."""
        await self._notify(table)
        self._after_change(table)
        if self.settings.bot_delay <= 0 and table.bot_task is None:
            await self._run_bots(table)

    def _after_change(self, table: Table) -> None:
        """Start the bot task when bots are to move (``bot_delay`` > 0), and the turn clock
        when a new turn began; stop the clock once the game is over."""
        if table.status != "playing":
            self._stop_clock(table)
            table.deadline = None
            return
        if self.settings.bot_delay > 0 and table.bot_task is None and self._bot_move(table):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))
        if table.turn_clock is not None and table.turn_changed:
            self._start_clock(table)
        table.turn_changed = False

    def _bot_move(self, table: Table) -> list[int]:
        """Bot seats to act now: in Next Station once every human of the turn has acted; in
        Metro the seat in turn when it is a bot's."""
        movers = table.progress.state.to_move()
        bots = [p for p in sorted(movers) if p != CHANCE and table.seats[p].bot]
        if len(bots) != len(movers):
            return []
        return bots[:1]

    async def _run_bots(self, table: Table) -> None:
        """Play bot actions one step at a time until a human is to move or the game ends."""
        delay = self.settings.bot_delay
        try:
            while True:
                if delay > 0:
                    await asyncio.sleep(delay)
                async with table.lock:
                    if table.status != "playing":
                        return
                    movers = self._bot_move(table)
                    if not movers:
                        return
                    seat = movers[0]
                    code = table.seats[seat].bot or CLOCK_BOT
                    await self._bot_play(table, seat, code)
                await self._notify(table)
                self._after_change(table)
        finally:
            if table.bot_task is asyncio.current_task():
                table.bot_task = None

    async def _bot_play(self, table: Table, seat: int, code: str) -> None:
        """One bot action for ``seat`` (it sees the turn's start, or its Metro view)."""
        seen = table.progress.state.view(seat)
        legal = seen.legal_actions(seat)
        bot = table.bots.get(seat)
        if bot is None or bot.name != code:
            bot = table.bots[seat] = make_bot(code, seed=(table.seed + seat) % 2**63)
        await self._play(table, seat, bot.decide(seen, seat, legal))

    # -- the turn clock -------------------------------------------------------------------
    def _start_clock(self, table: Table) -> None:
        self._stop_clock(table)
        assert table.turn_clock is not None
        span = table.turn_clock * self.settings.clock_unit
        table.deadline = time.time() + span
        table.clock_task = asyncio.get_running_loop().create_task(
            self._clock(table, table.progress.step, span)
        )

    def _stop_clock(self, table: Table) -> None:
        task = table.clock_task
        table.clock_task = None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _clock(self, table: Table, step: int, span: float) -> None:
        """When the turn's time runs out: the humans yet to act pass, in a game with a pass
        (Next Station); else a bot plays the turn (``CLOCK_BOT``, Metro)."""
        await asyncio.sleep(span)
        async with table.lock:
            if table.clock_task is not asyncio.current_task() or table.status != "playing":
                return
            table.clock_task = None
            state = table.progress.state
            late = [p for p in sorted(state.to_move()) if p != CHANCE and not table.seats[p].bot]
            if not late:
                return
            pass_action = state.game.pass_action
            if pass_action is not None:
                for p in late:
                    await self._play(table, p, pass_action)
            else:
                actor = late[0]
                while table.status == "playing" and actor in table.progress.state.to_move():
                    await self._bot_play(table, actor, CLOCK_BOT)
        await self._settle(table)

    # -- listeners ------------------------------------------------------------------------
    def listen(self, table: Table, seat: int | None, send: Listener) -> int:
        """Register a WebSocket's ``send`` (called after each change); returns its key."""
        key = id(send)
        table.listeners[key] = (seat, send)
        if seat is not None:
            table.connected[seat] += 1
        return key

    def unlisten(self, table: Table, key: int) -> None:
        """Forget a listener (its seat counts one connection less)."""
        entry = table.listeners.pop(key, None)
        if entry is not None and entry[0] is not None:
            table.connected[entry[0]] -= 1

    async def _notify(self, table: Table) -> None:
        for _, send in list(table.listeners.values()):
            with contextlib.suppress(Exception):  # a closed socket is dropped by its reader
                await send()

    async def notify(self, table: Table) -> None:
        """Push the current view to every listener (after a connection change)."""
        await self._notify(table)

    # -- reading --------------------------------------------------------------------------
    def seats_json(self, table: Table) -> list[dict[str, Any]]:
        """The summary's seats: ``[{"seat", "name", "kind", "bot", "claimed", "connected"}]``."""
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                "bot": s.bot,
                "claimed": s.token_hash is not None or not s.human,
                "connected": bool(s.bot) or table.connected[s.seat] > 0,
            }
            for s in table.seats
        ]

    def summary(self, table: Table) -> dict[str, Any]:
        """``GET /api/rooms/{room}``: the room summary of ``docs/web-api.md``."""
        return {
            "room": table.id,
            "game": table.game,
            "mode": table.mode,
            "options": table.options,
            "status": table.status,
            "seats": self.seats_json(table),
            "turn_clock": table.turn_clock,
            "created": table.created,
        }

    def view(self, table: Table, you: int | None) -> dict[str, Any]:
        """The view of ``docs/web-api.md`` for seat ``you`` (``None``: a spectator)."""
        seats = [
            {k: s[k] for k in ("seat", "name", "kind", "connected")} for s in self.seats_json(table)
        ]
        frame = Frame(
            table.id, table.game, table.status, table.progress.step, seats, table.deadline
        )
        return build_view(frame, table.progress.state, you)

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
