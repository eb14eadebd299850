"""The seats' use cases: claiming a seat, handing it to a bot, reclaiming it, new seat tokens.

Contract: ``docs/web-api.md``, "Rooms" (joining) and "Seat handover". Every change runs under
the room's lock, is stored first (:mod:`.store`) and only then changes the room's copy
(:func:`~metrogames.web.rooms.changes.apply_change`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Unpack

from metrogames.i18n import N_, msg
from metrogames.web.checks import hash_token, new_token, seat_label
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.cluster import Cluster
from metrogames.web.infra.config import Settings
from metrogames.web.rooms.access import check_host, check_playing, seat_of
from metrogames.web.rooms.changes import Change, apply_change
from metrogames.web.rooms.listeners import Origin
from metrogames.web.rooms.requests import JoinRequest
from metrogames.web.rooms.scheduler import Locked, bots_to_move
from metrogames.web.rooms.store import RoomStore, SeatStep
from metrogames.web.rooms.tables import Seat, SeatChanges, Table

Held = Callable[[str], AbstractAsyncContextManager[Table]]
"""The room service's room kept in memory while a block runs (:meth:`~metrogames.web.rooms.service.RoomService.held`)."""
Settle = Callable[[Table], Awaitable[None]]
"""What follows a change: the clock of a new turn, the views pushed, the bots
(:meth:`~metrogames.web.rooms.scheduler.Scheduler.settle`)."""


class Seats:
    """The seats of the rooms.

    Args:
        settings: ``handover_grace`` is read here.
        store: the rooms' rows.
        cluster: the other workers (their sockets and departures), or ``None``.
        held, locked, settle: the room service's room, lock and what follows a change.
        clock: seat presence (wall-clock seconds).
    """

    def __init__(
        self,
        settings: Settings,
        store: RoomStore,
        cluster: Cluster | None,
        held: Held,
        locked: Locked,
        settle: Settle,
        clock: Callable[[], float],
    ) -> None:
        self.settings = settings
        self.store = store
        self.cluster = cluster
        self.held = held
        self.locked = locked
        self.settle = settle
        self.clock = clock

    async def join(
        self,
        room: str,
        body: JoinRequest,
        origin: Origin = (None, None),
        then: SeatStep | None = None,
    ) -> str:
        """``POST /api/rooms/{room}/join``: claim an open human seat from ``origin``; returns
        its token. ``then``: more to store in the claim's transaction (an invitation accepted,
        the seat tied to an account: all of it stored, or none).

        Raises:
            RoomError: ``bad-request``, 409 ``seat-taken`` (claimed, a bot's, or not waiting);
                what ``then`` raises (nothing claimed).
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
                changes: SeatChanges = {"name": name, "token_hash": hash_token(token)}
                await self.change_seat(table, seat, claim=origin, then=then, **changes)
            await table.notify()
        return token

    async def hand_to_bot(self, room: str, seat: int, host: str | None, bot: str) -> Table:
        """``POST /api/rooms/{room}/seats/{seat}/bot`` (host): the bot ``bot`` plays a human
        seat whose player has left: no connection and no action for the grace period
        (``handover_grace``). A seat already played by a bot may change bots at any time.

        Raises:
            RoomError: ``bad-token``, ``bad-request`` (not a human seat), 404 (no such seat),
                409 ``not-started`` / ``game-over``, 409 ``player-present``.
        """
        async with self.held(room) as table:
            check_host(table, host)
            async with self.locked(table):
                s = self._seat(table, seat)
                check_playing(table)
                if not s.human:
                    raise bad_request(msg(N_("seat {seat} is a bot's seat"), seat=seat_label(seat)))
                if s.bot is None:
                    await self._check_departed(table, seat)
                await self.change_seat(table, seat, bot=bot)
            await self.settle(table)
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
                if seat_of(table, token) != seat:
                    raise RoomError(
                        403, "bad-token", msg(N_("this token does not hold seat {seat}"), seat=seat_label(seat))
                    )
                if s.bot is not None:
                    await self.change_seat(table, seat, bot=None)
                table.present[seat] = self.clock()
            await self.settle(table)
        return table

    def _seat(self, table: Table, seat: int) -> Seat:
        if not 0 <= seat < len(table.seats):
            raise RoomError(404, "not-found", msg(N_("no seat {seat} in this room"), seat=seat_label(seat)))
        return table.seats[seat]

    async def change_seat(
        self,
        table: Table,
        seat: int,
        claim: Origin | None = None,
        then: SeatStep | None = None,
        **changes: Unpack[SeatChanges],
    ) -> None:
        """Store ``seat`` with ``changes`` (``name``, ``bot``, ``token_hash``) and whether a bot
        is now to move, then put the changed seat in place of the old one (under the room's
        lock). ``claim`` (the claimer's :data:`Origin`, stored with it): the seat must still
        be unclaimed in the database (else 409 ``seat-taken``: another worker claimed it
        meanwhile); ``then``: more stored in the same transaction."""
        changed = dataclasses.replace(table.seats[seat], **changes)
        seats = [changed if s.seat == seat else s for s in table.seats]
        due = table.status == "playing" and bool(bots_to_move(table, seats))
        flag = None if due == table.bots_due else due
        await self.store.on_writer(self.store.save_seat, table.id, changed, flag, claim, then)
        apply_change(table, Change(table.progress, table.status, table.deadline, due, seats))

    async def new_seat_token(self, table: Table, seat: int) -> str:
        """A new token for a human ``seat`` (the older one stops working), stored before it
        is handed out: the daily challenge gives an account's seat a fresh token at each start.
        """
        token = new_token()
        async with self.locked(table):
            await self.change_seat(table, seat, token_hash=hash_token(token))
        return token
