"""The games as OpenSpiel Python games: OpenSpiel's own random simulation test and MCTS bot on
each, chance nodes with the engine's probabilities, information-state strings, returns."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyspiel  # the openspiel extra, installed by ./dev: missing, the module fails
import pytest
from open_spiel.python.algorithms import mcts

import metrogames.envs.openspiel as mos
from metrogames.games import load_game

GAMES = [
    ("metrogames_london", {}),  # two players, win/loss
    ("metrogames_london", {"players": 1, "options": json.dumps({"powers": "random"})}),
    ("metrogames_paris", {"players": 3, "utility": "score"}),
    ("metrogames_metro", {}),
    ("metrogames_metro", {"players": 3, "options": json.dumps({"turn_mode": "hand"})}),
    ("metrogames_metro", {"players": 2, "options": json.dumps({"turn_mode": "official-hand"})}),
]


def _chance(state: object, rng: np.random.RandomState) -> None:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
    state.apply_action(int(rng.choice(outcomes, p=probs)))  # type: ignore[attr-defined]


def test_the_three_games_are_registered() -> None:
    names = set(pyspiel.registered_names())
    assert {"metrogames_london", "metrogames_paris", "metrogames_metro"} <= names
    london = pyspiel.load_game("metrogames_london")
    kind = london.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (kind.min_num_players, kind.max_num_players) == (1, 4)
    assert london.num_players() == 2 and london.num_distinct_actions() == 311
    assert london.max_chance_outcomes() == 11
    assert (london.min_utility(), london.max_utility()) == (0.0, 1.0)  # win/loss
    metro = pyspiel.load_game("metrogames_metro", {"players": 4})
    kind = metro.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.provides_information_state_string and kind.provides_observation_string
    assert metro.num_distinct_actions() == 1537 and metro.max_chance_outcomes() == 24
    powers = pyspiel.load_game('metrogames_london(players=1,options={"powers":"random"})')
    assert powers.num_distinct_actions() == 113_514
    assert (powers.min_utility(), powers.max_utility()) == (0.0, 437.0)  # the score range
    assert powers.max_game_length() == 44 and metro.max_game_length() == 120


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_openspiel_random_simulation_test(name: str, params: dict[str, object]) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("metrogames_london", {"players": 1}),
        ("metrogames_paris", {"players": 2}),
        ("metrogames_metro", {"players": 2, "options": json.dumps({"turn_mode": "hand"})}),
    ],
)
def test_openspiel_mcts_bot_plays_a_whole_game(name: str, params: dict[str, object]) -> None:
    game = pyspiel.load_game(name, params)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)  # OpenSpiel's MCTS is for turn-based games
    rng = np.random.RandomState(7)
    uct_c = 2.0 if game.max_utility() <= 1 else 50.0  # scores in points: a wider constant
    bot = mcts.MCTSBot(
        game, uct_c, max_simulations=6, evaluator=mcts.RandomRolloutEvaluator(1, rng),
        random_state=rng,
    )  # fmt: skip
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert decisions > 20
    returns = state.returns()
    if params["players"] == 1:
        assert returns[0] > 0  # London solo: the score
    else:
        assert sum(returns) == pytest.approx(1.0)  # win/loss, ties shared


def test_chance_nodes_have_the_engines_probabilities() -> None:
    state = pyspiel.load_game("metrogames_london", {"players": 2}).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(11))
    assert all(p == pytest.approx(1 / 11) for _, p in outcomes)
    state.apply_action(3)
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert state.legal_actions(0)[0] == state.legal_actions(1)[0] == 0  # pass, then sections
    assert len(state.legal_actions(0)) > 1 and len(state.legal_actions(1)) > 1
    metro = pyspiel.load_game("metrogames_metro").new_initial_state()
    probs = dict(metro.chance_outcomes())
    assert sum(probs.values()) == pytest.approx(1.0)
    assert len(probs) == 24 and probs[0] == pytest.approx(4 / 60)  # aaaa: 4 copies of 60


def test_actions_are_the_dense_index() -> None:
    engine = load_game("london", players=2)
    state = pyspiel.load_game("metrogames_london").new_initial_state()
    state.apply_action(0)  # street-square
    legal = state.legal_actions(0)
    assert legal[0] == 0 and state.action_to_string(0, 0) == "pass"
    for index in legal[1:4]:
        text = state.action_to_string(0, index)
        assert engine.action_index(engine.action_from_index(index)) == index
        assert text == engine.new_game(1).action_to_string(0, engine.action_from_index(index))
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "street-square"


def test_illegal_simultaneous_actions_change_nothing() -> None:
    state = pyspiel.load_game("metrogames_london").new_initial_state()
    state.apply_action(0)
    before = str(state)
    bad = next(i for i in range(311) if i not in state.legal_actions(1))
    with pytest.raises(ValueError, match="player 1"):
        state.apply_actions([state.legal_actions(0)[1], bad])
    assert str(state) == before


def _metro_hand_after(dealt_to_seat_1: int) -> object:
    """Metro, hand mode, 2 players: seat 0 is dealt tile 0, seat 1 ``dealt_to_seat_1``."""
    state = pyspiel.load_game(
        "metrogames_metro", {"options": json.dumps({"turn_mode": "hand"})}
    ).new_initial_state()
    state.apply_action(0)
    state.apply_action(dealt_to_seat_1)
    return state


def test_information_states_hide_the_other_seats_tiles() -> None:
    a, b = _metro_hand_after(1), _metro_hand_after(2)
    assert a.information_state_string(0) == b.information_state_string(0) == "p0 c:aaaa c:?"
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_string(1) == "p1 c:? c:aacb"
    assert a.observation_string(0) == b.observation_string(0)
    assert a.observation_string(0).endswith(" 0")  # seat 0's view snapshot
    while a.is_chance_node():
        a.apply_action(a.chance_outcomes()[0][0])
    seat = a.current_player()
    move = a.legal_actions()[0]
    text = a.action_to_string(seat, move)
    a.apply_action(move)
    assert a.information_state_string(1 - seat).split()[-2:] == [
        f"{seat}:{text.split()[0]}",
        text.split()[1],
    ]


def test_returns_score_and_win() -> None:
    rng = np.random.RandomState(1)
    for utility in ("score", "win"):
        game = pyspiel.load_game("metrogames_metro", {"players": 3, "utility": utility})
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                assert state.returns() == [0.0, 0.0, 0.0] or state.is_terminal()
        engine_state = state.engine_state
        if utility == "score":
            assert state.returns() == [float(s) for s in engine_state.scores()]
        else:
            winners = engine_state.winners()
            assert state.returns() == [1 / len(winners) if p in winners else 0.0 for p in range(3)]


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(Exception, match="utility"):
        pyspiel.load_game("metrogames_metro", {"utility": "elo"})
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("metrogames_metro", {"players": 7})
    with pytest.raises(Exception, match="option"):
        pyspiel.load_game("metrogames_london", {"options": json.dumps({"speed": 3})})
    assert mos.PREFIX == "metrogames_"


def test_observation_tensors_are_the_encoders_fields() -> None:
    from gymnasium.spaces import flatten

    from metrogames.envs.encoders import MetroEncoder, NextStationEncoder

    rng = np.random.RandomState(5)
    for name, params, encoder in (
        ("metrogames_london", {"players": 2}, NextStationEncoder),
        ("metrogames_metro", {"players": 3, "options": '{"turn_mode": "hand"}'}, MetroEncoder),
    ):
        game = pyspiel.load_game(name, params)
        assert game.get_type().provides_observation_tensor
        assert not game.get_type().provides_information_state_tensor
        state = game.new_initial_state()
        for _ in range(12):
            if state.is_chance_node():
                _chance(state, rng)
            elif state.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        enc = encoder(game.engine)
        for seat in range(game.num_players()):
            want = flatten(enc.space, enc.encode(state.engine_state.view(seat), seat))
            assert np.array_equal(np.array(state.observation_tensor(seat)), want)
        assert game.observation_tensor_shape() == [len(want)]


def test_any_registered_game_plugs_in() -> None:
    """``register`` puts any game of the registry on OpenSpiel: the tests' own Line 3."""
    from support import line3

    line3.register()
    try:
        mos.register("line3", (0, 8), 9)
        game = pyspiel.load_game("metrogames_line3")
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert not kind.provides_observation_tensor  # no encoder for it
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        state = game.new_initial_state()
        assert [p for _, p in state.chance_outcomes()] == pytest.approx([1 / 3] * 3)
        rng = np.random.RandomState(2)
        bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(2, rng), random_state=rng)
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
            else:
                state.apply_action(bot.step(state))
        assert sum(state.returns()) == pytest.approx(1.0)
    finally:
        line3.unregister()


@pytest.mark.parametrize(("bounds", "expected"), [(True, ["line3"]), (False, [])])
def test_importing_registers_every_game_that_states_its_bounds(
    bounds: bool, expected: list[str]
) -> None:
    """The import loops over ``game_names()``: a game registered before it (here Line 3) is
    registered too when it states its score range and maximum length, else left out."""
    import subprocess
    import sys

    facts = "score_range=(0, 8), max_game_length=9" if bounds else ""
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "import dataclasses, pyspiel\n"
        "from support import line3\n"
        "from metrogames.games import register_game\n"
        f"register_game(dataclasses.replace(line3.LINE3, {facts}), line3.Line3Engine())\n"
        "import metrogames.envs.openspiel\n"
        "print(' '.join(sorted(n for n in pyspiel.registered_names() if 'metrogames_' in n)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = ["london", "paris", "metro", *expected]
    assert out.stdout.split() == sorted(f"metrogames_{n}" for n in names)
