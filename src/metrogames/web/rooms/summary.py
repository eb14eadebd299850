"""What a room shows of itself: its summary, its seats, a seat's view and frame, its record.

Contract: ``docs/web-api.md``, "Rooms" (the summary), "Views" and "Records". These only read a
room's copy in memory (:class:`~metrogames.web.rooms.tables.Table`); whether a room is private
(a daily game of a day still open) is the caller's to say (the room service asks its
:class:`~metrogames.web.rooms.listeners.RoomRules`).
"""

from __future__ import annotations

from typing import cast

from metrogames.core.errors import RecordError
from metrogames.core.protocol import JsonObject
from metrogames.games import game_type, preset_of
from metrogames.web.errors import RoomError
from metrogames.web.rooms.tables import SPECTATORS, Seat, Table
from metrogames.web.rooms.views import (
    Frame,
    Mode,
    PresetJson,
    RoomSummary,
    SeatView,
    Status,
    SummarySeat,
    build_view,
)


def seat_connected(table: Table, seat: int) -> bool:
    """Whether ``seat``'s player has a socket on the room, on this worker or another."""
    return table.connected[seat] > 0 or any(c[seat] > 0 for c in table.elsewhere.values())

def spectators(table: Table) -> int:
    """How many spectator sockets the room has, on this worker and the other live ones."""
    here = max(0, table.connected[SPECTATORS])
    return here + sum(max(0, c[SPECTATORS]) for c in table.elsewhere.values())


def seats_json(table: Table) -> list[SummarySeat]:
    """The summary's seats: ``[{"seat", "name", "kind", "bot", "claimed", "connected"}]``."""
    return [
        {
            "seat": s.seat,
            "name": s.name,
            "kind": s.kind,
            "bot": s.bot,
            "claimed": s.token_hash is not None or not s.human,
            "connected": _connected(table, s),
        }
        for s in table.seats
    ]

def _connected(table: Table, seat: Seat) -> bool:
    """Whether ``seat`` shows connected: a bot's always, a person's while a socket holds it."""
    return bool(seat.bot) or seat_connected(table, seat.seat)

def preset_json(table: Table) -> PresetJson | None:
    """``{"name", "title"}`` of the rule set the room's options match, or ``None``."""
    kind = game_type(table.game)
    name = preset_of(kind, table.progress.state.game.options_json())
    return None if name is None else {"name": name, "title": kind.presets[name].title}

def summary(table: Table, private: bool) -> RoomSummary:
    """``GET /api/rooms/{room}``: the room summary of ``docs/web-api.md``
    (:class:`~metrogames.web.rooms.views.RoomSummary`); ``private``: the room is
    private to its players (``day_open``)."""
    summary: RoomSummary = {
        "room": table.id,
        "game": table.game,
        "mode": cast(Mode, table.mode),  # the room's facts hold what their writers checked
        "options": table.options,
        "preset": preset_json(table),
        "status": cast(Status, table.status),
        "seats": seats_json(table),
        "turn_clock": table.turn_clock,
        "created": table.created,
        "day_open": private,
        "spectators": spectators(table),
    }
    return summary

def frame(table: Table, you: int | None) -> Frame:
    """The room-level facts of seat ``you``'s view (``None``: a spectator)."""
    seats: list[SeatView] = [
        {"seat": s.seat, "name": s.name, "kind": s.kind, "connected": _connected(table, s)}
        for s in table.seats
    ]
    return Frame(
        table.id,
        table.game,
        table.status,
        table.progress.step,
        seats,
        table.deadline,
        None if you is None else table.timed_out.get(you),
        spectators(table),
    )

def view(table: Table, you: int | None) -> JsonObject:
    """The view of ``docs/web-api.md`` for seat ``you`` (``None``: a spectator)."""
    return build_view(frame(table, you), table.progress.state, you)

def record(table: Table, private: bool) -> JsonObject:
    """``GET /api/rooms/{room}/record``. Finished: the whole record with seed and decks
    (without them when ``private``: a daily room of a day still open).
    Playing: the record of the spectator's view — no seed, no unflipped card or undrawn
    tile, no action of a simultaneous turn in progress.

    Raises:
        RoomError: 409 ``hidden-information`` when the public view has no record (a Metro
            hand-mode game in progress: its drawn tiles include the players' held tiles).
    """
    state = table.progress.state
    names = table.names()
    if table.status == "finished":
        if private:
            return dict(state.game.to_record(state, names))
        return dict(state.game.to_record(state, names, seed=table.seed, reveal=True))
    public = state.view(None)
    try:
        return dict(public.game.to_record(public, names))
    except RecordError:
        raise RoomError(
            409, "hidden-information", "this game in progress has no public record yet"
        ) from None
