"""Every SQL statement about rooms: loading a room, catching it up, storing its changes.

Contract: ``docs/web-api.md``, "Rooms" and "Playing"; the tables: :mod:`~metrogames.web.infra.models`.
A game is stored as its seed (secret until the end), its options and every action (chance
included). Writes run on one writer thread (:meth:`RoomStore.on_writer`: they never wait on each
other's database locks, and the event loop never waits on the database); reads whose cost grows
with a record run on two reader threads (:meth:`RoomStore.offload`). The hot writes are Core
statements built once (no ORM unit of work per action). The room's finish listeners
(:class:`~metrogames.web.rooms.listeners.RoomListener`) run in the transaction that stores a
game's last action.
"""

from __future__ import annotations

import asyncio
import json
import string
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypedDict, TypeVar, TypeVarTuple, Unpack

from sqlalchemy import (
    Connection,
    Engine,
    Row,
    Select,
    bindparam,
    false,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from metrogames.core.protocol import Action, JsonObject, State, is_object
from metrogames.games import game_from_options
from metrogames.i18n import N_, msg
from metrogames.web.checks import seat_label
from metrogames.web.errors import RoomError
from metrogames.web.infra import metrics
from metrogames.web.infra.db import session_factory
from metrogames.web.infra.models import AccountRow, ActionRow, RoomRow, SeatRow
from metrogames.web.infra.writer import WriterThread
from metrogames.web.rooms.listeners import Origin, RoomListener
from metrogames.web.rooms.tables import (
    Progress,
    Seat,
    Table,
    loaded_seed,
    stored_seed,
    timed_out_notices,
)

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
ACTIONS = ActionRow.metadata.tables["actions"]
ROOMS = RoomRow.metadata.tables["rooms"]
INSERT_ACTIONS = insert(ACTIONS)
UPDATE_ROOM = update(ROOMS).where(ROOMS.c.id == bindparam("room"))
"""The hot writes, built once, in Core (no ORM unit of work per action): the actions of a
step (parameters: the rows), the room's facts that changed with it (parameters: ``room`` and
the changed columns)."""

ROOM_ALPHABET = string.ascii_lowercase + string.digits
Moves = Sequence[tuple[int, Action]]
"""Actions in step order, each ``(player, action)`` (``CHANCE`` for the chance actions)."""
Extra = Callable[[Session, Table], None]
"""Rows added in the transaction that stores a new room (the daily challenge's attempt)."""
SeatStep = Callable[[Session], None]
"""More to store with a seat's change, in its transaction (:meth:`RoomStore.save_seat`)."""


class RoomChange(TypedDict, total=False):
    """The columns of a room's row a change sets (those it leaves out stay; ``finished``: when
    the game ended, epoch seconds)."""

    status: str
    finished: float
    deadline: float | None
    bots_due: bool


class ActionInsert(TypedDict):
    """One row of the actions table (``action``: its JSON text; ``clock_step``: set on the
    turn clock's)."""

    room_id: str
    step: int
    player: int
    action: str
    clock_step: int | None


def seat_columns(room: str) -> Select[int, str, bool, str | None, str | None, bool]:
    """The query of ``room``'s seats as :class:`~metrogames.web.rooms.tables.Seat` fields, in
    seat order (``bot_account``: the seat's account is a bot account)."""
    is_bot = func.coalesce(AccountRow.bot, false())
    return (
        select(SeatRow.seat, SeatRow.name, SeatRow.human, SeatRow.bot, SeatRow.token_hash, is_bot)
        .outerjoin(AccountRow, AccountRow.id == SeatRow.account_id)
        .where(SeatRow.room_id == room)
        .order_by(SeatRow.seat)
    )


def check_room_id(room: str) -> None:
    """Refuse what cannot be a room id (8 lowercase letters/digits).

    Raises:
        RoomError: 404 ``not-found``.
    """
    if not (isinstance(room, str) and len(room) == 8 and set(room) <= set(ROOM_ALPHABET)):
        raise RoomError(404, "not-found", msg(N_("no room {room}"), room=repr(room[:20])))


class RoomStore:
    """The rooms' rows: the one place that reads or writes them.

    Args:
        engine: a migrated database (:func:`~metrogames.web.infra.db.migrate`).
        listeners: called in the transaction that stores a game's last action.
    """

    def __init__(self, engine: Engine, listeners: Sequence[RoomListener] = ()) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.listeners = tuple(listeners)
        self._writer = WriterThread("metrogames-db")
        """One thread for the rooms' writes: they never wait on each other's database locks,
        and the event loop never waits on the database."""
        self._heavy = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metrogames-heavy")
        """Two threads for reads whose cost grows with a record or with the stored games
        (replays, published records): off the event loop, and at most two at a time."""

    def close(self) -> None:
        """At shutdown, once nothing writes any more: close the database's pooled connections
        (blocks: run it on a thread). A pool left to the garbage collector drops its
        connections unclosed (psycopg warns of each); the engine would open new ones if
        asked again."""
        self.engine.dispose()

    async def on_writer(self, fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
        """Run the database write ``fn(*args)`` on the writer thread and wait for its result
        (its duration goes to the metrics: :mod:`~metrogames.web.infra.metrics`)."""
        return await self._writer.run(metrics.timed_write, fn, *args)

    async def offload(self, fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
        """Run the heavy read ``fn(*args)`` on a worker thread and wait for its result."""
        return await asyncio.get_running_loop().run_in_executor(self._heavy, fn, *args)

    def room_options(self, room: str) -> tuple[str, JsonObject] | None:
        """The game and options a stored room was made with (``None``: no such room)."""
        with self.sessions() as session:
            row = session.execute(
                select(RoomRow.game, RoomRow.options).where(RoomRow.id == room)
            ).first()
        if row is None:
            return None
        options = json.loads(row.options)
        return row.game, options if is_object(options) else {}

    def load(self, room: str) -> Table:
        """The room ``room`` rebuilt from its rows: its facts, seats, and its game replayed
        from the seed through every stored action (run it off the event loop).

        Raises:
            RoomError: 404 ``not-found``.
        """
        check_room_id(room)
        with self.sessions() as session:
            row = session.get(RoomRow, room)
            if row is None:
                raise RoomError(404, "not-found", msg(N_("no room {room}"), room=repr(room)))
            seats = session.execute(seat_columns(room)).all()
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
            seats=[Seat(*s) for s in seats],
            progress=progress,
            deadline=row.deadline,
            bots_due=row.bots_due,
            listed_until=row.listed_until,
            timed_out=timed_out_notices(actions),
        )

    def fetch(
        self, room: str, step: int
    ) -> tuple[Row[str, float | None, bool], list[Seat], list[tuple[int, str]]] | None:
        """The stored room facts (``status``, ``deadline``, ``bots_due``), seats and actions
        from ``step`` on (``None``: no such room), read with three indexed queries."""
        with self.sessions() as session:
            row = session.execute(
                select(RoomRow.status, RoomRow.deadline, RoomRow.bots_due).where(RoomRow.id == room)
            ).first()
            if row is None:
                return None
            seats = session.execute(seat_columns(room)).all()
            actions = session.execute(
                select(ActionRow.player, ActionRow.action)
                .where(ActionRow.room_id == room, ActionRow.step >= step)
                .order_by(ActionRow.step)
            ).all()
        return row, [Seat(*s) for s in seats], [(p, a) for p, a in actions]

    def overdue(self, before: float) -> list[str]:
        """The playing rooms whose bots are due or whose turn clock ran out before ``before``."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(RoomRow.id).where(
                        RoomRow.status == "playing",
                        or_(RoomRow.bots_due, RoomRow.deadline < before),
                    )
                )
            )

    def to_resume(self) -> list[str]:
        """The playing rooms whose turn clock runs or whose bots are to move (``ix_rooms_resume``)."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(RoomRow.id).where(
                        RoomRow.status == "playing",
                        or_(RoomRow.bots_due, RoomRow.deadline.is_not(None)),
                    )
                )
            )

    def save_room(self, room: str, values: RoomChange) -> None:
        """Store ``values`` (column: value) in ``room``'s row."""
        with self.sessions.begin() as session:
            session.execute(update(RoomRow).where(RoomRow.id == room).values(**values))

    def write_room(
        self,
        table: Table,
        status: str,
        moves: Moves,
        extra: Extra | None,
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
                    listed_until=table.listed_until,
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
            self.add_actions(session, table.id, 0, moves, table.progress.state)
            if extra is not None:
                session.flush()
                extra(session, table)

    @staticmethod
    def add_actions(
        target: Session | Connection,
        room: str,
        first: int,
        moves: Moves,
        state: State[Action],
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
        rows: list[ActionInsert] = [
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

    def save_seat(
        self,
        room: str,
        s: Seat,
        due: bool | None,
        claim: Origin | None = None,
        then: SeatStep | None = None,
    ) -> None:
        """Store seat ``s`` (and the room's ``bots_due`` when ``due`` is not ``None``);
        ``claim``: the seat must be unclaimed in the database, and is stored as claimed from
        that origin; ``then``: more to store in the same transaction (an accepted invitation,
        the seat tied to an account), whose refusal stores nothing.

        Raises:
            RoomError: 404 ``not-found``; 409 ``seat-taken``; what ``then`` raises.
        """
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
            if then is not None:
                session.flush()
                then(session)

    def write(
        self,
        table: Table,
        trial: Progress,
        moves: Moves,
        room: RoomChange,
        state: State[Action],
        clock_step: int | None,
    ) -> list[str]:
        """Store ``moves`` and the ``room`` facts in one transaction; returns the actions'
        JSON texts as stored. (The writes' names are the ``op`` label of
        ``metrogames_db_write_seconds``: this one's is ``write``, as it always was.)"""
        # Core on one connection, one transaction; an ORM session only for the finish listeners
        with self.engine.begin() as connection:
            first = trial.step - len(moves)
            texts = self.add_actions(connection, table.id, first, moves, state, clock_step)
            if room:
                connection.execute(UPDATE_ROOM, {"room": table.id, **room})
            if room.get("status") == "finished" and self.listeners:
                with self.sessions(bind=connection) as session:  # joins the transaction
                    for listener in self.listeners:
                        listener.finished(session, table, trial)
                    session.flush()
        return texts
