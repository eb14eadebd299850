"""Gymnasium's vectorised environments over solo London and Paris, and the flat observation
(``docs/research.md``, "Vectorised environments", "Flat observations")."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import metrogames.envs  # noqa: F401  (registers the ids)
from metrogames.envs.gym_nextstation import NextStationSoloEnv

NUM_ENVS = 2


def _row(obs: Any, i: int) -> Any:
    """Environment ``i``'s observation in a batch (an array, or a dict of arrays)."""
    if isinstance(obs, dict):
        return {k: v[i] for k, v in obs.items()}
    return obs[i]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


@pytest.mark.parametrize(
    ("mode", "vector_kwargs"),
    [("sync", {}), ("async", {}), ("async", {"context": "spawn"})],
)
@pytest.mark.parametrize(
    ("env_id", "observation"),
    [("metrogames/London-v0", "box"), ("metrogames/Paris-v0", "fields")],
)
def test_make_vec_plays_as_the_single_environments(
    mode: str, vector_kwargs: dict[str, Any], env_id: str, observation: str
) -> None:
    """``make_vec`` with ``N`` environments gives, step by step, what ``N`` single
    environments seeded ``s, s+1, …`` give for the same actions — observations, masks,
    rewards, ends — through the end of a game and Gymnasium's automatic reset (the step after
    an end deals the environment's next game). ``spawn``: worker processes that import the
    package afresh (no fork), as on macOS and Windows."""
    city = "london" if "London" in env_id else "paris"
    vec = gymnasium.make_vec(
        env_id,
        num_envs=NUM_ENVS,
        vectorization_mode=mode,
        vector_kwargs=vector_kwargs,
        observation=observation,
    )
    refs = [NextStationSoloEnv(city, observation=observation) for _ in range(NUM_ENVS)]
    try:
        single = refs[0].observation_space
        assert vec.single_observation_space == single
        size = refs[0].game.num_distinct_actions
        assert vec.single_action_space == gymnasium.spaces.Discrete(size)
        obs, info = vec.reset(seed=40)
        steps = [r.reset(seed=40 + i) for i, r in enumerate(refs)]
        done = [False] * NUM_ENVS
        rng = np.random.default_rng(0)
        resets = 0
        while resets < NUM_ENVS:
            for i, (ref_obs, ref_info) in enumerate(steps):
                assert _same(_row(obs, i), ref_obs)
                assert np.array_equal(info["action_mask"][i], ref_info["action_mask"])
                assert info["deal"][i] == ref_info["deal"]
            assert obs in vec.observation_space
            masks = info["action_mask"]
            actions = np.array(
                [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64
            )
            obs, rewards, terminated, truncated, info = vec.step(actions)
            for i, ref in enumerate(refs):
                if done[i]:  # the automatic reset: the next game, no reward
                    steps[i] = ref.reset()
                    resets += 1
                    expected_reward, expected_end = 0.0, False
                else:
                    ref_obs, expected_reward, expected_end, _, ref_info = ref.step(actions[i])
                    steps[i] = (ref_obs, ref_info)
                assert rewards[i] == expected_reward and terminated[i] == expected_end
                assert not truncated[i]
                done[i] = expected_end
        assert len({int(d) for d in info["deal"]}) == NUM_ENVS
    finally:
        vec.close()


def test_the_flat_observation_is_the_named_fields_flattened() -> None:
    """``observation="box"``: a ``Box`` of ``int16`` whose numbers are
    ``gymnasium.spaces.flatten`` of the named fields of the same game, at every step."""
    box = gymnasium.make("metrogames/London-v0", observation="box", powers="random").unwrapped
    named = gymnasium.make("metrogames/London-v0", powers="random").unwrapped
    assert isinstance(box, NextStationSoloEnv) and isinstance(named, NextStationSoloEnv)
    space = box.observation_space
    assert isinstance(space, gymnasium.spaces.Box) and space.dtype == np.int16
    # lines 4·155, stations/ends/circled 3 × 4·53, colour 4, power used, score, round 4,
    # card/flipped/cards left 3 × 11, branch, objectives 5, powers 4·4
    assert space.shape == (620 + 636 + 4 + 1 + 1 + 4 + 33 + 1 + 5 + 16,)
    assert named.observation_space == box.fields_space
    flat, info = box.reset(seed=8)
    fields, _ = named.reset(seed=8)
    rng = np.random.default_rng(8)
    terminated = False
    while not terminated:
        assert flat in space and flat.dtype == np.int16
        assert np.array_equal(flat, gymnasium.spaces.flatten(named.observation_space, fields))
        assert _same(box.unflatten(flat), fields)
        assert _same(gymnasium.spaces.unflatten(box.fields_space, flat), fields)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        flat, _, terminated, _, info = box.step(action)
        fields, *_ = named.step(action)
    assert _same(box.unflatten(flat), fields)
    assert fields["round"].sum() == 0  # the end: the flat array covered a whole game


def test_unflatten_reads_a_vectorised_batch() -> None:
    vec = gymnasium.make_vec("metrogames/Paris-v0", num_envs=3, observation="box")
    try:
        obs, _ = vec.reset(seed=1)
        assert obs.shape == (3, 1292) and obs.dtype == np.int16
        env = vec.envs[0].unwrapped  # type: ignore[attr-defined]
        assert isinstance(env, NextStationSoloEnv)
        fields = env.unflatten(obs)
        assert fields["lines"].shape == (3, 1, 4, 152) and fields["lines"].dtype == np.int8
        assert fields["card"].sum(axis=1).tolist() == [1, 1, 1]  # a card flipped in each
        for i in range(3):
            single = NextStationSoloEnv("paris")
            assert _same({k: v[i] for k, v in fields.items()}, single.reset(seed=1 + i)[0])
    finally:
        vec.close()
