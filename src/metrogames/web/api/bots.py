"""The HTTP routes of bot accounts (``docs/web-api.md``, "Bot accounts").

The owner's routes take the session cookie (``/api/accounts/me/bot...``): turn the account
into a bot, make, list and revoke its tokens (:mod:`~metrogames.web.accounts.bots`). A room's
host invites a bot account to a free seat (``/api/rooms/{room}/invitations``, host token;
:mod:`~metrogames.web.accounts.invitations`). The bot's routes (``/api/bot/...``) take only
``Authorization: Bearer <bot token>`` — never a cookie — checked against the database at each
request, and count against the token's rate limit (``METROGAMES_RATE_BOT``). A bot plays
through the room core's own use cases: it is seated as a person joining is
(:meth:`~metrogames.web.rooms.seats.Seats.join`, the seat then tied to its account), and its
moves go through :meth:`~metrogames.web.rooms.moves.Playing.act_as`, the path of every
browser's move: the same turn, step and notation checks.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from metrogames.core.protocol import JsonObject
from metrogames.games import game_names
from metrogames.i18n import N_, msg
from metrogames.web.accounts.bots import BotAccounts, BotAuth, games_of
from metrogames.web.accounts.invitations import tie_seat
from metrogames.web.api.accounts import account_of, accounts, signed_in
from metrogames.web.api.bodies import (
    ActionBody,
    BotAccountBody,
    BotJoinBody,
    BotTokenBody,
    InvitationBody,
    NoBody,
)
from metrogames.web.api.bot_streams import HEADERS, NDJSON, SSE, event_stream, game_stream
from metrogames.web.api.common import bearer, events, flood, invitations, read_body, service
from metrogames.web.api.ratings import mark_bot_account
from metrogames.web.checks import seat_label
from metrogames.web.daily.service import DailyService
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.models import RoomRow, SeatRow
from metrogames.web.infra.ratelimit import RateLimits, client_key
from metrogames.web.rooms.access import check_host
from metrogames.web.rooms.tables import Table

router = APIRouter(prefix="/api")


def bots(request: Request) -> BotAccounts:
    """The app's bot accounts."""
    found: BotAccounts = request.app.state.bots
    return found


# -- the owner ------------------------------------------------------------------------------
@router.put("/accounts/me/bot")
async def make_bot(request: Request) -> Mapping[str, object]:
    """Make the signed-in account a bot account ``{"games", "human_pools"?}`` (again: change
    them) → ``{"bot", "games", "human_pools"}``."""
    account = await account_of(request)
    body = await read_body(request, BotAccountBody, N_("a bot account"))
    known = set(game_names())
    unknown = [g for g in body.games if g not in known]
    if unknown:
        raise bad_request(msg(N_("no game {game}"), game=repr(unknown[0][:20])))
    games = list(dict.fromkeys(body.games))
    await asyncio.to_thread(bots(request).make_bot, account, games, body.human_pools)
    return await asyncio.to_thread(bots(request).describe, account)


@router.get("/accounts/me/bot")
async def get_bot(request: Request) -> Mapping[str, object]:
    """The signed-in account's bot facts ``{"bot", "games", "human_pools"}``."""
    account = await account_of(request)
    return await asyncio.to_thread(bots(request).describe, account)


@router.post("/accounts/me/bot/tokens", status_code=201)
async def create_token(request: Request) -> Mapping[str, object]:
    """A new token ``{"name", "scopes"}`` → ``{"id", "name", "scopes", "created", "revoked",
    "token"}``: the only time the token is shown."""
    account = await account_of(request)
    body = await read_body(request, BotTokenBody, N_("a bot token"))
    return await asyncio.to_thread(bots(request).create_token, account, body.name, body.scopes)


@router.get("/accounts/me/bot/tokens")
async def list_tokens(request: Request) -> list[Mapping[str, object]]:
    """The account's tokens (never the tokens themselves)."""
    account = await account_of(request)
    return list(await asyncio.to_thread(bots(request).tokens, account))


@router.delete("/accounts/me/bot/tokens/{token}", status_code=204)
async def revoke_token(token: str, request: Request) -> Response:
    """Revoke a token: it stops working at once, on every worker."""
    account = await account_of(request)
    await asyncio.to_thread(bots(request).revoke, account, token)
    return Response(status_code=204)


# -- the host -------------------------------------------------------------------------------
def _check_free_seat(table: Table, seat: int) -> None:
    """Refuse unless ``seat`` is an open human seat of a waiting online room.

    Raises:
        RoomError: 400 ``bad-request`` (not an online room, no such seat), 409 ``seat-taken``.
    """
    if table.mode != "online":
        raise bad_request(msg(N_("only an online room's seats take a bot account")))
    if seat >= len(table.seats):
        raise bad_request(
            msg(N_("a join: seat: this room's seats are 0 to {last}"), last=len(table.seats) - 1)
        )
    s = table.seats[seat]
    if table.status != "waiting" or not s.human or s.token_hash is not None:
        raise RoomError(
            409, "seat-taken", msg(N_("seat {seat} is not open"), seat=seat_label(seat))
        )


def check_declared(games: list[str] | tuple[str, ...], game: str) -> None:
    """Refuse a game the bot does not declare.

    Raises:
        RoomError: 409 ``not-declared``.
    """
    if game not in games:
        raise RoomError(409, "not-declared", msg(N_("this bot does not play {game}"), game=game))


@router.post("/rooms/{room}/invitations", status_code=201)
async def invite(room: str, request: Request) -> Mapping[str, object]:
    """Invite a bot account to a free seat ``{"seat", "account"}`` (host token) → the
    invitation; the bot's event stream gets it as ``challenge``."""
    rooms = service(request)
    body = await read_body(request, InvitationBody, N_("an invitation"))
    table = await rooms.table(room)
    check_host(table, bearer(request))
    _check_free_seat(table, body.seat)
    target = await asyncio.to_thread(accounts(request).get, body.account)
    with rooms.sessions() as session:
        row = bots(request).bot_of(session, target.id)
        declared = [] if row is None else games_of(row)
    if row is None:
        raise RoomError(409, "not-bot", msg(N_("this account is not a bot account")))
    check_declared(declared, table.game)
    sender = await signed_in(request)
    found = await asyncio.to_thread(
        invitations(request).invite,
        table.id,
        body.seat,
        None if sender is None else sender.id,
        target.id,
    )
    await events(request).publish(target.id, {"type": "challenge", "invitation": found})
    return found


@router.get("/rooms/{room}/invitations")
async def room_invitations(room: str, request: Request) -> list[Mapping[str, object]]:
    """The room's invitations (host token), oldest first."""
    rooms = service(request)
    table = await rooms.table(room)
    check_host(table, bearer(request))
    return list(await asyncio.to_thread(invitations(request).of_room, table.id))


@router.delete("/rooms/{room}/invitations/{invitation}", status_code=204)
async def cancel_invitation(room: str, invitation: str, request: Request) -> Response:
    """Cancel a pending invitation (host token)."""
    rooms = service(request)
    table = await rooms.table(room)
    check_host(table, bearer(request))
    found = await asyncio.to_thread(invitations(request).get_pending, invitation)
    if found["room"] != table.id or not await asyncio.to_thread(
        invitations(request).settle, invitation, "cancelled"
    ):
        raise RoomError(
            404,
            "not-found",
            msg(N_("no pending invitation {invitation}"), invitation=repr(invitation[:12])),
        )
    event = {"type": "challengeCanceled", "invitation": found["id"]}
    await events(request).publish(str(found["target"]), event)
    return Response(status_code=204)


# -- the bot --------------------------------------------------------------------------------
async def bot_auth(request: Request, scope: str) -> BotAuth:
    """The bot token's authority (read from the database now), its ``scope`` checked, one
    request counted against the token's rate limit.

    Raises:
        RoomError: 401/403 ``bad-token``; 429 ``rate-limited``.
    """
    auth = await asyncio.to_thread(bots(request).authenticate, bearer(request))
    auth.need(scope)
    limits: RateLimits = request.app.state.limits
    await limits.take("bot", "token:" + auth.token, N_("token"))
    return auth


def _seat_of_account(request: Request, room: str, account: str) -> int | None:
    with service(request).sessions() as session:
        return session.scalar(
            select(SeatRow.seat).where(SeatRow.room_id == room[:8], SeatRow.account_id == account)
        )


async def bot_seat(request: Request, room: str, auth: BotAuth) -> int:
    """The seat the bot holds in ``room``.

    Raises:
        RoomError: 404 ``not-found`` (it holds none).
    """
    seat = await asyncio.to_thread(_seat_of_account, request, room, auth.account.id)
    if seat is None:
        raise RoomError(404, "not-found", msg(N_("this bot holds no seat of this room")))
    return seat


def _live(request: Request) -> Callable[[], Awaitable[bool]]:
    token = bearer(request)

    async def live() -> bool:
        try:
            await asyncio.to_thread(bots(request).authenticate, token)
        except RoomError:
            return False
        return True

    return live


STREAMS_PER_TOKEN = 16
"""Streams (events and games together) one bot token may hold open on one worker; one more is
refused with 429 ``rate-limited``: a token cannot tie up a worker's connections and ticks."""


def _streaming(request: Request, auth: BotAuth, body: AsyncIterator[str]) -> StreamingResponse:
    """The stream ``body`` as NDJSON or server-sent events, counted against the token's
    :data:`STREAMS_PER_TOKEN` until it ends, however it ends.

    Raises:
        RoomError: 429 ``rate-limited`` when the token holds that many streams already.
    """
    held: Counter[str] | None = getattr(request.app.state, "bot_streams", None)
    if held is None:
        held = request.app.state.bot_streams = Counter()
    if held[auth.token] >= STREAMS_PER_TOKEN:
        raise RoomError(
            429,
            "rate-limited",
            msg(N_("this bot token holds {n} streams open already"), n=STREAMS_PER_TOKEN),
        )
    held[auth.token] += 1

    async def counted() -> AsyncIterator[str]:
        try:
            async for part in body:
                yield part
        finally:
            held[auth.token] -= 1
            if not held[auth.token]:
                del held[auth.token]

    media = SSE if _is_sse(request) else NDJSON
    return StreamingResponse(counted(), media_type=media, headers=HEADERS)


def _is_sse(request: Request) -> bool:
    return SSE in request.headers.get("accept", "")


def _seated_games(request: Request, account: str) -> list[JsonObject]:
    with service(request).sessions() as session:
        rows = session.execute(
            select(SeatRow.room_id, SeatRow.seat, RoomRow.game)
            .join(RoomRow, RoomRow.id == SeatRow.room_id)
            .where(SeatRow.account_id == account, RoomRow.status != "finished")
            .order_by(RoomRow.created, RoomRow.id)
        ).all()
    return [{"type": "gameStart", "room": r, "seat": s, "game": g} for r, s, g in rows]


@router.get("/bot/account")
async def bot_account(request: Request) -> Mapping[str, object]:
    """The token's bot ``{"account", "name", "games", "scopes"}``."""
    auth = await bot_auth(request, "read")
    return {
        "account": auth.account.id,
        "name": auth.account.name,
        "games": list(auth.games),
        "scopes": sorted(auth.scopes),
    }


@router.get("/bot/events")
async def bot_events(request: Request) -> StreamingResponse:
    """The bot's event stream (NDJSON, or server-sent events: :mod:`.bot_streams`)."""
    auth = await bot_auth(request, "read")
    account = auth.account.id

    async def opening() -> list[JsonObject]:
        pending = await asyncio.to_thread(invitations(request).pending, account)
        told: list[JsonObject] = [{"type": "challenge", "invitation": i} for i in pending]
        return told + await asyncio.to_thread(_seated_games, request, account)

    async def seated(room: str) -> int | None:
        return await asyncio.to_thread(_seat_of_account, request, room, account)

    body = event_stream(
        service(request),
        events(request),
        account,
        opening,
        seated,
        _live(request),
        _is_sse(request),
    )
    return _streaming(request, auth, body)


@router.get("/bot/games/{room}/stream")
async def bot_game_stream(room: str, request: Request) -> StreamingResponse:
    """The bot's game stream: its seat's views (:mod:`.bot_streams`)."""
    auth = await bot_auth(request, "read")
    seat = await bot_seat(request, room, auth)
    rooms = service(request)
    await rooms.table(room)  # a room that cannot load is refused before the stream starts
    return _streaming(
        request, auth, game_stream(rooms, room, seat, _live(request), _is_sse(request))
    )


@router.post("/bot/games/{room}/move")
async def bot_move(room: str, request: Request) -> Mapping[str, object]:
    """Play ``{"action", "step"}`` for the bot's seat (the browser's move path) → the seat's
    view after it."""
    auth = await bot_auth(request, "play")
    body = await read_body(request, ActionBody, "an action")
    seat = await bot_seat(request, room, auth)
    rooms = service(request)
    async with rooms.held(room) as table:
        flood(request).seat(table.id, seat)
        await rooms.playing.act_as(table, seat, body, table.seats[seat].token_hash)
        return rooms.view(table, seat)


async def seat_bot(
    request: Request, room: str, seat: int, auth: BotAuth, invitation: str | None = None
) -> Table:
    """Seat the bot at ``seat`` of ``room`` (an open seat of a waiting online room of a game
    it declares), the seat tied to its account and, with ``invitation``, that invitation
    accepted — one transaction with the claim: all of it stored, or none; its event stream
    is told ``gameStart``.

    Raises:
        RoomError: as :func:`_check_free_seat`, 409 ``not-declared``, 409 ``seat-taken``
            (it holds a seat of the room already).
    """
    rooms = service(request)
    table = await rooms.table(room)
    _check_free_seat(table, seat)
    check_declared(auth.games, table.game)
    if await asyncio.to_thread(_seat_of_account, request, room, auth.account.id) is not None:
        raise RoomError(409, "seat-taken", msg(N_("this account holds another seat of this room")))
    daily: DailyService = request.app.state.daily
    origin = (daily.address_key(client_key(request)), None)
    account = auth.account.id
    then: Callable[[Session], None]
    if invitation is None:
        then = functools.partial(tie_seat, room=room, seat=seat, account=account)
    else:
        then = invitations(request).accepting(invitation, account, room, seat)
    async with rooms.admission.turn(client_key(request)):
        await rooms.seats.join(room, _Join(seat, auth.account.name), origin, then)
    async with rooms.locked(table):  # tied in the claim's transaction: a bot account's seat
        mark_bot_account(table, seat, True)
    await table.notify()
    event: JsonObject = {"type": "gameStart", "room": table.id, "seat": seat, "game": table.game}
    await events(request).publish(auth.account.id, event)
    return table


class _Join:
    """A join request of a bot (:class:`~metrogames.web.rooms.requests.JoinRequest`)."""

    def __init__(self, seat: int, name: str) -> None:
        self.seat = seat
        self.name: str | None = name


@router.post("/bot/invitations/{invitation}/accept")
async def accept(invitation: str, request: Request) -> Mapping[str, object]:
    """Accept an invitation: the bot is seated → ``{"room", "seat"}``."""
    auth = await bot_auth(request, "play")
    await read_body(request, NoBody, "an acceptance")
    found = await asyncio.to_thread(invitations(request).get_pending, invitation, auth.account.id)
    try:
        seat = found["seat"]
        assert isinstance(seat, int)  # an invitation's seat (invitation_json)
        await seat_bot(request, str(found["room"]), seat, auth, str(found["id"]))
    except RoomError as exc:
        if exc.reason == "seat-taken":  # the seat went meanwhile: the invitation with it
            await asyncio.to_thread(invitations(request).settle, invitation, "expired")
        raise
    return {"room": found["room"], "seat": found["seat"]}


@router.post("/bot/invitations/{invitation}/decline", status_code=204)
async def decline(invitation: str, request: Request) -> Response:
    """Decline an invitation."""
    auth = await bot_auth(request, "play")
    await read_body(request, NoBody, "a refusal")
    await asyncio.to_thread(invitations(request).get_pending, invitation, auth.account.id)
    await asyncio.to_thread(invitations(request).settle, invitation, "declined")
    return Response(status_code=204)


@router.post("/bot/rooms/{room}/join")
async def bot_join(room: str, request: Request) -> Mapping[str, object]:
    """Take a free seat ``{"seat"}`` of a room listed in the lobby → ``{"room", "seat"}``."""
    auth = await bot_auth(request, "play")
    body = await read_body(request, BotJoinBody, N_("a join"))
    table = await service(request).table(room)
    if table.listed_until is None or table.listed_until <= time.time():
        raise RoomError(
            409, "not-listed", msg(N_("a bot joins only the rooms listed in the lobby"))
        )
    await seat_bot(request, table.id, body.seat, auth)
    return {"room": table.id, "seat": body.seat}
