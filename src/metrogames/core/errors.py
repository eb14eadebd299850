"""The project's exceptions: one base class with precise children.

Every error raised on bad input derives from :class:`MetrogamesError`, so adapters (command
line, web) can turn any of them into a clean message. Illegal actions carry a machine-readable
``reason`` code (kebab-case, as in ``docs/notation.md``), an English ``detail`` and, once known,
where they happened; those raised with :meth:`IllegalActionError.of` also carry the detail as a
translatable :class:`~metrogames.i18n.Message` (engines stay language-neutral: upper layers
render :meth:`IllegalActionError.as_message` in the reader's language). Refusals a player cannot
meet through the notation (a hand-built action object, playing on a view, a pile that cannot
be) keep a plain English detail, shown as it is in every language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from metrogames.i18n import N_, Message, join, msg, verbatim


class MetrogamesError(Exception):
    """Base class of every error this project raises on bad input or misuse."""


class NotationError(MetrogamesError, ValueError):
    """Text or JSON that does not parse as the notation (bad syntax, unknown name or key).

    Raised with a :class:`~metrogames.i18n.Message` (its English rendering is ``str(error)``)
    where a player may type the text; :func:`message_of` gives it back."""


def message_of(error: BaseException) -> Message:
    """The message an error was raised with, translatable when it was a
    :class:`~metrogames.i18n.Message` (else its text as it is)."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, Message) else verbatim(str(error))


class DataError(MetrogamesError):
    """A game data file that fails validation on load (wrong counts, inconsistent facts)."""


class RecordError(MetrogamesError):
    """A record, deal manifest or score sheet whose structure is wrong (not its moves)."""


class PluginError(MetrogamesError):
    """A plug-in game that cannot be loaded: its module does not import, its entry point does
    not load, or what it names is no game type (:mod:`metrogames.games.plugins`)."""


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

    def as_message(self) -> Message | None:
        """``str(self)`` as a translatable message; ``None`` when nothing is known."""
        parts = []
        if self.round is not None:
            parts.append(msg(N_("round {round}"), round=self.round))
        if self.turn is not None:
            parts.append(msg(N_("turn {turn}"), turn=self.turn))
        if self.player is not None:
            parts.append(msg(N_("player {player}"), player=self.player))
        return join(parts) if parts else None


@dataclass
class IllegalActionError(MetrogamesError):
    """An action that breaks a rule.

    Attributes:
        reason: kebab-case rule code, e.g. ``crosses-section``, ``wrong-symbol``, ``not-an-end``.
        detail: what is wrong, naming the offending item, e.g.
            ``section D3-G3 crosses the pink section E4-G2``.
        where: round, turn and player, when known.
        message: the detail as a translatable message (``message.render() == detail``), or
            ``None`` when the detail was given as plain text.
        item: the offending item as data, when the engine knows it, so a client need not
            parse the text: ``{"colour": "pink", "section": ["D3", "G3"]}`` for a section
            played, ``{"colour": "pink", "section": 3}`` (1-based) for a sheet's section,
            ``{"colour", "station"}`` for a circle, ``{"square": "C5", "tile": "cbaa"}`` for a
            Metro placement (``"placement"``: its 1-based number on a sheet); ``None``
            otherwise (``docs/web-api.md``, "Errors").

    ``str(error)`` reads ``round 2, turn 4, player 0: section D3-G3 crosses the pink section
    E4-G2 (crosses-section)``.
    """

    reason: str
    detail: str
    where: Where = field(default_factory=Where)
    message: Message | None = field(default=None, compare=False)
    item: dict[str, object] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        super().__init__(str(self))

    @classmethod
    def of(
        cls,
        reason: str,
        message: Message,
        where: Where | None = None,
        item: dict[str, object] | None = None,
    ) -> Self:
        """The error whose English detail is ``message.render()``, e.g.
        ``IllegalActionError.of("no-draw", msg(N_("a tile was already drawn this turn")))``."""
        return cls(reason, message.render(), where or Where(), message, item)

    def __reduce__(
        self,
    ) -> tuple[
        type[IllegalActionError], tuple[str, str, Where, Message | None, dict[str, object] | None]
    ]:
        # Exception pickles as cls(*args) with args = (message,); rebuild from the fields so
        # that an error raised in a worker process reaches the parent intact.
        return type(self), (self.reason, self.detail, self.where, self.message, self.item)

    def detail_message(self) -> Message:
        """The detail as a translatable message (the plain detail when it has none)."""
        return self.message if self.message is not None else verbatim(self.detail)

    def as_message(self) -> Message:
        """``str(self)`` as a translatable message: place, detail and the reason code (the
        code stays as it is in every language)."""
        text = Message(
            "{detail} ({reason})", {"detail": self.detail_message(), "reason": self.reason}
        )
        where = self.where.as_message()
        return (
            text
            if where is None
            else Message(N_("{where}: {text}"), {"where": where, "text": text})
        )

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
        return type(self)(self.reason, self.detail, where, self.message, self.item)

    def with_item(self, **fields: object) -> IllegalActionError:
        """Return a copy of this error of the same class with ``fields`` added to its item."""
        item = {**(self.item or {}), **fields}
        return type(self)(self.reason, self.detail, self.where, self.message, item)


class NotYourTurnError(IllegalActionError):
    """An action from a player who is not to move now (reason ``not-your-turn``)."""


class GameOverError(IllegalActionError):
    """An action after the end of the game (reason ``game-over``)."""
