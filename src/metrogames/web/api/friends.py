"""The HTTP routes of friends and invitations between people (``docs/web-api.md``, "Friends
and invitations"): ``/api/friends...`` and ``/api/invitations...``.

Every route needs a signed-in account (its session cookie) and is counted
(``METROGAMES_RATE_FRIENDS``) per client address and per account before its work. Follows
and blocks are :mod:`~metrogames.web.accounts.friends`; invitations are the general
invitation rows (:mod:`~metrogames.web.accounts.invitations`) sent by a room's host, signed
in, to another person's account, pushed at once to the invitee's open pages through the
account events (:mod:`~metrogames.web.infra.events`, the worker's pub/sub hub: any worker).
Whether a followed account is online and playing comes from the room core: the seats it
holds in online rooms not over (the database) and whether one of them has a socket open on
any worker (:meth:`~metrogames.web.rooms.sync.RoomSync.connected_among`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask
from typing_extensions import TypedDict

from metrogames.core.protocol import JsonObject
from metrogames.i18n import N_, msg
from metrogames.web.accounts.friends import Friends, SeatedAt, blocked_error
from metrogames.web.accounts.service import Account
from metrogames.web.api.accounts import account_of
from metrogames.web.api.bodies import NoBody, PersonInvitationBody
from metrogames.web.api.common import (
    bearer,
    charge,
    claimer,
    events,
    invitations,
    read_body,
    service,
)
from metrogames.web.errors import RoomError
from metrogames.web.infra.events import AccountEvents
from metrogames.web.infra.pubsub import Inbox
from metrogames.web.infra.ratelimit import RateLimits, client_key
from metrogames.web.infra.sockets import SocketCap
from metrogames.web.lobby import stream as sse
from metrogames.web.rooms.access import check_host
from metrogames.web.rooms.tables import Table

router = APIRouter(prefix="/api")
Name = Annotated[str, Path(min_length=1, max_length=64, description="an account's name")]
InvitationId = Annotated[str, Path(min_length=1, max_length=64, description="an invitation")]


class Followed(TypedDict):
    """A followed account: ``name``, ``online`` (a socket open on one of its seats),
    ``playing`` (the game of a room being played where it is online, or ``None``)."""

    name: str
    online: bool
    playing: str | None


class FriendsList(TypedDict):
    """``GET /api/friends``: the accounts followed (by name) and the names of those
    blocked."""

    following: list[Followed]
    blocked: list[str]


def friends_of(request: Request) -> Friends:
    """The app's follows and blocks."""
    found: Friends = request.app.state.friends
    return found


async def checked(request: Request) -> Account:
    """Count the request by address, then require a session and count it by account.

    Raises:
        RoomError: 429 ``rate-limited``; 401 ``bad-session``.
    """
    await charge(request, "friends")
    account = await account_of(request)
    limits: RateLimits = request.app.state.limits
    await limits.take("friends", f"account:{account.id}", N_("account"))
    return account


# -- follows and blocks -----------------------------------------------------------------------
def _presence(seats: list[SeatedAt], connected: set[tuple[str, int]]) -> tuple[bool, str | None]:
    """Whether any of ``seats`` is ``connected`` (online), and the game of the newest playing
    one of them."""
    online, playing = False, None
    for seat in seats:
        if (seat["room"], seat["seat"]) in connected:
            online = True
            if seat["status"] == "playing" and playing is None:
                playing = seat["game"]
    return online, playing


@router.get("/friends")
async def get_friends(request: Request) -> FriendsList:
    """The accounts the signed-in account follows (by name, each ``{"name", "online",
    "playing"}``) and those it blocks (names): ``{"following", "blocked"}``."""
    account = await checked(request)
    friends = friends_of(request)
    following = await asyncio.to_thread(friends.following, account.id)
    seated = await asyncio.to_thread(friends.seated, [i for i, _ in following])
    connected = await service(request).sync.connected_among(
        (seat["room"], seat["seat"]) for seats in seated.values() for seat in seats
    )
    shown: list[Followed] = []
    for followed, name in following:
        online, playing = _presence(seated[followed], connected)
        shown.append({"name": name, "online": online, "playing": playing})
    blocked = await asyncio.to_thread(friends.blocked, account.id)
    return {"following": shown, "blocked": blocked}


async def _pair(request: Request, name: str, change: Callable[[str, str], object]) -> Response:
    account = await checked(request)
    await read_body(request, NoBody, N_("a follow or block"))
    await asyncio.to_thread(change, account.id, name)
    return Response(status_code=204)


@router.put("/friends/follows/{name}", status_code=204)
async def follow(name: Name, request: Request) -> Response:
    """Follow the account ``name`` (again: nothing changes)."""
    return await _pair(request, name, friends_of(request).follow)


@router.delete("/friends/follows/{name}", status_code=204)
async def unfollow(name: Name, request: Request) -> Response:
    """Stop following ``name``."""
    return await _pair(request, name, friends_of(request).unfollow)


@router.put("/friends/blocks/{name}", status_code=204)
async def block(name: Name, request: Request) -> Response:
    """Block the account ``name`` (and stop following it)."""
    return await _pair(request, name, friends_of(request).block)


@router.delete("/friends/blocks/{name}", status_code=204)
async def unblock(name: Name, request: Request) -> Response:
    """Stop blocking ``name``."""
    return await _pair(request, name, friends_of(request).unblock)


# -- invitations ----------------------------------------------------------------------------
def _check_open(table: Table, seat: int) -> None:
    """Refuse unless ``seat`` is an open human seat of a waiting online room.

    Raises:
        RoomError: 400 ``bad-request`` (not an online room, no such seat), 409 ``seat-taken``.
    """
    if table.mode != "online":
        raise RoomError(
            400, "bad-request", msg(N_("only an online room's seats take an invitation"))
        )
    if seat >= len(table.seats):
        last = len(table.seats) - 1
        raise RoomError(
            400,
            "bad-request",
            msg(N_("an invitation: seat: this room's seats are 0 to {last}"), last=last),
        )
    s = table.seats[seat]
    if table.status != "waiting" or not s.human or s.token_hash is not None:
        raise RoomError(409, "seat-taken", msg(N_("this seat is not open")))


@router.post("/invitations", status_code=201)
async def invite(request: Request) -> Mapping[str, object]:
    """Invite the account named ``to`` to an open seat of the room (``{"room", "seat",
    "to"}``; the host token, and signed in) → the invitation; the invitee's pages get it as
    ``invitation``."""
    sender = await checked(request)
    body = await read_body(request, PersonInvitationBody, N_("an invitation"))
    table = await service(request).table(body.room)
    check_host(table, bearer(request))
    _check_open(table, body.seat)
    friends = friends_of(request)
    target, bot = await asyncio.to_thread(friends.account_named, body.to)
    if target == sender.id:
        raise RoomError(400, "bad-request", msg(N_("an account cannot invite itself")))
    if bot:
        raise RoomError(409, "bot-account", msg(N_("a bot account is invited as a bot")))
    if await asyncio.to_thread(friends.blocked_among, sender.id, [target]):
        raise blocked_error()
    found = await asyncio.to_thread(
        invitations(request).invite, table.id, body.seat, sender.id, target
    )
    await events(request).publish(target, {"type": "invitation", "invitation": found})
    return found


@router.get("/invitations")
async def my_invitations(request: Request) -> list[Mapping[str, object]]:
    """The signed-in account's pending invitations, oldest first."""
    account = await checked(request)
    return list(await asyncio.to_thread(invitations(request).pending, account.id))


class _Join:
    """The join of an invitee (:class:`~metrogames.web.rooms.requests.JoinRequest`)."""

    def __init__(self, seat: int, name: str) -> None:
        self.seat = seat
        self.name: str | None = name


@router.post("/invitations/{invitation}/accept")
async def accept(invitation: InvitationId, request: Request) -> Mapping[str, object]:
    """Accept an invitation: the invitee is seated, the seat tied to its account and the
    invitation accepted in one transaction → ``{"room", "seat", "token"}`` (the seat token)."""
    account = await checked(request)
    await read_body(request, NoBody, N_("an acceptance"))
    found = await asyncio.to_thread(invitations(request).get_pending, invitation, account.id)
    sender = found.get("sender")
    if isinstance(sender, str) and await asyncio.to_thread(
        friends_of(request).blocked_among, account.id, [sender]
    ):
        raise blocked_error()
    room, seat = str(found["room"]), int(str(found["seat"]))
    rooms = service(request)
    step = invitations(request).accepting(str(found["id"]), account.id, room, seat)
    try:
        async with rooms.admission.turn(client_key(request)):
            token = await rooms.seats.join(room, _Join(seat, account.name), claimer(request), step)
    except RoomError:
        table = await rooms.table(room)
        if table.status != "waiting" or table.seats[seat].token_hash is not None:
            # the seat went meanwhile: the invitation with it
            await asyncio.to_thread(invitations(request).settle, invitation, "expired")
        raise
    await _tell_sender(request, found, "accepted")
    return {"room": room, "seat": seat, "token": token}


async def _tell_sender(request: Request, found: Mapping[str, object], status: str) -> None:
    sender = found.get("sender")
    if isinstance(sender, str):
        event: JsonObject = {
            "type": "invitationAnswered",
            "invitation": str(found["id"]),
            "status": status,
        }
        await events(request).publish(sender, event)


@router.post("/invitations/{invitation}/decline", status_code=204)
async def decline(invitation: InvitationId, request: Request) -> Response:
    """Decline an invitation (it leaves the invitee's pages; its sender's are told)."""
    account = await checked(request)
    await read_body(request, NoBody, N_("a refusal"))
    found = await asyncio.to_thread(invitations(request).get_pending, invitation, account.id)
    if not await asyncio.to_thread(invitations(request).settle, invitation, "declined"):
        await asyncio.to_thread(invitations(request).get_pending, invitation, account.id)  # 404
    await events(request).publish(
        account.id, {"type": "invitationGone", "invitation": str(found["id"])}
    )
    await _tell_sender(request, found, "declined")
    return Response(status_code=204)


# -- the live page ------------------------------------------------------------------------------
async def _stream(
    events_: AccountEvents, inbox: Inbox[JsonObject], done: Callable[[], None]
) -> AsyncIterator[str]:
    try:
        yield f"retry: {sse.RETRY_MILLISECONDS}\n\n"
        while True:
            try:
                event = await asyncio.wait_for(inbox.queue.get(), sse.KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            if inbox.dropped:  # events were lost: the client starts again from a snapshot
                return
            yield sse.event_text(str(event.get("type", "event")), event)
    finally:
        events_.unsubscribe(inbox)
        done()


@router.get("/friends/events", response_class=StreamingResponse)
async def friends_events(request: Request) -> StreamingResponse:
    """The signed-in account's page, live, as server-sent events: ``invitations``
    (``{"invitations": [...]}``, the pending ones) first, then ``invitation`` (a new one),
    ``invitationGone`` and ``invitationAnswered`` (one of its own was accepted or
    declined)."""
    account = await checked(request)
    sockets: SocketCap = request.app.state.sockets
    held = contextlib.ExitStack()
    held.enter_context(sockets.hold(request))  # 429 when the address holds too many
    inbox = events(request).subscribe(account.id)
    try:
        pending = await asyncio.to_thread(invitations(request).pending, account.id)
    except BaseException:
        events(request).unsubscribe(inbox)
        held.close()
        raise
    inbox.offer({"type": "invitations", "invitations": list(pending)})
    return StreamingResponse(
        _stream(events(request), inbox, held.close),
        media_type="text/event-stream",
        headers=sse.HEADERS,
        background=BackgroundTask(held.close),
    )
