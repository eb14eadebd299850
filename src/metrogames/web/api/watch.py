"""The HTTP routes of now playing (``docs/web-api.md``, "Now playing"): the listed online
games in progress, top-rated and most recent, with their spectators, as a list and as a live
event stream.

Both are rate-limited (``METROGAMES_RATE_WATCH``) per client address; an event stream also
counts as one of the address's open connections (``METROGAMES_WS_PER_ADDRESS``). The work is
now playing's (:mod:`metrogames.web.watch`).
"""

from __future__ import annotations

import contextlib
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from metrogames.web.api.common import GameFilter, charge, check_game_filter
from metrogames.web.infra.sockets import SocketCap
from metrogames.web.lobby import stream as sse
from metrogames.web.watch.entries import MAX_SHOWN, NowPlaying, ranked
from metrogames.web.watch.hub import Watch

router = APIRouter(prefix="/api")
Limit = Annotated[int, Query(ge=1, le=MAX_SHOWN, description="the most games per ranking")]


def watch_of(request: Request) -> Watch:
    """The app's now playing (:class:`~metrogames.web.watch.hub.Watch`)."""
    found: Watch = request.app.state.watch
    return found


async def check_request(request: Request, game: str | None) -> None:
    """Refuse an unknown game, then count the request by address.

    Raises:
        RoomError: 400 ``bad-request`` naming the game; 429 ``rate-limited``.
    """
    check_game_filter(game, "now playing")
    await charge(request, "watch")


@router.get("/watch")
async def get_watch(request: Request, game: GameFilter = None, limit: Limit = 20) -> NowPlaying:
    """The listed online games in progress of ``game`` (any, when absent), ranked twice,
    ``top`` (best rated first) and ``recent`` (newest first), at most ``limit`` each, with
    their spectators."""
    await check_request(request, game)
    return ranked(await watch_of(request).read(), game, limit)


@router.get("/watch/events", response_class=StreamingResponse)
async def watch_events(
    request: Request, game: GameFilter = None, limit: Limit = 20
) -> StreamingResponse:
    """Now playing, live, as server-sent events: a ``snapshot`` (as ``GET /api/watch``)
    first, then another each time the list changes (games started or finished, spectators
    counted), read every few seconds."""
    await check_request(request, game)
    sockets: SocketCap = request.app.state.sockets
    held = contextlib.ExitStack()
    held.enter_context(sockets.hold(request))  # 429 when the address holds too many
    watch = watch_of(request)
    stream = watch.subscribe(game, limit)
    held.callback(watch.unsubscribe, stream)
    return StreamingResponse(
        sse.events(stream, held.close),
        media_type="text/event-stream",
        headers=sse.HEADERS,
        background=BackgroundTask(held.close),
    )
