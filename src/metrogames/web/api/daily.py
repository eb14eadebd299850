"""The HTTP routes of the daily challenge and its players (``docs/web-api.md``, "The daily
challenge (v1)"): ``/api/players...`` and ``/api/daily...``.

Bodies are read by :func:`~metrogames.web.api.common.read_body` (bounded, parsed into the models of
:mod:`.bodies`; 400 ``bad-request``, never 422); a guest's player token comes from
``Authorization: Bearer``, and without one a signed-in account plays with its own player (the
session cookie, :mod:`~metrogames.web.api.accounts`). The work is done by
:class:`~metrogames.web.daily.service.DailyService` and :class:`~metrogames.web.accounts.players.Players`;
refusals are :class:`~metrogames.web.errors.RoomError` (``{"error", "reason"}``). Their database
work runs on worker threads (``asyncio.to_thread``): a leaderboard, a history or a write waiting
on the database never holds up the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from fastapi import APIRouter, Request
from fastapi.responses import Response

from metrogames.i18n import N_
from metrogames.web.accounts.players import Player, Players
from metrogames.web.accounts.service import Account
from metrogames.web.api.accounts import accounts, session_token, signed_in
from metrogames.web.api.bodies import DailyStartBody, PlayerBody
from metrogames.web.api.common import bearer, charge, read_body
from metrogames.web.daily.service import DailyService
from metrogames.web.errors import RoomError
from metrogames.web.infra.language import connection_gettext
from metrogames.web.infra.ratelimit import client_key

router = APIRouter(prefix="/api")


def daily(request: Request) -> DailyService:
    """The app's daily service."""
    service: DailyService = request.app.state.daily
    return service


def players(request: Request) -> Players:
    """The app's players."""
    found: Players = request.app.state.players
    return found


async def me(request: Request) -> Player:
    """The player of the request's token (401/403 ``bad-token``)."""
    return await asyncio.to_thread(players(request).authenticate, bearer(request))


async def who(request: Request) -> tuple[Player, Account | None]:
    """The daily player of the request: the guest of its player token, else the signed-in
    account's own player (with the account).

    Raises:
        RoomError: 401/403 ``bad-token`` (no token and no session, or a forged token).
    """
    if bearer(request) is None and session_token(request) is not None:
        account = await signed_in(request)
        if account is not None:
            return await asyncio.to_thread(players(request).get, account.player_id), account
    if bearer(request) is None:
        raise RoomError(
            401, "bad-token", "this needs a player token (Authorization: Bearer) or a sign-in"
        )
    return await me(request), None


@router.post("/players", status_code=201)
async def create_player(request: Request) -> Mapping[str, object]:
    """``{"name"}`` → ``{"player", "name", "token"}`` (the token is shown only here)."""
    body = await read_body(request, PlayerBody, N_("a player"))
    await charge(request, "players")
    player, token = await asyncio.to_thread(players(request).create, body.name)
    return {"player": player.id, "name": player.name, "token": token}


@router.get("/players/me")
async def get_me(request: Request) -> Mapping[str, object]:
    """``{"player", "name", "streak", "best"}`` of the token's player."""
    return await asyncio.to_thread(daily(request).boards.me, await me(request))


@router.patch("/players/me")
async def rename_me(request: Request) -> Mapping[str, object]:
    """Rename: ``{"name"}`` → as ``GET /api/players/me``."""
    player = await me(request)
    body = await read_body(request, PlayerBody, N_("a player"))
    renamed = await asyncio.to_thread(players(request).rename, player, body.name)
    return await asyncio.to_thread(daily(request).boards.me, renamed)


@router.get("/players/{player}/history")
async def get_history(
    player: str, request: Request, game: str | None = None, limit: int = 100
) -> Mapping[str, object]:
    """A player's daily games, newest first, and streak (unshared ranked games: its owner
    only)."""
    return await asyncio.to_thread(
        daily(request).boards.history, player, game, limit, await owns(request, player)
    )


async def owns(request: Request, player: str) -> bool:
    """True when the request comes from ``player``'s token or from the account owning it."""
    if bearer(request) is not None:
        found = await asyncio.to_thread(players(request).find, bearer(request))
        if found is not None and found.id == player:
            return True
    account = await signed_in(request)
    if account is None:
        return False
    return player in await asyncio.to_thread(accounts(request).players_of, account)


@router.get("/daily")
async def get_daily(request: Request) -> Mapping[str, object]:
    """Today's date, closing time, the midnight rule and, with a token or a sign-in, the
    player's ranked rooms."""
    player = None
    if bearer(request) or await signed_in(request):
        player, _ = await who(request)
    return await asyncio.to_thread(daily(request).overview, player, connection_gettext(request))


@router.post("/daily/{game}/{day}/start")
async def start_daily(game: str, day: str, request: Request) -> Mapping[str, object]:
    """Start (or continue) the day's game: ``{"share"}`` → ``{"room", "ranked", "token"}``."""
    service = daily(request)
    player, account = await who(request)
    body = await read_body(request, DailyStartBody, "a daily start")  # before the turn
    await charge(request, "rooms")
    async with service.rooms.admission.turn(client_key(request)):
        return await service.start(
            player, game, day, body.share, account is not None, client_key(request)
        )


@router.get("/daily/{game}/{day}/result")
async def get_result(game: str, day: str, request: Request) -> Mapping[str, object]:
    """The player's finished game of the day: score, rank, percentile, rating, bot."""
    player, _ = await who(request)
    return await daily(request).result(player, game, day)


@router.get("/daily/{game}/best")
async def get_best(game: str, request: Request, limit: int = 20) -> Sequence[Mapping[str, object]]:
    """All-time best shared ranked scores."""
    return await asyncio.to_thread(daily(request).boards.best, game, limit)


@router.get("/daily/{game}/{day}/leaderboard")
async def get_leaderboard(
    game: str, day: str, request: Request, limit: int = 100, offset: int = 0
) -> Mapping[str, object]:
    """The day's ranking of accounts (equal scores share a rank)."""
    return await asyncio.to_thread(daily(request).boards.leaderboard, game, day, limit, offset)


@router.get("/daily/{game}/{day}/guests")
async def get_guests(
    game: str, day: str, request: Request, limit: int = 100, offset: int = 0
) -> Mapping[str, object]:
    """The day's ranking of guests, apart from the accounts'."""
    return await asyncio.to_thread(daily(request).boards.leaderboard, game, day, limit, offset, "guests")


@router.get("/daily/{game}/{day}/deal")
async def get_deal(
    game: str,
    day: str,
    request: Request,
    limit: int = 1000,
    offset: int = 0,
    board: str = "accounts",
) -> Response:
    """A closed day's seed, deal record and a page of its leaderboard's (or, with
    ``board=guests``, its guests list's) games' records."""
    text = await daily(request).boards.deal(game, day, limit, offset, board)
    return Response(text, media_type="application/json")
