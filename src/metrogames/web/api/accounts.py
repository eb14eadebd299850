"""The HTTP routes of accounts and sessions (``docs/web-api.md``, "Accounts"):
``/api/accounts...`` and ``/api/sessions...``.

Sign-up and sign-in answer with the session cookie (:data:`~metrogames.web.accounts.service.COOKIE`):
HttpOnly (the page's scripts never see it), ``SameSite=Lax`` (not sent with another site's
requests but a link's), ``Path=/``, ``Max-Age`` the session's lifetime, and ``Secure`` when
``METROGAMES_SECURE_COOKIES`` is set. Sign-ups and sign-in attempts are counted per client
address (:mod:`~metrogames.web.infra.ratelimit`), and attempts at an account's password (sign-ins, password
changes) per account too (:mod:`~metrogames.web.accounts.backoff`). Password hashing and verifying are heavy jobs
(:mod:`metrogames.web.infra.jobs`): a sign-in's count toward the jobs' quota is its address's and
the account name's (its skeleton, as the back-off's), so a crowd of wrong passwords for one
name waits its turn; a request whose client leaves gives its job up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from fastapi import APIRouter, Request, Response
from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from metrogames.i18n import N_
from metrogames.web.accounts.backoff import SignInBackoff
from metrogames.web.accounts.names import skeleton_digest
from metrogames.web.accounts.service import COOKIE, Account, Accounts
from metrogames.web.api.bodies import (
    AccountBody,
    AccountNameBody,
    ExportNameBody,
    NoBody,
    PasswordBody,
    SignInBody,
)
from metrogames.web.api.common import bearer, charge, read_body
from metrogames.web.api.jobs import requester, while_connected
from metrogames.web.checks import hash_token
from metrogames.web.daily.boards import check_limit
from metrogames.web.daily.service import DailyService
from metrogames.web.infra.config import Settings
from metrogames.web.infra.models import AccountRow, RatedGameRow, RatingRow, RoomRow, SeatRow
from metrogames.web.ratings.service import Rating

router = APIRouter(prefix="/api")


def accounts(request: Request) -> Accounts:
    """The app's accounts."""
    found: Accounts = request.app.state.accounts
    return found


def session_token(request: Request) -> str | None:
    """The session token of the request's cookie, or ``None``."""
    return request.cookies.get(COOKIE) or None


async def signed_in(request: Request) -> Account | None:
    """The account of the request's session cookie, or ``None``."""
    token = session_token(request)
    if token is None:
        return None
    return await asyncio.to_thread(accounts(request).of_session, token)


async def account_of(request: Request) -> Account:
    """The account of the request's session (401 ``bad-session`` without one)."""
    return await asyncio.to_thread(accounts(request).require, session_token(request))


def _set_cookie(request: Request, response: Response, token: str) -> None:
    settings: Settings = request.app.state.settings
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(accounts(request).lifetime),
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )


def account_json(request: Request, account: Account) -> Mapping[str, object]:
    """``{"account", "name", "player", "players", "export_name", "bot"}`` (``players``: the
    owned players, its own first; ``export_name``: the monthly exports show its name, else its
    pseudonym; ``bot``: a bot account)."""
    return {
        "account": account.id,
        "name": account.name,
        "player": account.player_id,
        "players": accounts(request).players_of(account),
        "export_name": accounts(request).export_name(account),
        "bot": is_bot(request, account.id),
    }


def is_bot(request: Request, account: str) -> bool:
    """Whether ``account`` is a bot account (on a worker thread)."""
    with accounts(request).sessions() as session:
        return bool(session.scalar(select(AccountRow.bot).where(AccountRow.id == account)))


@router.post("/accounts", status_code=201)
async def sign_up(request: Request, response: Response) -> Mapping[str, object]:
    """Sign up ``{"name", "password"}`` → the account, signed in (cookie)."""
    body = await read_body(request, AccountBody, N_("a sign-up"))
    await charge(request, "accounts")
    account, token = await while_connected(
        request, accounts(request).sign_up(body.name, body.password, await requester(request))
    )
    _set_cookie(request, response, token)
    return await asyncio.to_thread(account_json, request, account)


def backoff(request: Request) -> SignInBackoff:
    """The app's per-account sign-in back-off."""
    found: SignInBackoff = request.app.state.backoff
    return found


@router.post("/sessions")
async def sign_in(request: Request, response: Response) -> Mapping[str, object]:
    """Sign in ``{"name", "password"}`` → the account (cookie); the attempt counts against
    the address and the account (:mod:`~metrogames.web.accounts.backoff`) before the password is checked."""
    body = await read_body(request, SignInBody, N_("a sign-in"))
    await charge(request, "signins")
    key = skeleton_digest(body.name)
    await backoff(request).admit(key)
    who = await requester(request, key)
    account, token = await while_connected(
        request, accounts(request).sign_in(body.name, body.password, who)
    )
    await backoff(request).clear(key)
    _set_cookie(request, response, token)
    return await asyncio.to_thread(account_json, request, account)


@router.delete("/sessions/others")
async def sign_out_others(request: Request) -> dict[str, int]:
    """End every other session of the signed-in account: ``{"sessions_ended": n}``."""
    account = await account_of(request)
    ended = await asyncio.to_thread(
        accounts(request).sign_out_others, account, session_token(request)
    )
    return {"sessions_ended": ended}


@router.post("/accounts/me/password")
async def change_password(request: Request) -> dict[str, int]:
    """Change the password ``{"password", "new_password"}``; the account's other sessions end
    (``{"sessions_ended": n}``), this one goes on. Counted as a sign-in attempt."""
    account = await account_of(request)
    body = await read_body(request, PasswordBody, N_("a password change"))
    await charge(request, "signins")
    key = skeleton_digest(account.name)
    await backoff(request).admit(key)
    who = await requester(request, key)
    change = accounts(request).change_password(
        account, body.password, body.new_password, session_token(request), who
    )
    ended = await while_connected(request, change)
    await backoff(request).clear(key)
    return {"sessions_ended": ended}


@router.delete("/sessions/current", status_code=204)
async def sign_out(request: Request) -> Response:
    """Sign out: the session ends and the cookie is cleared."""
    await asyncio.to_thread(accounts(request).sign_out, session_token(request))
    response = Response(status_code=204)
    settings: Settings = request.app.state.settings
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=settings.secure_cookies
    )
    return response


@router.get("/accounts/me")
async def get_account(request: Request) -> Mapping[str, object]:
    """The signed-in account, or ``{"account": None}`` when nobody is signed in (no cookie, or
    its session ended or expired): asked by every page, so not an error."""
    account = await signed_in(request)
    if account is None:
        return {"account": None}
    return await asyncio.to_thread(account_json, request, account)


@router.patch("/accounts/me")
async def rename(request: Request) -> Mapping[str, object]:
    """Rename the signed-in account: ``{"name"}`` → as ``GET /api/accounts/me``."""
    account = await account_of(request)
    body = await read_body(request, AccountNameBody, N_("a rename"))
    renamed = await asyncio.to_thread(accounts(request).rename, account, body.name)
    return await asyncio.to_thread(account_json, request, renamed)


@router.put("/accounts/me/export-name")
async def set_export_name(request: Request) -> Mapping[str, object]:
    """Show the account's name in the monthly exports, or not: ``{"show"}`` → as
    ``GET /api/accounts/me``."""
    account = await account_of(request)
    body = await read_body(request, ExportNameBody, N_("an export setting"))
    await asyncio.to_thread(accounts(request).set_export_name, account, body.show)
    return await asyncio.to_thread(account_json, request, account)


@router.post("/accounts/me/claim")
async def claim(request: Request) -> Mapping[str, object]:
    """Claim the anonymous player of ``Authorization: Bearer <player token>``: its token stops
    working, for the player and for the daily rooms it played."""
    account = await account_of(request)
    await read_body(request, NoBody, "a claim")
    token = bearer(request)
    player = await asyncio.to_thread(accounts(request).claim, account, token)
    daily: DailyService = request.app.state.daily
    await daily.retire_token(player, hash_token(token or ""))
    return await asyncio.to_thread(account_json, request, account)


@router.get("/accounts/{account}/profile")
async def get_profile(account: str, request: Request, limit: int = 30) -> Mapping[str, object]:
    """An account's public page: name, ratings, recent online games and daily history."""
    found = await asyncio.to_thread(accounts(request).get, account)
    viewer = await signed_in(request)
    return await asyncio.to_thread(
        profile, request, found, limit, viewer is not None and viewer.id == found.id
    )


def profile(request: Request, account: Account, limit: int, owner: bool) -> Mapping[str, object]:
    """``{"account", "name", "player", "bot", "ratings", "games", "finished", "daily"}`` (on a
    worker thread):
    ``ratings`` ``[{"game", "players", "mu", "sigma", "rating", "games"}]`` (best first),
    ``games`` the account's latest online rooms ``[{"room", "game", "players", "seat",
    "status", "created", "rated"}]`` (newest first; a finished one replays at
    ``/api/rooms/{room}/replay``), ``finished`` its finished online games ``[{"room", "game",
    "players", "seat", "finished", "rated"}]`` (the latest finished first, each with a replay),
    ``daily`` the games of every player the account owns
    (unshared ranked ones for its owner only)."""
    daily: DailyService = request.app.state.daily
    limit = check_limit(limit, "limit", 100)
    s = aliased(SeatRow)
    count = select(func.count()).where(s.room_id == RoomRow.id).correlate(RoomRow)
    with daily.sessions() as session:
        days = daily.boards.days(session, accounts(request).players_of(account), None, limit, owner)
        rated = session.scalars(
            select(RatingRow).where(RatingRow.account_id == account.id)
        ).all()
        rooms = session.execute(
            select(
                RoomRow.id,
                RoomRow.game,
                count.scalar_subquery(),
                SeatRow.seat,
                RoomRow.status,
                RoomRow.created,
                RatedGameRow.id,
            )
            .join(SeatRow, SeatRow.room_id == RoomRow.id)
            .outerjoin(RatedGameRow, RatedGameRow.room_id == RoomRow.id)
            .where(SeatRow.account_id == account.id)
            .order_by(RoomRow.created.desc(), RoomRow.id)
            .limit(limit)
        ).all()
        finished = session.execute(
            select(
                RoomRow.id,
                RoomRow.game,
                count.scalar_subquery(),
                SeatRow.seat,
                RoomRow.finished,
                RatedGameRow.id,
            )
            .join(SeatRow, SeatRow.room_id == RoomRow.id)
            .outerjoin(RatedGameRow, RatedGameRow.room_id == RoomRow.id)
            .where(
                SeatRow.account_id == account.id,
                RoomRow.status == "finished",
                RoomRow.mode == "online",
            )
            .order_by(RoomRow.finished.desc(), RoomRow.id)
            .limit(limit)
        ).all()
    shown = [(Rating(r.mu, r.sigma, r.games, 0).as_json(), r) for r in rated]
    shown.sort(key=lambda pair: (-pair[0]["rating"], pair[1].game, pair[1].players))
    ratings = [{"game": r.game, "players": r.players, **rating} for rating, r in shown]
    games = [
        {
            "room": room,
            "game": game,
            "players": players,
            "seat": seat,
            "status": status,
            "created": created,
            "rated": rated_id is not None,
        }
        for room, game, players, seat, status, created, rated_id in rooms
    ]
    ended = [
        {
            "room": room,
            "game": game,
            "players": players,
            "seat": seat,
            "finished": when,
            "rated": rated_id is not None,
        }
        for room, game, players, seat, when, rated_id in finished
    ]
    return {
        "account": account.id,
        "name": account.name,
        "player": account.player_id,
        "bot": is_bot(request, account.id),
        "ratings": ratings,
        "games": games,
        "finished": ended,
        "daily": days,
    }
