"""The FastAPI application: routes, error bodies, static client, database at start.

:func:`create_app` builds the app for :class:`~metrogames.web.config.Settings`: it opens the
database and applies the migrations, serves ``/api`` (:mod:`.api`; the daily challenge:
:mod:`.daily_api`), ``/ws`` (:mod:`.ws`) and the browser client in ``static/`` at ``/``
(``/r/{room}`` is the same page).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from metrogames.web import api, daily_api, ws
from metrogames.web.checks import RoomError
from metrogames.web.config import Settings
from metrogames.web.daily import DailyService, load_secret
from metrogames.web.db import migrate, open_database
from metrogames.web.players import Players
from metrogames.web.rooms import RoomService

PLACEHOLDER = "<!doctype html><title>metrogames</title><p>The browser client is not installed."
REASONS = {
    400: "bad-request",
    401: "bad-token",
    403: "bad-token",
    404: "not-found",
    413: "too-large",
}


def static_dir() -> Path:
    """The folder of the browser client (``index.html``, scripts, styles)."""
    return Path(str(resources.files("metrogames.web").joinpath("static")))


def create_app(settings: Settings | None = None, now: Callable[[], float] | None = None) -> FastAPI:
    """The web table for ``settings`` (default: from the environment), database migrated.

    ``now`` is the daily challenge's clock (epoch seconds; default :func:`time.time`), kept in
    ``app.state.now`` and read at each use, so tests can move time by replacing it.
    """
    settings = settings or Settings()
    engine = open_database(settings.db)
    migrate(engine)
    app = FastAPI(title="metrogames", docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.settings = settings
    app.state.rooms = rooms = RoomService(settings, engine)
    app.state.now = now or time.time
    app.state.players = Players(rooms.sessions)
    app.state.daily = DailyService(
        rooms,
        app.state.players,
        load_secret(rooms.sessions, settings.daily_secret),
        lambda: float(app.state.now()),
    )

    @app.exception_handler(RoomError)
    async def room_error(_: Request, exc: RoomError) -> JSONResponse:
        return JSONResponse({"error": exc.message, "reason": exc.reason}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": str(exc)[:300], "reason": "bad-request"}, status_code=400)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        status = exc.status_code if 400 <= exc.status_code < 500 else 400
        reason = REASONS.get(status, "bad-request")
        return JSONResponse({"error": str(exc.detail), "reason": reason}, status_code=status)

    app.include_router(api.router)
    app.include_router(daily_api.router)
    app.include_router(ws.router)
    index = static_dir() / "index.html"

    @app.get("/r/{room}", include_in_schema=False)
    async def room_page(room: str) -> Response:
        if index.is_file():
            return FileResponse(index)
        return HTMLResponse(PLACEHOLDER)

    app.mount("/", StaticFiles(directory=static_dir(), html=True, check_dir=False), name="static")
    return app
