"""Bot levels: ``easy``, ``medium``, ``hard``, ``expert``, each an algorithm chosen per game.

A level is a bot code like any other (``simulate --bots medium,expert``, ``play --bots hard``,
the web table's seat menu). On its first decision in a game it picks its algorithm from
:data:`LEVELS` by the game's name (``state.game.name``), falling back to the ``*`` entry for a
game the table does not name (a plug-in game). The entries are chosen by measured strength and
time per decision (``benchmarks/bots.py``; the figures are in the README's "Bots" table):

* ``easy``: the uniformly random player everywhere.
* ``medium``: the greedy player in Next Station (it beats random there by about 30 points);
  in Metro, where the greedy player closes its own routes as soon as they score and loses to
  random, the one-ply heuristic player (:mod:`~metrogames.bots.heuristic`, on Metro's
  estimate of its open routes; about 1 ms a decision), which won all of 300 2-player games
  against random.
* ``hard``: flat Monte Carlo with random playouts, about 0.1–0.3 s a decision; in Metro a
  short heuristic lookahead (:mod:`~metrogames.bots.lookahead`: the 4 best actions followed
  for one round of decisions on 8 determinizations), 30–60 ms with 2 players.
* ``expert``: the strongest setting within about 2 s a decision on one core: flat Monte
  Carlo with greedy playouts in Next Station; in Metro a deeper heuristic lookahead (the 6
  best actions followed for two rounds on 16 determinizations), 0.15–0.4 s (p95 under 0.8 s
  with 2 or 4 players).

A level delegates to a bot seeded like the level itself, so ``medium`` in London plays exactly
the games ``greedy`` plays with the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.bots.base import Bot, check_decision, make_bot, register
from metrogames.bots.heuristic import HeuristicBot
from metrogames.bots.lookahead import LookaheadBot
from metrogames.bots.montecarlo import MonteCarloBot
from metrogames.core.protocol import Action, State


@dataclass(frozen=True)
class Algorithm:
    """One entry of the level table: an algorithm code (``random``, ``greedy``,
    ``montecarlo``, ``heuristic`` or ``lookahead``) and its settings: for ``montecarlo`` the
    budget of playouts per decision and the greedy turns that start each playout
    (:class:`~metrogames.bots.montecarlo.MonteCarloBot`); for ``heuristic`` and ``lookahead``
    the determinizations per decision (``budget``), and for ``lookahead`` the candidates
    (``width``) and the rounds of decisions followed (``rounds``)
    (:class:`~metrogames.bots.lookahead.LookaheadBot`)."""

    code: str
    budget: int = 0
    greedy_turns: int = 0
    width: int = 0
    rounds: int = 0

    def make(self, seed: int) -> Bot:
        """The bot of this entry, seeded with ``seed``."""
        if self.code == "montecarlo":
            return MonteCarloBot(seed, budget=self.budget, greedy_turns=self.greedy_turns)
        if self.code == "heuristic":
            return HeuristicBot(seed, samples=self.budget)
        if self.code == "lookahead":
            return LookaheadBot(seed, samples=self.budget, width=self.width, rounds=self.rounds)
        return make_bot(self.code, seed)

    def __str__(self) -> str:
        if self.code == "heuristic":
            return f"heuristic ({self.budget} determinization{'s' * (self.budget != 1)})"
        if self.code == "lookahead":
            return (
                f"lookahead ({self.width} candidates, {self.rounds} round{'s' * (self.rounds != 1)}, "
                f"{self.budget} determinizations)"
            )
        if self.code != "montecarlo":
            return self.code
        start = f", {self.greedy_turns} greedy turns first" if self.greedy_turns else ""
        return f"montecarlo ({self.budget} playouts{start})"


ANY_GAME = "*"
"""The key of the entry for games the table does not name."""

LEVELS: dict[str, dict[str, Algorithm]] = {
    "easy": {ANY_GAME: Algorithm("random")},
    "medium": {
        "metro": Algorithm("heuristic", 1),
        ANY_GAME: Algorithm("greedy"),
    },
    "hard": {
        "metro": Algorithm("lookahead", 8, width=4, rounds=1),
        ANY_GAME: Algorithm("montecarlo", 1000),
    },
    "expert": {
        "metro": Algorithm("lookahead", 16, width=6, rounds=2),
        ANY_GAME: Algorithm("montecarlo", 4000),
    },
}
"""Level -> game name (or :data:`ANY_GAME`) -> algorithm, levels from weakest to strongest."""


def level_algorithm(level: str, game: str) -> Algorithm:
    """The algorithm ``level`` plays ``game`` with.

    Raises:
        ValueError: an unknown level.
    """
    table = LEVELS.get(level)
    if table is None:
        raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")
    return table.get(game, table[ANY_GAME])


class LevelBot:
    """A level: delegates each decision to the algorithm :data:`LEVELS` gives for the game
    (made on the first decision in that game and kept)."""

    sees_state = True

    def __init__(self, level: str, seed: int = 0) -> None:
        level_algorithm(level, ANY_GAME)  # an unknown level fails here
        self.name = level
        self.seed = seed
        self._bots: dict[str, Bot] = {}

    def bot_for(self, game: str) -> Bot:
        """The bot this level plays ``game`` with."""
        bot = self._bots.get(game)
        if bot is None:
            bot = self._bots[game] = level_algorithm(self.name, game).make(self.seed)
        return bot

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        check_decision(self.name, state, player, legal_actions)
        return self.bot_for(state.game.name).decide(state, player, legal_actions)


def _factory(level: str) -> None:
    register(level)(lambda seed: LevelBot(level, seed))


for _level in LEVELS:
    _factory(_level)
