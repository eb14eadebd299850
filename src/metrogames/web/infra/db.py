"""The database: engine, sessions and migrations (SQLite by default, PostgreSQL by URL).

:func:`open_database` creates the engine for a URL (creating a SQLite file's folder), and
:func:`migrate` applies the Alembic migrations packaged in :mod:`metrogames.web.infra.migrations`,
so an installed package migrates its own database at start; :func:`unavailable` tells an
unreachable database (a 503, :data:`UNAVAILABLE`) from a failure of the server.

A SQLite file's write-ahead log is copied back into the database (a *checkpoint*, which
syncs the file to disk) by :class:`Checkpoints`' thread of its own in a serving process, never
by the commit that happens to fill the log: on a busy disk that sync took over a second, and
the commit waiting on it held every room's next write behind it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import CursorResult, Engine, Result, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError

UNAVAILABLE = RoomError(
    503,
    "unavailable",
    msg(N_("the database cannot be reached for a moment: nothing was changed, try again")),
    headers={"Retry-After": "2"},
)
"""The refusal of a request the database could not serve (it is down or restarting)."""
CHECKPOINT_SECONDS = 1.0
"""How often :class:`Checkpoints` copies a SQLite file's write-ahead log back into it."""
FALLBACK_PAGES = 25_000
"""With background checkpoints, the log length (pages of 4 KiB: about 100 MB) at which a commit
still checkpoints itself, should the background thread fall behind or not run."""
log = logging.getLogger("metrogames.web.db")


def open_database(url: str, background_checkpoints: bool = False) -> Engine:
    """An engine for ``url``; a SQLite file's folder is created, its foreign keys enforced,
    and it runs with a write-ahead log (``synchronous=NORMAL``). ``background_checkpoints``:
    commits leave the log's checkpoints to :class:`Checkpoints` (up to :data:`FALLBACK_PAGES`),
    instead of SQLite's default of one in the commit that fills 1,000 pages.

    Raises:
        sqlalchemy.exc.ArgumentError: a URL SQLAlchemy cannot read.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})

        in_memory = not parsed.database or parsed.database == ":memory:"

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            dbapi_connection.execute("PRAGMA foreign_keys=ON")
            dbapi_connection.execute("PRAGMA busy_timeout=5000")
            if not in_memory:
                # a write-ahead log with normal syncs: commits stay durable against a crash
                # of the server (not of the machine) and cost microseconds, not milliseconds
                dbapi_connection.execute("PRAGMA journal_mode=WAL")
                dbapi_connection.execute("PRAGMA synchronous=NORMAL")
                if background_checkpoints:
                    dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={FALLBACK_PAGES}")

        return engine
    # no ping per checkout (a round trip before each write): a connection the database
    # dropped fails its request as unavailable (a 503, :func:`unavailable`), and the pool
    # then discards every connection opened before; none is kept past half an hour
    return create_engine(url, pool_recycle=1800)


class Checkpoints:
    """Checkpoints of a SQLite file's write-ahead log on a thread and connection of their own,
    every :data:`CHECKPOINT_SECONDS` while running (``PRAGMA wal_checkpoint(PASSIVE)``: it
    copies what no reader still needs and never waits for, nor blocks, a writer or a reader),
    and a last full one (``TRUNCATE``) when stopped. For any other database (PostgreSQL, SQLite
    in memory) it does nothing: the server checkpoints itself.
    """

    def __init__(self, engine: Engine, every: float = CHECKPOINT_SECONDS) -> None:
        url = engine.url
        self.path = (
            url.database
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
            else None
        )
        self.every = every
        self.done = 0
        """Checkpoints run so far (a passive one that found nothing to copy counts too)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (a no-op without a SQLite file, or when started already)."""
        if self.path is None or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, name="metrogames-checkpoints", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (it ends its current checkpoint first), then checkpoint the whole
        log and empty it; blocks for as long as that takes (call it from a thread)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join()
        self._last()

    def _run(self) -> None:
        assert self.path is not None
        connection = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False)
        try:
            while not self._stop.wait(self.every):
                self._checkpoint(connection, "PASSIVE")
        finally:
            connection.close()

    def _last(self) -> None:
        assert self.path is not None
        connection = sqlite3.connect(self.path, timeout=5.0)
        try:
            self._checkpoint(connection, "TRUNCATE")
        finally:
            connection.close()

    def _checkpoint(self, connection: sqlite3.Connection, mode: str) -> None:
        try:
            connection.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            self.done += 1
        except sqlite3.Error as exc:  # a busy or vanished file: the next period tries again
            log.warning("checkpoint (%s) of %s: %s", mode.lower(), self.path, exc)


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached (rather than a bug): an
    operational error, or a connection the driver found broken."""
    return isinstance(exc, OperationalError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    )


def migrate(engine: Engine) -> None:
    """Apply every Alembic migration not yet applied (``upgrade head``)."""
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("metrogames.web.infra").joinpath("migrations"))
    )
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine`` whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def rowcount(result: Result[*tuple[object, ...]]) -> int:
    """How many rows an ``UPDATE`` or ``DELETE`` run by ``Session.execute`` matched (its result
    is a ``CursorResult``, which the session's typing does not say)."""
    assert isinstance(result, CursorResult)
    return int(result.rowcount or 0)
