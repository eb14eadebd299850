"""What the features and the job runner plug into the room core with, at construction
(``create_app``).

* :class:`RoomListener` — told, in the transaction that stores a game's last action, that the
  game finished (the daily challenge records the attempt's score, the ratings rate an online
  game): what it writes is stored with that action or not at all.
* :class:`RoomRules` — the rules a feature sets on rooms it owns: whether a room is private
  to its players (the daily challenge's rooms until their day closes) and whether hints are off
  (a ranked daily game). :data:`OPEN_ROOMS` is the default: every room public, hints on.
* :class:`RoomWatcher` — told, on the worker that made it, of every change of a room once it
  is stored and its copy changed, and of every connection or departure of a seat's socket
  (the lobby of open tables: :mod:`metrogames.web.lobby`).
* :class:`JobRunner` — where the searches run, out of this process (hints, the searching bots:
  :class:`~metrogames.web.infra.jobs.service.Jobs`); the room core needs only this method of it.

The room service takes them as arguments (``RoomService(..., listeners=..., rules=...)``):
nothing is attached to it afterwards.
"""

from __future__ import annotations

from typing import Literal, Protocol, overload

from sqlalchemy.orm import Session
from typing_extensions import Unpack

from metrogames.web.infra.jobs.shapes import (
    DecideAnswer,
    DecideJob,
    ExpertJob,
    HintAnswer,
    HintJob,
    How,
    JobPayload,
    JobValue,
    MapCheckAnswer,
    MapCheckJob,
)
from metrogames.web.rooms.tables import Progress, Table

Origin = tuple[str | None, str | None]
"""Who claims a seat: the keyed digest of the client address and the SHA-256 of its sign-in
session's token (``None``: unknown, or not signed in) — kept with the seat so that seats one
person holds in a game do not rate each other (:mod:`metrogames.web.ratings`)."""


class RoomListener(Protocol):
    """A feature that reacts to a room's game ending."""

    def finished(self, session: Session, table: Table, progress: Progress) -> None:
        """Called in the transaction that stores a game's last action: (session, table, final
        progress). Rows added with ``session`` are stored with that action; an exception
        stores nothing (the action is refused)."""


class RoomWatcher(Protocol):
    """A feature that follows rooms as they change (it must return at once: it runs on the
    event loop, in the middle of the room's use case)."""

    def changed(self, table: Table) -> None:
        """``table`` (a room's copy, its lock released) changed: created, a seat claimed or
        linked, started, played, … (also called after a block that changed nothing)."""

    def connected(self, table: Table, seat: int) -> None:
        """A socket of ``seat`` connected to ``table`` on this worker, or left it
        (``table.connected[seat]`` is the count now)."""


class RoomRules(Protocol):
    """Whether a room is private, and whether hints are off in it."""

    def private(self, table: Table) -> bool:
        """Whether a room is private to its players: its record keeps its seed and decks
        hidden and spectators are refused (the daily challenge's rooms until their day
        closes)."""

    def hints_off(self, table: Table) -> bool:
        """Whether hints are refused in a room (a ranked daily game)."""


class JobRunner(Protocol):
    """Heavy work out of this process (:meth:`~metrogames.web.infra.jobs.service.Jobs.run`):
    the kinds the room core and the daily challenge ask for, each with its payload and answer
    (:mod:`~metrogames.web.infra.jobs.shapes`)."""

    @overload
    async def run(self, kind: Literal["decide"], payload: DecideJob, **how: Unpack[How]) -> DecideAnswer: ...
    @overload
    async def run(self, kind: Literal["hint"], payload: HintJob, **how: Unpack[How]) -> HintAnswer: ...
    @overload
    async def run(self, kind: Literal["expert"], payload: ExpertJob, **how: Unpack[How]) -> int: ...
    @overload
    async def run(
        self, kind: Literal["mapcheck"], payload: MapCheckJob, **how: Unpack[How]
    ) -> MapCheckAnswer: ...
    async def run(self, kind: str, payload: JobPayload, **how: Unpack[How]) -> JobValue:
        """The answer of job ``kind`` on ``payload`` (``key``: computed once per key; ``who``:
        the requesters' quota keys; :class:`~metrogames.web.infra.jobs.shapes.How`).

        Raises:
            RoomError: 429 (a quota full), 503 ``busy`` (its queue full).
        """


class OpenRooms:
    """The rules without any feature: every room public, hints on."""

    def private(self, table: Table) -> bool:
        """Never: every room is public."""
        return False

    def hints_off(self, table: Table) -> bool:
        """Never: hints are on in every room."""
        return False


OPEN_ROOMS = OpenRooms()
