"""The bot interface and the registry of bot codes.

Source: ``docs/design.md``, "Style anchors" (catanatron's one-method bots). A bot sees a game only
through the protocol (:mod:`metrogames.core.protocol`): it is handed what its seat may know
(``state.view(player)``) and, to look ahead, plays on ``state.resample(player, rng)`` — never on
the true hidden state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

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


def register(code: str) -> Callable[[BotFactory], BotFactory]:
    """Register a bot factory (called with a seed) under ``code``."""

    def deco(factory: BotFactory) -> BotFactory:
        BOTS[code] = factory
        return factory

    return deco


def bot_codes() -> list[str]:
    """Every registered bot code, sorted (``["greedy", "random"]``)."""
    _load()
    return sorted(BOTS)


def make_bot(code: str, seed: int = 0) -> Bot:
    """The bot for ``code`` (``"random"``, ``"greedy"``), seeded with ``seed``.

    Raises:
        ValueError: an unknown code (the message lists the known ones).
    """
    _load()
    factory = BOTS.get(code)
    if factory is None:
        raise ValueError(f"unknown bot {code!r} (known: {', '.join(sorted(BOTS))})")
    return factory(seed)


def _load() -> None:
    # imported for their registrations
    from metrogames.bots import greedy, random_bot  # noqa: F401


def bot_rng(seed: int, name: str) -> Rng:
    """The bot's own generator: stream ``bot:NAME`` of ``seed``."""
    return Rng(seed, f"bot:{name}")
