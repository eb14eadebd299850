"""Flat Monte Carlo over determinizations: every legal action is weighed by whole games played
out from it, on playable copies of what the bot may know.

Honest hidden information: the bot decides on its seat's view and plays only on
``state.resample(player, rng)`` — the view with its hidden parts (held tiles, the pile or deck
order, the other players' actions of a simultaneous turn) drawn at random — never on the true
state. Everything goes through the game protocol, so it plays any registered game.

The search (one decision):

* **Successive halving** over the legal actions: the budget of playouts is split into
  ``ceil(log2(n))`` rounds; in each round every action still in the running is played out the
  same number of times, then the better half (by mean value over all its playouts so far) goes
  on. The last action standing is played. Strong actions thus get most of the playouts.
* **Common random numbers**: within a round, every action is tried on the same determinization
  and its playout is driven by the same per-player generators, so the actions are compared on
  the same luck (in Next Station the other players' playouts are then identical for every
  action: their maps never interact with the bot's).
* **Value of a finished playout**: the bot's score minus the best other player's (its own score
  alone in a solo game) — what a win needs, smoother than the win itself.
* **Playout policy** after the action weighed: the first ``greedy_turns`` turns follow the
  greedy bot's rule for every seat (:func:`~metrogames.bots.greedy.greedy_choice`: about ten
  times slower than random play, and a much better model of a sensible player in Next
  Station), the rest is the engine's fast random playout
  (:meth:`~metrogames.core.protocol.State.random_playout`). ``greedy_turns=0`` (the default)
  is a plain random playout — Metro's choice, where the greedy rule closes its own routes far
  too early to model anyone.

The budget is a number of playouts, not a time: the same seed always gives the same decision
(time per decision is measured by ``benchmarks/bots.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from metrogames.bots.base import bot_rng, check_decision, register
from metrogames.bots.greedy import greedy_choice
from metrogames.bots.search import Estimate, RankingBot
from metrogames.core.capabilities import DeepEvaluated, Evaluated
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng

S = TypeVar("S", bound=State[Action])
"""The kind of state a search plays on (its copies are of the same kind)."""

DEFAULT_BUDGET = 1000
"""Playouts per decision of the ``montecarlo`` code."""


def outcome_value(scores: Sequence[float], player: int) -> float:
    """The value of a finished playout for ``player``: its score minus the best other
    player's, or its score in a solo game."""
    best_other = max((s for p, s in enumerate(scores) if p != player), default=0)
    return float(scores[player] - best_other)


def greedy_turns(state: State[Action], turns: int, rng: Rng) -> None:
    """Play up to ``turns`` turns of ``state`` (a full state with a known deal) in place, every
    seat to move choosing by :func:`~metrogames.bots.greedy.greedy_choice` with ``rng`` for
    ties (a turn: every player to move acts once; chance steps are free). Simultaneous movers
    act in seat order and see the others' moves of the turn (a playout, not a fair game)."""
    pass_action = state.game.pass_action
    played = 0
    while played < turns and not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        for p in sorted(movers):
            legal = state.legal_actions(p)
            if len(legal) > 1:
                action = greedy_choice(state, p, legal, rng, pass_action)
            else:
                action = legal[0]
            state.apply_in_place(p, action, check=False)
        played += 1


class MonteCarloBot(RankingBot):
    """Flat Monte Carlo with successive halving; see the module docstring.

    Args:
        seed: the bot's seed.
        budget: playouts per decision (at least one per legal action); with the game's
            estimate, estimates per decision (one per player and position weighed).
        greedy_turns: turns of each playout played by the greedy rule before the engine's
            random playout finishes the game.
        use_heuristic: value the positions after an action by the game's estimate (the
            state's ``heuristic``: ``Evaluated``) instead of playouts (games without one are
            played out as usual).
        deep: with ``use_heuristic``, value them by the game's deep estimate
            (``deep_heuristic``: ``DeepEvaluated``) where the game has one (slower, better).
        name: the bot's code.
    """

    def __init__(
        self,
        seed: int = 0,
        budget: int = DEFAULT_BUDGET,
        greedy_turns: int = 0,
        use_heuristic: bool = False,
        deep: bool = False,
        name: str = "montecarlo",
    ) -> None:
        if budget < 1:
            raise ValueError(f"a Monte Carlo budget is at least 1 playout, not {budget}")
        if greedy_turns < 0:
            raise ValueError(f"greedy_turns cannot be negative ({greedy_turns})")
        self.name = name
        self.budget = budget
        self.greedy_turns = greedy_turns
        self.use_heuristic = use_heuristic
        self.deep = deep
        self.rng = bot_rng(seed, name)

    def rank(
        self, state: State[Action], player: int, legal_actions: Sequence[Action], keep: int = 1
    ) -> list[Estimate]:
        """Every action of ``legal_actions`` with its :class:`Estimate`, best first: the
        successive halving stops when ``keep`` actions are left, those come first (by value),
        then the others in the order they were dropped (later first).

        Raises:
            GameOverError, NotYourTurnError, IllegalActionError: as :func:`check_decision`.
        """
        check_decision(self.name, state, player, legal_actions)
        if self.use_heuristic:
            if self.deep and isinstance(state, DeepEvaluated):
                return self._halve(state, player, legal_actions, keep, _deep_estimate)
            if isinstance(state, Evaluated):
                return self._halve(state, player, legal_actions, keep, _estimate)
        return self._halve(state, player, legal_actions, keep, None)

    def _halve(
        self,
        state: S,
        player: int,
        legal_actions: Sequence[Action],
        keep: int,
        estimate: Callable[[S, int], float] | None,
    ) -> list[Estimate]:
        """The successive halving of :meth:`rank`, each position after an action valued by
        ``estimate`` (the game's, on a determinization) or, when ``None``, played out."""
        keep = max(1, keep)
        n = len(legal_actions)
        stats = [[0.0, 0.0, 0.0, 0] for _ in range(n)]  # value, score, win sums; playouts
        alive = list(range(n))
        dropped: list[int] = []
        rounds = max(1, (n - 1).bit_length())  # ceil(log2(n))
        per_round = self.budget / rounds
        if estimate is not None:
            per_round /= state.num_players  # one estimate per player and position
        pass_action = state.game.pass_action

        def order(i: int) -> tuple[float, bool, int]:
            value, _, _, count = stats[i]
            return (-value / count if count else 0.0, legal_actions[i] == pass_action, i)

        while True:
            repeats = max(1, int(per_round / len(alive)))
            for _ in range(repeats):
                self._sample(state, player, legal_actions, alive, stats, estimate)
            alive.sort(key=order)
            if len(alive) <= keep:
                break
            half = max(keep, (len(alive) + 1) // 2)
            dropped = alive[half:] + dropped
            alive = alive[:half]
            if len(alive) <= keep:
                break
        return [
            Estimate(legal_actions[i], int(c), score / c, win / c, value / c)
            for i in alive + dropped
            for value, score, win, c in [stats[i]]
        ]

    def _sample(
        self,
        state: S,
        player: int,
        legal_actions: Sequence[Action],
        alive: Sequence[int],
        stats: list[list[float]],
        estimate: Callable[[S, int], float] | None,
    ) -> None:
        """One determinization; every action in ``alive`` played out once on it (or valued by
        the game's ``estimate``, when given)."""
        rng = self.rng
        table = state.resample(player, rng)
        seeds = [rng.next64() for _ in range(table.num_players)]
        for i in alive:
            after = table.clone()
            after.apply_in_place(player, legal_actions[i], check=False)
            scores: Sequence[float]
            if estimate is not None:
                scores = [estimate(after, p) for p in range(after.num_players)]
                winners = [p for p, s in enumerate(scores) if s == max(scores)]
            else:
                if self.greedy_turns:
                    greedy_turns(after, self.greedy_turns, Rng(seeds[0], "greedy"))
                if not after.is_over():
                    after.random_playout([Rng(s) for s in seeds])
                scores = after.scores()
                winners = after.winners()
            row = stats[i]
            row[0] += outcome_value(scores, player)
            row[1] += scores[player]
            row[2] += 1 / len(winners) if player in winners else 0.0
            row[3] += 1


def _estimate(state: Evaluated, player: int) -> float:
    return state.heuristic(player)


def _deep_estimate(state: DeepEvaluated, player: int) -> float:
    return state.deep_heuristic(player)


register("montecarlo")(MonteCarloBot)
