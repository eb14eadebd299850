"""``POST /api/maps/check``: a custom Next Station map checked (``docs/web-api.md``, "Maps"):
the map studio's live check.

The body is a map exactly as ``metrogames map check`` reads it (``docs/maps.md``); the answer
is the ``map check --json`` report, ``{"valid", "problems", "counts", "hash"}``. Bodies are
bounded (:data:`MAP_LIMIT`), each client address may have
:attr:`~metrogames.web.infra.config.Settings.rate_maps` maps checked (429 ``rate-limited``).
Checking a map of the size limit takes tens of milliseconds (London's, 17 kB, about 4 ms:
``docs/performance.md``), so it runs as a heavy job (``mapcheck``, kept by the map's content:
the same map is checked once), never on the event loop.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Annotated, cast

from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field, RootModel

from metrogames.core.protocol import JsonValue
from metrogames.web.api.bodies import MAX_KEYS, Json
from metrogames.web.api.common import charge, read_body
from metrogames.web.api.jobs import requester, while_connected
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.jobs.shapes import MapCheckJob

router = APIRouter(prefix="/api")

MAP_LIMIT = 64 * 1024
"""The largest map body (bytes): London's file is about 17 kB."""


class MapBody(RootModel[Annotated[dict[str, Json], Field(max_length=MAX_KEYS)]]):
    """``POST /api/maps/check``: a decoded map (checked by the game's engine)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)


def map_key(data: object) -> str:
    """The job key of a map: ``mapcheck:`` and the SHA-256 of its canonical JSON."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "mapcheck:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


async def checked(request: Request, data: dict[str, object]) -> Mapping[str, object]:
    """The checker's report on ``data``, as a heavy job for the request's requesters (given
    up when the client leaves)."""
    jobs: Jobs = request.app.state.jobs
    payload: MapCheckJob = {"map": cast(JsonValue, data)}  # decoded JSON (the body's model)
    job = jobs.run("mapcheck", payload, key=map_key(data), who=await requester(request))
    return await while_connected(request, job)


@router.post("/maps/check")
async def post_map_check(request: Request) -> Mapping[str, object]:
    """Check a map: ``{"valid", "problems", "counts", "hash"}``."""
    data = (await read_body(request, MapBody, "a map", MAP_LIMIT)).root
    await charge(request, "maps")
    return await checked(request, dict(data))
