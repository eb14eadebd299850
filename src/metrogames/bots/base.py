"""The bot interface and the registry of bot codes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from metrogames.core.rng import Rng


class Bot(Protocol):
    """A player: given a state and ``player``'s legal actions, return one of them."""

    name: str

    def decide(self, state: Any, player: int, legal_actions: Sequence[Any]) -> Any:
        """Choose one of ``legal_actions`` (never empty) for ``player`` in ``state``."""
        ...


BotFactory = Callable[[int], Bot]
BOTS: dict[str, BotFactory] = {}


def register(code: str) -> Callable[[BotFactory], BotFactory]:
    """Register a bot factory (called with a seed) under ``code``."""

    def deco(factory: BotFactory) -> BotFactory:
        BOTS[code] = factory
        return factory

    return deco


def make_bot(code: str, seed: int = 0) -> Bot:
    """The bot for ``code`` (``"random"``, ``"greedy"``), seeded with ``seed``.

    Raises:
        ValueError: an unknown code (the message lists the known ones).
    """
    # imported for their registrations
    from metrogames.bots import greedy, random_bot  # noqa: F401

    factory = BOTS.get(code)
    if factory is None:
        raise ValueError(f"unknown bot {code!r} (known: {', '.join(sorted(BOTS))})")
    return factory(seed)


def bot_rng(seed: int, name: str) -> Rng:
    """The bot's own generator: stream ``bot:NAME`` of ``seed``."""
    return Rng(seed, f"bot:{name}")
