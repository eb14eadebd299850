"""The server's kept secrets (``server_secrets``): each made once, at random, and kept, unless
the configuration gives it (the daily challenge's ``METROGAMES_DAILY_SECRET``, the exports'
``METROGAMES_EXPORT_SECRET``)."""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from metrogames.web.infra.models import ServerSecretRow


def server_secret(sessions: sessionmaker[Session], name: str, configured: str | None) -> bytes:
    """The secret ``name`` (UTF-8 bytes): ``configured`` when set, else a random one (32 bytes
    as 64 hex digits) made once and kept in ``server_secrets`` (the first server to store it
    wins, every later one reads it)."""
    if configured:
        return configured.encode("utf-8")
    with sessions() as session:
        row = session.get(ServerSecretRow, name)
        if row is not None:
            return row.value.encode("utf-8")
    try:
        with sessions.begin() as session:
            session.add(ServerSecretRow(name=name, value=secrets.token_hex(32)))
    except IntegrityError:
        pass  # another server made it first
    with sessions() as session:
        row = session.get(ServerSecretRow, name)
        assert row is not None
        return row.value.encode("utf-8")
