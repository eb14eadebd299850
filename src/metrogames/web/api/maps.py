"""Custom Next Station maps (``docs/web-api.md``, "Maps"): ``POST /api/maps/check`` (the map
studio's live check), ``POST /api/maps/report`` (its report panel: a few solo bot games on the
map beside London and Paris, the ``mapreport`` heavy job), an account's saved maps (``POST /api/maps``, ``GET /api/maps``) and a
stored map by its hash (``GET /api/maps/{hash}``).

The body is a map exactly as ``metrogames map check`` reads it (``docs/maps.md``); the answer
is the ``map check --json`` report, ``{"valid", "problems", "codes", "counts", "hash"}``, its
problems in the request's language (the job's answer is the same in every language: its
messages are translated here, after the cache). Bodies are
bounded (:data:`MAP_LIMIT`), each client address may have
:attr:`~metrogames.web.infra.config.Settings.rate_maps` maps checked (429 ``rate-limited``).
Checking a map near the size limit takes most of a second (London's, 17 kB, about 4 ms; a
29 kB map of 600 links about 0.3 s: ``docs/performance.md``), so it runs as a heavy job
(``mapcheck``, kept by the map's content: the same map is checked once), never on the event
loop; a room on a map is made from the job's report (:func:`precheck`).
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Mapping
from typing import Annotated, cast

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ConfigDict, Field, RootModel

from metrogames.core.capabilities import MapChecks
from metrogames.core.errors import DataError
from metrogames.core.protocol import JsonValue
from metrogames.games import game_engine, game_names, game_type
from metrogames.i18n import N_, Message, join, msg, verbatim
from metrogames.web.accounts.maps import SavedMaps
from metrogames.web.api.accounts import account_of
from metrogames.web.api.bodies import MAX_KEYS, Json, RoomBody
from metrogames.web.api.common import charge, read_body
from metrogames.web.api.jobs import requester, while_connected
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.jobs.shapes import (
    MapCheckAnswer,
    MapCheckJob,
    MapReportAnswer,
    MapReportJob,
)
from metrogames.web.infra.language import connection_gettext
from metrogames.web.rooms.boards import map_game, map_key
from metrogames.web.rooms.mapreports import LEVELS

router = APIRouter(prefix="/api")

MAP_LIMIT = 64 * 1024
"""The largest map body (bytes): London's file is about 17 kB."""
HASH = re.compile(r"sha256:[0-9a-f]{64}")
"""A content hash (``docs/maps.md``, "Content hash")."""


class MapBody(RootModel[Annotated[dict[str, Json], Field(max_length=MAX_KEYS)]]):
    """``POST /api/maps/check``: a decoded map (checked by the game's engine)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)


async def checked(request: Request, data: Mapping[str, object]) -> MapCheckAnswer:
    """The checker's report on ``data``, as a heavy job for the request's requesters (given
    up when the client leaves)."""
    jobs: Jobs = request.app.state.jobs
    payload: MapCheckJob = {"map": cast(JsonValue, data)}  # decoded JSON (the body's model)
    job = jobs.run("mapcheck", payload, key=map_key(data), who=await requester(request))
    return await while_connected(request, job)


async def precheck(request: Request, body: RoomBody) -> None:
    """Before a room of the game of custom maps is made: its ``map`` option checked as a heavy
    job (the studio's check of the same map is a cache hit), then kept by the engine without
    checking it again (``MapChecks.adopt_map``), so the serving process only builds the
    map's geometry. Other rooms: nothing.

    Raises:
        RoomError: 400 ``bad-request`` listing every problem of an invalid map (nothing is
            stored); the job's refusals (429, 503).
    """
    game = map_game()
    data = (body.options or {}).get("map")
    if game is None or body.game != game or not isinstance(data, dict):
        return  # no map, or not an object: the engine's own refusal names it
    engine = game_engine(game)
    if not isinstance(engine, MapChecks):  # map_game() names an engine that checks maps
        return
    report = await checked(request, data)
    if report.get("valid") is not True:
        detail = msg(
            N_("{game} options: invalid map: {problems}"), game=game, problems=listed(report)
        )
        raise bad_request(msg(N_("a room: options: {detail}"), detail=detail))
    try:
        engine.adopt_map(data, report)
    except DataError as exc:
        raise bad_request(msg(N_("a room: options: {detail}"), detail=str(exc))) from None


@router.post("/maps/check")
async def post_map_check(request: Request) -> Mapping[str, object]:
    """Check a map: ``{"valid", "problems", "codes", "counts", "hash"}``, the problems in the
    request's language (``docs/web-api.md``, "Errors": the ``lang`` cookie, else
    ``Accept-Language``, else English)."""
    data = (await read_body(request, MapBody, "a map", MAP_LIMIT)).root
    await charge(request, "maps")
    report = await checked(request, dict(data))
    gettext = connection_gettext(request)
    return {
        "valid": report.get("valid") is True,
        "problems": [p.render(gettext) for p in problem_messages(report)],
        "codes": report.get("codes", []),
        "counts": report.get("counts", {}),
        "hash": report.get("hash"),
    }


def problem_messages(report: Mapping[str, object]) -> list[Message]:
    """The problems of a ``mapcheck`` report as translatable messages (each of its
    ``messages``; a problem without one is its English text, as it is)."""
    problems, messages = report.get("problems"), report.get("messages")
    english = [str(p) for p in problems] if isinstance(problems, list) else []
    found = messages if isinstance(messages, list) else []
    return [
        (Message.from_json(found[i]) if i < len(found) else None) or verbatim(text)
        for i, text in enumerate(english)
    ]


def listed(report: Mapping[str, object]) -> Message:
    """The problems of a report, ``; ``-separated, in the reader's language once rendered."""
    return join(problem_messages(report), "; ")


@router.post("/maps/report")
async def post_map_report(request: Request) -> Mapping[str, object]:
    """How a map plays (``docs/web-api.md``, "Maps"): ``{"deals", "levels", "maps": [{"game",
    "levels"}], "stations", "links"}`` — the map first (``game`` the game of custom maps),
    then each city of its family (London, Paris), each a ``mapreport`` heavy job kept by its
    content (the cities' computed once); given up when the client leaves.

    Raises:
        RoomError: 400 ``bad-request`` for an invalid map (every problem listed); 429 over the
            ``maps`` or, for a report not yet computed, the ``map_reports`` limit.
    """
    data = dict((await read_body(request, MapBody, "a map", MAP_LIMIT)).root)
    await charge(request, "maps")
    report = await checked(request, data)
    if report.get("valid") is not True:
        raise bad_request(msg(N_("a map report: invalid map: {problems}"), problems=listed(report)))
    game = map_game()
    assert game is not None  # a valid report comes from the engine of custom maps
    who = await requester(request)
    jobs: Jobs = request.app.state.jobs
    reports = [(game, {"map": cast(JsonValue, data)}, "mapreport:" + str(report.get("hash")))]
    reports += [(city, {}, f"mapreport:{city}") for city in family(game)]

    async def each() -> list[MapReportAnswer]:
        out: list[MapReportAnswer] = []
        for name, options, key in reports:  # one at a time: one job of the requester's quota
            job: MapReportJob = {"game": name, "options": options}
            start = functools.partial(charge, request, "map_reports")
            out.append(await jobs.run("mapreport", job, key=key, who=who, on_start=start))
        return out

    found = await while_connected(request, each())
    mine = found[0]
    return {
        "deals": mine.get("deals"),
        "levels": list(LEVELS),
        "maps": [
            {"game": name, "levels": answer.get("levels")}
            for (name, _, _), answer in zip(reports, found, strict=True)
        ],
        "stations": mine.get("stations"),
        "links": mine.get("links"),
    }


def family(game: str) -> list[str]:
    """The listed games of ``game``'s family (for the game of custom maps: London, Paris)."""
    kind = game_type(game).family
    return [name for name in game_names() if game_type(name).family == kind]


@router.post("/maps", status_code=201)
async def post_map(request: Request) -> Mapping[str, object]:
    """Save a map for the signed-in account: ``{"hash", "title", "bytes", "saved"}`` (401
    ``bad-session`` signed out; 400 ``bad-request`` listing an invalid map's problems)."""
    account = await account_of(request)
    data = (await read_body(request, MapBody, "a map", MAP_LIMIT)).root
    await charge(request, "maps")
    report = await checked(request, data)
    if report.get("valid") is not True:
        raise bad_request(msg(N_("a map: invalid map: {problems}"), problems=listed(report)))
    title = data.get("title")
    saved = await asyncio.to_thread(
        saved_maps(request).save, account.id, dict(data), title if isinstance(title, str) else ""
    )
    return saved.to_json()


@router.get("/maps")
async def get_maps(request: Request) -> Mapping[str, object]:
    """The signed-in account's saved maps: ``{"maps": [{"hash", "title", "bytes", "saved"}]}``."""
    account = await account_of(request)
    found = await asyncio.to_thread(saved_maps(request).listed, account.id)
    return {"maps": [m.to_json() for m in found]}


@router.get("/maps/{digest}")
async def get_map(digest: str, request: Request) -> Response:
    """A stored map's text, exactly as stored (its content hash is ``digest``); 404
    ``not-found`` for any other."""
    if not HASH.fullmatch(digest):
        raise RoomError(404, "not-found", "no such map")
    text = await asyncio.to_thread(saved_maps(request).text, digest)
    if text is None:
        raise RoomError(404, "not-found", "no such map")
    return Response(text, media_type="application/json")


def saved_maps(request: Request) -> SavedMaps:
    """The app's saved maps (:mod:`metrogames.web.accounts.maps`)."""
    found: SavedMaps = request.app.state.saved_maps
    return found
