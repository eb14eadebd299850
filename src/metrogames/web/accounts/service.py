"""Accounts: a name and a password, sign-in sessions, and claiming an anonymous player's history
(``docs/web-api.md``, "Accounts").

Passwords are hashed with argon2id (``argon2-cffi``, RFC 9106's low-memory profile: 64 MiB,
3 passes); only the PHC string is stored, and a hash made with older parameters is replaced at
the next sign-in. A sign-in makes a **session**: a random token sent to the browser in an
HttpOnly, ``SameSite=Lax`` cookie (:data:`COOKIE`; ``Secure`` when the server is configured for
HTTPS) of which the server keeps the SHA-256 only, valid ``session_days`` days. An unknown name
is checked against a dummy hash, so a refusal takes as long whether the name exists or not. A
hash takes 64 MiB and a few hundred milliseconds: hashing and verifying are heavy jobs
(:mod:`metrogames.web.infra.jobs`, the ``passwords`` lane: a small process pool of each serving
process, its queue bounded, each requester's jobs at once limited), never run in the serving
process, so a crowd of sign-ins can neither exhaust its memory nor hold its threads.

Each account owns a daily-challenge player (its *own* player, made at sign-up, with no player
token: it plays with the session) and the anonymous players whose history it claimed (the
player token proves ownership; the token then stops working).

A password can be changed (the account's other sessions end), and the other sessions ended
alone. Names are checked by :mod:`.names` and kept unique by their confusable skeleton (a
unique index: two sign-ups of lookalike names cannot both be stored).

Errors are :class:`~metrogames.web.errors.RoomError`: 401 ``bad-session`` (no or an expired
session), 401 ``bad-password``, 409 ``name-taken``, 401/403 ``bad-token``.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from argon2 import PasswordHasher
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.accounts.names import skeleton_digest
from metrogames.web.accounts.players import PLAYER_ALPHABET, PLAYER_ID_LENGTH
from metrogames.web.checks import hash_token, new_token
from metrogames.web.errors import RoomError, shown
from metrogames.web.infra.db import rowcount
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.jobs.shapes import VerifyAnswer
from metrogames.web.infra.models import AccountRow, AccountSessionRow, PlayerRow

COOKIE = "metrogames_session"
"""The session cookie's name."""
DAY_SECONDS = 86_400


def dummy_hash(hasher: PasswordHasher) -> str:
    """An argon2id PHC string with ``hasher``'s parameters and a random salt and digest: it
    takes as long to verify as a stored hash and matches no password (the digest of none is
    known). Made without hashing: argon2 never runs in the serving process."""

    def b64(size: int) -> str:
        return base64.b64encode(secrets.token_bytes(size)).decode().rstrip("=")

    costs = f"m={hasher.memory_cost},t={hasher.time_cost},p={hasher.parallelism}"
    return f"$argon2id$v=19${costs}${b64(hasher.salt_len)}${b64(hasher.hash_len)}"


@dataclass(frozen=True)
class Account:
    """A signed-in account: ``id``, ``name`` and its own daily player's id."""

    id: str
    name: str
    player_id: str


def name_key(name: str) -> str:
    """The form a sign-in finds its account by (NFKC, case-folded): ``Ada`` and ``ADA`` are
    one. Names are kept unique by their skeleton too (:mod:`.names`)."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_taken(name: str) -> RoomError:
    """409 ``name-taken``: an account has ``name``, or a name that looks the same."""
    rule = N_("the name {name} is taken: an account has it, or a name that looks the same")
    return RoomError(409, "name-taken", msg(rule, name=shown(name, 64)))


def _new_id() -> str:
    return "".join(secrets.choice(PLAYER_ALPHABET) for _ in range(PLAYER_ID_LENGTH))


class Accounts:
    """Accounts and sessions over the database's sessions.

    Args:
        sessions: the database sessions.
        session_days: how long a sign-in lasts.
        now: the clock (epoch seconds).
        jobs: where passwords are hashed and verified (heavy jobs).
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        session_days: float,
        now: Callable[[], float] = time.time,
        jobs: Jobs | None = None,
    ) -> None:
        self.sessions = sessions
        self.lifetime = session_days * DAY_SECONDS
        self.now = now
        self.jobs = jobs
        self._dummy = dummy_hash(PasswordHasher())

    def _jobs(self) -> Jobs:
        if self.jobs is None:
            raise RuntimeError("these accounts have no jobs to hash passwords with")
        return self.jobs

    async def _hash(self, password: str, who: Sequence[str]) -> str:
        """The argon2id PHC string of ``password`` (a ``hash`` job for ``who``)."""
        return await self._jobs().run("hash", {"password": password}, who=who)

    async def _verify(self, stored: str, password: str, who: Sequence[str]) -> VerifyAnswer:
        """``{"ok"}``: whether ``password`` is the one ``stored`` was made of; ``{"rehash"}``:
        whether ``stored`` has older parameters (a ``verify`` job for ``who``)."""
        return await self._jobs().run("verify", {"stored": stored, "password": password}, who=who)

    async def sign_up(
        self, name: str, password: str, who: Sequence[str] = ()
    ) -> tuple[Account, str]:
        """``POST /api/accounts``: a new account, its own player, and a session token (stored
        together or not at all; the hash is a job for the requesters ``who``).

        Raises:
            RoomError: 409 ``name-taken`` (names are compared by their skeleton, and
                case-folded); the refusals of :meth:`~metrogames.web.infra.jobs.service.Jobs.run`
                (429, 503 ``busy``).
        """
        # before hashing: a taken name costs no hash
        await asyncio.to_thread(self._check_free, name, None)
        digest = await self._hash(password, who)
        return await asyncio.to_thread(self._add_account, name, digest)

    def _add_account(self, name: str, digest: str) -> tuple[Account, str]:
        account = Account(_new_id(), name, _new_id())
        now = self.now()
        try:
            with self.sessions.begin() as session:
                # the account's own player plays with the session: its token is never given out
                session.add(
                    PlayerRow(
                        id=account.player_id,
                        name=name,
                        token_hash=hash_token(new_token()),
                        created=now,
                    )
                )
                session.flush()
                session.add(
                    AccountRow(
                        id=account.id,
                        name=name,
                        name_key=name_key(name),
                        name_skeleton=skeleton_digest(name),
                        password_hash=digest,
                        player_id=account.player_id,
                        created=now,
                    )
                )
                session.flush()
                player = session.get(PlayerRow, account.player_id)
                assert player is not None
                player.account_id = account.id
                token = self._open_session(session, account)
        except IntegrityError:
            raise name_taken(name) from None
        return account, token

    def _check_free(self, name: str, account_id: str | None) -> None:
        """Refuse ``name`` when another account than ``account_id`` has it or a lookalike
        (the unique indexes decide at the write; this spares a hash).

        Raises:
            RoomError: 409 ``name-taken``.
        """
        with self.sessions() as session:
            other = session.scalars(
                select(AccountRow.id).where(
                    (AccountRow.name_key == name_key(name))
                    | (AccountRow.name_skeleton == skeleton_digest(name)),
                    AccountRow.id != (account_id or ""),
                )
            ).first()
        if other is not None:
            raise name_taken(name)

    async def sign_in(
        self, name: str, password: str, who: Sequence[str] = ()
    ) -> tuple[Account, str]:
        """``POST /api/sessions``: a new session for the account of ``name`` and ``password``
        (verified, and rehashed when made with older parameters, in jobs for ``who``).

        Raises:
            RoomError: 401 ``bad-password`` (no such account, or another password); the
                refusals of :meth:`~metrogames.web.infra.jobs.service.Jobs.run` (429, 503).
        """
        row = await asyncio.to_thread(self._named, name)
        stored = row.password_hash if row is not None else self._dummy
        checked = await self._verify(stored, password, who)
        if not checked["ok"] or row is None:
            raise RoomError(
                401, "bad-password", msg(N_("no account has this name and password"))
            )
        account = Account(row.id, row.name, row.player_id)
        digest = await self._hash(password, who) if checked["rehash"] else None
        return await asyncio.to_thread(self._signed_in, account, digest)

    def _named(self, name: str) -> AccountRow | None:
        with self.sessions() as session:
            return session.scalars(
                select(AccountRow).where(AccountRow.name_key == name_key(name))
            ).first()

    def _signed_in(self, account: Account, digest: str | None) -> tuple[Account, str]:
        """A new session of ``account`` (its password's new hash ``digest`` stored with it)."""
        with self.sessions.begin() as session:
            if digest is not None:
                fresh = session.get(AccountRow, account.id)
                if fresh is not None:
                    fresh.password_hash = digest
            return account, self._open_session(session, account)

    def _open_session(self, session: Session, account: Account) -> str:
        """A new session of ``account`` in ``session``'s transaction (expired ones dropped);
        its token."""
        token = new_token()
        now = self.now()
        session.execute(delete(AccountSessionRow).where(AccountSessionRow.expires <= now))
        session.add(
            AccountSessionRow(
                token_hash=hash_token(token),
                account_id=account.id,
                created=now,
                expires=now + self.lifetime,
            )
        )
        return token

    def sign_out(self, token: str | None) -> None:
        """``DELETE /api/sessions/current``: end the session of ``token`` (none: nothing)."""
        if token:
            with self.sessions.begin() as session:
                session.execute(
                    delete(AccountSessionRow).where(
                        AccountSessionRow.token_hash == hash_token(token)
                    )
                )

    async def change_password(
        self,
        account: Account,
        password: str,
        new_password: str,
        keep: str | None,
        who: Sequence[str] = (),
    ) -> int:
        """``POST /api/accounts/me/password``: the account's password becomes
        ``new_password`` when ``password`` is the current one, and every session of the account
        but ``keep`` (the asking one's token) ends, in one transaction. Returns how many
        ended. Verifying and hashing are jobs for the requesters ``who``.

        Raises:
            RoomError: 401 ``bad-password`` (not the current password); 400 ``bad-request``
                (the new password is the current one); 401 ``bad-session`` (the account is
                gone); the refusals of :meth:`~metrogames.web.infra.jobs.service.Jobs.run` (429,
                503).
        """
        row = await asyncio.to_thread(self._row, account.id)
        if row is None:
            raise RoomError(401, "bad-session", "this needs a signed-in account")
        if not (await self._verify(row.password_hash, password, who))["ok"]:
            raise RoomError(401, "bad-password", msg(N_("this is not the account's password")))
        if new_password == password:
            raise RoomError(
                400, "bad-request", msg(N_("the new password is the current one: choose another"))
            )
        digest = await self._hash(new_password, who)
        return await asyncio.to_thread(self._new_password, account, digest, keep)

    def _row(self, account_id: str) -> AccountRow | None:
        with self.sessions() as session:
            return session.get(AccountRow, account_id)

    def _new_password(self, account: Account, digest: str, keep: str | None) -> int:
        """Store ``digest`` as ``account``'s password and end its sessions but ``keep``."""
        with self.sessions.begin() as session:
            fresh = session.get(AccountRow, account.id)
            if fresh is None:
                raise RoomError(401, "bad-session", "this needs a signed-in account")
            fresh.password_hash = digest
            return self._end_others(session, account, keep)

    def sign_out_others(self, account: Account, keep: str | None) -> int:
        """``DELETE /api/sessions/others``: end every session of the account but ``keep``
        (the asking one's token); how many ended."""
        with self.sessions.begin() as session:
            return self._end_others(session, account, keep)

    def _end_others(self, session: Session, account: Account, keep: str | None) -> int:
        kept = hash_token(keep) if keep else ""
        ended = session.execute(
            delete(AccountSessionRow).where(
                AccountSessionRow.account_id == account.id,
                AccountSessionRow.token_hash != kept,
                AccountSessionRow.expires > self.now(),
            )
        )
        session.execute(
            delete(AccountSessionRow).where(
                AccountSessionRow.account_id == account.id,
                AccountSessionRow.expires <= self.now(),
            )
        )
        return rowcount(ended)

    def of_session(self, token: str | None) -> Account | None:
        """The account of a live session token, else ``None``."""
        if not token:
            return None
        with self.sessions() as session:
            row = session.execute(
                select(AccountRow)
                .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                .where(
                    AccountSessionRow.token_hash == hash_token(token),
                    AccountSessionRow.expires > self.now(),
                )
            ).scalar_one_or_none()
        return None if row is None else Account(row.id, row.name, row.player_id)

    def require(self, token: str | None) -> Account:
        """:meth:`of_session`, refusing without a live session.

        Raises:
            RoomError: 401 ``bad-session``.
        """
        account = self.of_session(token)
        if account is None:
            raise RoomError(401, "bad-session", "this needs a signed-in account")
        return account

    def rename(self, account: Account, name: str) -> Account:
        """``PATCH /api/accounts/me`` ``{"name"}``: the account and its own player are named
        ``name`` (checked) from now on, on every list and record.

        Raises:
            RoomError: 409 ``name-taken``; 401 ``bad-session`` when the account is gone.
        """
        try:
            with self.sessions.begin() as session:
                row = session.get(AccountRow, account.id)
                player = session.get(PlayerRow, account.player_id)
                if row is None or player is None:
                    raise RoomError(401, "bad-session", "this needs a signed-in account")
                row.name, row.name_key, player.name = name, name_key(name), name
                row.name_skeleton = skeleton_digest(name)
        except IntegrityError:
            raise name_taken(name) from None
        return Account(account.id, name, account.player_id)

    def export_name(self, account: Account) -> bool:
        """Whether the monthly exports show ``account``'s name (``accounts.export_name``;
        false, the default: its pseudonym)."""
        with self.sessions() as session:
            return bool(
                session.scalar(select(AccountRow.export_name).where(AccountRow.id == account.id))
            )

    def set_export_name(self, account: Account, show: bool) -> None:
        """``PUT /api/accounts/me/export-name`` ``{"show"}``: the monthly exports show the
        account's name (``True``) or its pseudonym (``False``) from the next export written.

        Raises:
            RoomError: 401 ``bad-session`` when the account is gone.
        """
        with self.sessions.begin() as session:
            row = session.get(AccountRow, account.id)
            if row is None:
                raise RoomError(401, "bad-session", "this needs a signed-in account")
            row.export_name = show

    def get(self, account_id: str) -> Account:
        """The account ``account_id``.

        Raises:
            RoomError: 404 ``not-found``.
        """
        row = None
        if len(account_id) == PLAYER_ID_LENGTH and set(account_id) <= set(PLAYER_ALPHABET):
            with self.sessions() as session:
                row = session.get(AccountRow, account_id)
        if row is None:
            message = msg(N_("no account {account}"), account=repr(account_id[:20]))
            raise RoomError(404, "not-found", message)
        return Account(row.id, row.name, row.player_id)

    def players_of(self, account: Account) -> list[str]:
        """The players the account owns: its own first, then the claimed ones by age."""
        with self.sessions() as session:
            claimed = session.scalars(
                select(PlayerRow.id)
                .where(PlayerRow.account_id == account.id, PlayerRow.id != account.player_id)
                .order_by(PlayerRow.created, PlayerRow.id)
            ).all()
        return [account.player_id, *claimed]

    def claim(self, account: Account, player_token: str | None) -> str:
        """``POST /api/accounts/me/claim``: the anonymous player holding ``player_token``
        becomes the account's (its history shows on the account's profile); the token stops
        working. Returns the player's id.

        Raises:
            RoomError: 401/403 ``bad-token`` (no token, or no player's: a claimed player's
                token, and an account's own player, have none).
        """
        if not player_token:
            raise RoomError(401, "bad-token", "this needs a player token (Authorization: Bearer)")
        with self.sessions.begin() as session:
            row = session.scalars(
                select(PlayerRow).where(PlayerRow.token_hash == hash_token(player_token))
            ).first()
            if row is None:
                raise RoomError(403, "bad-token", "this token is no player's token")
            row.account_id = account.id
            row.token_hash = hash_token(new_token())
            return row.id
