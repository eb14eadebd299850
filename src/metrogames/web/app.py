"""The FastAPI application: routes, error bodies, security headers, static client, database
at start, rooms resumed and idle rooms evicted while it runs.

:func:`create_app` builds the app for :class:`~metrogames.web.infra.config.Settings`: it opens the
database and applies the migrations, serves ``/api`` (:mod:`.api`; the daily challenge:
:mod:`~metrogames.web.api.daily`; score sheets: :mod:`~metrogames.web.api.score`), ``/ws`` (:mod:`~metrogames.web.api.ws`) and the browser
client in ``static/`` at ``/`` (``/r/{room}`` is the same page); accounts and sessions:
:mod:`~metrogames.web.api.accounts`; ratings of online play: :mod:`.ratings` and :mod:`~metrogames.web.api.ratings`; the table chat of online rooms:
:mod:`.chat` and :mod:`~metrogames.web.api.chat`; the lobby of open tables: :mod:`.lobby` and
:mod:`~metrogames.web.api.lobby`; now playing: :mod:`.watch` and :mod:`~metrogames.web.api.watch`;
bot accounts, their tokens, invitations and streams:
:mod:`~metrogames.web.api.bots` (account events across workers: :mod:`~metrogames.web.infra.events`, on
the worker's one pub/sub hub, :mod:`~metrogames.web.infra.pubsub`, which the lobby shares); friends,
blocks and invitations between people: :mod:`~metrogames.web.api.friends` (blocks also plugged into
play now's pairing and the table chat); ``/metrics`` and ``/api/health``: :mod:`~metrogames.web.api.ops`; log lines
carry a request id (:mod:`~metrogames.web.infra.logs`); attempts at an account's password back off
(:mod:`~metrogames.web.accounts.backoff`). Every
response carries :data:`SECURITY_HEADERS`: the page
runs only the site's own scripts and styles and cannot be framed. Requests that change
something come from the site's own pages only (:mod:`~metrogames.web.infra.csrf`). A request the server fails
to carry out (e.g. the database fails) is a 500 ``{"error", "reason": "server-error"}``.
While the app runs (its lifespan), the rooms whose clock runs or whose bots are due are resumed
(:meth:`~metrogames.web.rooms.service.RoomService.resume`) and idle rooms leave memory
(:meth:`~metrogames.web.rooms.service.RoomService.evict_idle`). Client addresses come from
``X-Forwarded-For`` only for the configured trusted proxies (uvicorn's proxy-headers
middleware); they are what the creation rate limits count (:mod:`~metrogames.web.infra.ratelimit`).
With ``METROGAMES_REDIS_URL`` set, ``app.state.redis`` is the shared Redis client
(redis.asyncio; else ``None``): rate limits are counted there, and while the app runs it
listens to the other workers' room changes and chat messages and takes over rooms nobody runs
(:mod:`~metrogames.web.infra.cluster`). A request the database cannot serve because it is unreachable is a 503
``{"error", "reason": "unavailable"}``, never a 500. Heavy work — hints, searching bots,
analyses, replays, the daily expert, passwords — runs in job workers, never in this process
(``app.state.jobs``: :mod:`~metrogames.web.infra.jobs`); at shutdown its queued jobs are dropped and its running
ones stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from redis.exceptions import RedisError
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from metrogames.games import game_names, game_type, load_plugins
from metrogames.i18n import N_, join, msg
from metrogames.i18n import Message as I18nMessage
from metrogames.web.accounts.backoff import SignInBackoff
from metrogames.web.accounts.bots import BotAccounts
from metrogames.web.accounts.friends import Friends
from metrogames.web.accounts.invitations import Invitations
from metrogames.web.accounts.maps import SavedMaps
from metrogames.web.accounts.players import Players
from metrogames.web.accounts.service import Accounts
from metrogames.web.api import accounts as accounts_api
from metrogames.web.api import bots as bots_api
from metrogames.web.api import chat as chat_api
from metrogames.web.api import daily as daily_api
from metrogames.web.api import exports as exports_api
from metrogames.web.api import friends as friends_api
from metrogames.web.api import lobby as lobby_api
from metrogames.web.api import maps as maps_api
from metrogames.web.api import ops, quickmatch, ws
from metrogames.web.api import ratings as ratings_api
from metrogames.web.api import rooms as api
from metrogames.web.api import score as score_api
from metrogames.web.api import watch as watch_api
from metrogames.web.api.bodies import problem_of
from metrogames.web.chat.service import Chat
from metrogames.web.daily.rules import DailyRules, load_secret
from metrogames.web.daily.service import DailyService
from metrogames.web.errors import RoomError
from metrogames.web.exports.service import Exports, export_secret
from metrogames.web.infra.cluster import Cluster, connect
from metrogames.web.infra.config import Settings
from metrogames.web.infra.csrf import SameSite, parse_origins
from metrogames.web.infra.db import (
    UNAVAILABLE,
    Checkpoints,
    migrate,
    open_database,
    session_factory,
    unavailable,
)
from metrogames.web.infra.events import AccountEvents
from metrogames.web.infra.flood import Flood
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.language import connection_gettext
from metrogames.web.infra.logs import RequestIds
from metrogames.web.infra.metrics import sample, watch_lag, worker_gone
from metrogames.web.infra.pubsub import Hub
from metrogames.web.infra.ratelimit import RateLimits
from metrogames.web.infra.sockets import SocketCap, Tarpit, Told
from metrogames.web.lobby.hub import Lobby
from metrogames.web.matchmaking.blocks import block_pairing
from metrogames.web.matchmaking.queue import MemoryQueue
from metrogames.web.matchmaking.redisqueue import RedisQueue
from metrogames.web.matchmaking.service import Matchmaker, bot_seated
from metrogames.web.ratings.service import Rater
from metrogames.web.rooms.service import TAKEOVER_SECONDS, RoomService
from metrogames.web.rooms.views import ViewCache
from metrogames.web.watch.hub import Watch
from metrogames.web.work import WORK

log = logging.getLogger(__name__)
SHUTDOWN_STEP = 10.0
"""Seconds a worker waits for each part of its shutdown (:func:`bounded`)."""
PLACEHOLDER = "<!doctype html><title>metrogames</title><p>The browser client is not installed."
REASONS = {
    400: "bad-request",
    401: "bad-token",
    403: "bad-token",
    404: "not-found",
    413: "too-large",
}
REDIS_UNAVAILABLE = RoomError(
    503,
    "unavailable",
    msg(N_("the workers' shared store cannot be reached for a moment: try again")),
    headers={"Retry-After": "2"},
)
"""A request that needed Redis while it did not answer (play now's queue)."""
HTTP_TEXTS = {
    404: N_("there is no such page or API route"),
    405: N_("this API route does not take that method"),
}
"""The router's own refusals (an unknown path, a wrong method), in words a player reads."""
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


async def take_over(rooms: RoomService, cluster: Cluster) -> None:
    """With several workers: say this worker is alive, take over the rooms nobody runs and
    stop counting the sockets of workers gone silent, every few seconds."""
    while True:
        await cluster.alive()
        await asyncio.sleep(TAKEOVER_SECONDS)
        await rooms.sync.forget_departed()
        try:
            await rooms.take_over()
        except Exception as exc:  # e.g. the database is down: next time
            if not unavailable(exc):
                raise


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """While the app runs: resume the rooms that need it, evict idle ones, checkpoint a SQLite
    file's log (:class:`~metrogames.web.infra.db.Checkpoints`); at the end, stop
    the rooms' clocks and bots and the daily expert's games, and close the connections. Every game's modules are
    imported, and the heavy jobs' processes started (``METROGAMES_JOB_WARM``), before the
    first request (not by the first room of each game, or the first hint, under load)."""
    for name in game_names():
        game_type(name)
    if app.state.settings.job_warm:
        app.state.jobs.warm()
    rooms: RoomService = app.state.rooms
    checkpoints: Checkpoints = app.state.checkpoints
    checkpoints.start()
    tasks = [asyncio.create_task(rooms.resume()), asyncio.create_task(sweep(rooms))]
    tasks.append(asyncio.create_task(sample(lambda: len(rooms.tables))))
    tasks.append(asyncio.create_task(watch_lag()))
    lobby: Lobby = app.state.lobby
    tasks.append(asyncio.create_task(lobby.run()))
    watch: Watch = app.state.watch
    tasks.append(asyncio.create_task(watch.run()))
    matchmaker: Matchmaker = app.state.matchmaker
    tasks.append(asyncio.create_task(matchmaker.run()))
    hub: Hub = app.state.hub
    tasks.append(asyncio.create_task(hub.run()))
    if rooms.cluster is not None:
        chat: Chat = app.state.chat

        def reconnected() -> None:
            rooms.sync.all_changed()
            lobby.wake()

        listen = rooms.cluster.listen(
            rooms.sync.room_changed,
            chat.deliver,
            reconnected,
            rooms.sync.presence_changed,
        )
        tasks += [asyncio.create_task(listen), asyncio.create_task(take_over(rooms, rooms.cluster))]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await bounded("the background tasks", asyncio.gather(*tasks, return_exceptions=True))
        await bounded("the rooms' clocks and bots", rooms.stop())
        await bounded("the daily expert's games", app.state.daily.stop())
        await bounded("the heavy jobs", app.state.jobs.close())
        worker_gone()
        if app.state.redis is not None:
            await bounded("the Redis connections", app.state.redis.aclose())
        await bounded("the database connections", asyncio.to_thread(rooms.store.close))
        await bounded("the log's last checkpoint", asyncio.to_thread(checkpoints.stop))


async def bounded(what: str, step: Awaitable[object]) -> None:
    """Wait for a step of the shutdown at most :data:`SHUTDOWN_STEP` seconds (then log it,
    naming ``what``, and go on: a stopping server never hangs on one of its parts)."""
    try:
        await asyncio.wait_for(step, SHUTDOWN_STEP)
    except TimeoutError:
        log.warning("shutdown: %s did not stop within %g s; going on", what, SHUTDOWN_STEP)


def create_app(settings: Settings | None = None, now: Callable[[], float] | None = None) -> FastAPI:
    """The web table for ``settings`` (default: from the environment), database migrated, the
    plug-in games of ``settings.games`` registered.

    Raises:
        PluginError: a plug-in game of ``settings.games`` that cannot be loaded.

    ``now`` is the daily challenge's clock (epoch seconds; default :func:`time.time`), kept in
    ``app.state.now`` and read at each use, so tests can move time by replacing it.
    """
    settings = settings or Settings()
    load_plugins(settings.games.split(","))  # PluginError naming the target
    engine = open_database(settings.db, background_checkpoints=True)
    migrate(engine)
    # no interactive docs page: it would run scripts from elsewhere (the schema stays served)
    app = FastAPI(
        title="metrogames",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.add_middleware(SameSite, allowed=parse_origins(settings.allowed_origins))
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestIds)
    if settings.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    app.state.now = now or time.time
    _add_services(app, settings, engine)
    _add_error_handlers(app)
    _add_routes(app)
    return app


def _add_services(app: FastAPI, settings: Settings, engine: Engine) -> None:
    """The app's services in ``app.state``: limits, sockets, jobs, rooms (with the ratings and
    the daily rules listening), chat, views, players, accounts, sign-in back-off, daily,
    exports."""
    app.state.settings = settings
    app.state.checkpoints = Checkpoints(engine)
    app.state.limits = RateLimits(settings)
    app.state.sockets = SocketCap(settings.ws_per_address, app.state.limits.exempted)
    app.state.told = Told(tarpit=Tarpit(settings.denial_seconds))
    app.state.flood = Flood(settings.socket_rate, settings.socket_burst)
    app.state.redis = connect(settings.redis_url) if settings.redis_url else None
    app.state.jobs = Jobs(settings, WORK, app.state.redis)
    cluster = None if app.state.redis is None else Cluster(app.state.redis)
    app.state.hub = Hub(app.state.redis)
    app.state.lobby = Lobby(settings, session_factory(engine), cluster, app.state.hub)
    # the daily rules read app.state.now at each use (tests move time by replacing it)
    daily_rules = DailyRules(
        load_secret(session_factory(engine), settings.daily_secret),
        lambda: float(app.state.now()),
    )
    app.state.rooms = rooms = RoomService(
        settings,
        engine,
        app.state.jobs,
        cluster=cluster,
        listeners=(Rater(time.time), daily_rules),
        rules=daily_rules,
        watchers=(app.state.lobby,),
    )
    app.state.watch = Watch(rooms.sessions, cluster, rooms.tables, settings.lobby_queue)
    app.state.friends = friends = Friends(rooms.sessions)
    app.state.chat = Chat(rooms, app.state.limits, friends.blocked_at_table)
    queue = MemoryQueue() if app.state.redis is None else RedisQueue(app.state.redis)
    app.state.events = AccountEvents(app.state.hub)
    app.state.matchmaker = Matchmaker(
        settings, rooms, queue, block_pairing(friends), on_seated=bot_seated(app.state.events)
    )
    app.state.views = ViewCache()
    app.state.players = Players(rooms.sessions)
    app.state.accounts = Accounts(rooms.sessions, settings.session_days, jobs=app.state.jobs)
    app.state.saved_maps = SavedMaps(rooms.sessions)
    app.state.bots = BotAccounts(rooms.sessions)
    app.state.invitations = Invitations(rooms.sessions)
    app.state.backoff = SignInBackoff(
        app.state.redis,
        settings.signin_free,
        settings.signin_backoff,
        max(settings.signin_backoff, settings.signin_backoff_cap),
    )
    app.state.daily = DailyService(
        rooms, app.state.players, daily_rules, settings.daily_guest_ranked
    )
    app.state.exports = Exports(
        rooms.sessions, export_secret(rooms.sessions, settings.export_secret), settings.db
    )


async def _room_error(request: Request, exc: RoomError) -> JSONResponse:
    return JSONResponse(
        exc.body(connection_gettext(request)),
        status_code=exc.status,
        headers=exc.headers,
    )


async def _database_error(request: Request, exc: DBAPIError) -> JSONResponse:
    if not unavailable(exc):
        raise exc  # a bug, not an outage: the 500 of _server_error (and its trace logged)
    return await _room_error(request, UNAVAILABLE)


async def _redis_error(request: Request, exc: RedisError) -> JSONResponse:
    # Redis (several workers' shared queue of play now) failed a moment: nothing was done
    return await _room_error(request, REDIS_UNAVAILABLE)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    text = validation_message(exc.errors()).render(connection_gettext(request))
    return JSONResponse({"error": text, "reason": "bad-request"}, status_code=400)


async def _client_gone(request: Request, exc: ClientDisconnect) -> Response:
    # the client left before its body arrived: nobody to answer, no server error to log
    return Response(status_code=400)


async def _server_error(request: Request, exc: Exception) -> JSONResponse:
    # answered by the outermost middleware, outside SecurityHeaders: the headers go here
    text = connection_gettext(request)(N_("the server failed on this request"))
    return JSONResponse(
        {"error": text, "reason": "server-error"},
        status_code=500,
        headers=SECURITY_HEADERS,
    )


async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    status = exc.status_code if 400 <= exc.status_code < 500 else 400
    reason = REASONS.get(status, "bad-request")
    known = HTTP_TEXTS.get(exc.status_code)
    text = connection_gettext(request)(known) if known else str(exc.detail)
    return JSONResponse({"error": text, "reason": reason}, status_code=status)


def _add_error_handlers(app: FastAPI) -> None:
    """Every refusal and failure answered as ``{"error", "reason"}`` JSON in the client's
    language (``docs/web-api.md``, "Errors")."""
    app.add_exception_handler(RoomError, _room_error)  # type: ignore[arg-type]
    app.add_exception_handler(DBAPIError, _database_error)  # type: ignore[arg-type]
    app.add_exception_handler(RedisError, _redis_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(ClientDisconnect, _client_gone)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _server_error)
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]


def _add_routes(app: FastAPI) -> None:
    """The API's routers, the room page (``/r/{room}``) and the browser client."""
    for router in (
        api.router,
        daily_api.router,
        score_api.router,
        maps_api.router,
        accounts_api.router,
        bots_api.router,
        friends_api.router,
        ratings_api.router,
        chat_api.router,
        lobby_api.router,
        watch_api.router,
        quickmatch.router,
        exports_api.router,
        ws.router,
        ops.router,
    ):
        app.include_router(router)
    index = static_dir() / "index.html"

    @app.get("/r/{room}", include_in_schema=False)
    async def room_page(room: str) -> Response:
        if index.is_file():
            return FileResponse(index)
        return HTMLResponse(PLACEHOLDER)

    app.mount("/", StaticFiles(directory=static_dir(), html=True, check_dir=False), name="static")


_PLACES = {
    "query": N_("query parameter"),
    "path": N_("path parameter"),
    "body": N_("body"),
    "header": N_("header"),
}


def validation_message(errors: Sequence[Mapping[str, object]]) -> I18nMessage:
    """A refusal naming each bad parameter and what is wrong with it (at most three), e.g.
    ``query parameter limit: should be a whole number``, translatable; never the input itself
    nor where in the server's code it was checked. ``errors``: pydantic's (FastAPI's
    ``RequestValidationError.errors()``), each with ``loc``, ``type`` and maybe ``ctx``."""
    parts = []
    for error in list(errors)[:3]:
        where, ctx = error.get("loc", ()), error.get("ctx")
        loc = [str(x)[:40] for x in where] if isinstance(where, list | tuple) else []
        place = I18nMessage(_PLACES.get(loc[0], loc[0]) if loc else N_("request"))
        detail = ctx.get("error") if isinstance(ctx, Mapping) else None
        rule = problem_of(str(error.get("type", "")), detail)
        name = ".".join(loc[1:])
        if name:
            parts.append(msg(N_("{place} {name}: {rule}"), place=place, name=name, rule=rule))
        else:
            parts.append(msg(N_("{place}: {rule}"), place=place, rule=rule))
    return join(parts, "; ") if parts else msg(N_("the request is not valid"))
