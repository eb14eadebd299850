"""The Gymnasium environments: solo London and Paris (``docs/research.md``, "Common rules")."""

from __future__ import annotations

import gc
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import metrogames.envs
from metrogames.core.capabilities import Boards
from metrogames.core.errors import IllegalActionError
from metrogames.envs.gym_nextstation import NextStationSoloEnv
from metrogames.games import game_engine, load_game
from support.observations import check_nextstation_obs, deal_chance, legal_indices

CASES = [
    ("metrogames/London-v0", {}),
    ("metrogames/Paris-v0", {}),
    ("metrogames/London-v0", {"powers": "random", "objectives": "random"}),
    ("metrogames/Paris-v0", {"objectives": "random"}),
]
BOX_CASES = [
    ("metrogames/London-v0", {"observation": "box"}),
    ("metrogames/Paris-v0", {"observation": "box", "objectives": "random"}),
]


def test_ids_are_registered() -> None:
    assert metrogames.envs.GYM_IDS == {
        "london": "metrogames/London-v0",
        "paris": "metrogames/Paris-v0",
    }
    for env_id in metrogames.envs.GYM_IDS.values():
        assert env_id in gymnasium.registry


@pytest.mark.parametrize(("env_id", "options"), CASES + BOX_CASES)
def test_check_env_passes_without_warnings(env_id: str, options: dict[str, object]) -> None:
    gc.collect()  # an earlier test's unclosed database connection warns when collected, not here
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gymnasium.make(env_id, **options)  # with gymnasium's passive checker
        check_env(env.unwrapped)
        _, info = env.reset(seed=1)
        env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        env.close()
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(
    ("env_id", "options", "seed"),
    [(*case, seed) for case, seed in zip(CASES, (11, 12, 13, 14), strict=True)],
)
def test_a_seeded_game_step_by_step(env_id: str, options: dict[str, object], seed: int) -> None:
    """Masks are the engine's legal actions at every step, observations say what the view
    JSON says, and the rewards add up to the engine's final score (an engine game replayed
    beside the environment with the same actions)."""
    env = gymnasium.make(env_id, **options)
    raw = env.unwrapped
    assert isinstance(raw, NextStationSoloEnv)
    game = raw.game
    assert env.action_space == gymnasium.spaces.Discrete(game.num_distinct_actions)
    ref = game.new_game(seed)
    deal_chance(ref)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (game.num_distinct_actions,)
        assert set(np.flatnonzero(mask)) == legal_indices(ref, 0)
        assert np.array_equal(raw.action_masks(), mask.astype(bool))
        assert obs in env.observation_space
        check_nextstation_obs(raw.encoder, ref, 0, obs)
        assert ref.snapshot() == raw.engine_state.snapshot()
        index = int(rng.choice(np.flatnonzero(mask)))
        ref = ref.apply(0, game.action_from_index(index))
        deal_chance(ref)
        obs, reward, terminated, truncated, info = env.step(index)
        assert not truncated and not info["illegal_action"]
        total += reward
        steps += 1
    assert ref.is_over() and steps > 20
    assert total == ref.scores()[0] == info["score"]
    assert ref.score_components(0)["total"] == total
    assert not info["action_mask"].any()
    check_nextstation_obs(raw.encoder, ref, 0, obs)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_seeding_reproduces_the_deal() -> None:
    env = gymnasium.make("metrogames/London-v0").unwrapped
    assert isinstance(env, NextStationSoloEnv)
    game = load_game("london", players=1)
    obs_a, info_a = env.reset(seed=2026)
    first = env.engine_state.snapshot()
    deal = game.new_game(2026)
    deal_chance(deal)
    assert first == deal.snapshot() and info_a["deal"] == 2026
    assert (
        game.to_record(env.engine_state, ["x"], reveal=True)["rounds"]
        == game.to_record(deal, ["x"], reveal=True)["rounds"]
    )
    follow = [env.reset()[1]["deal"] for _ in range(3)]
    obs_b, _ = env.reset(seed=2026)
    assert env.engine_state.snapshot() == first
    assert all(np.array_equal(obs_a[k], obs_b[k]) for k in obs_a)
    assert [env.reset()[1]["deal"] for _ in range(3)] == follow
    assert len(set(follow)) == 3
    other = gymnasium.make("metrogames/London-v0").unwrapped
    other.reset(seed=2026)
    assert [other.reset()[1]["deal"] for _ in range(3)] == follow


def test_options_reach_the_game() -> None:
    env = gymnasium.make("metrogames/London-v0", powers="random").unwrapped
    assert isinstance(env, NextStationSoloEnv)
    assert env.action_space.n == 113_514 and env.game.num_distinct_actions == 113_514
    obs, _ = env.reset(seed=3)
    assert obs["powers"].sum(axis=1).tolist() == [1, 1, 1, 1]
    paris = gymnasium.make("metrogames/Paris-v0").unwrapped
    assert paris.action_space.n == 453 and "powers" not in paris.observation_space.spaces


def test_an_illegal_action_raises_in_the_raise_mode() -> None:
    env = gymnasium.make("metrogames/London-v0", illegal_action="raise").unwrapped
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.engine_state.snapshot()
    with pytest.raises(IllegalActionError) as caught:
        env.step(illegal)
    assert f"action index {illegal}" in str(caught.value)
    assert caught.value.reason  # the engine's rule code, e.g. wrong-symbol or not-a-link
    with pytest.raises(IllegalActionError, match=r"outside 0\.\.310"):
        env.step(311)
    with pytest.raises(TypeError):
        env.step("pass")  # type: ignore[arg-type]
    assert env.engine_state.snapshot() == before


def test_an_illegal_action_passes_with_a_penalty_by_default() -> None:
    env = gymnasium.make("metrogames/London-v0").unwrapped
    assert isinstance(env, NextStationSoloEnv)
    _, info = env.reset(seed=5)
    game = env.game
    ref = env.engine_state.clone()
    ref.apply_in_place(0, game.pass_action)
    deal_chance(ref)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True
    assert reward == -1.0 + (ref.scores()[0] - 0)
    assert env.engine_state.snapshot() == ref.snapshot()
    with pytest.raises(ValueError, match="illegal_action"):
        NextStationSoloEnv("london", illegal_action="ignore")
    with pytest.raises(ValueError, match="observation must be 'box' or 'fields'"):
        NextStationSoloEnv("london", observation="flat")


def test_encoding_orders_are_the_dense_index_orders() -> None:
    """The link order of ``lines`` is the dense index's (``1 + 2 × link`` is the section
    from the link's first station), cards are the chance-outcome order."""
    for city in ("london", "paris"):
        env = NextStationSoloEnv(city)
        game, encoder = env.game, env.encoder
        engine = game_engine(city)
        assert isinstance(engine, Boards)
        board = engine.board_json()
        assert (
            len(encoder.link_ends) == (game.num_distinct_actions - 1 - 148 * (city == "paris")) // 2
        )
        state = game.new_game(1)
        for j, link in enumerate(board["links"]):  # type: ignore[arg-type]
            text = state.action_to_string(0, game.action_from_index(1 + 2 * j))
            assert text == f"{link['a']}-{link['b']}"  # type: ignore[index]
            back = state.action_to_string(0, game.action_from_index(2 + 2 * j))
            assert back == f"{link['b']}-{link['a']}"  # type: ignore[index]
        assert encoder.cards == [
            game.chance_outcome_from_index(i) for i in range(game.max_chance_outcomes)
        ]


def test_render_ansi() -> None:
    env = gymnasium.make("metrogames/London-v0", render_mode="ansi")
    _, info = env.reset(seed=4)
    env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    text = env.render()
    assert isinstance(text, str) and text.startswith("london: round 1")
    assert " ?,?,?,? " in text  # the view's snapshot: the decks are hidden


def test_actions_as_numpy_values() -> None:
    env = gymnasium.make("metrogames/London-v0", illegal_action="raise").unwrapped
    _, info = env.reset(seed=1)
    legal = np.flatnonzero(info["action_mask"])
    env.step(np.int32(legal[-1]))
    _, info = env.reset(seed=1)
    env.step(np.array(legal[-1]))  # 0-d
    _, info = env.reset(seed=1)
    env.step(np.array([legal[-1]]))  # one element, as a vectorised learner may send
    for bad in (1.5, True, np.array([1, 2]), np.array(0.0)):
        with pytest.raises(TypeError, match="dense index"):
            env.step(bad)  # type: ignore[arg-type]
