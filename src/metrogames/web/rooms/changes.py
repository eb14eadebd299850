"""The one way a room's copy in memory changes: :func:`apply_change`.

A room's copy changes in three ways, and all three go through :func:`apply_change`: a local
change once its write committed (a move and the chance actions it made due, a seat claimed or
handed over, a room opened or started: :mod:`.service`), a change another worker published
(:meth:`~metrogames.web.rooms.sync.RoomSync.apply_published`) and the catch-up from the
database (:meth:`~metrogames.web.rooms.sync.RoomSync.sync`). A failed write, a refused
published change or a failed read never reaches it: the copy stays as it was (the one change
not stored, also made here, is the turn clock's retry after such a failure: a deadline in
memory only, :mod:`~metrogames.web.rooms.scheduler`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from metrogames.web.rooms.tables import Progress, Seat, Table


@dataclass(frozen=True)
class Change:
    """A change to a room: what its copy in memory is after it.

    Attributes:
        progress: the game after the change — the actions of the step(s) it played applied,
            chance included (a new :class:`~metrogames.web.rooms.tables.Progress` that
            replaces the old one; the same one when no action was played).
        status: the room's status after it (``waiting``, ``playing``, ``finished``).
        deadline: the turn clock's deadline after it (epoch seconds, ``None``: no clock).
        bots_due: whether a bot is to move after it.
        seats: the seats after it (``None``: unchanged).
    """

    progress: Progress
    status: str
    deadline: float | None
    bots_due: bool
    seats: list[Seat] | None = None


def apply_change(table: Table, change: Change) -> None:
    """Make ``table`` (a room's copy in memory, its lock held) what ``change`` says: its
    progress, room facts (status, deadline, ``bots_due``) and, when given, its seats. The
    change was checked before (by the engine, against the copy's step) and stored (by this
    worker or another): this only adopts it."""
    table.progress = change.progress
    if change.seats is not None:
        table.seats = change.seats
    table.status, table.deadline, table.bots_due = change.status, change.deadline, change.bots_due


def replayed(progress: Progress, actions: Iterable[tuple[int, object]]) -> Progress:
    """``progress`` with ``actions`` (``(player, action JSON)`` in step order) applied to a
    copy of it (``progress`` itself when there are none).

    Raises:
        MetrogamesError: the engine refuses an action (``progress`` is unchanged).
    """
    moves = list(actions)
    if not moves:
        return progress
    out = progress.copy()
    for player, action in moves:
        out.apply(player, out.state.action_from_json(player, action))
    return out
