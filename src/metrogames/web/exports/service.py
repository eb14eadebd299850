"""The exports the server hands out (``docs/web-api.md``, "Open data"): which months there
are, and a month's export streamed as it is written — by a process of its own
(:mod:`.writer`), so that replaying a month's games never runs beside the moves."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import AsyncGenerator

from sqlalchemy import func, make_url, select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.core.protocol import JsonObject
from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError
from metrogames.web.exports.fileformat import CHUNK, SUFFIX
from metrogames.web.exports.games import MODES
from metrogames.web.exports.months import Month, month_of, parse_month
from metrogames.web.exports.pseudonyms import SECRET_NAME
from metrogames.web.infra.models import RoomRow
from metrogames.web.infra.secrets import server_secret

STREAMS = 1
"""Exports one process writes at once (each replays every game of its month); one more asked
meanwhile is refused with 503 ``busy``."""
DOWNLOAD_SECONDS = 900.0
"""The longest an export may take to reach its client, writer and reader together: past it
the writer is stopped and the response cut short (a reader that stops reading cannot keep the
one export of :data:`STREAMS` for itself)."""


def export_secret(sessions: sessionmaker[Session], configured: str | None) -> bytes:
    """The export secret: ``METROGAMES_EXPORT_SECRET`` when set, else one made once and kept
    (:func:`~metrogames.web.infra.secrets.server_secret`, name ``exports``)."""
    return server_secret(sessions, SECRET_NAME, configured)


class Exports:
    """The monthly exports of a database.

    Args:
        sessions: the database's sessions.
        secret: the export secret (:func:`export_secret`).
        db_url: the database's URL, for the writer process (``None`` or an in-memory SQLite
            database: no download, 503 ``unavailable``).
    """

    def __init__(
        self, sessions: sessionmaker[Session], secret: bytes, db_url: str | None = None
    ) -> None:
        self.sessions = sessions
        self.secret = secret
        self.db_url = None if db_url is None or _in_memory(db_url) else db_url
        self._streams = threading.BoundedSemaphore(STREAMS)

    def months(self, now: float) -> list[JsonObject]:
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
        found: list[JsonObject] = []
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
            RoomError: 503 ``unavailable`` for a database the writer cannot open (in memory),
                503 ``busy`` while :data:`STREAMS` exports are being written.
        """
        if self.db_url is None:
            raise RoomError(503, "unavailable", msg(N_("exports need a database file or server")))
        if not self._streams.acquire(blocking=False):
            raise RoomError(503, "busy", msg(N_("an export is being written: try again soon")))

    def release(self) -> None:
        """Give back what :meth:`hold` took."""
        self._streams.release()

    async def stream(self, month: Month, now: float) -> AsyncGenerator[bytes, None]:
        """The compressed export of ``month`` as of ``now``, chunk by chunk as the writer
        process (:mod:`.writer`) makes it; the writer stopped when the stream ends early (a
        client gone) or passes :data:`DOWNLOAD_SECONDS`, the stream then cut short."""
        assert self.db_url is not None  # hold() refused the download otherwise
        env = {
            **os.environ,
            "METROGAMES_EXPORT_DB": self.db_url,
            "METROGAMES_EXPORT_KEY": self.secret.hex(),
            "METROGAMES_EXPORT_MONTH": month.name,
            "METROGAMES_EXPORT_NOW": repr(now),
        }
        writer = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "metrogames.web.exports.writer",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            stdin=asyncio.subprocess.DEVNULL, env=env,
        )  # fmt: skip
        assert writer.stdout is not None
        deadline = time.monotonic() + DOWNLOAD_SECONDS
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                try:
                    chunk = await asyncio.wait_for(writer.stdout.read(CHUNK), left)
                except TimeoutError:
                    return
                if not chunk:
                    return
                yield chunk
        finally:
            if writer.returncode is None:
                writer.kill()
            await writer.wait()


def _in_memory(url: str) -> bool:
    """Whether ``url`` is a SQLite database in memory (another process cannot open it)."""
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")
