"""For operators: ``GET /metrics`` (:mod:`~metrogames.web.infra.metrics`) and ``GET /api/health``.

``GET /api/health`` answers whether this worker's database and Redis answer, within
:data:`HEALTH_TIMEOUT` seconds each::

    {"status": "ok" | "error", "database": "ok" | "error: ...",
     "redis": "ok" | "not configured" | "error: ...", "worker": pid, "rooms": n}

with status 200 when every configured part answers, else 503 (a load balancer takes the worker
out). Redis is the client at ``app.state.redis`` (``METROGAMES_REDIS_URL``; ``None``: not
configured). Neither answer is cached.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import Engine, text

from metrogames.web.infra import metrics
from metrogames.web.rooms.service import RoomService

HEALTH_TIMEOUT = 2.0
"""Seconds the database and Redis each have to answer a health check."""
NO_STORE = {"Cache-Control": "no-store"}

router = APIRouter()


def _ping_database(engine: Engine) -> None:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def _failure(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return f"error: no answer within {HEALTH_TIMEOUT:g} s"
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"error: {type(exc).__name__}: {first}".rstrip(": ")


async def _check(probe: Awaitable[object]) -> str:
    try:
        await asyncio.wait_for(probe, HEALTH_TIMEOUT)
    except Exception as exc:
        return _failure(exc)
    return "ok"


@router.get("/api/health")
async def health(request: Request) -> JSONResponse:
    """Whether the database and Redis answer (see the module docstring)."""
    rooms: RoomService = request.app.state.rooms
    database = await _check(asyncio.to_thread(_ping_database, rooms.store.engine))
    client = getattr(request.app.state, "redis", None)
    redis = "not configured" if client is None else await _check(client.ping())
    ok = database == "ok" and redis in ("ok", "not configured")
    body = {
        "status": "ok" if ok else "error",
        "database": database,
        "redis": redis,
        "worker": os.getpid(),
        "rooms": len(rooms.tables),
    }
    return JSONResponse(body, status_code=200 if ok else 503, headers=NO_STORE)


@router.get("/metrics", include_in_schema=False)
async def get_metrics(request: Request) -> Response:
    """The metrics in Prometheus' text format (:mod:`~metrogames.web.infra.metrics`)."""
    rooms: RoomService = request.app.state.rooms
    metrics.sample_rooms(len(rooms.tables))
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type, headers=NO_STORE)
