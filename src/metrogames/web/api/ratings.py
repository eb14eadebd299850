"""The HTTP routes of ratings (``docs/web-api.md``, "Ratings"): a signed-in player ties an
online seat to the account (in the lobby), and the room's ratings for its lobby.

Rating itself happens when a game finishes (:mod:`metrogames.web.ratings.service`, a finish listener of the room
service); reads and writes run on worker threads.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping

from fastapi import APIRouter, Request
from sqlalchemy import select

from metrogames.i18n import N_, msg
from metrogames.web.accounts.invitations import tie_seat
from metrogames.web.accounts.service import Account
from metrogames.web.api.accounts import account_of
from metrogames.web.api.bodies import NoBody
from metrogames.web.api.common import SeatNumber, bearer, read_body, service
from metrogames.web.checks import seat_label
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import AccountRow
from metrogames.web.ratings import service as rt
from metrogames.web.rooms.access import seat_of
from metrogames.web.rooms.changes import Change, apply_change
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Table

router = APIRouter(prefix="/api")


@router.post("/rooms/{room}/seats/{seat}/account")
async def link_seat(room: str, seat: SeatNumber, request: Request) -> Mapping[str, object]:
    """Rate this seat for the signed-in account (its seat token; the lobby of an online room)
    → as ``GET /api/rooms/{room}/ratings``."""
    rooms = service(request)
    account = await account_of(request)
    await read_body(request, NoBody, "a seat link")
    number = seat
    table = await rooms.table(room)
    if seat_of(table, bearer(request)) != number:
        message = msg(N_("this token does not hold seat {seat}"), seat=seat_label(number))
        raise RoomError(403, "bad-token", message)
    if table.mode != "online":
        raise RoomError(400, "bad-request", "only the seats of an online room are rated")
    async with rooms.locked(table):
        if table.status != "waiting":
            raise RoomError(409, "already-started", "a seat is tied to an account in the lobby")
        bot = await rooms.store.on_writer(link_account, rooms, table.id, number, account)
        mark_bot_account(table, number, bot)
    return await asyncio.to_thread(room_ratings, rooms, table)


def mark_bot_account(table: Table, seat: int, bot: bool) -> None:
    """The room's copy learns that ``seat`` is tied to a bot account (``bot``; the room's lock
    held, the link stored): its seat reads ``kind: "bot"`` from now on, on every worker (the
    seats changed go out with the room's change when the lock is released)."""
    if bot and not table.seats[seat].bot_account:
        seats = list(table.seats)
        seats[seat] = dataclasses.replace(seats[seat], bot_account=True)
        change = Change(table.progress, table.status, table.deadline, table.bots_due, seats)
        apply_change(table, change)


def link_account(rooms: RoomService, room: str, seat: int, account: Account) -> bool:
    """Tie ``seat`` of ``room`` to ``account`` (on the writer thread); whether ``account`` is
    a bot account.

    Raises:
        RoomError: 409 ``seat-taken`` (the account holds another seat of the room).
    """
    with rooms.sessions.begin() as session:
        tie_seat(session, room, seat, account.id)
        return bool(session.scalar(select(AccountRow.bot).where(AccountRow.id == account.id)))


@router.get("/rooms/{room}/ratings")
async def get_ratings(room: str, request: Request) -> Mapping[str, object]:
    """The ratings of a room's seats for its game and player count."""
    rooms = service(request)
    table = await rooms.table(room)
    return await asyncio.to_thread(room_ratings, rooms, table)


def room_ratings(rooms: RoomService, table: Table) -> Mapping[str, object]:
    """``{"room", "game", "players", "seats": [{"seat", "account", "name", "rating"}]}``:
    an account's seat shows the account (id, name) and its rating (``{"mu", "sigma",
    "rating", "games"}``, null before its first rated game), a bot's its fixed rating
    (``games`` null), an anonymous human's nothing."""
    players = len(table.seats)
    with rooms.sessions() as session:
        facts = rt.seat_facts(session, table.id)
        keys = [(f.account, table.game, players) for f in facts if f.account]
        ratings = rt.stored(session, keys)
        accounts = [k[0] for k in keys]
        names = {
            account: name
            for account, name in session.execute(
                select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(accounts))
            )
        }
    seats = []
    for number, f in enumerate(facts):
        rating = None
        if f.account:
            mine = ratings.get((f.account, table.game, players))
            rating = None if mine is None else mine.as_json()
        elif not f.human:
            fixed = rt.Rating(rt.BOT_MU.get(f.bot or "", rt.MODEL.mu), rt.BOT_SIGMA, 0, 0)
            rating = fixed.as_json()
            rating["games"] = None
        seats.append(
            {
                "seat": number,
                "account": f.account,
                "name": names.get(f.account) if f.account else None,
                "rating": rating,
            }
        )
    return {"room": table.id, "game": table.game, "players": players, "seats": seats}
