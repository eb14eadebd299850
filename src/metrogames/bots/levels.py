"""Bot levels: ``easy``, ``medium``, ``hard``, ``expert``, each an algorithm chosen per game.

A level is a bot code like any other (``simulate --bots medium,expert``, ``play --bots hard``,
the web table's seat menu). On its first decision in a game it picks its algorithm from
:data:`LEVELS` by the game's name (``state.game.name``), falling back to the ``*`` entry for a
game the table does not name (a plug-in game). The entries are chosen by measured strength and
time per decision (``benchmarks/bots.py``; the figures are in ``docs/performance.md``, "Bots"):

* ``easy``: the uniformly random player everywhere.
* ``medium``: the greedy player in Next Station (it beats random there by about 30 points);
  in Metro, where the greedy player closes its own routes as soon as they score and loses to
  random, the one-ply heuristic player (:mod:`~metrogames.bots.heuristic`, on Metro's
  estimate of its open routes; about 1 ms a decision), which won all of 300 2-player games
  against random.
* ``hard``: in Next Station flat Monte Carlo where each position after an action is valued by
  the game's own estimate (the ``heuristic`` hook: a fast greedy playout of the player's map)
  — 500 estimates in London, 250 in Paris (whose estimate is about twice as slow), about 0.1 s
  a decision; in Metro a short heuristic lookahead (:mod:`~metrogames.bots.lookahead`: the 4
  best actions followed for one round of decisions on 8 determinizations), 30–60 ms with 2
  players; flat Monte Carlo with random playouts for a game without an estimate.
* ``expert``: the same searches with larger budgets, within 2 s a decision on one core: in
  London 800 estimates by the game's *deep* estimate (the ``deep_heuristic`` hook: the greedy
  playout looking one card ahead, about three times as slow; 157.7 points over the 200 deals
  of the manifest, +2.7 ± 2.1 over 2000 greedy-playout estimates on the 104 deals both
  played), in Paris 1000 estimates (about 0.4–0.5 s a decision, p95 0.9 s; 184.8 points over
  the 200 Paris deals, +41.5 ± 2.4 over `greedy`); in Metro
  a deeper lookahead (the 6 best actions followed for two rounds on 32 determinizations),
  0.3 s a decision with 2 players, 0.7 s with 4 (p95 1.4 s): against three ``medium`` bots
  it won 52.1 % of 120 4-player games (on the first 60, 52.5 % where 16 won 43.3 %).

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
    budget of playouts (or of the game's estimates, with ``use_heuristic``) per decision and
    the greedy turns that start each playout and whether the estimate is the game's deep one
    (``deep``) (:class:`~metrogames.bots.montecarlo.MonteCarloBot`);
    for ``heuristic`` and ``lookahead`` the determinizations per decision (``budget``), and for
    ``lookahead`` the candidates (``width``) and the rounds of decisions followed (``rounds``)
    (:class:`~metrogames.bots.lookahead.LookaheadBot`)."""

    code: str
    budget: int = 0
    greedy_turns: int = 0
    width: int = 0
    rounds: int = 0
    use_heuristic: bool = False
    deep: bool = False

    def make(self, seed: int) -> Bot:
        """The bot of this entry, seeded with ``seed``."""
        if self.code == "montecarlo":
            return MonteCarloBot(
                seed,
                budget=self.budget,
                greedy_turns=self.greedy_turns,
                use_heuristic=self.use_heuristic,
                deep=self.deep,
            )
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
        if self.use_heuristic:
            return f"montecarlo ({self.budget} {'deep ' * self.deep}game estimates)"
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
        "london": Algorithm("montecarlo", 500, use_heuristic=True),
        "paris": Algorithm("montecarlo", 250, use_heuristic=True),
        ANY_GAME: Algorithm("montecarlo", 1000),
    },
    "expert": {
        "metro": Algorithm("lookahead", 32, width=6, rounds=2),
        "london": Algorithm("montecarlo", 800, use_heuristic=True, deep=True),
        "paris": Algorithm("montecarlo", 1000, use_heuristic=True),
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
