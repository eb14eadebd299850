"""Next Station's position estimate (the ``heuristic`` hook) and the search bots that use it.

The estimate is a greedy playout of one player's map: its values are checked against the
engine (the playout's own actions, replayed through the checked ``apply``, score exactly the
estimate) and against hand-counted gains; strength checks use small seeded samples with bounds
a broken bot fails (the full figures come from ``benchmarks/bots.py``).
"""

from __future__ import annotations

from statistics import mean
from typing import cast

import pytest
from test_bots import play_checked

from metrogames.bots import make_bot
from metrogames.bots.base import bot_rng
from metrogames.bots.montecarlo import MonteCarloBot
from metrogames.bots.play import play_bots
from metrogames.core.capabilities import DeepEvaluated, Evaluated
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import game_engine, load_game
from metrogames.games.nextstation.actions import PASS, parse_action
from metrogames.games.nextstation.heuristic import (
    LOOKAHEAD_WIDTH,
    greedy_action,
    greedy_final_score,
)
from metrogames.games.nextstation.state import NextStationState
from support.nextstation_states import deck, first, flip, london


def new_game(game: str, seed: int, players: int = 1, **options: object) -> NextStationState:
    rules = load_game(game, players=players, **options)  # type: ignore[arg-type]
    return cast(NextStationState, rules.new_game(seed))


def solo_deal(game: str, i: int) -> State[Action]:
    """Deal ``i`` of the benchmark's solo manifest (seed ``2026 + i``)."""
    return game_engine(game).from_deal(load_game(game, players=1).deal_record(2026 + i), 1)


# -- the estimate ----------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["london", "paris"])
def test_london_and_paris_give_the_heuristic(game: str) -> None:
    state = new_game(game, 4)
    assert isinstance(state, Evaluated)
    assert state.heuristic(0) == greedy_final_score(state, 0)


def test_the_playout_takes_the_section_with_the_best_immediate_gain() -> None:
    """Green leaves D3 (district 1) on a pentagon: C4 (district 3) makes 2 districts x 1
    station = 2 points, D7 (district 4) the same plus 2 for crossing the Thames. Pink leaves
    H4 on a circle: G4 (another district) = 2 points, H6 (H4's district: 1 x 2) + 2 for the
    Thames = 4."""
    green = first("street-pentagon")
    assert greedy_action(green, 0) == parse_action(green.city, "D3-D7")
    cycle = ("pink", "purple", "green", "blue")
    pink = flip(london(cycle=cycle, decks=[deck("street-circle")]), "street-circle")
    assert greedy_action(pink, 0) == parse_action(pink.city, "H4-H6")


def test_the_playout_passes_when_nothing_is_legal() -> None:
    """Turns where the pass is the only legal action (the line's ends have no section to the
    card's symbol left) get the pass; the first few games have some."""
    passes = 0
    for seed in range(5):
        state = new_game("london", seed)
        while not state.is_over():
            if CHANCE in state.to_move():
                state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            if state.legal_actions(0) == [PASS]:
                assert greedy_action(state, 0) == PASS
                passes += 1
            state = state.apply(0, greedy_action(state, 0))
    assert passes > 0


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("london", 1, {}),
        ("london", 1, {"powers": "random", "objectives": "random"}),
        ("london", 2, {"powers": "random"}),
        ("paris", 1, {}),
        ("paris", 3, {"objectives": "random"}),
    ],
)
def test_the_estimate_is_the_final_score_of_its_own_playout(
    game: str, players: int, options: dict[str, object]
) -> None:
    """Player 0 plays the playout's actions through the checked ``apply`` (the others at
    random: maps never interact); at every decision the estimate is the final score."""
    for seed in range(2):
        state = new_game(game, seed, players, **options)
        estimates = [greedy_final_score(state, 0)]
        rng = Rng(seed)
        while not state.is_over():
            if CHANCE in state.to_move():
                state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            for p in sorted(state.to_move()):
                if p == 0:
                    estimates.append(greedy_final_score(state, 0))
                    action = greedy_action(state, 0)
                else:
                    action = rng.choice(state.legal_actions(p))
                state = state.apply(p, action)
        assert set(estimates) == {state.scores()[0]}, (game, seed)
        assert greedy_final_score(state, 0) == state.scores()[0]


def test_the_estimate_at_the_start_is_a_good_players_score() -> None:
    """Over 20 deals the greedy playout averages about 126 points in London (the greedy bot
    about 120, random play about 80) and about 145 in Paris."""
    london_mean = mean(
        greedy_final_score(cast(NextStationState, solo_deal("london", i)), 0) for i in range(20)
    )
    paris_mean = mean(
        greedy_final_score(cast(NextStationState, solo_deal("paris", i)), 0) for i in range(20)
    )
    assert 115 <= london_mean <= 140
    assert 130 <= paris_mean <= 160


def test_the_estimate_needs_a_full_state_and_a_mover() -> None:
    state = first("street-pentagon")
    with pytest.raises(ValueError, match="resample a view first"):
        greedy_final_score(state.view(0), 0)
    assert greedy_action(state.view(0), 0) == greedy_action(state, 0)  # it reads the map only
    with pytest.raises(ValueError, match="player 1 is not to move"):
        greedy_action(state, 1)
    with pytest.raises(ValueError, match="player 0 is not to move"):
        greedy_action(london(), 0)  # a card is due


def test_the_deep_estimate_is_the_lookahead_playout() -> None:
    state = new_game("london", 4)
    assert isinstance(state, DeepEvaluated)
    assert state.deep_heuristic(0) == greedy_final_score(state, 0, lookahead=LOOKAHEAD_WIDTH)
    with pytest.raises(ValueError, match="resample a view first"):
        state.view(0).deep_heuristic(0)


def test_a_lookahead_over_one_section_is_the_greedy_playout() -> None:
    """Width 1 looks beyond the greedy section only: the same playout at every decision of
    a game (London and Paris, powers on)."""
    for game, options in [("london", {"powers": "random"}), ("paris", {})]:
        state = new_game(game, 2, **options)
        while not state.is_over():
            if CHANCE in state.to_move():
                state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            assert greedy_final_score(state, 0, lookahead=1) == greedy_final_score(state, 0)
            state = state.apply(0, greedy_action(state, 0))


def test_the_deep_estimate_plays_better_than_the_greedy_playout() -> None:
    """Over 20 London deals the one-card lookahead gains about 12 points a game at the start
    (142.4 against 129.9 over 300 deals); on a finished game it is the final score."""
    deals = [cast(NextStationState, solo_deal("london", i)) for i in range(20)]
    greedy = [greedy_final_score(s, 0) for s in deals]
    deep = [greedy_final_score(s, 0, lookahead=LOOKAHEAD_WIDTH) for s in deals]
    assert mean(deep) - mean(greedy) >= 6
    end = play_bots(solo_deal("london", 0), [make_bot("greedy", 1)])
    assert greedy_final_score(cast(NextStationState, end), 0, lookahead=3) == end.scores()[0]


# -- the search bots -------------------------------------------------------------------------
def test_rank_with_the_estimate_gives_every_action_a_solo_score() -> None:
    state = first("street-pentagon")
    legal = state.legal_actions(0)
    bot = MonteCarloBot(3, budget=60, use_heuristic=True)
    ranked = bot.rank(state.view(0), 0, legal, keep=2)
    assert {e.action for e in ranked} == set(legal)
    for e in ranked:
        assert e.win == 1.0 and e.value == e.score  # solo: the margin is the score
        assert 60 <= e.score <= 250
        assert e.playouts >= 1
    assert ranked[0].value >= ranked[1].value
    assert ranked[0].action != PASS


@pytest.mark.parametrize(("game", "deals", "edge"), [("london", 3, 15), ("paris", 2, 10)])
def test_the_estimate_search_beats_greedy_on_paired_deals(game: str, deals: int, edge: int) -> None:
    """A small budget (60 estimates a decision) already beats the greedy bot clearly on the
    same deals (about +20 points a game in London with 200)."""
    diff = 0
    for i in range(deals):
        searched = play_bots(solo_deal(game, i), [MonteCarloBot(1 + i, 60, use_heuristic=True)])
        greedy = play_bots(solo_deal(game, i), [make_bot("greedy", 1 + i)])
        diff += searched.scores()[0] - greedy.scores()[0]
    assert diff >= edge * deals


def test_the_deep_search_values_actions_by_the_deep_estimate() -> None:
    """With ``deep`` (and every action kept: one determinization, no halving) each action's
    estimate is the deep hook's value on the bot's determinization after it; Metro, without
    a deep estimate, is searched exactly as without ``deep``."""
    view = first("street-pentagon").view(0)
    legal = view.legal_actions(0)
    n = len(legal)
    budget = n * max(1, (n - 1).bit_length())  # one estimate per action
    bot = MonteCarloBot(7, budget=budget, use_heuristic=True, deep=True)
    ranked = bot.rank(view, 0, legal, keep=n)
    table = view.resample(0, bot_rng(7, "montecarlo"))
    expected = {}
    for action in legal:
        after = table.clone()
        after.apply_in_place(0, action, check=False)
        assert isinstance(after, DeepEvaluated)
        expected[action] = after.deep_heuristic(0)
    assert {e.action: e.score for e in ranked} == expected
    plain = MonteCarloBot(7, budget=budget, use_heuristic=True).rank(view, 0, legal, keep=n)
    assert {e.action: e.score for e in plain} != expected  # the plain estimate differs
    metro = load_game("metro", players=2).new_game(5)
    while CHANCE in metro.to_move():
        metro = metro.apply(CHANCE, metro.legal_actions(CHANCE)[0])
    seat = min(metro.to_move())
    moves = metro.legal_actions(seat)
    searched = [
        MonteCarloBot(2, budget=20, use_heuristic=True, deep=deep).rank(
            metro.view(seat), seat, moves
        )
        for deep in (False, True)
    ]
    assert searched[0] == searched[1]


@pytest.mark.parametrize("game", ["london", "paris"])
def test_the_estimate_search_plays_multiplayer_games_legally(game: str) -> None:
    """Three seats, every action checked; each seat values its own map (the margin over the
    best other estimate)."""
    state = load_game(game, players=3, objectives="random").new_game(8)
    bots = [MonteCarloBot(p, budget=6, use_heuristic=True) for p in range(3)]
    end = play_checked(state, bots)
    assert end.is_over() and min(end.scores()) > 0
