"""The greedy player: the best immediate gain in final-score terms.

Next Station: the action that maximises the player's total if the game ended after it (the
current line scored as it stands), ties broken at random, a section preferred to a pass.
Metro: the placement that maximises the player's immediate gain minus the best opponent's
(routes completed by the tile score at once); in ``official-hand`` mode drawing a new tile
counts as a gain of 0. Ties are broken at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrogames.bots.base import bot_rng, register
from metrogames.games.metro import MetroAction, MetroState
from metrogames.games.nextstation.actions import TurnAction
from metrogames.games.nextstation.state import NextStationState


class GreedyBot:
    """Maximises the immediate gain; see the module docstring."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = bot_rng(seed, self.name)

    def decide(self, state: Any, player: int, legal_actions: Sequence[Any]) -> Any:
        if isinstance(state, NextStationState):
            return self._next_station(state, player, legal_actions)
        if isinstance(state, MetroState):
            return self._metro(state, player, legal_actions)
        raise TypeError(f"greedy does not know the game of {type(state).__name__}")

    def _metro(self, state: MetroState, player: int, legal_actions: Sequence[Any]) -> Any:
        before = state.scores()
        best: list[Any] = []
        best_gain: int | None = None
        for action in legal_actions:
            gain = 0
            if isinstance(action, MetroAction):
                after = state.clone()
                after.apply_in_place(player, action, check=False)
                scores = after.scores()
                others = [scores[p] - before[p] for p in range(len(scores)) if p != player]
                gain = scores[player] - before[player] - max(others, default=0)
            if best_gain is None or gain > best_gain:
                best_gain, best = gain, [action]
            elif gain == best_gain:
                best.append(action)
        return self.rng.choice(best)

    def _next_station(
        self, state: NextStationState, player: int, legal_actions: Sequence[TurnAction]
    ) -> TurnAction:
        best: list[TurnAction] = []
        best_key: tuple[int, int] | None = None
        for action in legal_actions:
            key = (state.total_after(player, action), 0 if action.is_pass else 1)
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return self.rng.choice(best)


register("greedy")(GreedyBot)
