"""Playing a game to its end with one bot per seat, through the protocol only."""

from __future__ import annotations

from collections.abc import Sequence

from metrogames.bots.base import Bot
from metrogames.bots.random_bot import RandomBot
from metrogames.core.protocol import CHANCE, Action, State


def play_bots(state: State[Action], bots: Sequence[Bot]) -> State[Action]:
    """Play ``state`` (a full state with a known deal) to the end in place, one bot per
    player, and return it. Each bot decides on its seat's view (unless it never reads the
    state); chance takes the dealt outcome. A table of random bots is played by the engine's
    fast path (:meth:`~metrogames.core.protocol.State.random_playout`), with the same results.
    """
    randoms = [bot for bot in bots if type(bot) is RandomBot]
    if len(randoms) == len(bots):
        state.random_playout([bot.rng for bot in randoms])
        return state
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        for p in sorted(movers):
            bot = bots[p]
            legal = state.legal_actions(p)
            seen = state.view(p) if bot.sees_state else state
            state.apply_in_place(p, bot.decide(seen, p, legal), check=False)
    return state
