"""The HTTP routes of play now (``docs/web-api.md``, "Play now"): ask for a game, wait for
the table on an event stream, cancel, or take the table with bots.

Every route is rate-limited (``METROGAMES_RATE_QUICKMATCH``) per client address and, for a
signed-in request, per account; the event stream also counts as one of the address's open
connections (``METROGAMES_WS_PER_ADDRESS``). The work is the matchmaker's
(:mod:`metrogames.web.matchmaking`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import StreamingResponse
from pydantic import Field, StringConstraints
from redis.exceptions import RedisError
from starlette.background import BackgroundTask

from metrogames.i18n import N_, msg
from metrogames.web.accounts.service import Account
from metrogames.web.api.accounts import signed_in
from metrogames.web.api.bodies import MAX_SEATS, Body, HumanName, NoBody
from metrogames.web.api.bots import bot_auth, bots, check_declared
from metrogames.web.api.common import bearer, charge, claimer, read_body
from metrogames.web.errors import RoomError
from metrogames.web.infra.ratelimit import RateLimits
from metrogames.web.infra.sockets import SocketCap
from metrogames.web.lobby.stream import HEADERS, KEEPALIVE_SECONDS, RETRY_MILLISECONDS, event_text
from metrogames.web.matchmaking.service import Ask, Matchmaker

router = APIRouter(prefix="/api")
TicketId = Annotated[
    str, Path(pattern="^[0-9a-f]{16}$", description="a play now request's id (16 hex digits)")
]
STEP_SECONDS = 5.0
"""How long a stream waits for a seating before it looks whether its request still waits
(cancelled elsewhere, replaced, expired) and for a seating message it may have missed."""


class QuickBody(Body):
    """``POST /api/quickmatch``: the game, the player count and the clock kind; a guest's
    seat name (an account's seat bears the account's name)."""

    game: Annotated[str, StringConstraints(max_length=64)]
    players: Annotated[int, Field(ge=1, le=MAX_SEATS)]
    clock: Literal["live", "turn-based"]
    name: HumanName | None = None


def matchmaker(request: Request) -> Matchmaker:
    """The app's matchmaker."""
    found: Matchmaker = request.app.state.matchmaker
    return found


async def counted(request: Request) -> Account | None:
    """Count the request by address and, signed in, by account; the account or ``None``.

    Raises:
        RoomError: 429 ``rate-limited``.
    """
    await charge(request, "quickmatch")
    account = await signed_in(request)
    if account is not None:
        limits: RateLimits = request.app.state.limits
        await limits.take("quickmatch", f"account:{account.id}", N_("account"))
    return account


@router.post("/quickmatch", status_code=201)
async def ask(request: Request) -> Mapping[str, object]:
    """Queue for a table → ``{"ticket", "token", "game", "players", "clock", "rating",
    "bots_after"}`` (the token is the seat's, once seated); the player's earlier request
    leaves the queue."""
    body = await read_body(request, QuickBody, N_("play now"))
    account = await counted(request)
    what = Ask(body.game, body.players, body.clock, body.name)
    ticket, token = await matchmaker(request).ask(what, account, claimer(request))
    return {
        "ticket": ticket.id,
        "token": token,
        "game": ticket.game,
        "players": ticket.players,
        "clock": ticket.clock,
        "rating": round(ticket.rating, 1),
        "bots_after": request.app.state.settings.quickmatch_bots_after,
    }


@router.delete("/quickmatch/{ticket}")
async def cancel(ticket: TicketId, request: Request) -> Mapping[str, object]:
    """Leave the queue (the request's token) → ``{"cancelled": true}`` (404 once it no longer
    waits)."""
    await read_body(request, NoBody, "a cancel")
    await counted(request)
    mm = matchmaker(request)
    mine = await mm.mine(ticket, bearer(request))
    if not await mm.cancel(mine):
        raise RoomError(409, "seated", msg(N_("this request was seated meanwhile")))
    return {"cancelled": True}


@router.post("/quickmatch/{ticket}/bots")
async def with_bots(ticket: TicketId, request: Request) -> Mapping[str, object]:
    """Take the table now with bots in the other seats (the request's token, once it waited
    ``bots_after`` seconds) → ``{"room", "seat"}``."""
    await read_body(request, NoBody, "a table with bots")
    await counted(request)
    mm = matchmaker(request)
    seating = await mm.with_bots(await mm.mine(ticket, bearer(request)))
    return {"room": seating["room"], "seat": seating["seat"]}


class BotQuickBody(Body):
    """``POST /api/bot/quickmatch``: the game (one the bot declares), the player count and the
    clock kind."""

    game: Annotated[str, StringConstraints(max_length=64)]
    players: Annotated[int, Field(ge=1, le=MAX_SEATS)]
    clock: Literal["live", "turn-based"]


@router.post("/bot/quickmatch", status_code=201)
async def bot_ask(request: Request) -> Mapping[str, object]:
    """A bot account queues for play now (a ``play`` token) → ``{"ticket", "game",
    "players", "clock", "rating", "pool"}``: in its own pool (``bot``), or with people
    (``human``) when its owner opted into their pools; seated, its event stream is told
    ``gameStart`` and it plays through its game stream, as at any table."""
    auth = await bot_auth(request, "play")
    await charge(request, "quickmatch")
    limits: RateLimits = request.app.state.limits
    await limits.take("quickmatch", f"account:{auth.account.id}", N_("account"))
    body = await read_body(request, BotQuickBody, N_("play now"))
    check_declared(auth.games, body.game)
    described = await asyncio.to_thread(bots(request).describe, auth.account)
    pool = "human" if described.get("human_pools") else "bot"
    what = Ask(body.game, body.players, body.clock)
    ticket, _ = await matchmaker(request).ask(what, auth.account, claimer(request), pool)
    return {
        "ticket": ticket.id,
        "game": ticket.game,
        "players": ticket.players,
        "clock": ticket.clock,
        "rating": round(ticket.rating, 1),
        "pool": ticket.pool,
    }


@router.delete("/bot/quickmatch/{ticket}")
async def bot_cancel(ticket: TicketId, request: Request) -> Mapping[str, object]:
    """The bot's request leaves the queue (a ``play`` token) → ``{"cancelled": true}``; 404
    ``not-found`` for a request that no longer waits or is not the bot's, 409 ``seated``."""
    auth = await bot_auth(request, "play")
    await read_body(request, NoBody, "a cancel")
    mm = matchmaker(request)
    found = await mm.queue.get(ticket)
    if found is None or found.account != auth.account.id:
        raise RoomError(404, "not-found", msg(N_("this request no longer waits")))
    if not await mm.cancel(found):
        raise RoomError(409, "seated", msg(N_("this request was seated meanwhile")))
    return {"cancelled": True}


@router.get("/quickmatch/{ticket}/events", response_class=StreamingResponse)
async def quickmatch_events(ticket: TicketId, request: Request) -> StreamingResponse:
    """The request's wait as server-sent events: ``waiting`` first, ``offer`` once the bots
    are offered, then ``seated`` ``{"room", "seat"}`` or ``gone`` (it no longer waits:
    cancelled, replaced, expired) and the end."""
    await counted(request)
    mm = matchmaker(request)
    state, seating = await mm.queue.state(ticket)  # one look: it may be seated right after
    if state == "gone":
        raise RoomError(404, "not-found", msg(N_("this request no longer waits")))
    sockets: SocketCap = request.app.state.sockets
    held = contextlib.ExitStack()
    held.enter_context(sockets.hold(request))  # 429 when the address holds too many
    text = _seated(seating) if seating is not None else _events(mm, ticket, held.close)
    return StreamingResponse(
        text,
        media_type="text/event-stream",
        headers=HEADERS,
        background=BackgroundTask(held.close),
    )


async def _seated(seating: object) -> AsyncIterator[str]:
    """A seated request's stream: its seating, and the end."""
    yield event_text("seated", seating)


async def _events(mm: Matchmaker, ticket: str, done: Callable[[], None]) -> AsyncIterator[str]:
    """The stream of a waiting request until it is seated or gone (:func:`quickmatch_events`);
    a client that leaves first takes its request out of the queue."""
    ended = False
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n"
        yield event_text("waiting", {"ticket": ticket})
        mine = await mm.queue.get(ticket)
        offer_at = None if mine is None else mine.joined + mm.settings.quickmatch_bots_after
        quiet = 0.0
        while True:
            step = STEP_SECONDS
            if offer_at is not None:
                step = max(0.0, min(step, offer_at - mm.clock()))
            try:
                seating = await mm.wait(ticket, step)
                state, seating = ("seated", seating) if seating else await mm.queue.state(ticket)
            except (RedisError, OSError):  # Redis failed a moment: no news, look again
                await asyncio.sleep(step or 1.0)
                continue
            if state in ("seated", "gone"):
                ended = True
                yield event_text(state, seating or {"ticket": ticket})
                return
            if offer_at is not None and mm.clock() >= offer_at:
                offer_at = None
                yield event_text("offer", {"ticket": ticket})
            quiet += step
            if quiet >= KEEPALIVE_SECONDS:
                quiet = 0.0
                yield ": keep-alive\n\n"
    finally:
        mm.forget(ticket)
        if not ended:  # the client left while waiting: nobody would sit at its table
            mm.abandon(ticket)
        done()
