"""One-ply heuristic search: every legal action is judged by the game's own position estimate
(the state's ``heuristic``: the :class:`~metrogames.core.capabilities.Evaluated` capability)
right after it.

Honest hidden information: the bot plays only on ``state.resample(player, rng)`` — its view
with the hidden parts drawn at random — never on the true state (the estimate may read the
whole state it is given).

The rule (one decision), on each of ``samples`` determinizations:

* every legal action is applied to a copy; chance steps that follow are taken as the
  determinization deals them, and when the same player must then act again (Metro's
  ``official-hand`` draw: draw a tile, then place it) its best action by the same rule is
  taken (one level deep);
* the position reached is worth the player's estimate minus the best other player's
  (:func:`margin`; the estimate alone in a solo game; final scores once the game is over).

The action with the best mean margin is played (ties: the earlier legal action). A game
without an estimate cannot be played by this bot (``ValueError``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from metrogames.bots.base import bot_rng, check_decision, register
from metrogames.bots.search import Estimate, RankingBot
from metrogames.core.capabilities import Evaluated
from metrogames.core.protocol import CHANCE, Action, State


class EvaluatedState(State[Action], Evaluated, Protocol):
    """A state of a game that gives an estimate (``Evaluated``): what the heuristic searches
    play on. Its copies (``clone``, ``resample``) are of the same kind."""


def evaluated(state: State[Action]) -> EvaluatedState:
    """``state`` as a state with the game's estimate.

    Raises:
        ValueError: the game gives none.
    """
    if not isinstance(state, Evaluated):
        raise ValueError(f"the game {state.game.name!r} has no heuristic: use a playout bot")
    return state


def margin(values: Sequence[float], player: int) -> float:
    """``values[player]`` minus the best other player's value (itself in a solo game)."""
    best_other = max((v for p, v in enumerate(values) if p != player), default=0.0)
    return values[player] - best_other


WIN_SCALE = 15.0
"""Points of estimated lead that read as about 73 % to win (:func:`win_chance`)."""


def win_chance(lead: float) -> float:
    """The chance to win read from an estimated lead over the best opponent (points), by a
    logistic curve ``1 / (1 + e^(-lead / WIN_SCALE))``: 0.5 at no lead, about 0.73 at 15 points
    — a rough reading of an estimate, not a measured probability (a position one move in is
    never a sure win)."""
    return 1.0 / (1.0 + math.exp(-max(-700.0, min(700.0, lead / WIN_SCALE))))


def values_of(state: EvaluatedState) -> list[float]:
    """Every player's value of a full ``state``: the final scores once it is over, else the
    game's estimates."""
    if state.is_over():
        return [float(s) for s in state.scores()]
    return [state.heuristic(p) for p in range(state.num_players)]


def settle(state: EvaluatedState, player: int, again: int = 1) -> list[float]:
    """Every player's value of a full ``state`` (changed in place) once the chance steps due
    are taken as dealt; when ``player`` must act again, after its best action by
    :func:`margin` (``again`` levels deep; past that, the position as it stands)."""
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
    if again <= 0 or player not in state.to_move():
        return values_of(state)
    best: list[float] | None = None
    for action in state.legal_actions(player):
        after = state.clone()
        after.apply_in_place(player, action, check=False)
        values = settle(after, player, again - 1)
        if best is None or margin(values, player) > margin(best, player):
            best = values
    return best if best is not None else values_of(state)


def after_each(
    table: EvaluatedState, player: int, legal_actions: Sequence[Action]
) -> list[list[float]]:
    """Per action of ``legal_actions``, every player's value after it on the full state
    ``table`` (:func:`settle`)."""
    out = []
    for action in legal_actions:
        after = table.clone()
        after.apply_in_place(player, action, check=False)
        out.append(settle(after, player))
    return out


class HeuristicBot(RankingBot):
    """The one-ply heuristic rule; see the module docstring.

    Args:
        seed: the bot's seed.
        samples: determinizations per decision (each action is judged on all of them).
        name: the bot's code.
    """

    def __init__(self, seed: int = 0, samples: int = 1, name: str = "heuristic") -> None:
        if samples < 1:
            raise ValueError(f"a heuristic bot needs at least 1 sample, not {samples}")
        self.name = name
        self.samples = samples
        self.rng = bot_rng(seed, name)

    def rank(
        self, state: State[Action], player: int, legal_actions: Sequence[Action], keep: int = 1
    ) -> list[Estimate]:
        """Every action of ``legal_actions`` with its :class:`Estimate`, best first (all are
        judged alike, so ``keep`` changes nothing): ``score`` is the mean estimate of the
        player's final score, ``value`` the mean :func:`margin`, ``win`` the mean :func:`win_chance` of
        that margin, ``playouts`` the samples.

        Raises:
            GameOverError, NotYourTurnError, IllegalActionError: as
                :func:`~metrogames.bots.base.check_decision`.
            ValueError: the game has no heuristic.
        """
        check_decision(self.name, state, player, legal_actions)
        view = evaluated(state)
        n = len(legal_actions)
        sums = [[0.0, 0.0, 0.0] for _ in range(n)]  # score, margin, wins
        for _ in range(self.samples):
            table = view.resample(player, self.rng)
            for row, values in zip(sums, after_each(table, player, legal_actions), strict=True):
                m = margin(values, player)
                row[0] += values[player]
                row[1] += m
                row[2] += win_chance(m)
        s = self.samples
        order = sorted(range(n), key=lambda i: (-sums[i][1], i))
        return [
            Estimate(legal_actions[i], s, sums[i][0] / s, sums[i][2] / s, sums[i][1] / s)
            for i in order
        ]


register("heuristic")(HeuristicBot)
