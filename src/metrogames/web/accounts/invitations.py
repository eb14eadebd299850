"""Invitations to a seat of a room, from an account (or a room's host) to an account
(``docs/web-api.md``, "Bot accounts": challenges).

An invitation names a ``room``, a ``seat``, its ``sender`` (an account, or ``None`` for a
room's anonymous host) and its ``target`` account; its ``status`` goes from ``pending`` to
exactly one of ``accepted`` (the target was seated), ``declined`` (by the target),
``cancelled`` (by the sender) or ``expired`` (its time ran out, or the seat was taken
meanwhile). A seat has at most one pending invitation (a unique partial index). Each change
is one conditional update (``WHERE status = 'pending'``): two answers at once change it once.
The model is general — a room's host challenging a bot account is its first use; invitations
between people and friends come on the same rows.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from metrogames.core.protocol import JsonObject
from metrogames.i18n import N_, msg
from metrogames.web.accounts.players import PLAYER_ALPHABET, PLAYER_ID_LENGTH
from metrogames.web.checks import seat_label
from metrogames.web.errors import RoomError
from metrogames.web.infra.db import rowcount
from metrogames.web.infra.models import AccountRow, InvitationRow, RoomRow, SeatRow

LIFETIME = 300.0
"""Seconds an invitation waits for its answer."""


def invitation_json(row: InvitationRow, room: RoomRow | None, sender: str | None) -> JsonObject:
    """``{"id", "room", "game", "seat", "from", "status", "created", "expires"}`` (``from``:
    the sender's name, or ``None`` for an anonymous host)."""
    return {
        "id": row.id,
        "room": row.room_id,
        "game": None if room is None else room.game,
        "seat": row.seat,
        "from": sender,
        "status": row.status,
        "created": row.created,
        "expires": row.expires,
    }


def tie_seat(session: Session, room: str, seat: int, account: str) -> None:
    """Tie ``room``'s ``seat`` to ``account`` in ``session``'s transaction.

    Raises:
        RoomError: 409 ``seat-taken`` (the account holds another seat of the room).
    """
    other = session.scalar(
        select(SeatRow.seat).where(
            SeatRow.room_id == room, SeatRow.account_id == account, SeatRow.seat != seat
        )
    )
    if other is not None:
        message = msg(N_("this account holds seat {seat} of this room"), seat=seat_label(other))
        raise RoomError(409, "seat-taken", message)
    try:
        session.execute(
            update(SeatRow)
            .where(SeatRow.room_id == room, SeatRow.seat == seat)
            .values(account_id=account)
        )
    except IntegrityError:  # linked to another seat at the same time (ux_seats_account)
        message = msg(N_("this account holds another seat of this room"))
        raise RoomError(409, "seat-taken", message) from None


def _gone(invitation: str) -> RoomError:
    return RoomError(
        404,
        "not-found",
        msg(N_("no pending invitation {invitation}"), invitation=repr(invitation[:12])),
    )


class Invitations:
    """The invitations over the database's ``sessions`` (``now``: epoch seconds)."""

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], float] = time.time):
        self.sessions = sessions
        self.now = now

    def invite(self, room: str, seat: int, sender: str | None, target: str) -> JsonObject:
        """A new pending invitation (as :func:`invitation_json`).

        Raises:
            RoomError: 409 ``seat-taken`` (the seat has a pending invitation already).
        """
        now = self.now()
        row = InvitationRow(
            id="".join(secrets.choice(PLAYER_ALPHABET) for _ in range(PLAYER_ID_LENGTH)),
            room_id=room,
            seat=seat,
            sender_id=sender,
            target_id=target,
            status="pending",
            created=now,
            expires=now + LIFETIME,
        )
        try:
            with self.sessions.begin() as session:
                self._expire(session)
                session.add(row)
                session.flush()
                found = self._json(session, row)
        except IntegrityError:
            message = msg(
                N_("seat {seat} has an invitation pending already"), seat=seat_label(seat)
            )
            raise RoomError(409, "seat-taken", message) from None
        return found

    def _expire(self, session: Session) -> None:
        session.execute(
            update(InvitationRow)
            .where(InvitationRow.status == "pending", InvitationRow.expires <= self.now())
            .values(status="expired")
        )

    def _json(self, session: Session, row: InvitationRow) -> JsonObject:
        sender = None if row.sender_id is None else session.get(AccountRow, row.sender_id)
        return invitation_json(
            row, session.get(RoomRow, row.room_id), None if sender is None else sender.name
        )

    def pending(self, target: str) -> list[JsonObject]:
        """The pending invitations of ``target``, oldest first."""
        with self.sessions.begin() as session:
            self._expire(session)
            rows = session.scalars(
                select(InvitationRow)
                .where(InvitationRow.target_id == target, InvitationRow.status == "pending")
                .order_by(InvitationRow.created, InvitationRow.id)
            ).all()
            return [self._json(session, r) for r in rows]

    def get_pending(self, invitation: str, target: str | None = None) -> JsonObject:
        """A pending invitation (of ``target``, when given), with its ``target`` and
        ``sender`` (account ids; ``sender`` ``None`` for an anonymous host).

        Raises:
            RoomError: 404 ``not-found`` (none, not ``target``'s, or answered, or expired).
        """
        with self.sessions.begin() as session:
            self._expire(session)
            row = session.get(InvitationRow, invitation[:10])
            if row is None or row.status != "pending" or target not in (None, row.target_id):
                raise _gone(invitation)
            return {**self._json(session, row), "target": row.target_id, "sender": row.sender_id}

    def settle(self, invitation: str, status: str) -> bool:
        """Move a pending invitation to ``status``; ``False`` when it was no longer pending."""
        with self.sessions.begin() as session:
            done = session.execute(
                update(InvitationRow)
                .where(InvitationRow.id == invitation[:10], InvitationRow.status == "pending")
                .values(status=status)
            )
        return rowcount(done) > 0

    def accepting(
        self, invitation: str, target: str, room: str, seat: int
    ) -> Callable[[Session], None]:
        """What accepting ``target``'s pending ``invitation`` to ``room``'s ``seat`` stores
        with the seat's claim, in its transaction (:meth:`~metrogames.web.rooms.seats.Seats.join`
        ``then``): the invitation ``accepted`` and the seat tied to ``target`` — both, or
        neither with the claim undone.

        Raises (when run):
            RoomError: 404 ``not-found`` (answered, cancelled or expired meanwhile); 409
                ``seat-taken`` (the account holds another seat of the room).
        """

        def step(session: Session) -> None:
            done = session.execute(
                update(InvitationRow)
                .where(
                    InvitationRow.id == invitation[:10],
                    InvitationRow.target_id == target,
                    InvitationRow.status == "pending",
                    InvitationRow.expires > self.now(),
                )
                .values(status="accepted")
            )
            if not rowcount(done):
                raise _gone(invitation)
            tie_seat(session, room, seat, target)

        return step

    def of_room(self, room: str) -> list[JsonObject]:
        """Every invitation of ``room``, oldest first (with each one's ``target``)."""
        with self.sessions.begin() as session:
            self._expire(session)
            rows = session.scalars(
                select(InvitationRow)
                .where(InvitationRow.room_id == room)
                .order_by(InvitationRow.created, InvitationRow.id)
            ).all()
            return [{**self._json(session, r), "target": r.target_id} for r in rows]
