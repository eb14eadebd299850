"""Who follows and who blocks whom (``docs/web-api.md``, "Friends and invitations").

An account follows another by its name (:class:`~metrogames.web.infra.models.FollowRow`) to
see whether it is online and playing, and blocks another
(:class:`~metrogames.web.infra.models.BlockRow`): a block works both ways — neither may
invite the other, chat in a room where the other is seated, or be seated with the other by
play now. Following or blocking twice changes nothing; an account can follow or block
neither itself nor an account that does not exist (404). Blocking an account stops following
it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import TypedDict

from sqlalchemy import delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.accounts.service import name_key
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.models import AccountRow, BlockRow, FollowRow, RoomRow, SeatRow

FOLLOW_LIMIT = 500
"""The most accounts one account follows (or blocks)."""


class SeatedAt(TypedDict):
    """A seat an account holds in a room not over: ``room``, ``seat``, ``game``, ``status``
    (``waiting`` or ``playing``)."""

    room: str
    seat: int
    game: str
    status: str


class Friends:
    """Follows and blocks over the database's ``sessions`` (``now``: epoch seconds)."""

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], float] = time.time):
        self.sessions = sessions
        self.now = now

    # -- names ------------------------------------------------------------------------------
    @staticmethod
    def _named(session: Session, name: str) -> AccountRow:
        row = session.scalar(select(AccountRow).where(AccountRow.name_key == name_key(name)))
        if row is None:
            raise RoomError(
                404, "not-found", msg(N_("no account {account}"), account=repr(name[:20]))
            )
        return row

    def account_named(self, name: str) -> tuple[str, bool]:
        """The id of the account named ``name`` and whether it is a bot account.

        Raises:
            RoomError: 404 ``not-found``.
        """
        with self.sessions() as session:
            row = self._named(session, name)
            return row.id, row.bot

    def _other(self, session: Session, account: str, name: str) -> AccountRow:
        row = self._named(session, name)
        if row.id == account:
            raise bad_request(msg(N_("an account cannot follow or block itself")))
        return row

    def _add(
        self, session: Session, table: type[FollowRow] | type[BlockRow], values: dict[str, object]
    ) -> None:
        """Insert a pair unless it is there already (one statement: two at once add one)."""
        insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
        session.execute(insert(table).values(**values).on_conflict_do_nothing())

    @staticmethod
    def _check_limit(count: int) -> None:
        if count >= FOLLOW_LIMIT:
            message = msg(
                N_("an account follows or blocks at most {limit} accounts"), limit=FOLLOW_LIMIT
            )
            raise RoomError(409, "too-many", message)

    # -- follows ----------------------------------------------------------------------------
    def follow(self, account: str, name: str) -> str:
        """``account`` follows the account named ``name``; returns its shown name.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (itself); 409 ``blocked`` (a
                block between the two); 409 ``too-many`` (:data:`FOLLOW_LIMIT`).
        """
        with self.sessions.begin() as session:
            target = self._other(session, account, name)
            if self._blocked(session, account, [target.id]):
                raise blocked_error()
            count = session.scalar(
                select(func.count()).select_from(FollowRow).where(FollowRow.follower_id == account)
            )
            self._check_limit(count or 0)
            values = {"follower_id": account, "followed_id": target.id, "created": self.now()}
            self._add(session, FollowRow, values)
            return target.name

    def unfollow(self, account: str, name: str) -> None:
        """``account`` no longer follows ``name`` (nothing when it did not).

        Raises:
            RoomError: 404 ``not-found``.
        """
        with self.sessions.begin() as session:
            target = self._named(session, name)
            session.execute(
                delete(FollowRow).where(
                    FollowRow.follower_id == account, FollowRow.followed_id == target.id
                )
            )

    def following(self, account: str) -> list[tuple[str, str]]:
        """The accounts ``account`` follows: ``(id, name)``, by name."""
        with self.sessions() as session:
            rows = session.execute(
                select(AccountRow.id, AccountRow.name)
                .join(FollowRow, FollowRow.followed_id == AccountRow.id)
                .where(FollowRow.follower_id == account)
                .order_by(AccountRow.name_key)
            ).all()
        return [(r.id, r.name) for r in rows]

    # -- blocks -----------------------------------------------------------------------------
    def block(self, account: str, name: str) -> str:
        """``account`` blocks the account named ``name`` (and stops following it); returns
        its shown name.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (itself); 409 ``too-many``.
        """
        with self.sessions.begin() as session:
            target = self._other(session, account, name)
            count = session.scalar(
                select(func.count()).select_from(BlockRow).where(BlockRow.blocker_id == account)
            )
            self._check_limit(count or 0)
            values = {"blocker_id": account, "blocked_id": target.id, "created": self.now()}
            self._add(session, BlockRow, values)
            session.execute(
                delete(FollowRow).where(
                    FollowRow.follower_id == account, FollowRow.followed_id == target.id
                )
            )
            return target.name

    def unblock(self, account: str, name: str) -> None:
        """``account`` no longer blocks ``name`` (nothing when it did not).

        Raises:
            RoomError: 404 ``not-found``.
        """
        with self.sessions.begin() as session:
            target = self._named(session, name)
            session.execute(
                delete(BlockRow).where(
                    BlockRow.blocker_id == account, BlockRow.blocked_id == target.id
                )
            )

    def blocked(self, account: str) -> list[str]:
        """The names of the accounts ``account`` blocks, by name."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(AccountRow.name)
                    .join(BlockRow, BlockRow.blocked_id == AccountRow.id)
                    .where(BlockRow.blocker_id == account)
                    .order_by(AccountRow.name_key)
                ).all()
            )

    @staticmethod
    def _blocked(session: Session, account: str, others: Collection[str]) -> bool:
        if not others:
            return False
        found = session.scalar(
            select(BlockRow.blocker_id)
            .where(
                or_(
                    (BlockRow.blocker_id == account) & BlockRow.blocked_id.in_(others),
                    BlockRow.blocker_id.in_(others) & (BlockRow.blocked_id == account),
                )
            )
            .limit(1)
        )
        return found is not None

    def blocked_among(self, account: str, others: Collection[str]) -> bool:
        """Whether ``account`` blocks, or is blocked by, any of ``others`` (account ids)."""
        with self.sessions() as session:
            return self._blocked(session, account, [o for o in others if o != account])

    def blocked_at_table(self, room: str, seat: int) -> bool:
        """Whether the account of ``room``'s ``seat`` blocks, or is blocked by, the account
        of another seat of the room (``False`` for a seat tied to no account)."""
        with self.sessions() as session:
            rows = session.execute(
                select(SeatRow.seat, SeatRow.account_id).where(
                    SeatRow.room_id == room, SeatRow.account_id.is_not(None)
                )
            ).all()
            mine = [r.account_id for r in rows if r.seat == seat]
            others = [r.account_id for r in rows if r.seat != seat and r.account_id is not None]
            return bool(mine) and mine[0] is not None and self._blocked(session, mine[0], others)

    def block_pairs(self, accounts: Collection[str]) -> set[frozenset[str]]:
        """The pairs of ``accounts`` with a block between them (either way)."""
        if len(accounts) < 2:
            return set()
        with self.sessions() as session:
            rows = session.execute(
                select(BlockRow.blocker_id, BlockRow.blocked_id).where(
                    BlockRow.blocker_id.in_(accounts), BlockRow.blocked_id.in_(accounts)
                )
            ).all()
        return {frozenset((r.blocker_id, r.blocked_id)) for r in rows}

    # -- where they sit -------------------------------------------------------------------
    def seated(self, accounts: Collection[str]) -> dict[str, list[SeatedAt]]:
        """The seats each of ``accounts`` holds in online rooms waiting or playing, newest
        room first."""
        found: dict[str, list[SeatedAt]] = {a: [] for a in accounts}
        if not accounts:
            return found
        with self.sessions() as session:
            rows = session.execute(
                select(
                    SeatRow.account_id, SeatRow.room_id, SeatRow.seat, RoomRow.game, RoomRow.status
                )
                .join(RoomRow, RoomRow.id == SeatRow.room_id)
                .where(
                    SeatRow.account_id.in_(accounts),
                    RoomRow.mode == "online",
                    RoomRow.status.in_(("waiting", "playing")),
                )
                .order_by(RoomRow.created.desc())
            ).all()
        for r in rows:
            if r.account_id is not None:
                seat: SeatedAt = {
                    "room": r.room_id,
                    "seat": r.seat,
                    "game": r.game,
                    "status": r.status,
                }
                found[r.account_id].append(seat)
        return found


def blocked_error() -> RoomError:
    """403 ``blocked``: a block between two accounts refuses what was asked."""
    return RoomError(403, "blocked", msg(N_("this player is blocked, or has blocked you")))
