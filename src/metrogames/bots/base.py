"""The bot interface and the registry of bot codes.

Source: ``docs/design.md``, "Style anchors" (catanatron's one-method bots). A bot sees a game only
through the protocol (:mod:`metrogames.core.protocol`): it is handed what its seat may know
(``state.view(player)``) and, to look ahead, plays on ``state.resample(player, rng)`` — never on
the true hidden state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from metrogames.core.errors import GameOverError, IllegalActionError, NotYourTurnError, Where
from metrogames.core.protocol import Action, State
from metrogames.core.rng import Rng


class Bot(Protocol):
    """A player: given what its seat sees and its legal actions, return one of them.

    Attributes:
        name: the bot's code (``random``, ``greedy``).
        sees_state: ``False`` when :meth:`decide` never reads ``state`` (callers may then
            skip making the seat's view).
    """

    name: str
    sees_state: bool

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        """Choose one of ``legal_actions`` (never empty) for ``player``; ``state`` is
        ``player``'s view (or a full state, when nothing is hidden from ``player``)."""
        ...


BotFactory = Callable[[int], Bot]
BOTS: dict[str, BotFactory] = {}
"""Bot code -> its factory (called with a seed). The bot modules register theirs when
imported, and :mod:`metrogames.bots` imports them all: any import of the package fills it."""
_LEVELS: list[str] = []
"""The codes registered as levels, from weakest to strongest."""


def register(code: str, *, level: bool = False) -> Callable[[BotFactory], BotFactory]:
    """Register a bot factory (called with a seed) under ``code``; ``level``: a level
    (:mod:`~metrogames.bots.levels`), listed first by :func:`bot_codes` in registration order."""

    def deco(factory: BotFactory) -> BotFactory:
        BOTS[code] = factory
        if level and code not in _LEVELS:
            _LEVELS.append(code)
        return factory

    return deco


def bot_codes() -> list[str]:
    """Every registered bot code: the levels from weakest to strongest (``easy``, ``medium``,
    ``hard``, ``expert``), then the algorithms, sorted (``greedy``, ``montecarlo``,
    ``random``)."""
    return [*_LEVELS, *sorted(code for code in BOTS if code not in _LEVELS)]


def make_bot(code: str, seed: int = 0) -> Bot:
    """The bot for ``code`` (a level such as ``"medium"``, or an algorithm such as
    ``"random"``, ``"greedy"``, ``"montecarlo"``; see :func:`bot_codes`), seeded with ``seed``.

    Raises:
        ValueError: an unknown code (the message lists the known ones).
    """
    factory = BOTS.get(code)
    if factory is None:
        raise ValueError(f"unknown bot {code!r} (known: {', '.join(bot_codes())})")
    return factory(seed)


def check_decision(
    name: str, state: State[Action], player: int, legal_actions: Sequence[Action]
) -> None:
    """Refuse to decide when there is nothing to decide: the game is over, ``player`` is not
    to move in ``state``, or ``legal_actions`` is empty.

    Raises:
        GameOverError: the game is over (``game-over``).
        NotYourTurnError: ``player`` is not to move (``not-your-turn``).
        IllegalActionError: no legal action was given (``no-legal-action``).
    """
    where = Where(player=player)
    if state.is_over():
        raise GameOverError("game-over", f"the game is over: the {name} bot has no move", where)
    movers = state.to_move()
    if player not in movers:
        now = ", ".join("chance" if p < 0 else f"player {p}" for p in sorted(movers))
        raise NotYourTurnError(
            "not-your-turn", f"the {name} bot was asked to move out of turn ({now} to move)", where
        )
    if not legal_actions:
        raise IllegalActionError(
            "no-legal-action", f"the {name} bot was given no legal action to choose from", where
        )


def bot_rng(seed: int, name: str) -> Rng:
    """The bot's own generator: stream ``bot:NAME`` of ``seed``."""
    return Rng(seed, f"bot:{name}")
