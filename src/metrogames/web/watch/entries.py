"""The games of the now playing list as the database holds them (``docs/web-api.md``, "Now
playing").

A game is in the list while it is an online room in status ``playing`` that its host listed
(``rooms.listed_until`` not null: listed in the lobby when it was waiting, expired or not —
the lobby's own rule of what is listed, :mod:`metrogames.web.lobby.entries`) or that play now
opened (public from its creation: strangers' games, as on every game site). An unlisted room
(link only) never is, and no daily room is (its mode is ``daily``:
a daily game of a day still open is private to its player, :class:`~metrogames.web.daily.rules.DailyRules`).
At most :data:`MAX_GAMES` games are read, the newest first; the list ranks them twice:
``top`` by the mean shown rating of their rated seats (unrated games last), and ``recent`` by
when their room was made (newest first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import false, func, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from metrogames.web.infra.models import AccountRow, RatingRow, RoomRow, SeatRow
from metrogames.web.lobby.entries import rule_set
from metrogames.web.ratings.service import Rating
from metrogames.web.rooms.views import PresetJson, SeatKind

MAX_GAMES = 200
"""The most games in progress read at once (newest first)."""
MAX_SHOWN = 50
"""The most games either ranking shows."""


class WatchSeat(TypedDict):
    """A seat of a game in progress: its number, ``name``, ``kind`` (``human`` or ``bot``, as
    a view says: a server bot's seat or a bot account's) and ``rating`` (the account's shown
    rating for this game and player count, one decimal, or null: not rated, or no account)."""

    seat: int
    name: str
    kind: SeatKind
    rating: float | None


class WatchEntry(TypedDict):
    """A game in progress: its ``room``, ``game``, ``preset`` (``{"name", "title"}`` or null),
    ``players`` (its seat count), ``seats``, ``rating`` (the mean of its seats' ratings, one
    decimal, or null: no seat rated), ``clock`` (the turn clock, seconds, or null),
    ``created`` (epoch seconds) and ``spectators`` (sockets watching it, on every worker)."""

    room: str
    game: str
    preset: PresetJson | None
    players: int
    seats: list[WatchSeat]
    rating: float | None
    clock: int | None
    created: float
    spectators: int


class NowPlaying(TypedDict):
    """``GET /api/watch``: the same games ranked twice, ``top`` (best rated first) and
    ``recent`` (newest first)."""

    top: list[WatchEntry]
    recent: list[WatchEntry]


SeatFacts = tuple[str, int, str, str | None, bool, str | None]
"""A seat as read: room, seat, name, server bot code, bot account, account."""


def playing_rooms(session: Session) -> list[WatchEntry]:
    """Every game of the list, newest first, at most :data:`MAX_GAMES` (``spectators`` 0:
    the counts are the caller's, :meth:`.hub.Watch.read`)."""
    rows = session.scalars(
        select(RoomRow)
        .where(
            RoomRow.status == "playing",
            RoomRow.mode == "online",
            RoomRow.listed_until.is_not(None),
        )
        .order_by(RoomRow.created.desc(), RoomRow.id)
        .limit(MAX_GAMES)
    ).all()
    if not rows:
        return []
    is_bot = func.coalesce(AccountRow.bot, false())
    seats: dict[str, list[SeatFacts]] = {row.id: [] for row in rows}
    for room, seat, name, bot, bot_account, account in session.execute(
        select(SeatRow.room_id, SeatRow.seat, SeatRow.name, SeatRow.bot, is_bot, SeatRow.account_id)
        .outerjoin(AccountRow, AccountRow.id == SeatRow.account_id)
        .where(SeatRow.room_id.in_(seats))
        .order_by(SeatRow.room_id, SeatRow.seat)
    ):
        seats[room].append((room, seat, name, bot, bool(bot_account), account))
    ratings = _ratings(session, {s[5] for facts in seats.values() for s in facts if s[5]})
    return [_entry(row, seats[row.id], ratings) for row in rows if seats[row.id]]


def _entry(
    row: RoomRow, seats: Sequence[SeatFacts], ratings: dict[tuple[str, str, int], float]
) -> WatchEntry:
    players = len(seats)
    shown: list[WatchSeat] = [
        {
            "seat": seat,
            "name": name,
            "kind": "bot" if bot or bot_account else "human",
            "rating": ratings.get((account, row.game, players)) if account else None,
        }
        for _, seat, name, bot, bot_account, account in seats
    ]
    rated = [s["rating"] for s in shown if s["rating"] is not None]
    return {
        "room": row.id,
        "game": row.game,
        "preset": rule_set(row.game, players, row.options),
        "players": players,
        "seats": shown,
        "rating": round(sum(rated) / len(rated), 1) if rated else None,
        "clock": row.turn_clock,
        "created": row.created,
        "spectators": 0,
    }


def _ratings(session: Session, accounts: Iterable[str]) -> dict[tuple[str, str, int], float]:
    """(account, game, players) -> the shown rating (one decimal) of ``accounts``."""
    wanted = list(accounts)
    if not wanted:
        return {}
    return {
        (r.account_id, r.game, r.players): round(Rating(r.mu, r.sigma, r.games, 0).ordinal, 1)
        for r in session.scalars(select(RatingRow).where(RatingRow.account_id.in_(wanted)))
    }


def ranked(entries: Sequence[WatchEntry], game: str | None, limit: int) -> NowPlaying:
    """The list of ``entries`` (newest first) of ``game`` (``None``: any), each ranking at
    most ``limit`` long: ``top`` by ``rating`` (highest first; unrated last, newest first
    among equals), ``recent`` newest first."""
    mine = [e for e in entries if game is None or e["game"] == game]
    top = sorted(mine, key=lambda e: (e["rating"] is None, -(e["rating"] or 0.0)))
    return {"top": top[:limit], "recent": list(mine[:limit])}


def with_spectators(entries: Sequence[WatchEntry], counts: dict[str, int]) -> list[WatchEntry]:
    """``entries`` with their ``spectators`` from ``counts`` (room -> sockets; absent: 0)."""
    return [{**e, "spectators": counts.get(e["room"], 0)} for e in entries]
