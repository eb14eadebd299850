"""The coach (``metrogames.bots.coach``): the best moves with the expert's estimates.

Hints use small budgets here (the figures are the search's; its strength is measured by
``benchmarks/bots.py``).
"""

from __future__ import annotations

import dataclasses

import pytest

from metrogames.bots import make_bot
from metrogames.bots.coach import Hint, coach, coach_figure, hint_budget, hints
from metrogames.bots.levels import level_algorithm
from metrogames.bots.play import play_bots
from metrogames.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import load_game

BUDGETS = {"london": 120, "paris": 120, "metro": 4}
"""Small budgets in each game's unit: playouts (Next Station's Monte Carlo), determinizations
(Metro's heuristic lookahead)."""


def first_decision(game: str, players: int, **options: object) -> State[Action]:
    state = load_game(game, players=players, **options).new_game(5)  # type: ignore[arg-type]
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    return state


@pytest.mark.parametrize(
    ("game", "players", "figure"),
    [("london", 1, "score"), ("paris", 2, "score"), ("metro", 2, "win"), ("metro", 4, "win")],
)
def test_the_figure_is_the_games_and_a_solo_game_shows_the_score(
    game: str, players: int, figure: str
) -> None:
    state = first_decision(game, players)
    assert coach_figure(state) == figure
    seat = min(state.to_move())
    assert hints(state.view(seat), seat, budget=BUDGETS[game], k=2).figure == figure


@pytest.mark.parametrize(("game", "players"), [("london", 1), ("metro", 2)])
def test_hints_are_the_experts_best_k_legal_moves_ordered_by_the_figure(
    game: str, players: int
) -> None:
    state = first_decision(game, players)
    seat = min(state.to_move())
    view = state.view(seat)
    legal = view.legal_actions(seat)
    got = hints(view, seat, seed=5, budget=BUDGETS[game])
    assert len(got.best) == 3 and len({h.action for h in got.best}) == 3
    assert all(h.action in legal for h in got.best)
    assert got.about is None
    figures = [getattr(h, got.figure) for h in got.best]
    assert figures == sorted(figures, reverse=True)
    # the same search run by hand: the expert's algorithm with the hint's budget
    algorithm = dataclasses.replace(level_algorithm("expert", game), budget=BUDGETS[game])
    ranked = algorithm.make(5).rank(view, seat, legal, keep=3)  # type: ignore[attr-defined]
    assert {h.action for h in got.best} == {e.action for e in ranked[:3]}
    by_action = {e.action: e for e in ranked}
    for h in got.best:
        e = by_action[h.action]
        assert (h.score, h.win, h.playouts) == (e.score, e.win, e.playouts)
        assert h.text == view.action_to_string(seat, h.action)
        assert e.playouts >= max(x.playouts for x in ranked[3:])  # the survivors: most playouts
    if game == "london":  # solo: every playout is a win, scores are points of a whole game
        assert all(h.win == 1.0 and 40 < h.score < 250 for h in got.best)
    else:
        assert all(0.0 <= h.win <= 1.0 for h in got.best)


def test_the_move_about_to_be_made_gets_its_estimate() -> None:
    state = first_decision("london", 1)
    view = state.view(0)
    got = hints(view, 0, about=view.game.pass_action, seed=2, budget=BUDGETS["london"])
    assert got.about is not None and got.about.text == "pass"
    assert view.game.pass_action not in {
        h.action for h in got.best
    }  # passing on the first turn is poor
    assert got.about.score < got.best[-1].score
    top = got.best[0]
    again = hints(view, 0, about=top.action, seed=2, budget=BUDGETS["london"])
    assert again.about == top  # the same search: the same estimate


def test_fewer_moves_than_asked_and_json() -> None:
    state = first_decision("metro", 2)
    seat = min(state.to_move())
    view = state.view(seat)
    n = len(view.legal_actions(seat))
    got = hints(view, seat, k=n + 5, budget=BUDGETS["metro"])
    assert len(got.best) == n
    one = hints(view, seat, k=1, budget=BUDGETS["metro"], about=got.best[-1].action)
    data = one.to_json(view, seat)
    assert data["figure"] == "win" and len(data["moves"]) == 1  # type: ignore[arg-type]
    about = data["about"]
    assert isinstance(about, dict) and set(about) == {"action", "text", "score", "win", "playouts"}
    assert view.action_from_json(seat, about["action"]) == got.best[-1].action


def test_hints_never_read_hidden_information() -> None:
    """Full states a seat cannot tell apart (other hands and pile orders in Metro) give the
    same hints as its view."""
    state = first_decision("metro", 3, turn_mode="hand")
    seat = min(state.to_move())
    seen = state.view(seat)
    first, second = seen.resample(seat, Rng(1)), seen.resample(seat, Rng(2))
    assert first.snapshot() != second.snapshot()
    results = [hints(s, seat, seed=9, budget=BUDGETS["metro"]) for s in (seen, first, second)]
    assert results[0] == results[1] == results[2]


def test_hint_budget_is_the_hard_levels() -> None:
    assert hint_budget("london") == level_algorithm("hard", "london").budget
    assert hint_budget("metro") == level_algorithm("hard", "metro").budget


def test_refusals() -> None:
    state = first_decision("metro", 2)
    mover = min(state.to_move())
    other = 1 - mover
    with pytest.raises(NotYourTurnError, match="not-your-turn"):
        hints(state.view(other), other, budget=BUDGETS["metro"])
    with pytest.raises(ValueError, match="its own view"):
        hints(state.view(other), mover, budget=BUDGETS["metro"])
    with pytest.raises(ValueError, match="at least 1 move"):
        hints(state.view(mover), mover, k=0)
    with pytest.raises(ValueError, match="at least 1 playout"):
        hints(state.view(mover), mover, budget=0)
    illegal = state.view(mover).string_to_action(mover, "aaaa A1")
    with pytest.raises(IllegalActionError, match=r"aaaa A1 is not a legal move now \(not-legal\)"):
        hints(state.view(mover), mover, about=illegal, budget=BUDGETS["metro"])
    over = play_bots(load_game("metro", players=2).new_game(2), [make_bot("random", 1)] * 2)
    with pytest.raises(GameOverError, match="game-over"):
        hints(over.view(0), 0, budget=BUDGETS["metro"])


def test_a_hint_is_a_frozen_value() -> None:
    h = Hint("pass", "pass", 1.0, 1.0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.score = 2.0  # type: ignore[misc]


@pytest.mark.parametrize("game", ["london", "paris", "metro"])
def test_the_analysis_ranking_uses_the_fast_estimate_where_the_expert_has_a_deep_one(
    game: str,
) -> None:
    """Hints rank with the expert's own estimate; the hindsight ranking (``deep=False``) with
    the game's fast one — in London, where the expert's is the deep estimate, a
    different ranker; elsewhere the same."""
    expert = level_algorithm("expert", game)
    hint_bot, analysis_bot = coach(game, budget=7), coach(game, budget=7, deep=False)
    assert getattr(hint_bot, "deep", False) == expert.deep
    assert getattr(analysis_bot, "deep", False) is False
    assert getattr(analysis_bot, "budget", 7) == 7
    assert expert.deep == (game == "london")  # the spec's levels (games/nextstation/spec.py)
