"""A room in memory: its game's progress, its seats, and how actions and seeds are stored.

:class:`Progress` holds the full engine state with what the views need; :class:`Table` is a
room with its lock, listeners and tasks (see :mod:`.rooms`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from metrogames.bots.base import Bot
from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    MetroAction,
    MetroState,
    metro_action_from_json,
    metro_action_to_json,
)
from metrogames.games.nextstation.actions import action_from_json, action_to_json
from metrogames.games.nextstation.state import NextStationState
from metrogames.sim.games import GameKind, game_kind


def stored_seed(seed: int) -> int:
    """A seed (0..2**64-1) as the signed 64-bit integer the ``rooms.seed`` column holds
    (seeds from 2**63 up, such as the daily challenge's, wrap to negative numbers)."""
    return seed - 2**64 if seed >= 2**63 else seed


def loaded_seed(value: int) -> int:
    """The seed of a stored ``rooms.seed`` (the inverse of :func:`stored_seed`)."""
    return value % 2**64


# -- the game in memory ---------------------------------------------------------------------
def action_to_wire(state: Any, player: int, action: Any) -> Any:
    """The notation JSON of ``action`` (a card id or tile code for :data:`CHANCE`)."""
    if player == CHANCE:
        return action
    if isinstance(state, NextStationState):
        return action_to_json(state.city, action)
    return metro_action_to_json(action)


def action_from_wire(state: Any, player: int, value: Any) -> Any:
    """Read notation JSON into an engine action for ``state``'s game.

    Raises:
        NotationError: not an action of this game's notation.
    """
    if player == CHANCE:
        return value
    if isinstance(state, NextStationState):
        return action_from_json(state.city, value)
    return metro_action_from_json(value)


class Progress:
    """A game in memory: the full ``state``, the ``step`` count, and what the views need:
    ``turn_start`` and ``turn_step`` (Next Station: the state and step right after the current
    turn's card) and ``last_routes`` (Metro: routes complete before the last placement)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.turn_start = state
        self.turn_step = 0
        self.step = 0
        self.last_routes = 0

    def copy(self) -> Progress:
        """An independent copy (the state cloned; ``turn_start`` is never mutated)."""
        other = Progress(self.state.clone())
        other.turn_start = self.turn_start
        other.turn_step = self.turn_step
        other.step = self.step
        other.last_routes = self.last_routes
        return other

    def apply(self, player: int, action: Any) -> None:
        """Apply one checked action in place.

        Raises:
            IllegalActionError, NotYourTurnError, GameOverError: the engine's refusal; the
                progress is unchanged.
        """
        state = self.state
        placing = isinstance(state, MetroState) and isinstance(action, MetroAction)
        before = len(state.routes()) if placing and not action.is_draw else None
        state.apply_in_place(player, action, check=True)
        self.step += 1
        if before is not None:
            self.last_routes = before
        if isinstance(state, NextStationState) and player == CHANCE and not state.awaiting_card:
            self.turn_start = state.clone()
            self.turn_step = self.step

    def chance_actions(self) -> list[tuple[int, Any]]:
        """Make every chance action now due (cards, tiles from the secret deal), in place."""
        done = []
        while CHANCE in self.state.to_move():
            outcome = self.state.legal_actions(CHANCE)[0]
            self.apply(CHANCE, outcome)
            done.append((CHANCE, outcome))
        return done


@dataclass
class Seat:
    """A seat in memory (see :class:`~metrogames.web.models.SeatRow`)."""

    seat: int
    name: str
    human: bool
    bot: str | None
    token_hash: str | None

    @property
    def kind(self) -> str:
        """``human`` or ``bot`` (a human seat handed to a bot reads ``bot``)."""
        return "bot" if self.bot else "human"


Listener = Callable[[], Awaitable[None]]
FinishHook = Callable[[Session, "Table", "Progress"], None]
"""Called in the transaction that stores a game's last action: (session, table, final
progress). The daily challenge records the attempt's score with it."""


@dataclass
class Table:
    """A room in memory: the stored facts, the game's :class:`Progress`, its lock, its
    WebSocket listeners and its bot and clock tasks."""

    id: str
    game: str
    mode: str
    options: Any
    seed: int
    status: str
    turn_clock: int | None
    host_hash: str
    created: float
    seats: list[Seat]
    progress: Progress
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: dict[int, tuple[int | None, Listener]] = field(default_factory=dict)
    connected: Counter[int] = field(default_factory=Counter)
    deadline: float | None = None
    turn_changed: bool = False
    clock_task: asyncio.Task[None] | None = None
    bot_task: asyncio.Task[None] | None = None
    bots: dict[int, Bot] = field(default_factory=dict)

    @property
    def kind(self) -> GameKind:
        return game_kind(self.game)

    def names(self) -> list[str]:
        return [s.name for s in self.seats]


# -- request checking -------------------------------------------------------------------------
