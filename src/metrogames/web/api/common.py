"""What every route module shares: bounded bodies, the bearer token, the rate limits and the
app's services (``docs/web-api.md``, "Errors").

Bodies are read bounded (64 KiB; records 1 MiB) and parsed into their declared models
(:mod:`.bodies`) so that every refusal is a 4xx ``{"error", "reason"}`` naming the field
(400 ``bad-request``, never 422).
"""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import Path, Query, Request
from pydantic import BaseModel

from metrogames.games import game_names
from metrogames.i18n import N_, Message, msg
from metrogames.web.accounts.invitations import Invitations
from metrogames.web.accounts.service import COOKIE
from metrogames.web.api.bodies import MAX_SEATS, parse
from metrogames.web.checks import hash_token
from metrogames.web.daily.service import DailyService
from metrogames.web.errors import RoomError, bad_request, shown
from metrogames.web.infra.events import AccountEvents
from metrogames.web.infra.flood import Flood
from metrogames.web.infra.ratelimit import RateLimits, client_key
from metrogames.web.rooms.listeners import Origin
from metrogames.web.rooms.service import RoomService

BODY_LIMIT = 64 * 1024
RECORD_LIMIT = 1024 * 1024

M = TypeVar("M", bound=BaseModel)


def _too_large(limit: int) -> Message:
    return msg(N_("the body is larger than {limit} bytes"), limit=limit)


async def read_body(request: Request, model: type[M], what: str, limit: int = BODY_LIMIT) -> M:
    """The request's body, read at most ``limit`` bytes far, parsed as ``model`` (no body:
    ``{}``).

    Raises:
        RoomError: 413 ``too-large``; 400 ``bad-request`` naming the field (:func:`parse`).
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise RoomError(413, "too-large", _too_large(limit))
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > limit:
            raise RoomError(413, "too-large", _too_large(limit))
    return parse(model, bytes(chunks), what)


def bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>``, or ``None``."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def claimer(request: Request) -> Origin:
    """Who claims a seat by this request (:data:`~metrogames.web.rooms.listeners.Origin`): the daily
    secret's keyed digest of the client address and the SHA-256 of the session cookie."""
    cookie = request.cookies.get(COOKIE)
    daily: DailyService = request.app.state.daily
    return daily.address_key(client_key(request)), hash_token(cookie) if cookie else None


def flood(request: Request) -> Flood:
    """The app's flood control (:mod:`~metrogames.web.infra.flood`)."""
    found: Flood = request.app.state.flood
    return found


def service(request: Request) -> RoomService:
    """The app's room service."""
    rooms: RoomService = request.app.state.rooms
    return rooms


def invitations(request: Request) -> Invitations:
    """The app's invitations (a bot's challenges and people's invitations alike)."""
    found: Invitations = request.app.state.invitations
    return found


def events(request: Request) -> AccountEvents:
    """The app's account events."""
    found: AccountEvents = request.app.state.events
    return found


GameFilter = Annotated[str | None, Query(max_length=64, description="only this game's rooms")]
"""A list's ``game`` filter (the lobby, now playing): a served game's name, or none."""


def check_game_filter(game: str | None, what: str) -> None:
    """Refuse a ``game`` filter that names no served game.

    Raises:
        RoomError: 400 ``bad-request``: ``{what}: game: unknown game …`` with the served ones.
    """
    names = game_names()
    if game is not None and game not in names:
        raise bad_request(f"{what}: game: unknown game {shown(game)} (one of {', '.join(names)})")


async def charge(request: Request, kind: str) -> None:
    """Count one request of ``kind`` (``rooms``, ``players``, ``joins``, ``replays``,
    ``hints``, …) by the request's client address, before its work (429 ``rate-limited`` over
    the limit: :meth:`~metrogames.web.infra.ratelimit.RateLimits.charge`)."""
    limits: RateLimits = request.app.state.limits
    await limits.charge(kind, request)


SeatNumber = Annotated[int, Path(ge=0, lt=MAX_SEATS, description="a seat, from 0")]
"""A seat number in a path: a whole number (anything else: 400 naming the path parameter)."""
