"""The game protocol every game implements (OpenSpiel's shape, Python's manners).

* A :class:`Game` is the rules plus options: a frozen value. ``game.new_game(seed)`` deals.
* A :class:`State` is one position. ``state.to_move()`` is the set of players who may act now:
  several players for simultaneous turns (Next Station), ``{CHANCE}`` when a card or tile is to
  be revealed, and the empty set once the game is over.
* ``state.apply(player, action)`` checks the action and returns a new state; the state it was
  called on is unchanged. Chance outcomes are actions of the player :data:`CHANCE`, so a game's
  action history replays it exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

CHANCE = -1
"""The player id of chance: the one who flips cards and draws tiles."""

A = TypeVar("A")
S = TypeVar("S", bound="State[object]")


class State(Protocol[A]):
    """One position of a game, for actions of type ``A``."""

    @property
    def num_players(self) -> int: ...

    def to_move(self) -> frozenset[int]:
        """Players who may act now (``{CHANCE}`` for a chance event, empty when over)."""
        ...

    def legal_actions(self, player: int) -> Sequence[A]:
        """Every legal action of ``player`` now (chance outcomes for :data:`CHANCE`)."""
        ...

    def apply(self, player: int, action: A) -> State[A]:
        """Check ``action`` and return the following state; raise ``IllegalActionError``."""
        ...

    def is_over(self) -> bool: ...

    def scores(self) -> list[int]:
        """Points per player so far (final scores once the game is over)."""
        ...

    def winners(self) -> list[int]:
        """Players who win after the tie-break (several when still tied); empty until over."""
        ...


class Game(Protocol[A]):
    """Rules plus options for one game family."""

    @property
    def name(self) -> str: ...

    @property
    def num_players(self) -> int: ...

    def new_game(self, seed: int) -> State[A]:
        """Deal a new game from ``seed`` (a non-negative int below 2**64)."""
        ...
