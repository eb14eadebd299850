"""Heuristic lookahead: the best few actions by the one-ply heuristic rule are each followed
for a few more turns on many determinizations, every player then playing that rule, and
judged by the game's position estimate where the lookahead stops.

Honest hidden information: the bot plays only on ``state.resample(player, rng)`` — its view
with the hidden parts (held tiles, the pile order) drawn at random — never on the true state.
A determinization fixes the coming draws, so the lookahead sees what the others could do with
the tiles they might hold and draw, averaged over many such guesses.

The search (one decision):

* **Candidates**: the ``width`` best actions by the one-ply rule
  (:class:`~metrogames.bots.heuristic.HeuristicBot`, on one determinization).
* **Lookahead**: on each of ``samples`` determinizations (the same for every candidate:
  common random numbers), the candidate is applied, then ``rounds`` rounds of further
  decisions (``rounds`` times the number of players: the other players' replies, then the
  bot's own next move, and so on) — each by the one-ply rule
  of the player to move; chance steps are taken as the determinization deals them.
* **Value**: the bot's estimate minus the best other player's at the end of the lookahead
  (:func:`~metrogames.bots.heuristic.margin`; final scores if the game ended), averaged over
  the samples; the best candidate is played.

Needs the game's estimate (the state's ``heuristic``: ``Evaluated``; ``ValueError`` otherwise).
The budget is a number of samples, not a time: the same seed always gives the same decision.
"""

from __future__ import annotations

from collections.abc import Sequence

from metrogames.bots.base import bot_rng, check_decision, register
from metrogames.bots.heuristic import (
    EvaluatedState,
    after_each,
    evaluated,
    margin,
    values_of,
    win_chance,
)
from metrogames.bots.search import Estimate, RankingBot
from metrogames.core.protocol import CHANCE, Action, State

DEFAULT_SAMPLES = 24
DEFAULT_WIDTH = 6
DEFAULT_ROUNDS = 1


def best_reply(state: EvaluatedState, player: int) -> Action:
    """The one-ply rule's action for ``player`` (to move) in a full ``state``: the best
    :func:`~metrogames.bots.heuristic.margin` after it (ties: the earlier legal action)."""
    legal = state.legal_actions(player)
    if len(legal) == 1:
        return legal[0]
    values = after_each(state, player, legal)
    best = max(range(len(legal)), key=lambda i: (margin(values[i], player), -i))
    return legal[best]


def follow(state: EvaluatedState, plies: int, player: int) -> list[float]:
    """Play ``plies`` decisions of a full ``state`` in place, each player to move choosing by
    :func:`best_reply` (chance steps as dealt, free), and return every player's value then
    (:func:`~metrogames.bots.heuristic.values_of`). When ``player`` is to move first (it
    drew a tile it must now place), that move comes first and is not counted."""
    _deal(state)
    if player in state.to_move():
        state.apply_in_place(player, best_reply(state, player), check=False)
    for _ in range(plies):
        if state.is_over():
            break
        for p in sorted(state.to_move()):
            state.apply_in_place(p, best_reply(state, p), check=False)
        _deal(state)
    return values_of(state)


def _deal(state: State[Action]) -> None:
    """Take the chance steps due in a full ``state`` as dealt."""
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)


class LookaheadBot(RankingBot):
    """Heuristic lookahead over determinizations; see the module docstring.

    Args:
        seed: the bot's seed.
        samples: determinizations each candidate is followed on.
        width: candidates (the best actions by the one-ply rule).
        rounds: rounds of decisions (one per player) played after the candidate before
            judging.
        name: the bot's code.
    """

    def __init__(
        self,
        seed: int = 0,
        samples: int = DEFAULT_SAMPLES,
        width: int = DEFAULT_WIDTH,
        rounds: int = DEFAULT_ROUNDS,
        name: str = "lookahead",
    ) -> None:
        for what, value, least in (
            ("samples", samples, 1),
            ("width", width, 1),
            ("rounds", rounds, 0),
        ):
            if value < least:
                raise ValueError(f"a lookahead bot needs {what} >= {least}, not {value}")
        self.name = name
        self.samples = samples
        self.width = width
        self.rounds = rounds
        self.rng = bot_rng(seed, name)

    def rank(
        self, state: State[Action], player: int, legal_actions: Sequence[Action], keep: int = 1
    ) -> list[Estimate]:
        """Every action of ``legal_actions`` with its :class:`Estimate`, best first: the
        candidates (at least ``keep`` of them) by their lookahead, then the others by the
        one-ply rule on one determinization (``playouts`` 1). ``score`` is the mean estimate
        of the player's final score, ``value`` the mean margin, ``win`` the mean
        :func:`~metrogames.bots.heuristic.win_chance` of the margins.

        Raises:
            GameOverError, NotYourTurnError, IllegalActionError: as
                :func:`~metrogames.bots.base.check_decision`.
            ValueError: the game has no heuristic.
        """
        check_decision(self.name, state, player, legal_actions)
        view = evaluated(state)
        rng = self.rng
        n = len(legal_actions)
        plies = self.rounds * state.num_players
        first = after_each(view.resample(player, rng), player, legal_actions)
        order = sorted(range(n), key=lambda i: (-margin(first[i], player), i))
        chosen = order[: max(self.width, keep)]
        sums = {i: [0.0, 0.0, 0.0] for i in chosen}  # score, margin, wins
        for _ in range(self.samples):
            table = view.resample(player, rng)
            for i in chosen:
                after = table.clone()
                after.apply_in_place(player, legal_actions[i], check=False)
                values = follow(after, plies, player)
                m = margin(values, player)
                row = sums[i]
                row[0] += values[player]
                row[1] += m
                row[2] += win_chance(m)
        s = self.samples
        chosen.sort(key=lambda i: (-sums[i][1], i))
        out = [
            Estimate(legal_actions[i], s, sums[i][0] / s, sums[i][2] / s, sums[i][1] / s)
            for i in chosen
        ]
        for i in order[len(chosen) :]:
            m = margin(first[i], player)
            out.append(Estimate(legal_actions[i], 1, first[i][player], win_chance(m), m))
        return out


register("lookahead")(LookaheadBot)
