"""The uniformly random player: any legal action but the pass, passing only when nothing else
is legal (games with a pass, such as Next Station); any legal action otherwise (Metro).

Its choice is :func:`~metrogames.core.playout.uniform_choice` — exactly what
:meth:`~metrogames.core.protocol.State.random_playout` does, so a table of random bots is
played by the engine's fast path with the same results.
"""

from __future__ import annotations

from collections.abc import Sequence

from metrogames.bots.base import bot_rng, check_decision, register
from metrogames.core.playout import uniform_choice
from metrogames.core.protocol import Action, State


class RandomBot:
    """Uniform over the legal actions that are not a pass; a pass when nothing else is legal."""

    name = "random"
    sees_state = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = bot_rng(seed, self.name)

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        check_decision(self.name, state, player, legal_actions)
        return uniform_choice(self.rng, legal_actions, state.game.pass_action)


register("random")(RandomBot)
