"""Bot levels: ``easy``, ``medium``, ``hard``, ``expert``, each an algorithm chosen per game.

A level is a bot code like any other (``simulate --bots medium,expert``, ``play --bots hard``,
the web table's seat menu). On its first decision in a game it picks its algorithm: the one
the game states for that level (``GameType.bot_levels``: each game's tuning, measured with
``benchmarks/bots.py`` and described where the game registers it), else the default of
:data:`LEVELS`, which fits any game through the protocol alone (a plug-in game):

* ``easy``: the uniformly random player.
* ``medium``: the greedy player.
* ``hard``: flat Monte Carlo with 1000 random playouts a decision (the game's estimate
  instead, where its tuning says so).
* ``expert``: the same with 4000 playouts.

A level delegates to a bot seeded like the level itself, so ``medium`` in London plays exactly
the games ``greedy`` plays with the same seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.bots.base import Bot, check_decision, make_bot, register
from metrogames.bots.heuristic import HeuristicBot
from metrogames.bots.lookahead import LookaheadBot
from metrogames.bots.montecarlo import MonteCarloBot
from metrogames.core.protocol import Action, BotSetting, State
from metrogames.games import game_names, game_type


@dataclass(frozen=True)
class Algorithm(BotSetting):
    """A level's algorithm: a :class:`~metrogames.core.protocol.BotSetting` (an algorithm
    code, ``random``, ``greedy``, ``montecarlo``, ``heuristic`` or ``lookahead``, and its
    settings: for ``montecarlo`` the budget of playouts — or of the game's estimates, with
    ``use_heuristic`` — per decision, the greedy turns that start each playout and whether the
    estimate is the game's deep one, :class:`~metrogames.bots.montecarlo.MonteCarloBot`; for
    ``heuristic`` and ``lookahead`` the determinizations per decision, and for ``lookahead``
    the candidates and the rounds of decisions followed,
    :class:`~metrogames.bots.lookahead.LookaheadBot`) that makes its bot."""

    @classmethod
    def of(cls, setting: BotSetting) -> Algorithm:
        """The algorithm of a game's ``setting``."""
        return cls(**{f.name: getattr(setting, f.name) for f in dataclasses.fields(setting)})

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


LEVELS: dict[str, Algorithm] = {
    "easy": Algorithm("random"),
    "medium": Algorithm("greedy"),
    "hard": Algorithm("montecarlo", 1000),
    "expert": Algorithm("montecarlo", 4000),
}
"""Level -> its algorithm in a game that states none for it, levels from weakest to
strongest."""


def level_algorithm(level: str, game: str) -> Algorithm:
    """The algorithm ``level`` plays ``game`` with: the game's own setting for the level
    (``GameType.bot_levels``), else :data:`LEVELS`' (also for a name the registry does not
    know).

    Raises:
        ValueError: an unknown level.
    """
    default = _default(level)
    tuned = game_type(game).bot_levels.get(level) if game in game_names(unlisted=True) else None
    return default if tuned is None else Algorithm.of(tuned)


def _default(level: str) -> Algorithm:
    found = LEVELS.get(level)
    if found is None:
        raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")
    return found


class LevelBot:
    """A level: delegates each decision to the algorithm :func:`level_algorithm` gives for the
    game (made on the first decision in that game and kept)."""

    sees_state = True

    def __init__(self, level: str, seed: int = 0) -> None:
        _default(level)  # an unknown level fails here
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
    register(level, level=True)(lambda seed: LevelBot(level, seed))


for _level in LEVELS:
    _factory(_level)
