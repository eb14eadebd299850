"""Hindsight on a finished solo game (bots/hindsight.py, bots/analysis.py): the best line found
with the whole deck known, its legality, the player's weighed decisions and the refusals."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS, AnalysisRefusedError, analyse, check_record
from metrogames.bots.hindsight import Budget, player_losses, search_best
from metrogames.bots.play import play_bots
from metrogames.core.capabilities import ScoreBounded
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import game_type, load_game, record_start, register_game, replay_record
from metrogames.games.nextstation.spec import NextStationEngine
from metrogames.games.nextstation.state import NextStationState
from support.records import solo_record


def greedy_score(city: str, seed: int, bot_seed: int) -> int:
    """Greedy played on the deal, independently of the search."""
    state = load_game(city, players=1).new_game(seed)
    return play_bots(state, [make_bot("greedy", bot_seed)]).scores()[0]


def replay_checked(start: State[Action], history: list[tuple[int, Action]]) -> State[Action]:
    """``history`` played from ``start`` through the checked ``apply``."""
    state = start
    for player, action in history:
        state = state.apply(player, action)
    return state


@pytest.mark.parametrize(("city", "seed"), [("london", 11), ("paris", 12)])
def test_best_found_beats_the_player_and_greedy_and_replays_to_its_score(
    city: str, seed: int
) -> None:
    record = solo_record(seed, "random", city)
    start, final = check_record(record)
    line, stats = search_best(start, Budget(width=3, playouts=3), seed=1, candidates=[final])
    assert line.state.is_over()
    assert line.score >= final.scores()[0]
    assert line.score >= max(greedy_score(city, seed, s) for s in range(3))
    assert stats.states > 30 and stats.completions > 3 * stats.states
    replayed = replay_checked(record_start(record), line.actions())
    assert replayed.is_over() and replayed.scores() == [line.score]
    # the same chance outcomes as the player's game: the same deal
    ours = [a for p, a in line.actions() if p == CHANCE]
    theirs = [a for p, a in final.history() if p == CHANCE]
    assert ours == theirs


def test_the_search_is_deterministic_and_a_wider_beam_is_no_worse_here() -> None:
    start = record_start(solo_record(5))
    a, _ = search_best(start, Budget(width=1, playouts=1), seed=3)
    b, _ = search_best(start, Budget(width=1, playouts=1), seed=3)
    assert a.actions() == b.actions() and a.score == b.score
    wide, _ = search_best(start, Budget(width=4, playouts=2), seed=3)
    assert wide.score >= greedy_score("london", 5, 5)


def test_budget_checks() -> None:
    with pytest.raises(ValueError, match="beam width"):
        Budget(width=0)
    with pytest.raises(ValueError, match="negative"):
        Budget(playouts=-1)
    with pytest.raises(ValueError, match="coach"):
        Budget(coach=0)
    with pytest.raises(ValueError, match="unknown budget 'huge'"):
        analyse(solo_record(5), "huge")


def test_the_named_budgets_go_from_cheapest_to_dearest() -> None:
    """``rough`` (the tests' and a small machine's) first, then ``quick``, ``normal``, ``deep``:
    each looks at least as wide and plays at least as many playouts as the one before."""
    assert list(BUDGETS) == ["rough", "quick", "normal", "deep"]
    assert BUDGETS["rough"] == Budget(width=2, playouts=2, coach=60)
    named = list(BUDGETS.values())
    for cheaper, dearer in itertools.pairwise(named):
        assert cheaper.width < dearer.width and cheaper.playouts <= dearer.playouts
        assert cheaper.coach < dearer.coach


def test_player_losses_weigh_every_real_decision() -> None:
    record = solo_record(21, "random")
    start, final = check_record(record)
    decisions = player_losses(start, final, budget=60, seed=2)
    state = record_start(record)
    choices = 0
    for player, action in final.history():
        if player != CHANCE and len(state.legal_actions(player)) > 1:
            choices += 1
        state.apply_in_place(player, action)
    assert len(decisions) == choices > 20
    assert all(d.loss >= 0 for d in decisions)
    assert all(d.loss == 0 for d in decisions if d.played == d.best)
    # a random player leaves points on the table somewhere
    assert max(d.loss for d in decisions) > 1


def test_analysis_json_and_the_best_record(monkeypatch: pytest.MonkeyPatch) -> None:
    small = Budget(width=2, playouts=2, coach=60)  # the report's pipeline, not its strength
    monkeypatch.setitem(BUDGETS, "quick", small)
    record = solo_record(8, "random")
    analysis = analyse(record, "quick", seed=4)
    doc: dict[str, Any] = analysis.to_json()
    best = doc["best_found"]
    assert doc["game"] == "london" and doc["player"] == "bot:random"
    assert doc["score"] == replay_record(record).scores()[0]
    assert best["score"] >= doc["score"] and best["gain"] == best["score"] - doc["score"]
    assert best["proven_optimal"] is False and "not a proven optimum" in best["note"]
    again = replay_record(best["record"])
    assert again.is_over() and again.scores() == [best["score"]]
    assert len(best["moves"]) == len([p for p, _ in again.history() if p != CHANCE])
    turn = doc["costliest_turn"]
    assert turn == doc["costly_turns"][0]
    assert {"step", "round", "turn", "card", "played", "better", "loss"} <= set(turn)
    assert turn["loss"] == max(t["loss"] for t in doc["costly_turns"]) > 0
    assert 1 <= turn["round"] <= 4
    assert doc["search"]["budget"] == "quick" and doc["search"]["width"] == small.width
    assert doc["upper_bound"]["total"] >= best["score"]
    views = analysis.views()
    assert views["player"]["scores"] == [doc["score"]]
    assert views["best"]["scores"] == [best["score"]]


class Unrated(NextStationState):
    """London's states without the ``SoloRated`` capability (set to ``None``: not there)."""

    __slots__ = ()
    solo_result = None  # type: ignore[assignment]


class UnratedEngine(NextStationEngine):
    """London's engine, its records read into :class:`Unrated` states."""

    def replay(self, record: object) -> NextStationState:
        state = super().replay(record)
        state.__class__ = Unrated
        return state

    def record_start(self, record: object) -> NextStationState:
        state = super().record_start(record)
        state.__class__ = Unrated
        return state


def test_refusals_name_the_reason() -> None:
    two = load_game("london", players=2)
    final = play_bots(two.new_game(3), [make_bot("greedy", 1), make_bot("greedy", 2)])
    with pytest.raises(AnalysisRefusedError, match="not-solo") as caught:
        check_record(dict(two.to_record(final, ["a", "b"], seed=3)))
    assert caught.value.reason == "not-solo"

    solo = load_game("london", players=1)
    part = solo.new_game(4)
    part.apply_in_place(CHANCE, part.legal_actions(CHANCE)[0])
    with pytest.raises(AnalysisRefusedError, match="not-finished"):
        check_record(dict(solo.to_record(part, ["a"], seed=4)))

    done = play_bots(solo.new_game(4), [make_bot("greedy", 1)])
    with pytest.raises(AnalysisRefusedError, match="unknown-deal"):
        check_record(dict(solo.to_record(done, ["a"])))  # no seed, decks not revealed

    # a solo game whose states give no solo rating
    register_game(game_type("london"), UnratedEngine("london"))
    try:
        with pytest.raises(AnalysisRefusedError, match="no-solo-rating"):
            check_record(dict(solo.to_record(done, ["a"], seed=4)))
    finally:
        register_game(game_type("london"), NextStationEngine("london"))


@pytest.mark.parametrize(
    ("city", "options"),
    [("london", {}), ("london", {"powers": "random", "objectives": "random"}), ("paris", {})],
)
def test_the_upper_bound_holds_component_by_component(city: str, options: Any) -> None:
    game = load_game(city, players=1, **options)
    for seed in range(4):
        dealt = game.new_game(seed)
        assert isinstance(dealt, ScoreBounded)
        bound = dealt.score_bound(0)
        assert bound is not None and bound["total"] == sum(
            v for k, v in bound.items() if k != "total"
        )
        finals = [play_bots(game.new_game(seed), [make_bot("greedy", seed)])]
        for k in range(30):
            done = game.new_game(seed)
            done.random_playout([Rng(k)])
            finals.append(done)
        if seed == 0:
            line, _ = search_best(game.new_game(seed), Budget(width=2, playouts=2))
            finals.append(line.state)
        for final in finals:
            parts = final.score_components(0)
            for key, value in parts.items():
                assert value <= bound[key], (seed, key, value, bound)
    # an unknown deal has no bound
    record = solo_record(3)
    del record["seed"]
    for rnd in record["rounds"]:
        rnd.pop("deck", None)
    start = record_start(record)
    assert isinstance(start, ScoreBounded) and start.score_bound(0) is None
