"""Bots: players behind one method, ``decide(state, player, legal_actions) -> action``.

Bots use only the game protocol and what a player may see; each owns a seeded generator.
Codes on the command line: ``random``, ``greedy`` (see :func:`make_bot`).
"""

from metrogames.bots.base import BOTS, Bot, make_bot

__all__ = ["BOTS", "Bot", "make_bot"]
