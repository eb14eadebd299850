"""The coach: the best few legal moves of a position with the expert's estimates (hints).

A hint is what the ``expert`` level's search (:data:`~metrogames.bots.levels.LEVELS`) thinks of
the moves of one seat, on what that seat may know: the search plays only on
``view.resample(player, rng)`` (:class:`~metrogames.bots.montecarlo.MonteCarloBot.rank`), so a
hint never depends on hidden information (the other seats' held tiles, the deck order). Each
move comes with both figures of the search — the expected final score in points and the
probability of winning — and the game says which one matters (``GameType.coach_figure``:
Next Station's expected score, Metro's win probability; a solo game always shows the score).

The search is the expert's algorithm and playout policy with a smaller budget by default
(:func:`hint_budget`: the ``hard`` level's, a fraction of a second), since a player waits for
it. Whether hints are allowed (not in a ranked daily game) is the caller's rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from metrogames.bots.base import check_decision
from metrogames.bots.levels import level_algorithm
from metrogames.bots.search import Estimate
from metrogames.core.errors import IllegalActionError, Where
from metrogames.core.protocol import Action, CoachFigure, JsonObject, State
from metrogames.games import game_type
from metrogames.i18n import N_, msg

COACH_LEVEL = "expert"
"""The level whose search gives the hints."""
BUDGET_LEVEL = "hard"
"""The level whose budget a hint uses by default (a hint should take a second or less)."""
FALLBACK_BUDGET = 1000
"""Playouts of a hint when the budget level's algorithm has no budget (not a search)."""


class Ranker(Protocol):
    """A search that estimates every legal action (``MonteCarloBot.rank``)."""

    def rank(
        self, state: State[Action], player: int, legal_actions: Sequence[Action], keep: int = 1
    ) -> list[Estimate]: ...


@dataclass(frozen=True)
class Hint:
    """One move with the coach's estimate.

    Attributes:
        action: the move (an action of ``legal_actions``).
        text: its text notation.
        score: the player's expected final score after it, in points.
        win: the player's probability of winning after it, 0–1 (a shared win counts as a
            fraction; 1.0 in a solo game).
        playouts: the finished playouts behind the figures.
    """

    action: Action
    text: str
    score: float
    win: float
    playouts: int

    def to_json(self, state: State[Action], player: int) -> JsonObject:
        """``{"action": <action JSON>, "text", "score", "win", "playouts"}`` (figures to two
        decimals for the score, three for the win probability)."""
        return {
            "action": state.action_to_json(player, self.action),
            "text": self.text,
            "score": round(self.score, 2),
            "win": round(self.win, 3),
            "playouts": self.playouts,
        }


@dataclass(frozen=True)
class Hints:
    """The coach's answer for one seat and position.

    Attributes:
        figure: the figure to show (``score`` or ``win``, see the module docstring).
        best: the best moves by the search, best first among them by ``figure``.
        about: the estimate of the move the player is about to make, when one was given
            (also when it is among ``best``).
    """

    figure: CoachFigure
    best: list[Hint]
    about: Hint | None

    def to_json(self, state: State[Action], player: int) -> JsonObject:
        """``{"figure", "moves": [hint JSON...], "about": hint JSON | null}``."""
        return {
            "figure": self.figure,
            "moves": [h.to_json(state, player) for h in self.best],
            "about": None if self.about is None else self.about.to_json(state, player),
        }


def coach_figure(state: State[Action]) -> CoachFigure:
    """The figure hints show in ``state``'s game: ``score`` for a solo game, else the
    game's ``coach_figure``."""
    if state.num_players == 1:
        return "score"
    return game_type(state.game.name).coach_figure


def hint_budget(game: str) -> int:
    """The default playouts of a hint in ``game`` (the ``hard`` level's budget)."""
    return level_algorithm(BUDGET_LEVEL, game).budget or FALLBACK_BUDGET


def coach(game: str, seed: int = 0, budget: int | None = None, deep: bool = True) -> Ranker:
    """The search behind the hints in ``game``: the ``expert`` level's algorithm, seeded with
    ``seed``, with ``budget`` playouts (``None``: :func:`hint_budget`); ``deep=False`` values
    positions by the game's fast estimate where the expert uses its deep one (London's: about
    17 times the cost of an estimate, for a few points of strength; the hindsight analyses'
    many decisions use the fast one).

    Raises:
        ValueError: a budget below 1, or an expert that is not a search (no ``rank``).
    """
    if budget is not None and budget < 1:
        raise ValueError(f"a hint's budget is at least 1 playout, not {budget}")
    algorithm = level_algorithm(COACH_LEVEL, game)
    algorithm = dataclasses.replace(
        algorithm, budget=budget or hint_budget(game), deep=algorithm.deep and deep
    )
    bot = algorithm.make(seed)
    if not hasattr(bot, "rank"):
        raise ValueError(f"the {COACH_LEVEL} level of {game} ({algorithm}) gives no estimates")
    ranker: Ranker = bot  # type: ignore[assignment]
    return ranker


def hints(
    view: State[Action],
    player: int,
    *,
    about: Action | None = None,
    seed: int = 0,
    k: int = 3,
    budget: int | None = None,
) -> Hints:
    """The best ``k`` legal moves of ``player`` in ``view`` with the coach's estimates, and
    the estimate of ``about`` (the move the player is about to make) when given.

    Args:
        view: what ``player`` may know (``state.view(player)``), or a full state when nothing
            is hidden from ``player``; never another seat's view.
        player: the seat to move.
        about: a legal move of ``player``, or ``None``.
        seed: the search's seed (the same seed and view give the same hints).
        k: how many moves (fewer when there are fewer legal moves).
        budget: playouts of the search (``None``: :func:`hint_budget`).

    Raises:
        GameOverError: the game is over (``game-over``).
        NotYourTurnError: ``player`` is not to move (``not-your-turn``).
        IllegalActionError: ``about`` is not a legal move now (``not-legal``).
        ValueError: ``k`` below 1, a budget below 1, or ``view`` is another seat's view.
    """
    if k < 1:
        raise ValueError(f"a hint shows at least 1 move, not {k}")
    if view.viewer is not None and view.viewer != player:
        raise ValueError(f"hints for seat {player} come from its own view, not seat {view.viewer}'s")
    legal = view.legal_actions(player)
    check_decision("coach", view, player, legal)
    if about is not None and about not in legal:
        text = view.action_to_string(player, about)
        raise IllegalActionError.of(
            "not-legal", msg(N_("{move} is not a legal move now"), move=text), Where(player=player)
        )
    figure = coach_figure(view)
    ranked = coach(view.game.name, seed, budget).rank(view, player, legal, keep=k)

    def hint(e: Estimate) -> Hint:
        text = view.action_to_string(player, e.action)
        return Hint(e.action, text, e.score, e.win, e.playouts)

    top = sorted(ranked[:k], key=lambda e: (-getattr(e, figure), -e.value))
    mine = next((e for e in ranked if e.action == about), None) if about is not None else None
    return Hints(figure, [hint(e) for e in top], None if mine is None else hint(mine))
