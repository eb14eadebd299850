"""The HTTP routes of the lobby of open tables (``docs/web-api.md``, "Lobby"): the listed
online rooms waiting for players, as a list and as a live event stream.

Both are rate-limited (``METROGAMES_RATE_LOBBY``) per client address and, for a signed-in
request, per account; an event stream also counts as one of the address's open connections
(``METROGAMES_WS_PER_ADDRESS``). The work is the lobby's (:mod:`metrogames.web.lobby`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from metrogames.i18n import N_
from metrogames.web.api.accounts import signed_in
from metrogames.web.api.bodies import MAX_SEATS
from metrogames.web.api.common import GameFilter, charge, check_game_filter
from metrogames.web.infra.ratelimit import RateLimits
from metrogames.web.infra.sockets import SocketCap
from metrogames.web.lobby import stream as sse
from metrogames.web.lobby.entries import MAX_ROOMS, Lobby, matches
from metrogames.web.lobby.hub import Lobby as LobbyHub

router = APIRouter(prefix="/api")
PlayersFilter = Annotated[
    int | None, Query(ge=1, le=MAX_SEATS, description="only rooms of this many seats")
]


def lobby_of(request: Request) -> LobbyHub:
    """The app's lobby (:class:`~metrogames.web.lobby.hub.Lobby`)."""
    found: LobbyHub = request.app.state.lobby
    return found


async def check_request(request: Request, game: str | None) -> None:
    """Refuse an unknown game, then count the request by address and account.

    Raises:
        RoomError: 400 ``bad-request`` naming the game; 429 ``rate-limited``.
    """
    check_game_filter(game, "the lobby")
    await charge(request, "lobby")
    account = await signed_in(request)
    if account is not None:
        limits: RateLimits = request.app.state.limits
        await limits.take("lobby", f"account:{account.id}", N_("account"))


@router.get("/lobby")
async def get_lobby(
    request: Request,
    game: GameFilter = None,
    players: PlayersFilter = None,
    limit: Annotated[int, Query(ge=1, le=MAX_ROOMS)] = 100,
) -> Lobby:
    """The listed rooms waiting for players, newest first, filtered by ``game`` and
    ``players`` (seats), at most ``limit``."""
    await check_request(request, game)
    rooms = await asyncio.to_thread(lobby_of(request).read)
    return {"rooms": [e for e in rooms if matches(e, game, players)][:limit]}


@router.get("/lobby/events", response_class=StreamingResponse)
async def lobby_events(
    request: Request, game: GameFilter = None, players: PlayersFilter = None
) -> StreamingResponse:
    """The lobby, live, as server-sent events: ``snapshot`` ``{"rooms"}`` first, then
    ``room`` (an entry new or changed) and ``gone`` (``{"room"}``), filtered as
    ``GET /api/lobby``."""
    await check_request(request, game)
    sockets: SocketCap = request.app.state.sockets
    held = contextlib.ExitStack()
    held.enter_context(sockets.hold(request))  # 429 when the address holds too many
    lobby = lobby_of(request)
    stream = lobby.subscribe(game, players)
    held.callback(lobby.unsubscribe, stream)
    return StreamingResponse(
        sse.events(stream, held.close),
        media_type="text/event-stream",
        headers=sse.HEADERS,
        background=BackgroundTask(held.close),
    )
