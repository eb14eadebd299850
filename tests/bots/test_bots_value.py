"""The learned position value: Next Station's value features, the weights file's checks, the
seeded and resumable training, and the value search bot (docs/research.md, "A learned position
value")."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from metrogames.bots.play import play_bots
from metrogames.bots.value import ValueModel, WeightsError, load_model, read_model
from metrogames.bots.value_train import (
    Progress,
    TrainConfig,
    first_states,
    play_examples,
    save_checkpoint,
    train,
)
from metrogames.bots.valuesearch import ValueSearchBot, shipped_weights
from metrogames.core.capabilities import ValueFeatured
from metrogames.core.errors import RecordError
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import load_game

TINY = TrainConfig("london", games=4, seed=5, hidden=4, steps=30)


def to_decision(state: State[Action]) -> State[Action]:
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    return state


def features_of(state: State[Action], player: int = 0) -> dict[str, float]:
    assert isinstance(state, ValueFeatured)
    _, names = state.value_feature_spec()
    return dict(zip(names, state.value_features(player), strict=True))


def zero_model(state: ValueFeatured, game: str = "london") -> ValueModel:
    version, names = state.value_feature_spec()
    f = len(names)
    return ValueModel(
        game,
        version,
        names,
        np.zeros(f),
        np.ones(f),
        np.zeros((f, 0)),
        np.zeros(0),
        np.zeros(f),
        np.zeros(1),
    )


# -- features -----------------------------------------------------------------------------


def test_first_decision_features_match_the_rules_facts() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2026))
    f = features_of(state)
    first = state.history()[-1][1]  # the card of the first turn (after any switch)
    assert f["round_1"] == 1 and f["round_2"] == f["round_3"] == f["round_4"] == 0
    assert f[f"left_{first}"] == 0
    cards_left = sum(v for k, v in f.items() if k.startswith("left_"))
    assert cards_left == 11 - len([a for p, a in state.history() if p == CHANCE])
    assert f["line_stations"] == 0 and f["line_score"] == 0 and f["score_total"] == 0
    assert f["free_links"] == 155  # London's links (docs/research.md), none blocked yet
    assert f["awaiting_card"] == 0


def test_features_follow_the_score_and_the_line() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2027))
    section = next(a for a in state.legal_actions(0) if a != rules.pass_action)
    state.apply_in_place(0, section)
    f = features_of(state)
    assert f["awaiting_card"] == 1
    assert f["line_stations"] == 2  # the departure station and the section's other end
    assert f["score_total"] == state.scores()[0]
    assert f["score_lines"] == state.score_components(0)["lines"]
    assert f["free_links"] < 155


def test_features_read_only_the_view() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2028))
    state.apply_in_place(0, state.legal_actions(0)[-1])
    view = state.view(0)
    assert isinstance(view, ValueFeatured) and isinstance(state, ValueFeatured)
    opened = view.open_deal(0, Rng(3))
    assert view.value_features(0) == state.value_features(0) == opened.value_features(0)
    # the open deal's next card is any card not flipped this round, each equally likely
    outcomes = opened.chance_outcomes()
    assert len(outcomes) == len(view.chance_outcomes()) > 1
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="player 1"):
        state.value_features(1)


def test_a_finished_game_has_only_its_final_score() -> None:
    rules = load_game("london", players=1)
    final = play_bots(rules.new_game(4), [ValueSearchBot(1, model=zero_model(rules.new_game(4)))])
    f = features_of(final)
    assert f["score_total"] == final.scores()[0] > 0
    assert all(v == 0 for k, v in f.items() if not k.startswith("score_"))


# -- weights files --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model() -> ValueModel:
    return train(TINY)


def test_a_weights_file_round_trips(tiny_model: ValueModel, tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    tiny_model.save(path)
    state = load_game("london").new_game(1)
    assert isinstance(state, ValueFeatured)
    back = load_model(path, "london", state.value_feature_spec())
    x = np.array([state.value_features(0)])
    assert back.predict(x)[0] == tiny_model.predict(x)[0]
    header = json.loads(str(np.load(path)["header"]))
    assert header["game"] == "london" and header["features"] == "nextstation-value-1"
    assert header["training"]["seed"] == 5 and header["checksum"] == back.checksum()


def test_mismatched_or_corrupt_weights_are_refused(tiny_model: ValueModel, tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    tiny_model.save(path)
    london = load_game("london").new_game(1)
    paris = load_game("paris").new_game(1)
    assert isinstance(london, ValueFeatured) and isinstance(paris, ValueFeatured)
    with pytest.raises(WeightsError, match=rf"{path}: weights for the game 'london', not 'paris'"):
        load_model(path, "paris", paris.value_feature_spec())
    _, names = london.value_feature_spec()
    with pytest.raises(WeightsError, match="features 'nextstation-value-1', the game has 'v0'"):
        load_model(path, "london", ("v0", names))
    with pytest.raises(WeightsError, match="feature names differ"):
        load_model(path, "london", ("nextstation-value-1", names[::-1]))
    # one weight changed: the checksum no longer matches
    arrays = dict(np.load(path))
    arrays["w2"] = arrays["w2"] + 1e-9
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(WeightsError, match=rf"{bad}: corrupt"):
        read_model(bad)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(path.read_bytes()[:200])
    with pytest.raises(WeightsError, match=rf"{cut}: not a readable"):
        read_model(cut)
    other = tmp_path / "other.npz"
    np.savez(other, w=np.zeros(3))
    with pytest.raises(WeightsError, match="no header"):
        read_model(other)
    with pytest.raises(WeightsError, match="no such weights file"):
        read_model(tmp_path / "missing.npz")
    assert zipfile.is_zipfile(path)


def test_a_bot_refuses_weights_of_another_game(tiny_model: ValueModel, tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    tiny_model.save(path)
    state = to_decision(load_game("paris", players=1).new_game(3))
    with pytest.raises(WeightsError, match="not 'paris'"):
        ValueSearchBot(1, weights=path).decide(state.view(0), 0, state.legal_actions(0))
    with pytest.raises(WeightsError, match=r"paris\.npz: no such weights file"):
        ValueSearchBot(1).decide(state.view(0), 0, state.legal_actions(0))  # none shipped


# -- training -------------------------------------------------------------------------------


def test_training_is_reproducible_and_resumes_exactly(tmp_path: Path) -> None:
    first = train(TINY)
    again = train(TINY)
    assert first.checksum() == again.checksum()
    # an interrupted run: its checkpoint after 2 of the 4 games, then resumed
    ckpt = tmp_path / "ckpt.npz"
    starts = first_states("london", TINY, None)
    progress = Progress(0, [], [], [])
    for i in range(2):
        xs, ys = play_examples(starts[i], TINY, i)
        progress.x += xs
        progress.y += ys
        progress.game_of += [i] * len(ys)
        progress.games_done = i + 1
    save_checkpoint(ckpt, TINY, progress)
    resumed = train(TINY, ckpt, resume=True)
    assert resumed.checksum() == first.checksum()
    other = TrainConfig("london", games=4, seed=6, hidden=4, steps=30)
    with pytest.raises(
        WeightsError, match=r"ckpt.npz: a checkpoint of another run \(differs in seed\)"
    ):
        train(other, ckpt, resume=True)


def test_targets_are_points_still_to_come() -> None:
    start = load_game("london", players=1).new_game(9)
    final_config = TrainConfig("london", games=2, seed=9, target="final", explore=0.0)
    xs, ys = play_examples(start, final_config, 0)
    names = start.value_feature_spec()[1]  # type: ignore[attr-defined]
    total = names.index("score_total")
    finals = {x[total] + y for x, y in zip(xs, ys, strict=True)}
    assert len(finals) == 1  # score now + points to come = the one final score
    assert ys[0] > ys[-1] >= 0  # fewer points to come as the game goes on


def test_the_learned_value_beats_a_constant() -> None:
    model = train(TrainConfig("london", games=20, seed=3, hidden=0, steps=400))
    # a linear value on 2 held-out games: well under the error of the mean target (about 43)
    assert model.training["rmse_held_out"] < 0.5 * model.training["rmse_held_out_constant"]


def test_training_refuses_another_games_manifest_and_games_without_features() -> None:
    paris_deal = load_game("paris", players=1).deal_record(1)
    with pytest.raises(RecordError, match="paris"):
        train(TINY, deals=[paris_deal, paris_deal])
    with pytest.raises(ValueError, match="metro has no value features"):
        train(TrainConfig("metro", games=2, seed=1))
    with pytest.raises(ValueError, match="unknown target"):
        train(TrainConfig("london", games=2, seed=1, target="best"))


# -- the value search -----------------------------------------------------------------------


def test_depth_one_with_a_zero_value_is_the_best_immediate_score() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2030))
    for _ in range(6):  # a few turns in
        legal = state.legal_actions(0)
        assert isinstance(state, ValueFeatured)
        bot = ValueSearchBot(2, model=zero_model(state), depth=1)
        values = bot.action_values(state.view(0), 0, legal)
        # derived independently: the score after each action, on the real state
        assert values == [float(state.apply(0, a).scores()[0]) for a in legal]
        state.apply_in_place(0, bot.decide(state.view(0), 0, legal))
        to_decision(state)


def test_looking_one_card_further_never_values_an_action_lower() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2031))
    assert isinstance(state, ValueFeatured)
    legal = state.legal_actions(0)
    one = ValueSearchBot(2, model=zero_model(state), depth=1).action_values(state, 0, legal)
    two = ValueSearchBot(2, model=zero_model(state), depth=2).action_values(state, 0, legal)
    assert all(b >= a for a, b in zip(one, two, strict=True))  # a later section adds points
    assert any(b > a for a, b in zip(one, two, strict=True))


def test_the_search_reads_no_card_to_come() -> None:
    rules = load_game("london", players=1)
    a = to_decision(rules.new_game(2032))
    view = a.view(0)
    model = zero_model(a)
    b = view.resample(0, Rng(77))  # the same view, another order of the cards to come
    legal = a.legal_actions(0)
    assert ValueSearchBot(1, model=model).action_values(a, 0, legal) == ValueSearchBot(
        1, model=model
    ).action_values(b, 0, legal)


def test_the_shipped_london_weights_play_well() -> None:
    rules = load_game("london", players=1)
    state = rules.new_game(1)
    assert isinstance(state, ValueFeatured)
    load_model(shipped_weights("london"), "london", state.value_feature_spec())
    scores = [
        play_bots(rules.new_game(2026 + i), [ValueSearchBot(1 + i)]).scores()[0] for i in range(3)
    ]
    # the random bot averages 95, the greedy 128 on the manifest (docs/research.md)
    assert sum(scores) / 3 > 135
    with pytest.raises(ValueError, match="at least 1 decision"):
        ValueSearchBot(1, depth=0)


def test_a_narrower_deeper_look_follows_the_best_afterstates() -> None:
    rules = load_game("london", players=1)
    state = to_decision(rules.new_game(2033))
    assert isinstance(state, ValueFeatured)
    legal = state.legal_actions(0)
    model = zero_model(state)
    full = ValueSearchBot(2, model=model, depth=3).action_values(state, 0, legal)
    narrow = ValueSearchBot(2, model=model, depth=3, width=1).action_values(state, 0, legal)
    two = ValueSearchBot(2, model=model, depth=2).action_values(state, 0, legal)
    # following fewer actions can only lose value, and still sees the next decision
    assert all(t <= n <= f for t, n, f in zip(two, narrow, full, strict=True))
    with pytest.raises(ValueError, match="width cannot be negative"):
        ValueSearchBot(1, width=-1)
