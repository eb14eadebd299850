"""The exports the server hands out (``docs/web-api.md``, "Open data"): which months there
are, and a month's export streamed as it is written (:mod:`.games`, :mod:`.fileformat`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError
from metrogames.web.exports.fileformat import SUFFIX, compressed
from metrogames.web.exports.games import MODES, MonthGames
from metrogames.web.exports.months import Month, month_of, parse_month
from metrogames.web.exports.pseudonyms import SECRET_NAME
from metrogames.web.infra.models import RoomRow
from metrogames.web.infra.secrets import server_secret

STREAMS = 1
"""Exports one process writes at once (each replays every game of its month); one more asked
meanwhile is refused with 503 ``busy``."""


def export_secret(sessions: sessionmaker[Session], configured: str | None) -> bytes:
    """The export secret: ``METROGAMES_EXPORT_SECRET`` when set, else one made once and kept
    (:func:`~metrogames.web.infra.secrets.server_secret`, name ``exports``)."""
    return server_secret(sessions, SECRET_NAME, configured)


class Exports:
    """The monthly exports of a database.

    Args:
        sessions: the database's sessions.
        secret: the export secret (:func:`export_secret`).
    """

    def __init__(self, sessions: sessionmaker[Session], secret: bytes) -> None:
        self.sessions = sessions
        self.secret = secret
        self._streams = threading.BoundedSemaphore(STREAMS)

    def months(self, now: float) -> list[dict[str, Any]]:
        """``[{"month", "complete", "url"}]``, newest first: every month from the first
        finished online or daily game's to the current one (``complete``: it has ended)."""
        with self.sessions() as session:
            first = session.scalar(
                select(func.min(RoomRow.finished)).where(
                    RoomRow.status == "finished", RoomRow.mode.in_(MODES)
                )
            )
        if first is None:
            return []
        found = []
        month = month_of(min(first, now))
        while month.start <= now:
            found.append(
                {
                    "month": month.name,
                    "complete": month.finished(now),
                    "url": f"/api/exports/{month.name}{SUFFIX}",
                }
            )
            month = month_of(month.end)
        return found[::-1]

    def month(self, name: str, now: float) -> Month:
        """The month of a file name ``YYYY-MM.jsonl.zst`` that has begun by ``now``.

        Raises:
            RoomError: 404 ``not-found`` for another name or a month to come.
        """
        month = parse_month(name[: -len(SUFFIX)]) if name.endswith(SUFFIX) else None
        if month is None or month.start > now:
            raise RoomError(404, "not-found", msg(N_("no export {name}"), name=repr(name[:40])))
        return month

    def hold(self) -> None:
        """Take one of the :data:`STREAMS` for an export about to be written (give it back
        with :meth:`release` when it ends, however it ends).

        Raises:
            RoomError: 503 ``busy`` while :data:`STREAMS` exports are being written.
        """
        if not self._streams.acquire(blocking=False):
            raise RoomError(503, "busy", msg(N_("an export is being written: try again soon")))

    def release(self) -> None:
        """Give back what :meth:`hold` took."""
        self._streams.release()

    def chunks(self, month: Month, now: float) -> Iterator[bytes]:
        """The compressed export of ``month`` as of ``now``, chunk by chunk (blocks: iterate
        it on a thread)."""
        games = MonthGames(self.sessions, self.secret, month, now)
        return compressed(games.header(), games.lines())
