"""A room in memory: its game's progress, its seats, and how actions and seeds are stored.

:class:`Progress` holds the full engine state with what the views need; :class:`Table` is a
room with its lock, listeners and tasks (see :mod:`.service`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from metrogames.core.protocol import CHANCE, Action, JsonObject, State
from metrogames.web.rooms.views import SeatKind, TimedOutJson


def stored_seed(seed: int) -> int:
    """A seed (0..2**64-1) as the signed 64-bit integer the ``rooms.seed`` column holds
    (seeds from 2**63 up, such as the daily challenge's, wrap to negative numbers)."""
    return seed - 2**64 if seed >= 2**63 else seed


def loaded_seed(value: int) -> int:
    """The seed of a stored ``rooms.seed`` (the inverse of :func:`stored_seed`)."""
    return value % 2**64


def timed_out_notices(
    actions: Sequence[tuple[int, str, int | None]],
) -> dict[int, TimedOutJson]:
    """``Table.timed_out`` from a room's stored actions in step order, each ``(player, action
    JSON text, clock_step)``: for each seat whose last action the turn clock played, the step
    at which its time ran out and the actions played for it then."""
    last = {player: clock for player, _, clock in actions if player != CHANCE}
    notices: dict[int, TimedOutJson] = {}
    for player, action, clock in actions:
        if player != CHANCE and clock is not None and last[player] == clock:
            notice = notices.setdefault(player, {"step": clock, "actions": []})
            notice["actions"].append(json.loads(action))
    return notices


# -- the game in memory ---------------------------------------------------------------------
class Progress:
    """A game in memory: the full ``state``, the ``step`` count (actions so far, chance
    included) and ``turn_step``, the step right after the last chance action (in a
    simultaneous turn, the position every seat still to act decides on)."""

    def __init__(self, state: State[Action]) -> None:
        self.state = state
        self.step = 0
        self.turn_step = 0

    def copy(self) -> Progress:
        """An independent copy (the state cloned)."""
        other = Progress(self.state.clone())
        other.step = self.step
        other.turn_step = self.turn_step
        return other

    def apply(self, player: int, action: Action) -> None:
        """Apply one checked action in place.

        Raises:
            IllegalActionError, NotYourTurnError, GameOverError: the engine's refusal; the
                progress is unchanged.
        """
        self.state.apply_in_place(player, action, check=True)
        self.step += 1
        if player == CHANCE:
            self.turn_step = self.step

    def chance_actions(self) -> list[tuple[int, Action]]:
        """Make every chance action now due (cards, tiles from the secret deal), in place."""
        done = []
        while CHANCE in self.state.to_move():
            outcome = self.state.legal_actions(CHANCE)[0]
            self.apply(CHANCE, outcome)
            done.append((CHANCE, outcome))
        return done


@dataclass(frozen=True)
class Seat:
    """A seat in memory (see :class:`~metrogames.web.infra.models.SeatRow`); a changed seat is a
    new value, put in place once stored. ``bot_account``: the seat is tied to a bot account
    (``accounts.bot``: an outside program plays it through the bot API)."""

    seat: int
    name: str
    human: bool
    bot: str | None
    token_hash: str | None
    bot_account: bool = False

    @property
    def kind(self) -> SeatKind:
        """``human`` or ``bot`` (a human seat handed to a bot, or tied to a bot account,
        reads ``bot``)."""
        return "bot" if self.bot or self.bot_account else "human"


class SeatChanges(TypedDict, total=False):
    """What a change of a seat may set (:meth:`~metrogames.web.rooms.seats.Seats.change_seat`)."""

    name: str
    bot: str | None
    token_hash: str | None


Listener = Callable[[], Awaitable[None]]
SPECTATORS = -1
"""The key under which :attr:`Table.connected` (and each worker's presence counts in Redis)
counts a room's spectator sockets, beside the seats' own counts."""
PRESENCE_SECONDS = 0.25
"""A seat's connection or departure is pushed to the room's other sockets within this many
seconds, at most once per period (:meth:`Table.notify_presence`)."""


@dataclass
class Table:
    """A room in memory: the stored facts (``deadline``: the turn clock's, epoch seconds,
    stored with the action that started the turn; ``bots_due``: a bot is to move;
    ``listed_until``: listed in the lobby until then, epoch seconds, or ``None``), the game's :class:`Progress`, its lock, its
    WebSocket listeners (``connected``: their count per seat, the spectators' under
    :data:`SPECTATORS`; ``elsewhere``: with several
    workers, the other live workers' sockets per seat, by worker; ``present``: when each seat's
    player was last connected or acted, by the room service's clock), its bot and clock tasks
    (``clock_for``: the deadline the clock task was started for), ``touched`` (the last request,
    change or connection, by the room service's clock), ``holds`` (requests and sockets using
    the table now: a held room stays in memory) and ``timed_out`` (per seat, what the turn
    clock played for it last, until it acts again; stored with those actions, so a room
    loaded again has it: :func:`timed_out_notices`). With several workers (:mod:`~metrogames.web.infra.cluster`):
    ``stale`` (another worker changed the room since it was read), ``refresh_task`` (the
    task catching it up and pushing views to this worker's sockets), ``version`` (the room's
    version in Redis this copy is known to match, or ``None``), ``heard`` (the version the
    last change published by another worker gave the room), ``unpushed`` (a change heard
    from another worker is not yet pushed to this worker's sockets) and ``written`` (while a
    change runs under :meth:`~metrogames.web.rooms.sync.RoomSync.locked`: the actions stored so
    far, as ``[player, action JSON]`` texts)."""

    id: str
    game: str
    mode: str
    options: JsonObject
    seed: int
    status: str
    turn_clock: int | None
    host_hash: str
    created: float
    seats: list[Seat]
    progress: Progress
    deadline: float | None = None
    bots_due: bool = False
    listed_until: float | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: dict[int, tuple[int | None, Listener]] = field(default_factory=dict)
    connected: Counter[int] = field(default_factory=Counter)
    elsewhere: dict[str, Counter[int]] = field(default_factory=dict)
    present: dict[int, float] = field(default_factory=dict)
    touched: float = 0.0
    holds: int = 0
    clock_for: float | None = None
    clock_task: asyncio.Task[None] | None = None
    bot_task: asyncio.Task[None] | None = None
    timed_out: dict[int, TimedOutJson] = field(default_factory=dict)
    stale: bool = False
    refresh_task: asyncio.Task[None] | None = None
    version: str | None = None
    heard: str | None = None
    unpushed: bool = False
    written: list[str] | None = None
    presence_task: asyncio.Task[None] | None = None

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    async def notify(self) -> None:
        """Push the current view to every listener (after a change, or a connection's)."""
        for _, send in list(self.listeners.values()):
            with contextlib.suppress(Exception):  # a closed socket is dropped by its reader
                await send()

    def notify_presence(self, delay: float = PRESENCE_SECONDS) -> None:
        """Push the current view to every listener ``delay`` seconds from now, after a seat's
        socket connected or left, unless a push is due already: a socket saying hello as one
        seat, then as another or as a spectator, back and forth, is told to the room at most
        once per ``delay`` — not once per hello — and a socket whose view did not change in
        the end is sent nothing (:class:`~metrogames.web.api.ws.Outbox`). The socket that
        said hello gets its own view at once."""
        if self.presence_task is not None and not self.presence_task.done():
            return

        async def push() -> None:
            await asyncio.sleep(delay)
            await self.notify()

        self.presence_task = asyncio.get_running_loop().create_task(push())


# -- request checking -------------------------------------------------------------------------
