"""The lobby's entries as the database holds them (``docs/web-api.md``, "Lobby").

A room is in the lobby while it is an online room in status ``waiting`` that its host listed
(``rooms.listed_until`` later than now: a listed room nobody fills expires), with at least one
open human seat (a full room leaves at once) and its host's seat connected (``host_away``
false: a room its host left is abandoned). Started rooms are no longer ``waiting``. Newest
first (``created``, then the room id).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from metrogames.games import game_from_options, game_type, preset_of
from metrogames.web.infra.models import RatingRow, RoomRow, SeatRow
from metrogames.web.ratings.service import Rating
from metrogames.web.rooms.views import FreeObject, PresetJson

MAX_ROOMS = 1000
"""The most listed rooms read at once (newest first); the lobby shows no more than these."""


class LobbyEntry(TypedDict):
    """A room of the lobby: its ``room`` id, ``game``, ``options`` (as asked for), ``preset``
    (the published rule set they match, ``{"name", "title"}``, or null), ``players`` (its seats), ``free`` (its open human seats), ``clock`` (the turn clock,
    seconds, or null), ``host`` (seat 0's name), ``host_rating`` (the host's shown rating
    for this game and player count, one decimal, or null: not signed in, or not yet rated),
    ``created`` and ``expires`` (epoch seconds) and ``age`` (seconds since it was created,
    when the entry was sent)."""

    room: str
    game: str
    options: FreeObject
    preset: PresetJson | None
    players: int
    free: int
    clock: int | None
    host: str
    host_rating: float | None
    created: float
    expires: float
    age: int


class Lobby(TypedDict):
    """``GET /api/lobby``: the ``rooms`` (:class:`LobbyEntry`, newest first)."""

    rooms: list[LobbyEntry]


def open_rooms(session: Session, now: float) -> list[LobbyEntry]:
    """Every room of the lobby at ``now`` (epoch seconds), newest first, at most
    :data:`MAX_ROOMS` (``age`` as of ``now``)."""
    rows = session.scalars(
        select(RoomRow)
        .where(
            RoomRow.status == "waiting",
            RoomRow.mode == "online",
            RoomRow.listed_until > now,
            RoomRow.host_away.is_(False),
        )
        .order_by(RoomRow.created.desc(), RoomRow.id)
        .limit(MAX_ROOMS)
    ).all()
    seats: dict[str, list[SeatRow]] = {row.id: [] for row in rows}
    if seats:
        for seat in session.scalars(
            select(SeatRow).where(SeatRow.room_id.in_(seats)).order_by(SeatRow.seat)
        ):
            seats[seat.room_id].append(seat)
    ratings = _host_ratings(session, rows, seats)
    entries = []
    for row in rows:
        free = sum(1 for s in seats[row.id] if s.human and s.bot is None and s.token_hash is None)
        if free and seats[row.id]:
            entries.append(_entry(row, seats[row.id], free, ratings.get(row.id), now))
    return entries


def _entry(
    row: RoomRow, seats: list[SeatRow], free: int, rating: float | None, now: float
) -> LobbyEntry:
    return {
        "room": row.id,
        "game": row.game,
        "options": json.loads(row.options),
        "preset": rule_set(row.game, len(seats), row.options),
        "players": len(seats),
        "free": free,
        "clock": row.turn_clock,
        "host": seats[0].name,
        "host_rating": rating,
        "created": row.created,
        "expires": row.listed_until or now,
        "age": max(0, int(now - row.created)),
    }


@lru_cache(maxsize=256)
def rule_set(game: str, players: int, options: str) -> PresetJson | None:
    """The published rule set (preset) that ``game``'s ``options`` (JSON text, as stored)
    match for ``players`` seats, or ``None`` (as a room summary's ``preset``)."""
    kind = game_type(game)
    name = preset_of(kind, game_from_options(game, players, json.loads(options)).options_json())
    return None if name is None else {"name": name, "title": kind.presets[name].title}


def _host_ratings(
    session: Session, rows: Iterable[RoomRow], seats: dict[str, list[SeatRow]]
) -> dict[str, float]:
    """Room -> its host's shown rating (:attr:`Rating.ordinal`, one decimal) for the room's game
    and player count, for the hosts signed in and rated."""
    wanted = {
        row.id: (seats[row.id][0].account_id, row.game, len(seats[row.id]))
        for row in rows
        if seats[row.id] and seats[row.id][0].account_id
    }
    if not wanted:
        return {}
    accounts = {key[0] for key in wanted.values()}
    found = {
        (r.account_id, r.game, r.players): round(Rating(r.mu, r.sigma, r.games, 0).ordinal, 1)
        for r in session.scalars(select(RatingRow).where(RatingRow.account_id.in_(accounts)))
    }
    return {room: found[key] for room, key in wanted.items() if key in found}


def matches(entry: LobbyEntry, game: str | None, players: int | None) -> bool:
    """Whether ``entry`` passes the filters (``None``: any game, any player count)."""
    return (game is None or entry["game"] == game) and (
        players is None or entry["players"] == players
    )


def aged(entry: LobbyEntry, now: float) -> LobbyEntry:
    """``entry`` with its ``age`` as of ``now``."""
    return {**entry, "age": max(0, int(now - entry["created"]))}
