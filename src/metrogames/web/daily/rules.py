"""The daily challenge's rules the room core needs: the secret, the clock, which rooms are
private and where hints are off, and the attempt's score when its game finishes.

They are split from :class:`~metrogames.web.daily.service.DailyService` (which creates daily
rooms, so needs the room service) because the room service needs them at construction: the app
makes these first and hands them to both (``docs/web-api.md``, "The daily challenge (v1)").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.games import daily_games
from metrogames.web.daily import deal as dd
from metrogames.web.infra.models import DailyAttemptRow
from metrogames.web.infra.secrets import server_secret
from metrogames.web.rooms.tables import Progress, Table

SECRET_NAME = "daily"


def load_secret(sessions: sessionmaker[Session], configured: str | None) -> bytes:
    """The daily secret: ``configured`` (``METROGAMES_DAILY_SECRET``) when set, else a random
    one made once and kept in ``server_secrets`` (:func:`~metrogames.web.infra.secrets.server_secret`)."""
    return server_secret(sessions, SECRET_NAME, configured)


class DailyRules:
    """The daily challenge's secret and clock, and what they decide of rooms
    (:class:`~metrogames.web.rooms.listeners.RoomRules`, and the
    :class:`~metrogames.web.rooms.listeners.RoomListener` that scores attempts).

    Args:
        secret: the daily secret (:func:`load_secret`).
        now: the clock, epoch seconds.
    """

    def __init__(self, secret: bytes, now: Callable[[], float]) -> None:
        self.secret = secret
        self.now = now
        self._seed = lru_cache(maxsize=256)(lambda game, day: dd.daily_seed(secret, game, day))
        self.games = tuple(daily_games())
        """The games with a daily challenge."""

    def today(self) -> str:
        """Today's UTC date by :attr:`now`."""
        return dd.day_of(self.now())

    def seed(self, game: str, day: str) -> int:
        """The seed of ``game``'s deal on ``day``."""
        seed: int = self._seed(game, day)
        return seed

    def private(self, table: Table) -> bool:
        """True for a daily room of today's deal: its seed is not yet public, and only its
        player may see the game (views, record, replay) until the day closes."""
        return table.mode == "daily" and table.seed == self.seed(table.game, self.today())

    def hints_off(self, table: Table) -> bool:
        """True for a room on today's deal of a daily game, whatever room it is (the deal is
        the seed's): hints are refused in it. (A ranked game still going on after midnight
        ends as practice, so its hints are allowed.)"""
        return table.game in self.games and table.seed == self.seed(table.game, self.today())

    def finished(self, session: Session, table: Table, progress: Progress) -> None:
        """The rooms' finish listener: a daily attempt's score and finishing time, stored with
        the game's last action."""
        if table.mode != "daily":
            return
        row = session.scalars(
            select(DailyAttemptRow).where(DailyAttemptRow.room_id == table.id)
        ).first()
        if row is not None:
            row.score = int(progress.state.scores()[0])
            row.finished_at = self.now()
            if row.ranked and row.finished_at >= dd.day_opens(row.day) + dd.DAY_SECONDS:
                row.ranked = False  # its day's deal went public at midnight: practice now
