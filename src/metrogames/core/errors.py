"""The project's exceptions: one base class with precise children.

Every error raised on bad input derives from :class:`MetrogamesError`, so adapters (command
line, web) can turn any of them into a clean message. Illegal actions carry a machine-readable
``reason`` code (kebab-case, as in ``docs/notation.md``) and, once known, where they happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class MetrogamesError(Exception):
    """Base class of every error this project raises on bad input or misuse."""


class NotationError(MetrogamesError, ValueError):
    """Text or JSON that does not parse as the notation (bad syntax, unknown name or key)."""


class DataError(MetrogamesError):
    """A game data file that fails validation on load (wrong counts, inconsistent facts)."""


class RecordError(MetrogamesError):
    """A record, deal manifest or score sheet whose structure is wrong (not its moves)."""


class OptionError(MetrogamesError, ValueError):
    """A game name, player count or game option that the registry refuses."""


@dataclass(frozen=True)
class Where:
    """Where an action was refused: round and turn (1-based) and player (0-based), each optional."""

    round: int | None = None
    turn: int | None = None
    player: int | None = None

    def __str__(self) -> str:
        parts = []
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.turn is not None:
            parts.append(f"turn {self.turn}")
        if self.player is not None:
            parts.append(f"player {self.player}")
        return ", ".join(parts)


@dataclass
class IllegalActionError(MetrogamesError):
    """An action that breaks a rule.

    Attributes:
        reason: kebab-case rule code, e.g. ``crosses-section``, ``wrong-symbol``, ``not-an-end``.
        detail: what is wrong, naming the offending item, e.g.
            ``section D3-G3 crosses the pink section E4-G2``.
        where: round, turn and player, when known.

    ``str(error)`` reads ``round 2, turn 4, player 0: section D3-G3 crosses the pink section
    E4-G2 (crosses-section)``.
    """

    reason: str
    detail: str
    where: Where = field(default_factory=Where)

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __reduce__(self) -> tuple[type[IllegalActionError], tuple[str, str, Where]]:
        # Exception pickles as cls(*args) with args = (message,); rebuild from the fields so
        # that an error raised in a worker process reaches the parent intact.
        return type(self), (self.reason, self.detail, self.where)

    def __str__(self) -> str:
        prefix = str(self.where)
        text = f"{self.detail} ({self.reason})"
        return f"{prefix}: {text}" if prefix else text

    def at(
        self, *, round: int | None = None, turn: int | None = None, player: int | None = None
    ) -> IllegalActionError:
        """Return a copy of this error of the same class with its place filled in."""
        where = Where(
            round if round is not None else self.where.round,
            turn if turn is not None else self.where.turn,
            player if player is not None else self.where.player,
        )
        return type(self)(self.reason, self.detail, where)


class NotYourTurnError(IllegalActionError):
    """An action from a player who is not to move now (reason ``not-your-turn``)."""


class GameOverError(IllegalActionError):
    """An action after the end of the game (reason ``game-over``)."""
