"""Who may do what in a room: seat tokens, the host token, a game being played.

Contract: ``docs/web-api.md``, "Errors" (``bad-token``, ``not-started``, ``game-over``). These
read a room's copy in memory only; every refusal is a :class:`~metrogames.web.errors.RoomError`.
"""

from __future__ import annotations

import secrets

from metrogames.i18n import N_, msg
from metrogames.web.checks import hash_token, seat_label
from metrogames.web.errors import RoomError
from metrogames.web.rooms.tables import Table


def seat_of(table: Table, token: str | None) -> int:
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


def check_host(table: Table, token: str | None) -> None:
    """Refuse ``token`` unless it is the room's host token.

    Raises:
        RoomError: 401 ``bad-token`` without a token, 403 ``bad-token`` for another one.
    """
    if not token:
        raise RoomError(401, "bad-token", msg(N_("this needs the host token")))
    if not secrets.compare_digest(hash_token(token), table.host_hash):
        raise RoomError(403, "bad-token", msg(N_("only the room's host may do this")))


def check_playing(table: Table) -> None:
    """Refuse unless the room's game is being played.

    Raises:
        RoomError: 409 ``not-started``, 409 ``game-over``.
    """
    if table.status == "waiting":
        raise RoomError(409, "not-started", msg(N_("the game has not started")))
    if table.status == "finished":
        raise RoomError(409, "game-over", msg(N_("the game is over")))
