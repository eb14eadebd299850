"""The custom maps accounts save (``docs/web-api.md``, "Maps"), stored by content hash.

A map is stored once, as its canonical JSON text (keys sorted, no spaces, UTF-8: the text its
content hash is the SHA-256 of, ``docs/maps.md`` "Content hash"), and never changed: saving the
same map again only lists it for the account. Only a map the checker found valid is saved (the
route checks it as a heavy job first). An account keeps at most :data:`MAX_SAVED` maps.
Refusals are :class:`~metrogames.web.errors.RoomError`: 409 ``too-many-maps``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import AccountMapRow, MapRow

MAX_SAVED = 50
"""The most maps one account keeps."""


@dataclass(frozen=True)
class SavedMap:
    """A map in an account's list: its content ``hash``, ``title``, ``bytes`` (the stored
    text's size) and when it was ``saved`` (epoch s)."""

    hash: str
    title: str
    bytes: int
    saved: float

    def to_json(self) -> dict[str, object]:
        return {"hash": self.hash, "title": self.title, "bytes": self.bytes, "saved": self.saved}


def canonical(data: object) -> tuple[str, str]:
    """The canonical JSON text of a decoded map and its content hash (``sha256:`` + hex)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text, "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class SavedMaps:
    """The saved maps, on the app's database sessions (``now``: the clock, epoch s)."""

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.now = now

    def save(self, account_id: str, data: object, title: str) -> SavedMap:
        """Store the valid map ``data`` (once, by its content hash) and list it for the
        account under ``title`` (the map's own, at most 200 characters).

        Raises:
            RoomError: 409 ``too-many-maps``: the account keeps :data:`MAX_SAVED` already.
        """
        try:
            return self._save(account_id, data, title)
        except IntegrityError:  # the same map stored meanwhile by another request: listed now
            return self._save(account_id, data, title)

    def _save(self, account_id: str, data: object, title: str) -> SavedMap:
        text, digest = canonical(data)
        size = len(text.encode("utf-8"))
        now = self.now()
        with self.sessions.begin() as session:
            listed = session.get(AccountMapRow, (account_id, digest))
            if listed is not None:
                return SavedMap(digest, listed.title, size, listed.saved)
            count = session.execute(
                select(func.count()).where(AccountMapRow.account_id == account_id)
            ).scalar_one()
            if count >= MAX_SAVED:
                raise RoomError(
                    409,
                    "too-many-maps",
                    msg(N_("an account keeps at most {n} maps"), n=MAX_SAVED),
                )
            if session.get(MapRow, digest) is None:
                session.add(MapRow(hash=digest, body=text, bytes=size, created=now))
                session.flush()
            session.add(
                AccountMapRow(account_id=account_id, map_hash=digest, title=title[:200], saved=now)
            )
        return SavedMap(digest, title[:200], size, now)

    def listed(self, account_id: str) -> list[SavedMap]:
        """The account's saved maps, the most recently saved first."""
        with self.sessions() as session:
            rows = session.execute(
                select(AccountMapRow, MapRow.bytes)
                .join(MapRow, MapRow.hash == AccountMapRow.map_hash)
                .where(AccountMapRow.account_id == account_id)
                .order_by(AccountMapRow.saved.desc(), AccountMapRow.map_hash)
            ).all()
        return [SavedMap(row.map_hash, row.title, size, row.saved) for row, size in rows]

    def text(self, digest: str) -> str | None:
        """The stored text of the map ``digest``, or ``None``."""
        with self.sessions() as session:
            row = session.get(MapRow, digest)
        return None if row is None else row.body
