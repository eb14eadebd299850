"""The FastAPI application: routes, error bodies, security headers, static client, database
at start, rooms resumed and idle rooms evicted while it runs.

:func:`create_app` builds the app for :class:`~metrogames.web.config.Settings`: it opens the
database and applies the migrations, serves ``/api`` (:mod:`.api`; the daily challenge:
:mod:`.daily_api`; score sheets: :mod:`.score_api`), ``/ws`` (:mod:`.ws`) and the browser
client in ``static/`` at ``/`` (``/r/{room}`` is the same page); accounts and sessions:
:mod:`.accounts_api`; ratings of online play: :mod:`.ratings` and :mod:`.ratings_api`; the table chat of online rooms:
:mod:`.chat` and :mod:`.chat_api`. Every
response carries :data:`SECURITY_HEADERS`: the page
runs only the site's own scripts and styles and cannot be framed. A request the server fails
to carry out (e.g. the database fails) is a 500 ``{"error", "reason": "server-error"}``.
While the app runs (its lifespan), the rooms whose clock runs or whose bots are due are resumed
(:meth:`~metrogames.web.rooms.RoomService.resume`) and idle rooms leave memory
(:meth:`~metrogames.web.rooms.RoomService.evict_idle`). Client addresses come from
``X-Forwarded-For`` only for the configured trusted proxies (uvicorn's proxy-headers
middleware); they are what the creation rate limits count (:mod:`.ratelimit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from metrogames.web import (
    accounts_api,
    api,
    chat_api,
    daily_api,
    ratings,
    ratings_api,
    score_api,
    ws,
)
from metrogames.web.accounts import Accounts
from metrogames.web.chat import Chat
from metrogames.web.checks import RoomError
from metrogames.web.config import Settings
from metrogames.web.daily import DailyService, load_secret
from metrogames.web.db import migrate, open_database
from metrogames.web.players import Players
from metrogames.web.ratelimit import RateLimits
from metrogames.web.rooms import RoomService
from metrogames.web.sockets import SocketCap

PLACEHOLDER = "<!doctype html><title>metrogames</title><p>The browser client is not installed."
REASONS = {
    400: "bad-request",
    401: "bad-token",
    403: "bad-token",
    404: "not-found",
    413: "too-large",
}
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every response: only the site's own scripts, styles and connections (images:
also ``data:``, the page's icon), never in a frame, no sniffed content types, no referrer."""


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def static_dir() -> Path:
    """The folder of the browser client (``index.html``, scripts, styles)."""
    return Path(str(resources.files("metrogames.web").joinpath("static")))


async def sweep(rooms: RoomService) -> None:
    """Evict idle rooms, twice per idle period (at most every 30 s)."""
    settings = rooms.settings
    interval = min(30.0, max(0.01, min(settings.room_idle, settings.finished_idle) / 2))
    while True:
        await asyncio.sleep(interval)
        rooms.evict_idle()


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """While the app runs: resume the rooms that need it, evict idle ones; at the end, stop
    the rooms' clocks and bots and the daily expert's games."""
    rooms: RoomService = app.state.rooms
    tasks = [asyncio.create_task(rooms.resume()), asyncio.create_task(sweep(rooms))]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await rooms.stop()
        await app.state.daily.stop()


def create_app(settings: Settings | None = None, now: Callable[[], float] | None = None) -> FastAPI:
    """The web table for ``settings`` (default: from the environment), database migrated.

    ``now`` is the daily challenge's clock (epoch seconds; default :func:`time.time`), kept in
    ``app.state.now`` and read at each use, so tests can move time by replacing it.
    """
    settings = settings or Settings()
    engine = open_database(settings.db)
    migrate(engine)
    # no interactive docs page: it would run scripts from elsewhere (the schema stays served)
    app = FastAPI(
        title="metrogames",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.add_middleware(SecurityHeaders)
    if settings.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    app.state.settings = settings
    app.state.limits = RateLimits(settings)
    app.state.sockets = SocketCap(settings.ws_per_address)
    app.state.rooms = rooms = RoomService(settings, engine)
    app.state.chat = Chat(rooms, app.state.limits)
    app.state.now = now or time.time
    app.state.players = Players(rooms.sessions)
    app.state.accounts = Accounts(rooms.sessions, settings.session_days)
    ratings.install(rooms, time.time)
    app.state.daily = DailyService(
        rooms,
        app.state.players,
        load_secret(rooms.sessions, settings.daily_secret),
        lambda: float(app.state.now()),
        settings.daily_guest_ranked,
    )

    @app.exception_handler(RoomError)
    async def room_error(_: Request, exc: RoomError) -> JSONResponse:
        return JSONResponse(
            {"error": exc.message, "reason": exc.reason},
            status_code=exc.status,
            headers=exc.headers,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"error": validation_message(exc.errors()), "reason": "bad-request"}, status_code=400
        )

    @app.exception_handler(Exception)
    async def server_error(_: Request, exc: Exception) -> JSONResponse:
        # answered by the outermost middleware, outside SecurityHeaders: the headers go here
        return JSONResponse(
            {"error": "the server failed on this request", "reason": "server-error"},
            status_code=500,
            headers=SECURITY_HEADERS,
        )

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        status = exc.status_code if 400 <= exc.status_code < 500 else 400
        reason = REASONS.get(status, "bad-request")
        return JSONResponse({"error": str(exc.detail), "reason": reason}, status_code=status)

    app.include_router(api.router)
    app.include_router(daily_api.router)
    app.include_router(score_api.router)
    app.include_router(accounts_api.router)
    app.include_router(ratings_api.router)
    app.include_router(chat_api.router)
    app.include_router(ws.router)
    index = static_dir() / "index.html"

    @app.get("/r/{room}", include_in_schema=False)
    async def room_page(room: str) -> Response:
        if index.is_file():
            return FileResponse(index)
        return HTMLResponse(PLACEHOLDER)

    app.mount("/", StaticFiles(directory=static_dir(), html=True, check_dir=False), name="static")
    return app


_PLACES = {"query": "query parameter", "path": "path parameter", "body": "body", "header": "header"}


def validation_message(errors: Sequence[Any]) -> str:
    """A refusal naming each bad parameter and what is wrong with it (at most three), e.g.
    ``query parameter limit: Input should be a valid integer``; never the input itself nor
    where in the server's code it was checked."""
    parts = []
    for error in list(errors)[:3]:
        loc = [str(x)[:40] for x in error.get("loc", ())]
        place = _PLACES.get(loc[0], loc[0]) if loc else "request"
        name = ".".join(loc[1:])
        parts.append(f"{place} {name}: {error.get('msg', 'invalid')}".replace(" :", ":"))
    return "; ".join(parts) or "the request is not valid"
