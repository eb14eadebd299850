"""The greedy player: the best immediate gain, for any game of the protocol.

Each legal action is tried on a playable copy of what the bot may know (``state.resample``:
its own view with the hidden parts filled in at random; the gain never depends on them) and
scored as the player's gain in points minus the best opponent's gain; ties go to an action
that is not the pass, then are broken at random. Next Station: the total as if the game ended
after the action (opponents' sheets never change with it). Metro: routes completed by the tile
score at once for their owners; drawing a new tile in ``official-hand`` mode gains 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from metrogames.bots.base import bot_rng, check_decision, register
from metrogames.core.capabilities import GreedyGains
from metrogames.core.protocol import Action, State
from metrogames.core.rng import Rng


def greedy_choice(
    table: State[Action],
    player: int,
    legal_actions: Sequence[Action],
    rng: Rng,
    pass_action: object,
) -> Action:
    """The greedy rule on a full state ``table``: the action of ``legal_actions`` with the
    best immediate gain minus the best opponent's gain, a non-pass action on ties, then one
    drawn with ``rng`` (one draw). The gains are the game's own where it gives them
    (:class:`~metrogames.core.capabilities.GreedyGains`, the same values without a clone per
    action), else each action is applied to a clone and the scores compared."""
    if _has_gains(table):
        gains = table.greedy_gains(player, legal_actions)
    else:
        gains = _tried_gains(table, player, legal_actions)
    best: list[Action] = []
    best_key: tuple[int, bool] | None = None
    for action, gain in zip(legal_actions, gains, strict=True):
        key = (gain, action != pass_action)
        if best_key is None or key > best_key:
            best_key, best = key, [action]
        elif key == best_key:
            best.append(action)
    return rng.choice(best)


_CAPABLE: dict[type, bool] = {}
"""Per state class, whether it has ``GreedyGains`` (a protocol ``isinstance`` costs tens of
microseconds; the greedy rule runs at every turn of a greedy playout)."""


def _has_gains(table: object) -> TypeGuard[GreedyGains]:
    kind = type(table)
    known = _CAPABLE.get(kind)
    if known is None:
        known = _CAPABLE[kind] = isinstance(table, GreedyGains)
    return known


def _tried_gains(table: State[Action], player: int, legal_actions: Sequence[Action]) -> list[int]:
    """Per action, ``player``'s gain in ``scores()`` minus the best other player's once it is
    applied to a clone of ``table``."""
    before = table.scores()
    gains = []
    for action in legal_actions:
        after = table.clone()
        after.apply_in_place(player, action, check=False)
        scores = after.scores()
        others = [scores[p] - before[p] for p in range(len(scores)) if p != player]
        gains.append(scores[player] - before[player] - max(others, default=0))
    return gains


class GreedyBot:
    """Maximises the immediate gain; see the module docstring."""

    name = "greedy"
    sees_state = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = bot_rng(seed, self.name)
        self.fill = bot_rng(seed, f"{self.name}:resample")
        """Fills in hidden parts (kept apart, so they never shift the tie-breaks)."""

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        check_decision(self.name, state, player, legal_actions)
        table = state.resample(player, self.fill) if state.viewer is not None else state
        return greedy_choice(table, player, legal_actions, self.rng, state.game.pass_action)


register("greedy")(GreedyBot)
