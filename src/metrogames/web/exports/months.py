"""The months of the exports: ``YYYY-MM`` in UTC, from the first instant of its first day to
the first instant of the next month's (``docs/exports.md``, "Months")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError

MONTH = re.compile(r"(\d{4})-(\d{2})")


@dataclass(frozen=True)
class Month:
    """A month: its ``name`` (``YYYY-MM``), ``start`` and ``end`` (epoch seconds, UTC; the end
    excluded)."""

    name: str
    start: float
    end: float

    def until(self, now: float) -> float:
        """Where an export made at ``now`` stops: the month's end, or ``now`` in the month."""
        return min(self.end, now)

    def finished(self, now: float) -> bool:
        """Whether the month has ended by ``now`` (its export will not change)."""
        return now >= self.end


def parse_month(text: str) -> Month:
    """The month ``YYYY-MM`` (month 01–12, year 2000–9998).

    Raises:
        RoomError: 400 ``bad-request`` naming the text, for anything else.
    """
    found = MONTH.fullmatch(text) if isinstance(text, str) else None
    year, month = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    if not (2000 <= year <= 9998 and 1 <= month <= 12):
        raise RoomError(
            400, "bad-request", msg(N_("{month} is not a month (YYYY-MM)"), month=repr(text[:20]))
        )
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Month(f"{year:04d}-{month:02d}", start.timestamp(), end.timestamp())


def month_of(epoch: float) -> Month:
    """The month of an epoch time (UTC)."""
    return parse_month(datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m"))


def iso(epoch: float) -> str:
    """An epoch time as ISO 8601 UTC to the second, ``2026-12-03T15:04:05Z``."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
