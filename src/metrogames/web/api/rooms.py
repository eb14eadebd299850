"""The HTTP routes of ``docs/web-api.md``: games and boards, rooms, playing, records, replays.

Bodies are read bounded (64 KiB; records 1 MiB) and parsed into their declared models
(:func:`.common.read_body`, :mod:`.bodies`) so that every refusal is a 4xx ``{"error",
"reason"}`` naming the field (400 ``bad-request``, never 422). The work is done by
:class:`~metrogames.web.rooms.service.RoomService`; hints, analyses and replays are heavy jobs
(:mod:`metrogames.web.infra.jobs`: out of this process, refused when their queue or the requester's
quota is full, given up when the client leaves).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from metrogames.core.protocol import JsonValue
from metrogames.i18n import N_
from metrogames.web.api.bodies import (
    ActionBody,
    HandoverBody,
    HintBody,
    JoinBody,
    NoBody,
    Record,
    RoomBody,
)
from metrogames.web.api.common import (
    RECORD_LIMIT,
    SeatNumber,
    bearer,
    charge,
    claimer,
    flood,
    read_body,
    service,
)
from metrogames.web.api.jobs import requester, while_connected
from metrogames.web.api.maps import precheck
from metrogames.web.daily.open_deals import OpenDeals
from metrogames.web.daily.service import DailyService
from metrogames.web.errors import RoomError
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.jobs.shapes import ReplayJob
from metrogames.web.infra.language import connection_gettext
from metrogames.web.infra.metrics import ROUND_TRIP, child
from metrogames.web.infra.ratelimit import client_key
from metrogames.web.rooms.analyses import analysis_job, personalised
from metrogames.web.rooms.boards import board, games_list, room_board
from metrogames.web.rooms.views import RoomSummary, move_log

router = APIRouter(prefix="/api")
# A route's return annotation is its response model: FastAPI builds it (and /api/openapi.json)
# with pydantic, which cannot follow the recursive JsonValue, so a free JSON answer is a
# Mapping[str, object] there (a free object in the document, as before; a JsonObject
# or a typed dict is one); the room core's functions behind them give JsonObject.


@router.get("/games")
async def get_games(request: Request) -> Sequence[Mapping[str, object]]:
    """Every game with its title, player counts, options and bots (the bots' figures in the
    request's language)."""
    return games_list(connection_gettext(request))


@router.get("/games/{game}/board")
async def get_board(game: str) -> Mapping[str, object]:
    """The drawing data of ``game`` (404 ``not-found`` for an unknown game)."""
    data = board(game)
    if data is None:
        raise RoomError(404, "not-found", f"no game {game[:20]!r}")
    return data


@router.post("/rooms", status_code=201)
async def create_room(request: Request) -> Mapping[str, object]:
    """Create a room: ``{"room": <summary>, "tokens": {seat: token}, "host_token"}``."""
    rooms = service(request)
    body = await read_body(request, RoomBody, N_("a room"))  # read before the turn: a slow
    await charge(request, "rooms")  # client never holds the others up
    await precheck(request, body)  # a custom map: checked as a heavy job, off this process
    async with rooms.admission.turn(client_key(request)):
        table, tokens, host = await rooms.create(body, claimer(request))
    return {"room": rooms.summary(table), "tokens": tokens, "host_token": host}


@router.get("/rooms/{room}/board")
async def get_room_board(room: str, request: Request) -> Mapping[str, object]:
    """The drawing data of the room's game: a custom map's own, else its game's board."""
    table = await service(request).table(room)
    data = room_board(table.game, table.options)
    if data is None:
        raise RoomError(404, "not-found", f"no board for the room {room[:20]!r}")
    return data


@router.get("/rooms/{room}")
async def get_room(room: str, request: Request) -> RoomSummary:
    """The room summary."""
    rooms = service(request)
    return rooms.summary(await rooms.table(room))


@router.post("/rooms/{room}/join")
async def join_room(room: str, request: Request) -> Mapping[str, object]:
    """Claim an open seat: ``{"token"}``."""
    rooms = service(request)
    body = await read_body(request, JoinBody, N_("a join"))
    await charge(request, "joins")
    async with rooms.admission.turn(client_key(request)):
        return {"token": await rooms.seats.join(room, body, claimer(request))}


@router.post("/rooms/{room}/start")
async def start_room(room: str, request: Request) -> RoomSummary:
    """Start an online room (host token)."""
    rooms = service(request)
    await read_body(request, NoBody, "a start")
    async with rooms.admission.turn(client_key(request)):
        return rooms.summary(await rooms.playing.start(room, bearer(request)))


@router.post("/rooms/{room}/seats/{seat}/bot")
async def seat_to_bot(room: str, seat: SeatNumber, request: Request) -> RoomSummary:
    """Hand a seat to a bot (host token)."""
    rooms = service(request)
    body = await read_body(request, HandoverBody, "a seat handover")
    table = await rooms.seats.hand_to_bot(room, seat, bearer(request), body.bot)
    return rooms.summary(table)


@router.post("/rooms/{room}/seats/{seat}/reclaim")
async def reclaim_seat(room: str, seat: SeatNumber, request: Request) -> RoomSummary:
    """Take a seat back from its bot (that seat's token)."""
    rooms = service(request)
    await read_body(request, NoBody, "a reclaim")
    return rooms.summary(await rooms.seats.reclaim(room, seat, bearer(request)))


@router.get("/rooms/{room}/view")
async def get_view(room: str, request: Request) -> Mapping[str, object]:
    """The view for the token's seat, or a spectator's without a token."""
    rooms = service(request)
    table = await rooms.table(room)
    return rooms.view(table, rooms.viewer(table, bearer(request)))


@router.get("/rooms/{room}/moves")
async def get_moves(room: str, request: Request) -> Mapping[str, object]:
    """The move log as the token's seat (or a spectator) may know it."""
    rooms = service(request)
    table = await rooms.table(room)
    you = rooms.viewer(table, bearer(request))
    return {"moves": move_log(table.progress.state, you)}


@router.post("/rooms/{room}/actions")
async def post_action(room: str, request: Request) -> Mapping[str, object]:
    """Play ``{"action", "step"}``; answers the seat's view after the action (its time goes
    to ``action_round_trip_seconds``: :mod:`~metrogames.web.infra.metrics`)."""
    received = time.perf_counter()
    rooms = service(request)
    body = await read_body(request, ActionBody, "an action")
    table, seat = await rooms.playing.act(room, bearer(request), body, flood(request).seat)
    view = rooms.view(table, seat)
    child(ROUND_TRIP, table.game).observe(time.perf_counter() - received)
    return view


@router.post("/rooms/{room}/hint")
async def post_hint(room: str, request: Request) -> Mapping[str, object]:
    """The coach's best three moves for the token's seat at ``{"step", "about"?}`` (a heavy
    job, given up when the client leaves)."""
    body = await read_body(request, HintBody, "a hint")
    await charge(request, "hints")
    hint = service(request).playing.hint(room, bearer(request), body, await requester(request))
    return await while_connected(request, hint)


@router.get("/rooms/{room}/record")
async def get_record(room: str, request: Request) -> JSONResponse:
    """The game record (public parts only while playing)."""
    rooms = service(request)
    table = await rooms.table(room)
    rooms.check_public(table, bearer(request))
    return JSONResponse(
        rooms.record(table),
        headers={"Content-Disposition": f'attachment; filename="{table.game}-{table.id}.json"'},
    )


@router.get("/rooms/{room}/replay")
async def get_replay(room: str, request: Request) -> Response:
    """Spectator frames of a finished game, one per step (built once, on a worker thread)."""
    rooms = service(request)
    table = await rooms.table(room)
    rooms.check_public(table, bearer(request))
    if table.status != "finished":
        raise RoomError(409, "not-finished", "only a finished game can be replayed")
    record = rooms.record(table)
    key = (table.id, "seed" in record)  # a daily record shows its seed once its day closed
    text = rooms.replays.get(key)
    if text is None:
        replay = jobs(request).run(
            "replay", {"record": record}, key=_replay_key(record), who=await requester(request)
        )
        text = rooms.replays[key] = await while_connected(request, replay)
    return Response(text, media_type="application/json")


@router.post("/replays")
async def post_replay(request: Request) -> Response:
    """Spectator frames of an uploaded record (checked by the engine, in a heavy job)."""
    record = (await read_body(request, Record, "a record", RECORD_LIMIT)).root
    await charge(request, "replays")
    job: ReplayJob = {"record": record, "open": open_deals(request)}  # refused on an open day's deal
    replay = jobs(request).run("replay", job, key=_replay_key(record), who=await requester(request))
    return Response(await while_connected(request, replay), media_type="application/json")


def _replay_key(record: object) -> str:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return "replay:" + hashlib.sha256(text.encode()).hexdigest()


def open_deals(request: Request) -> OpenDeals:
    """Today's daily deals, which no search of the server's may touch (:mod:`~metrogames.web.daily.open_deals`)."""
    daily: DailyService = request.app.state.daily
    return daily.open_deals()


def jobs(request: Request) -> Jobs:
    """The app's heavy jobs (:mod:`.jobs`)."""
    found: Jobs = request.app.state.jobs
    return found


async def analysis(request: Request, record: JsonValue) -> Response:
    """The analysis of a decoded record (a heavy job keyed by its deal and actions; the
    ``analyses`` rate limit counts only a request that starts one; given up when the client
    leaves)."""
    key, job = analysis_job(record, request.app.state.settings.analysis_budget)
    run = jobs(request).run(
        "analysis",
        {**job, "open": open_deals(request)},  # refused on an open day's deal
        key=key,
        who=await requester(request),
        on_start=lambda: charge(request, "analyses"),
    )
    text = await while_connected(request, run)
    return Response(personalised(text, record), media_type="application/json")


@router.get("/rooms/{room}/analysis")
async def get_analysis(room: str, request: Request) -> Response:
    """Hindsight on a finished solo game: the best score found on its deal and the costliest
    turn (``docs/web-api.md``); a daily game only once its day has closed (409 ``day-open``)."""
    rooms = service(request)
    table = await rooms.table(room)
    rooms.check_public(table, bearer(request))
    if table.status != "finished":
        raise RoomError(409, "not-finished", "only a finished game can be analysed")
    if rooms.rules.private(table):
        raise RoomError(
            409, "day-open", "the analysis of a daily game shows once its day has closed"
        )
    return await analysis(request, rooms.record(table))


@router.post("/analyses")
async def post_analysis(request: Request) -> Response:
    """Hindsight on an uploaded record of a finished solo game (``docs/web-api.md``)."""
    record = (await read_body(request, Record, "a record", RECORD_LIMIT)).root
    return await analysis(request, record)
