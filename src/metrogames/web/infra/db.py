"""The database: engine, sessions and migrations (SQLite by default, PostgreSQL by URL).

:func:`open_database` creates the engine for a URL (creating a SQLite file's folder), and
:func:`migrate` applies the Alembic migrations packaged in :mod:`metrogames.web.infra.migrations`,
so an installed package migrates its own database at start; :func:`unavailable` tells an
unreachable database (a 503, :data:`UNAVAILABLE`) from a failure of the server.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
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


def open_database(url: str) -> Engine:
    """An engine for ``url``; a SQLite file's folder is created, its foreign keys enforced,
    and it runs with a write-ahead log (``synchronous=NORMAL``).

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

        return engine
    # no ping per checkout (a round trip before each write): a connection the database
    # dropped fails its request as unavailable (a 503, :func:`unavailable`), and the pool
    # then discards every connection opened before; none is kept past half an hour
    return create_engine(url, pool_recycle=1800)


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
