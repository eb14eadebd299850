"""The uniformly random player: any legal action but ``pass``, passing only when nothing else
is legal (Next Station); any legal placement (Metro)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrogames.bots.base import bot_rng, register
from metrogames.games.nextstation.actions import TurnAction


class RandomBot:
    """Uniform over the legal actions that are not a pass; a pass when nothing else is legal."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = bot_rng(seed, self.name)

    def decide(self, state: Any, player: int, legal_actions: Sequence[Any]) -> Any:
        moves = [a for a in legal_actions if not (isinstance(a, TurnAction) and a.is_pass)]
        return self.rng.choice(moves) if moves else legal_actions[0]


register("random")(RandomBot)
