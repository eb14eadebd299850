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
        first = legal_actions[0]
        if isinstance(first, TurnAction) and first.is_pass:
            # Next Station lists the pass first and no other pass
            return self.rng.choice(legal_actions[1:]) if len(legal_actions) > 1 else first
        return self.rng.choice(legal_actions)


register("random")(RandomBot)
