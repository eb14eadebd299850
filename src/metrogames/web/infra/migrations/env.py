"""Alembic environment: runs the migrations on the connection :func:`..db.migrate` passes in
``config.attributes["connection"]`` (or on ``sqlalchemy.url`` when run by the alembic tool)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from metrogames.web.infra.models import Base

config = context.config


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    with create_engine(config.get_main_option("sqlalchemy.url") or "").connect() as conn:
        _run(conn)
