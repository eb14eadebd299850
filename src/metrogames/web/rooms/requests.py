"""What the room service reads of a request: the shapes its use cases take.

The routes parse requests into their declared bodies (:mod:`metrogames.web.api.bodies`, which
check every field); the room core takes anything of these shapes, so it never imports the
routes' layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from metrogames.core.protocol import JsonValue


class SeatRequest(Protocol):
    """A seat asked for in a new room: a player's name, or a bot (its code)."""

    @property
    def name(self) -> str | None: ...

    @property
    def bot(self) -> str | None: ...


class RoomRequest(Protocol):
    """``POST /api/rooms``: a new room (``docs/web-api.md``, "Rooms")."""

    @property
    def game(self) -> str: ...

    @property
    def mode(self) -> str: ...

    @property
    def seats(self) -> Sequence[SeatRequest]: ...

    @property
    def options(self) -> Mapping[str, JsonValue] | None: ...

    @property
    def turn_clock(self) -> int | None: ...

    @property
    def tutorial(self) -> bool: ...

    @property
    def listed(self) -> bool: ...


class JoinRequest(Protocol):
    """``POST /api/rooms/{room}/join``: the seat claimed and the player's name."""

    @property
    def seat(self) -> int: ...

    @property
    def name(self) -> str | None: ...


class ActionRequest(Protocol):
    """An action (its JSON notation) sent at ``step``."""

    @property
    def action(self) -> object: ...

    @property
    def step(self) -> int: ...


class HintRequest(Protocol):
    """A hint asked for at ``step``, with the estimate of the move ``about`` (JSON) if given."""

    @property
    def step(self) -> int: ...

    @property
    def about(self) -> object: ...
