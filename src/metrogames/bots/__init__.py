"""Bots: players behind one method, ``decide(state, player, legal_actions) -> action``.

Bots use only the game protocol and what a player may see; each owns a seeded generator.
Codes on the command line and in the web table (see :func:`~metrogames.bots.base.bot_codes`):
the levels ``easy``, ``medium``, ``hard``, ``expert`` (:mod:`~metrogames.bots.levels`: an
algorithm chosen per game) and the algorithms ``random``, ``greedy``, ``montecarlo``,
``heuristic`` and ``lookahead`` (the last two for games with a heuristic hook, such as Metro).
"""

# The bot modules are imported for their registrations (``BOTS``): importing any part of the
# package (``metrogames.bots.base`` included) makes every built-in bot code known.
from metrogames.bots import (  # noqa: F401
    greedy,
    heuristic,
    levels,
    lookahead,
    montecarlo,
    random_bot,
)
from metrogames.bots.base import BOTS, Bot, make_bot

__all__ = ["BOTS", "Bot", "make_bot"]
