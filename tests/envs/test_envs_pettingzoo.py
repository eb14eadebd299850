"""The PettingZoo environments: Metro (AEC) and multi-player Next Station (Parallel)
(``docs/research.md``, "Common rules")."""

from __future__ import annotations

import importlib
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from metrogames.core.errors import IllegalActionError
from metrogames.core.rng import Rng
from metrogames.envs import metro_env, nextstation_parallel_env
from metrogames.envs.common import check_illegal_mode
from metrogames.envs.encoders import MetroEncoder, NextStationEncoder
from metrogames.envs.pz_nextstation import NextStationParallelEnv
from metrogames.games import load_game
from support.observations import (
    check_metro_obs,
    check_nextstation_obs,
    deal_chance,
    legal_indices,
)

TURN_MODES = ("draw", "hand", "official-hand")
API_TEST = importlib.import_module("pettingzoo.test.api_test")  # the module, not the function


@contextmanager
def no_warnings() -> Iterator[None]:
    """Every warning raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.fixture
def as_classic_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Our environments' names put on api_test's lists of PettingZoo's own classic games.

    PettingZoo 1.27's ``api_test`` warns "Observation is not a NumPy array" and "Observation
    space … probably should be … box" for the ``{"observation": ..., "action_mask": ...}``
    convention of its classic games (chess, go, connect four) whenever the environment's name is
    not on two hard-coded lists of those games (``env_obs_dicts``, ``env_obs_space``; PettingZoo
    pull request 1391 would drop both lists). With our names on them, ``api_test`` checks our
    observations as it checks its own games': ``obs["observation"]`` must be a NumPy array
    without NaN or infinity, at most 3-D, not all zeros, in the space's dtype, and so on.
    """
    names = [f"metrogames_{game}_v{v}" for game in ("metro", "nextstation") for v in (0, 1)]
    for listed in ("env_obs_dicts", "env_obs_space"):
        monkeypatch.setattr(
            API_TEST, listed, [*getattr(API_TEST, listed, []), *names], raising=False
        )


def test_api_test_warns_on_a_dict_observation() -> None:
    """What the fixture above sets aside, and only that: without it, api_test warns these two
    for Metro and for nothing else."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(metro_env(players=2), num_cycles=10)
    assert {str(w.message) for w in caught} == {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or "
        "gymnasium.spaces.discrete",
    }


# -- Metro ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("as_classic_game")
@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("turn_mode", TURN_MODES)
def test_metro_api_test(players: int, turn_mode: str) -> None:
    env = metro_env(players=players, turn_mode=turn_mode)
    assert isinstance(env.observation_space("player_0")["observation"], gymnasium.spaces.Box)
    with no_warnings():
        api_test(env, num_cycles=1000)


@pytest.mark.usefixtures("as_classic_game")
def test_metro_api_test_with_named_fields() -> None:
    with no_warnings():
        api_test(metro_env(players=3, turn_mode="hand", observation="fields"), num_cycles=200)


@pytest.mark.parametrize(("players", "turn_mode"), [(2, "draw"), (3, "hand"), (6, "official-hand")])
def test_metro_seed_test(players: int, turn_mode: str) -> None:
    with no_warnings():
        seed_test(lambda: metro_env(players=players, turn_mode=turn_mode))


def _hand(snapshot: str, seat: int) -> Counter[str]:
    group = snapshot.split(" ")[5].split("/")[seat]
    return Counter() if group == "-" else Counter(group)


@pytest.mark.parametrize(
    ("players", "turn_mode", "seed"),
    [
        (2, "draw", 1),
        (3, "hand", 2),
        (4, "official-hand", 3),
        (6, "hand", 4),
    ],
)
def test_metro_game_masks_rewards_and_hidden_tiles(players: int, turn_mode: str, seed: int) -> None:
    """At every step: the mask is the engine's legal actions; every agent's observation says
    what its view JSON says (board, trains, routes, owners, scores) and shows its own hand and what it cannot see as ``unseen`` (the full state's pile and other
    hands), and is the same for a resampled state (other hands and pile drawn anew) — no
    hidden tile reaches it. The rewards add up to the final scores."""
    env = metro_env(players=players, turn_mode=turn_mode)
    env.reset(seed=seed)
    encoder = env.encoder
    game = env.game
    ref = game.new_game(seed)
    deal_chance(ref)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    hidden_differs = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        full = env.engine_state
        assert full.snapshot() == ref.snapshot() and ref.to_move() == {seat}
        assert set(np.flatnonzero(obs["action_mask"])) == legal_indices(ref, seat)
        text = full.snapshot()
        pile = Counter(text.split(" ")[4].replace("-", ""))
        for other in range(players):
            seen = env.observe(env.possible_agents[other])
            assert seen["observation"] in env.observation_space(agent)["observation"]
            o = env.unflatten(seen["observation"])
            assert o in encoder.space
            check_metro_obs(ref, other, o)
            if other != seat:
                assert not seen["action_mask"].any()
            own = _hand(text, other)
            assert {encoder.tiles[i]: int(n) for i, n in enumerate(o["hand"]) if n} == {
                encoder.tiles[ord(ch) - 65]: n for ch, n in own.items()
            }
            hidden = pile + sum((_hand(text, s) for s in range(players) if s != other), Counter())
            assert {i: int(n) for i, n in enumerate(o["unseen"]) if n} == {
                ord(ch) - 65: n for ch, n in hidden.items()
            }
            assert o["hand_sizes"].tolist() == [
                sum(_hand(text, (other + k) % players).values()) for k in range(players)
            ]
            sample = full.resample(other, Rng(seed * 100 + other))
            hidden_differs += sample.snapshot().split(" ")[4:6] != text.split(" ")[4:6]
            again = encoder.encode(sample.view(other), other)
            assert all(np.array_equal(o[k], again[k]) for k in o)
        index = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        ref.apply_in_place(seat, game.action_from_index(index))
        deal_chance(ref)
        env.step(index)
    assert ref.is_over() and hidden_differs > 0
    assert [totals[a] for a in env.possible_agents] == ref.scores()


def test_metro_observation_fields_add_up() -> None:
    env = metro_env(players=3, turn_mode="hand")
    env.reset(seed=9)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        o = env.unflatten(obs["observation"])
        if terminated:
            env.step(None)
            continue
        # every station has a complete route or a train waiting; owners are one-hot
        assert o["route_done"].sum() + o["trains"].sum() == 32
        assert (o["station_owner"].sum(axis=1) == 1).all()
        assert o["station_owner"][:, 3].sum() == 2  # stations 16 and 17 unused with 3 players
        assert o["to_move"].tolist() == [1, 0, 0]
        assert o["board"].sum() + o["hand"].sum() + o["unseen"].sum() + o["drawn"].sum() == 60
        assert o["pile"][0] == o["unseen"].sum() - o["hand_sizes"][1:].sum()
        assert o["route_points"].sum() == o["scores"].sum()
        steps += 1
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert steps == 60


def test_metro_illegal_action_raises_and_changes_nothing() -> None:
    env = metro_env(players=2)
    env.reset(seed=5)
    obs, *_ = env.last()
    before = env.engine_state.snapshot()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action index {illegal}"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match=r"outside 0\.\.1536"):
        env.step(1537)
    with pytest.raises(ValueError, match="None"):
        env.step(None)
    assert env.engine_state.snapshot() == before
    assert env.agent_selection == "player_0"


def test_encoders_refuse_a_full_state() -> None:
    metro = load_game("metro", players=2, turn_mode="hand")
    with pytest.raises(ValueError, match=r"view"):
        MetroEncoder(metro).encode(metro.new_game(1), 0)
    london = load_game("london", players=2)
    with pytest.raises(ValueError, match=r"view"):
        NextStationEncoder(london).encode(london.new_game(1).view(1), 0)


# -- Next Station --------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(1, 5))
@pytest.mark.parametrize("city", ["london", "paris"])
def test_nextstation_parallel_api_test(city: str, players: int) -> None:
    with no_warnings():
        parallel_api_test(nextstation_parallel_env(city, players=players), num_cycles=1000)
        parallel_api_test(
            nextstation_parallel_env(city, players=players, observation="fields"), num_cycles=50
        )


@pytest.mark.usefixtures("as_classic_game")
@pytest.mark.parametrize(("city", "players"), [("london", 1), ("paris", 3)])
def test_nextstation_api_test_through_aec(city: str, players: int) -> None:
    """The Parallel env turned into an AEC one by PettingZoo passes ``api_test`` (its
    observation checks, which ``parallel_api_test`` does not make)."""
    from pettingzoo.utils.conversions import parallel_to_aec

    with no_warnings():
        api_test(parallel_to_aec(nextstation_parallel_env(city, players=players)), num_cycles=200)


@pytest.mark.parametrize("city", ["london", "paris"])
def test_nextstation_parallel_seed_test(city: str) -> None:
    # parallel_seed_test samples actions without the mask: illegal ones pass (the default)
    with no_warnings():
        parallel_seed_test(lambda: nextstation_parallel_env(city, players=3))
        options: dict[str, object] = {"objectives": "random"}
        if city == "london":
            options["powers"] = "random"
        parallel_seed_test(lambda: nextstation_parallel_env(city, players=2, **options))  # type: ignore[arg-type]


def _play_parallel(env: NextStationParallelEnv, seed: int, check_hidden: bool) -> None:
    obs, _ = env.reset(seed=seed)
    game, encoder = env.game, env.encoder
    agents = list(env.possible_agents)
    ref = game.new_game(seed)
    deal_chance(ref)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(agents, 0.0)
    while env.agents:
        actions = {}
        for seat, agent in enumerate(agents):
            mask = obs[agent]["action_mask"]
            assert set(np.flatnonzero(mask)) == legal_indices(ref, seat)
            fields = env.unflatten(obs[agent]["observation"])
            check_nextstation_obs(encoder, ref, seat, fields)
            if check_hidden:  # the deck order is not in the observation
                sample = ref.resample(seat, Rng(seed + seat))
                again = encoder.encode(sample.view(seat), seat)
                assert all(np.array_equal(fields[k], again[k]) for k in again)
            actions[agent] = int(rng.choice(np.flatnonzero(mask)))
        for seat, agent in enumerate(agents):
            ref.apply_in_place(seat, game.action_from_index(actions[agent]))
        deal_chance(ref)
        obs, rewards, terminations, truncations, infos = env.step(actions)
        for agent in agents:
            totals[agent] += rewards[agent]
            assert infos[agent] == {"illegal_action": False}
            assert terminations[agent] == ref.is_over() and not truncations[agent]
    assert ref.is_over()
    assert [totals[a] for a in agents] == ref.scores() == env.engine_state.scores()


@pytest.mark.parametrize(
    ("city", "players", "options", "seed"),
    [
        ("london", 2, {}, 1),
        ("paris", 3, {"objectives": "random"}, 2),
        ("london", 4, {"powers": "random", "objectives": "random"}, 3),
    ],
)
def test_nextstation_parallel_game(
    city: str, players: int, options: dict[str, object], seed: int
) -> None:
    """Masks are each seat's legal actions, observations say what each seat's view JSON says
    (and not the deck order), rewards add up to the final scores."""
    _play_parallel(
        nextstation_parallel_env(city, players=players, **options),  # type: ignore[arg-type]
        seed,
        check_hidden=players < 4,
    )


def test_nextstation_other_players_actions_are_hidden_until_the_turn_ends() -> None:
    game = load_game("london", players=2)
    encoder = NextStationEncoder(game)
    state = game.new_game(8)
    deal_chance(state)
    before = encoder.encode(state.view(0), 0)
    move = next(a for a in state.legal_actions(1) if a != game.pass_action)
    state.apply_in_place(1, move)
    during = encoder.encode(state.view(0), 0)
    assert all(np.array_equal(before[k], during[k]) for k in before)
    assert encoder.encode(state.view(1), 1)["lines"][0].sum() == 1  # its own: shown


def test_nextstation_illegal_actions() -> None:
    env = nextstation_parallel_env("london", players=2, illegal_action="raise")
    obs, _ = env.reset(seed=4)
    before = env.engine_state.snapshot()
    legal = int(np.flatnonzero(obs["player_0"]["action_mask"])[-1])
    illegal = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="player 1"):
        env.step({"player_0": legal, "player_1": illegal})
    with pytest.raises(KeyError, match="player_1"):
        env.step({"player_0": legal})
    assert env.engine_state.snapshot() == before  # nothing applied
    lenient = nextstation_parallel_env("london", players=2, illegal_penalty=-5)
    obs, _ = lenient.reset(seed=4)
    _, rewards, _, _, infos = lenient.step({"player_0": legal, "player_1": illegal})
    assert infos["player_1"]["illegal_action"] and not infos["player_0"]["illegal_action"]
    assert rewards["player_1"] == -5.0  # pass scores nothing on the first card
    with pytest.raises(ValueError, match="pass action"):
        check_illegal_mode("pass", load_game("metro"))


def test_render_ansi() -> None:
    env = metro_env(players=2, render_mode="ansi")
    env.reset(seed=1)
    assert env.render().startswith("metro: scores [0, 0]")  # type: ignore[union-attr]
    par = nextstation_parallel_env("paris", players=2, render_mode="ansi")
    par.reset(seed=1)
    assert par.render().startswith("paris: round 1")  # type: ignore[union-attr]


# -- Flat and named observations -----------------------------------------------------------


def test_metro_box_and_fields_observations_agree() -> None:
    """The same seeded game in both modes: the flat observation is Gymnasium's flattening of
    the named fields (the sorted key order), and ``unflatten`` gives the fields back."""
    box = metro_env(players=3, turn_mode="hand")
    fields = metro_env(players=3, turn_mode="hand", observation="fields")
    assert (str(box), str(fields)) == ("metrogames_metro_v1", "metrogames_metro_v0")
    assert type(box).metadata["name"] == "metrogames_metro_v1"  # the class keeps its own
    space = box.observation_space("player_0")["observation"]
    assert isinstance(space, gymnasium.spaces.Box) and space.dtype == np.int16
    # board 8·8·24, hand/drawn/unseen 24 each, 3 players: 3 hand sizes, pile, 3 to-move,
    # 2 × 4·64·4 train fields, 32·4 owners, 32 done, 32 points, 3 scores
    assert space.shape == (1536 + 72 + 3 + 1 + 3 + 2 * 1024 + 128 + 32 + 32 + 3,)
    assert fields.observation_space("player_0")["observation"] == box.fields_space
    box.reset(seed=6)
    fields.reset(seed=6)
    rng = np.random.default_rng(6)
    for _agent in box.agent_iter():
        flat, *_, terminated, truncated, _ = box.last()
        named, *_ = fields.last()
        for other in box.possible_agents:
            array = box.observe(other)["observation"]
            expected = fields.observe(other)["observation"]
            assert array.dtype == np.int16 and array.shape == space.shape
            assert np.array_equal(array, gymnasium.spaces.flatten(box.fields_space, expected))
            back = box.unflatten(array)
            assert back.keys() == expected.keys()
            assert all(np.array_equal(back[k], expected[k]) for k in expected)
            assert all(back[k].dtype == expected[k].dtype for k in expected)
        assert np.array_equal(flat["action_mask"], named["action_mask"])
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(flat["action_mask"])))
        box.step(action)
        fields.step(action)
    assert box.engine_state.scores() == fields.engine_state.scores()


def test_nextstation_unflatten_reads_a_batch() -> None:
    env = nextstation_parallel_env("london", players=2, powers="random")
    obs, _ = env.reset(seed=2)
    batch = np.stack([obs[a]["observation"] for a in env.possible_agents])
    fields = env.unflatten(batch)
    assert fields["lines"].shape == (2, 2, 4, 155) and fields["powers"].shape == (2, 4, 4)
    for i in range(2):
        one = env.encoder.encode(env.engine_state.view(i), i)
        assert all(np.array_equal(fields[k][i], one[k]) for k in one)
    assert fields["colour"][0, 0].sum() == 1 == fields["colour"][1, 0].sum()  # relative seats
    with pytest.raises(ValueError, match=r"last axis"):
        env.unflatten(batch[:, :-1])
    with pytest.raises(ValueError, match=r"last axis"):
        env.unflatten(np.int16(3))


def test_an_unknown_observation_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="observation must be 'box' or 'fields'"):
        metro_env(players=2, observation="flat")
    with pytest.raises(ValueError, match="observation must be 'box' or 'fields'"):
        nextstation_parallel_env("paris", players=2, observation="dict")
