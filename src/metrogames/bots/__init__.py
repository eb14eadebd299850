"""Bots: players behind one method, ``decide(state, player, legal_actions) -> action``.

Bots use only the game protocol and what a player may see; each owns a seeded generator.
Codes on the command line and in the web table (see :func:`~metrogames.bots.base.bot_codes`):
the levels ``easy``, ``medium``, ``hard``, ``expert`` (:mod:`~metrogames.bots.levels`: an
algorithm chosen per game) and the algorithms ``random``, ``greedy``, ``montecarlo``,
``heuristic`` and ``lookahead`` (the last two for games with a heuristic hook, such as Metro).
"""

from metrogames.bots.base import BOTS, Bot, make_bot

__all__ = ["BOTS", "Bot", "make_bot"]
