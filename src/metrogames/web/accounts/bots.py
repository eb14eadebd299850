"""Bot accounts and their API tokens (``docs/web-api.md``, "Bot accounts").

An account becomes a bot account (:meth:`BotAccounts.make_bot`) with the games it declares
(registry names) and whether it plays in the human rating pools (else its rated games are
among bot accounts only: :mod:`metrogames.web.ratings.service`). Its owner — the account
signed in with its password, in the browser — makes tokens and revokes them. A token is 32
random bytes (URL-safe base64, prefixed :data:`TOKEN_PREFIX`), shown once; only its SHA-256
is stored (a fast hash is right for a random secret of 256 bits: nobody can guess it, and no
one who reads the table can use it). Each request of a bot is checked against the database
(:meth:`BotAccounts.authenticate`, the digest compared in constant time): a revoked token
stops working at once, on every worker. A token is scoped: ``read`` (the streams) and
``play`` (moves, challenges, joins). A token is never a sign-in session: it opens no website
session and cannot change the password (those take the session cookie).

Errors are :class:`~metrogames.web.errors.RoomError`: 401 ``bad-token`` (no, an unknown or a
revoked token), 403 ``bad-token`` (a scope the token lacks), 409 ``not-bot``, 400
``bad-request``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.accounts.players import PLAYER_ALPHABET, PLAYER_ID_LENGTH
from metrogames.web.accounts.service import Account
from metrogames.web.checks import hash_token
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.models import AccountRow, BotTokenRow

TOKEN_PREFIX = "mgb_"
"""The start of every bot token (so a token pasted somewhere it should not be is recognised)."""
SCOPES = ("read", "play")
"""The scopes a token may have."""
MAX_TOKENS = 10
"""The most live tokens one bot account holds."""


@dataclass(frozen=True)
class BotAuth:
    """A bot request's authority: the ``account``, the ``token`` id and its ``scopes``."""

    account: Account
    token: str
    scopes: frozenset[str]
    games: tuple[str, ...]

    def need(self, scope: str) -> None:
        """Refuse unless the token has ``scope``.

        Raises:
            RoomError: 403 ``bad-token``.
        """
        if scope not in self.scopes:
            raise RoomError(
                403, "bad-token", msg(N_("this token lacks the scope {scope}"), scope=scope)
            )


def _new_id() -> str:
    return "".join(secrets.choice(PLAYER_ALPHABET) for _ in range(PLAYER_ID_LENGTH))


def not_bot() -> RoomError:
    """409 ``not-bot``: the account is no bot account."""
    return RoomError(409, "not-bot", msg(N_("this account is not a bot account")))


def bad_bot_token() -> RoomError:
    """401 ``bad-token``: no live bot token."""
    return RoomError(
        401, "bad-token", msg(N_("this needs a live bot token (Authorization: Bearer)"))
    )


class BotAccounts:
    """Bot accounts and tokens over the database's ``sessions`` (``now``: epoch seconds)."""

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], float] = time.time):
        self.sessions = sessions
        self.now = now

    def make_bot(self, account: Account, games: Sequence[str], human_pools: bool) -> None:
        """``PUT /api/accounts/me/bot``: ``account`` is a bot account declaring ``games``
        (checked names of the registry, by the route), in the human pools or not."""
        with self.sessions.begin() as session:
            row = session.get(AccountRow, account.id)
            if row is None:
                raise RoomError(401, "bad-session", "this needs a signed-in account")
            row.bot, row.bot_games, row.human_pools = True, ",".join(games), human_pools

    def bot_of(self, session: Session, account_id: str) -> AccountRow | None:
        """The bot account ``account_id``'s row, or ``None`` (no such account, or no bot)."""
        row = session.get(AccountRow, account_id)
        return row if row is not None and row.bot else None

    def describe(self, account: Account) -> dict[str, object]:
        """``{"bot", "games", "human_pools"}`` of ``account``."""
        with self.sessions() as session:
            row = session.get(AccountRow, account.id)
        if row is None or not row.bot:
            return {"bot": False, "games": [], "human_pools": False}
        return {"bot": True, "games": games_of(row), "human_pools": row.human_pools}

    def create_token(self, account: Account, name: str, scopes: Sequence[str]) -> dict[str, object]:
        """``POST /api/accounts/me/bot/tokens``: a new token of the bot ``account``, as
        ``{"id", "name", "scopes", "created", "token"}`` — the only time the token is shown.

        Raises:
            RoomError: 409 ``not-bot``; 400 ``bad-request`` (an unknown scope, none, or
                :data:`MAX_TOKENS` live already).
        """
        wanted = sorted(set(scopes))
        if not wanted or any(s not in SCOPES for s in wanted):
            raise bad_request(
                msg(N_("a token's scopes are some of: {scopes}"), scopes=", ".join(SCOPES))
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = self.now()
        with self.sessions.begin() as session:
            if self.bot_of(session, account.id) is None:
                raise not_bot()
            live = session.scalar(
                select(func.count())
                .select_from(BotTokenRow)
                .where(BotTokenRow.account_id == account.id, BotTokenRow.revoked.is_(None))
            )
            if (live or 0) >= MAX_TOKENS:
                raise bad_request(
                    msg(N_("a bot holds at most {limit} live tokens"), limit=MAX_TOKENS)
                )
            row = BotTokenRow(
                id=_new_id(),
                account_id=account.id,
                token_hash=hash_token(token),
                name=name,
                scopes=",".join(wanted),
                created=now,
            )
            session.add(row)
        return {**_token_json(row), "token": token}

    def tokens(self, account: Account) -> list[dict[str, object]]:
        """``GET /api/accounts/me/bot/tokens``: the account's tokens, never the tokens
        themselves (``[{"id", "name", "scopes", "created", "revoked"}]``, oldest first)."""
        with self.sessions() as session:
            rows = session.scalars(
                select(BotTokenRow)
                .where(BotTokenRow.account_id == account.id)
                .order_by(BotTokenRow.created, BotTokenRow.id)
            ).all()
        return [_token_json(r) for r in rows]

    def revoke(self, account: Account, token_id: str) -> None:
        """``DELETE /api/accounts/me/bot/tokens/{id}``: the token stops working now.

        Raises:
            RoomError: 404 ``not-found`` (no token of this account).
        """
        with self.sessions.begin() as session:
            row = session.get(BotTokenRow, token_id[:10])
            if row is None or row.account_id != account.id:
                raise RoomError(
                    404,
                    "not-found",
                    msg(N_("no token {token} of this account"), token=repr(token_id[:12])),
                )
            if row.revoked is None:
                row.revoked = self.now()

    def authenticate(self, token: str | None) -> BotAuth:
        """The authority of a live bot token, read from the database at each request.

        Raises:
            RoomError: 401 ``bad-token`` (none, unknown, revoked, or its account no bot).
        """
        if not token or not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            raise bad_bot_token()
        digest = hash_token(token)
        with self.sessions() as session:
            found = session.execute(
                select(BotTokenRow, AccountRow)
                .join(AccountRow, AccountRow.id == BotTokenRow.account_id)
                .where(BotTokenRow.token_hash == digest)
            ).first()
        if found is None:
            raise bad_bot_token()
        row, account = found
        # the index found it by digest; compared again in constant time all the same
        if (
            row.revoked is not None
            or not account.bot
            or not secrets.compare_digest(row.token_hash, digest)
        ):
            raise bad_bot_token()
        return BotAuth(
            Account(account.id, account.name, account.player_id),
            row.id,
            frozenset(row.scopes.split(",")),
            tuple(games_of(account)),
        )


def games_of(row: AccountRow) -> list[str]:
    """A bot account's declared games."""
    return [g for g in (row.bot_games or "").split(",") if g]


def _token_json(row: BotTokenRow) -> dict[str, object]:
    return {
        "id": row.id,
        "name": row.name,
        "scopes": row.scopes.split(","),
        "created": row.created,
        "revoked": row.revoked,
    }
