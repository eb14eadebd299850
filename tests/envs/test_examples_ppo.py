"""``examples/ppo_london.py`` run tiny: the pipeline end to end (train, evaluate, write the
curve), the masking, the advantages and the refused flags; not the agent's strength."""

from __future__ import annotations

import csv
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch

from support.benchmarks import load

ROOT = Path(__file__).resolve().parents[2]


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ppo_london", ROOT / "examples" / "ppo_london.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ppo_london"] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


ppo = _example()
bots = load("bots")


def _agent(bias: dict[int, float] | None = None) -> torch.nn.Module:
    """An agent whose logits are the policy head's bias alone (weights zeroed)."""
    agent = ppo.Agent(np.ones(1321, np.float32), 311, 8)
    with torch.no_grad():
        agent.policy.weight.zero_()
        agent.policy.bias.zero_()
        for index, value in (bias or {}).items():
            agent.policy.bias[index] = value
    return agent


def test_a_tiny_run_trains_evaluates_and_writes_its_curve(tmp_path: Path) -> None:
    summary = ppo.main([
        "--total-steps", "2048", "--num-envs", "4", "--rollout", "64", "--epochs", "2",
        "--eval-every", "1024", "--eval-deals", "3", "--final-deals", "3",
        "--out-dir", str(tmp_path),
    ])
    with (tmp_path / "ppo-london.csv").open(encoding="utf-8") as lines:
        rows = list(csv.DictReader(lines))
    # one point before training, then one per 1,024 steps (4 batches of 4 × 64)
    assert [int(r["steps"]) for r in rows] == [0, 1024, 2048]
    # the random bot on deals 2026-2028, played by benchmarks/bots.py's own loop
    expected = np.mean([
        bots.play_job(bots.Job("london", (), ("random",), (0,), 2026 + i, 1 + i))["scores"][0]
        for i in range(3)
    ])
    for row in rows:
        assert float(row["random_mean"]) == pytest.approx(expected, abs=1e-3)
        assert 0 <= float(row["eval_mean"]) <= 437  # London's score_range
        assert math.isfinite(float(row["eval_ci95"]))
    assert float(rows[0]["minutes"]) <= float(rows[1]["minutes"]) <= float(rows[2]["minutes"])
    assert math.isnan(float(rows[0]["train_return"]))  # no game finished yet
    assert all(0 < float(r["train_return"]) <= 437 for r in rows[1:])
    png = (tmp_path / "ppo-london.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    manifest = summary["manifest"]
    assert manifest["deals"] == 3
    assert manifest["random_mean"] == pytest.approx(expected)
    assert manifest["paired_diff"] == pytest.approx(manifest["ppo_mean"] - expected)


def test_a_masked_action_is_never_sampled_nor_chosen() -> None:
    # the illegal actions 5 and 7 have by far the highest logits
    agent = _agent({5: 50.0, 7: 40.0, 3: 1.0})
    mask = torch.zeros(2000, 311, dtype=torch.bool)
    mask[:, [0, 3, 9]] = True
    with torch.no_grad():
        pi = ppo.policy(agent, torch.zeros(2000, 1321), mask)
        drawn = pi.sample()
    assert set(drawn.tolist()) <= {0, 3, 9}
    # probabilities among the legal ones: e^1 : 1 : 1
    share = float((drawn == 3).float().mean())
    assert share == pytest.approx(math.e / (math.e + 2), abs=0.05)
    assert float(pi.logprob(torch.full((2000,), 5)).max()) < -1e6
    assert pi.entropy()[0] == pytest.approx(
        -sum(p * math.log(p) for p in (math.e / (math.e + 2), 1 / (math.e + 2), 1 / (math.e + 2))),
        rel=1e-5,
    )
    legal = np.zeros(311, np.int8)
    legal[[0, 3, 9]] = 1
    assert ppo.greedy_action(agent, np.zeros(1321, np.int16), legal) == 3


def test_an_empty_mask_is_refused() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        ppo.masked_logits(torch.zeros(2, 311), torch.zeros(2, 311, dtype=torch.bool))


def test_the_evaluation_plays_whole_games_greedily() -> None:
    """An agent that always prefers ``pass`` (index 0, always legal) draws nothing: 0 points
    on every deal."""
    assert ppo.evaluate(_agent({0: 10.0}), [2026, 2027]) == [0.0, 0.0]


def test_advantages_are_the_rewards_to_go_of_each_game() -> None:
    """With γ = λ = 1 and zero values the advantage is the (scaled) sum of the rewards left
    in the game, a finished game not bootstrapped from the next one's value."""
    config = ppo.Config(gamma=1.0, gae_lambda=1.0, reward_scale=0.5)
    rewards = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    dones = torch.tensor([[0.0], [1.0], [0.0], [0.0]])
    zeros = torch.zeros(4, 1)
    rollout = ppo.Rollout(zeros, zeros, zeros, zeros, rewards, dones, zeros)
    adv, targets = ppo.advantages(rollout, torch.tensor([10.0]), config)
    # the second game is cut by the rollout: bootstrapped from the last value, 10
    assert adv[:, 0].tolist() == [1.5, 1.0, 13.5, 12.0]
    assert torch.equal(targets, adv)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num-envs", "0"], "must be a positive integer, not 0"),
        (["--minutes", "nan"], "must be a positive number, not nan"),
        (["--rollout", "10", "--num-envs", "3", "--minibatches", "4"], "must split"),
    ],
)
def test_bad_flags_are_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        ppo.parse(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
