"""The table of known games: each game's name -> its facts and its engine.

Source: ``docs/design.md``, "Core protocol". The built-in games' ``spec`` modules and the
plug-ins (:mod:`.plugins`) fill it with :func:`register_game`; the registry
(:mod:`.registry`) reads it. It imports no game, so every module that registers one can
import it.
"""

from __future__ import annotations

from metrogames.core.capabilities import Engine
from metrogames.core.protocol import GameType

KNOWN: dict[str, tuple[GameType, Engine]] = {}
"""Game name -> ``(facts, engine)``, in registration order."""


def register_game(game_type: GameType, engine: Engine) -> None:
    """Make the game ``game_type`` describes known under its name (replacing an earlier
    registration), ``engine`` behind it (``docs/design.md``, "Capabilities").

    Raises:
        ValueError: a daily challenge (``game_type.daily``) of a game that takes no single
            player.
    """
    if game_type.daily and 1 not in game_type.players:
        raise ValueError(f"{game_type.name}: a daily challenge is a solo game, 1 player")
    KNOWN[game_type.name] = (game_type, engine)


def unregister_game(name: str) -> None:
    """Forget a game registered with :func:`register_game` (tests); built-ins come back on
    the next lookup."""
    KNOWN.pop(name, None)
