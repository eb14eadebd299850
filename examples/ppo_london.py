"""A masked PPO agent learning solo Next Station London, in one file (CleanRL's style).

Run from the repository root (the ``rl``, ``train`` and ``plots`` extras: gymnasium, CPU
PyTorch, matplotlib)::

    nice -n 19 .venv/bin/python examples/ppo_london.py --minutes 30 --out-dir docs/figures

The agent plays ``gymnasium.make_vec("metrogames/London-v0", observation="box")`` (the flat
``Box`` observation and the action mask of ``docs/research.md``, "Common rules"): an MLP
gives the logits of the 311 dense actions, the illegal ones are masked out (their logit set
to ``-1e8``, so they are never sampled), and proximal policy optimisation (Schulman et al.
2017, clipped objective, generalised advantage estimation) trains it on the rewards, the
change of the score (their sum is the game's final score, London rules, "Scoring").

Every ``--eval-every`` environment steps the greedy policy (argmax over the masked logits)
plays a fixed evaluation manifest: deal ``i`` is the deal of seed ``deal_seed + i`` (by
default the first 50 deals of the 200-deal London manifest of ``benchmarks/bots.py``,
``metrogames deals london --games 200 --seed 2026``), and the ``random`` bot's mean on the
same deals (seeded ``1 + i``, as in ``benchmarks/bots.py``) is measured beside it. Outputs in
``--out-dir``: ``ppo-london.csv`` (the learning curve: steps, wall-clock and CPU minutes, the
mean evaluation score and its 95 % half-width, the random bot's mean, the mean training
return) and ``ppo-london.png`` (the curve against steps and minutes); the last line printed is
a JSON summary. Torch runs on one thread (``torch.set_num_threads(1)``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from torch import nn

import metrogames.envs  # noqa: F401  (registers metrogames/London-v0)
from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.games import game_engine, load_game

ENV_ID = "metrogames/London-v0"
MASKED_LOGIT = -1e8
CURVE_NAME = "ppo-london"


@dataclass(frozen=True)
class Config:
    """The run's settings (the command-line flags of the same names)."""

    seed: int = 1
    total_steps: int = 2_000_000
    minutes: float = 30.0
    num_envs: int = 8
    rollout: int = 128
    epochs: int = 4
    minibatches: int = 4
    lr: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 0.1
    hidden: int = 256
    eval_every: int = 50_000
    eval_deals: int = 50
    final_deals: int = 200
    deal_seed: int = 2026
    out_dir: str = "ppo-out"


class Agent(nn.Module):
    """Actor-critic MLP: observation ``(B, obs_size)`` float, scaled to ``[0, 1]`` by
    ``scale`` → logits ``(B, actions)`` and value ``(B,)`` (in scaled reward units)."""

    scale: torch.Tensor

    def __init__(self, scale: np.ndarray, actions: int, hidden: int) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.trunk = nn.Sequential(
            layer(nn.Linear(len(scale), hidden)), nn.Tanh(),
            layer(nn.Linear(hidden, hidden)), nn.Tanh(),
        )
        self.policy = layer(nn.Linear(hidden, actions), std=0.01)
        self.value = layer(nn.Linear(hidden, 1), std=1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.trunk(obs * self.scale)
        return self.policy(hidden), self.value(hidden).squeeze(-1)


def layer(linear: nn.Linear, std: float = math.sqrt(2)) -> nn.Linear:
    """Orthogonal weights of gain ``std``, zero bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(linear.weight, std)
    nn.init.zeros_(linear.bias)
    return linear


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` ``(B, A)`` with every illegal action (``mask`` ``(B, A)`` false) set to
    ``MASKED_LOGIT``: probability 0 (``exp(-1e8)`` underflows), never sampled nor argmax.

    Raises:
        ValueError: a row of ``mask`` has no legal action (a finished game's mask).
    """
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("an action mask with no legal action: the game is over")
    return logits.masked_fill(~mask, MASKED_LOGIT)


@dataclass(frozen=True)
class Policy:
    """The masked policy on a batch: log-probabilities ``(B, A)`` (illegal actions about
    ``-1e8``) and the value ``(B,)``."""

    logprobs: torch.Tensor
    value: torch.Tensor

    def sample(self) -> torch.Tensor:
        """One action per row ``(B,)``, drawn with the policy's probabilities."""
        return torch.multinomial(self.logprobs.exp(), 1).squeeze(-1)

    def logprob(self, actions: torch.Tensor) -> torch.Tensor:
        """The log-probability of ``actions`` ``(B,)``."""
        return self.logprobs.gather(-1, actions[:, None]).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """The entropy of each row ``(B,)`` (illegal actions, of probability 0, add 0)."""
        return -(self.logprobs.exp() * self.logprobs).sum(-1)


def policy(agent: Agent, obs: torch.Tensor, mask: torch.Tensor) -> Policy:
    """The masked policy and the value for a batch of observations and masks."""
    logits, value = agent(obs)
    return Policy(torch.log_softmax(masked_logits(logits, mask), dim=-1), value)


def greedy_action(agent: Agent, obs: np.ndarray, mask: np.ndarray) -> int:
    """The legal action of highest logit for one observation ``(obs_size,)`` and mask."""
    with torch.no_grad():
        logits, _ = agent(torch.as_tensor(obs, dtype=torch.float32)[None])
        legal = torch.as_tensor(mask, dtype=torch.bool)[None]
        return int(masked_logits(logits, legal).argmax(dim=-1)[0])


def evaluate(agent: Agent, seeds: Sequence[int]) -> list[float]:
    """The greedy policy's final score on each deal of ``seeds`` (one game each)."""
    env = gymnasium.make(ENV_ID, observation="box")
    scores = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, info = env.step(greedy_action(agent, obs, info["action_mask"]))
            total += float(reward)
        scores.append(total)
    env.close()
    return scores


def random_scores(seeds: Sequence[int]) -> list[float]:
    """The ``random`` bot's final score on each deal of ``seeds``, the bot of deal ``i``
    seeded ``1 + i`` (``benchmarks/bots.py``)."""
    rules = load_game("london", players=1)
    scores = []
    for i, seed in enumerate(seeds):
        state = game_engine("london").from_deal(rules.deal_record(seed), 1)
        play_bots(state, [make_bot("random", 1 + i)])
        scores.append(float(state.scores()[0]))
    return scores


@dataclass
class Rollout:
    """One rollout's tensors, ``(T, N, ...)`` for ``T`` steps of ``N`` environments."""

    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor


class Collector:
    """Plays the vectorised environments with the sampling policy, ``rollout`` steps at a
    time (same-step autoreset: a finished game's next observation is the next deal's)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.envs = gymnasium.make_vec(
            ENV_ID, num_envs=config.num_envs, vectorization_mode="sync", observation="box",
            vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
        )
        obs, info = self.envs.reset(seed=config.seed)
        self.obs, self.mask = obs, info["action_mask"]
        self.returns = np.zeros(config.num_envs)
        self.finished: list[float] = []
        self.steps = 0

    def collect(self, agent: Agent) -> tuple[Rollout, torch.Tensor]:
        """A rollout and the values of the observations after it ``(N,)``."""
        t, n = self.config.rollout, self.config.num_envs
        size, actions = self.obs.shape[1], self.mask.shape[1]
        out = Rollout(
            torch.zeros(t, n, size), torch.zeros(t, n, actions, dtype=torch.bool),
            torch.zeros(t, n, dtype=torch.long), torch.zeros(t, n), torch.zeros(t, n),
            torch.zeros(t, n), torch.zeros(t, n),
        )
        for step in range(t):
            out.obs[step] = torch.as_tensor(self.obs, dtype=torch.float32)
            out.masks[step] = torch.as_tensor(self.mask, dtype=torch.bool)
            with torch.no_grad():
                pi = policy(agent, out.obs[step], out.masks[step])
                action = pi.sample()
            out.actions[step], out.logprobs[step] = action, pi.logprob(action)
            out.values[step] = pi.value
            obs, reward, terminated, _, info = self.envs.step(action.numpy())
            out.rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            out.dones[step] = torch.as_tensor(terminated, dtype=torch.float32)
            self._count(reward, terminated)
            self.obs, self.mask = obs, info["action_mask"]
        self.steps += t * n
        with torch.no_grad():
            _, last = agent(torch.as_tensor(self.obs, dtype=torch.float32))
        return out, last

    def _count(self, reward: np.ndarray, terminated: np.ndarray) -> None:
        self.returns += reward
        self.finished.extend(float(r) for r in self.returns[terminated])
        self.returns[terminated] = 0.0

    def close(self) -> None:
        self.envs.close()


def advantages(
    rollout: Rollout, last: torch.Tensor, config: Config
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates and value targets ``(T, N)`` (rewards scaled by
    ``reward_scale``; a finished game is not bootstrapped: nothing is truncated)."""
    rewards = rollout.rewards * config.reward_scale
    adv = torch.zeros_like(rewards)
    running = torch.zeros_like(last)
    for t in reversed(range(len(rewards))):
        following = last if t == len(rewards) - 1 else rollout.values[t + 1]
        live = 1.0 - rollout.dones[t]
        delta = rewards[t] + config.gamma * following * live - rollout.values[t]
        running = delta + config.gamma * config.gae_lambda * live * running
        adv[t] = running
    return adv, adv + rollout.values


def update(
    agent: Agent, optimiser: torch.optim.Optimizer, rollout: Rollout, last: torch.Tensor,
    config: Config,
) -> None:
    """PPO's clipped update: ``epochs`` passes over the rollout in ``minibatches`` parts."""
    adv, targets = advantages(rollout, last, config)
    batch = config.rollout * config.num_envs
    flat = [x.reshape(batch, *x.shape[2:]) for x in (
        rollout.obs, rollout.masks, rollout.actions, rollout.logprobs, adv, targets)]
    obs, masks, actions, old_logprobs, adv_flat, target_flat = flat
    size = batch // config.minibatches
    for _ in range(config.epochs):
        for idx in torch.split(torch.randperm(batch), size):
            pi = policy(agent, obs[idx], masks[idx])
            ratio = (pi.logprob(actions[idx]) - old_logprobs[idx]).exp()
            a = adv_flat[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            policy_loss = torch.max(
                -a * ratio, -a * ratio.clamp(1 - config.clip, 1 + config.clip)
            ).mean()
            value_loss = 0.5 * (pi.value - target_flat[idx]).pow(2).mean()
            loss = policy_loss + config.vf_coef * value_loss - config.ent_coef * pi.entropy().mean()
            optimiser.zero_grad()
            torch.autograd.backward(loss)
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimiser.step()


@dataclass(frozen=True)
class Point:
    """One point of the learning curve."""

    steps: int
    minutes: float
    cpu_minutes: float
    eval_mean: float
    eval_ci95: float
    random_mean: float
    train_return: float


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the 95 % half-width (normal approximation, sample standard deviation)."""
    mean = float(np.mean(values))
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def train(config: Config) -> tuple[Agent, list[Point]]:
    """Train, evaluating every ``eval_every`` steps and at the end; the agent and the learning
    curve. Stops after ``total_steps`` environment steps or ``minutes`` of wall-clock time."""
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    np.random.seed(config.seed)
    seeds = [config.deal_seed + i for i in range(config.eval_deals)]
    random_mean = float(np.mean(random_scores(seeds)))
    collector = Collector(config)
    space = collector.envs.single_observation_space
    assert isinstance(space, gymnasium.spaces.Box)
    scale = 1.0 / np.maximum(space.high.astype(np.float32), 1.0)
    agent = Agent(scale, int(collector.mask.shape[1]), config.hidden)
    optimiser = torch.optim.Adam(agent.parameters(), lr=config.lr, eps=1e-5)
    start, cpu_start = time.monotonic(), time.process_time()
    curve: list[Point] = []

    def record() -> None:
        mean, half = mean_ci(evaluate(agent, seeds))
        recent = collector.finished[-200:]
        curve.append(Point(
            collector.steps, (time.monotonic() - start) / 60, (time.process_time() - cpu_start) / 60,
            mean, half, random_mean, float(np.mean(recent)) if recent else math.nan,
        ))
        print(json.dumps(asdict(curve[-1])), flush=True)

    record()
    while collector.steps < config.total_steps and time.monotonic() - start < config.minutes * 60:
        fraction = collector.steps / config.total_steps
        for group in optimiser.param_groups:
            group["lr"] = config.lr * max(1.0 - fraction, 0.05)
        rollout, last = collector.collect(agent)
        update(agent, optimiser, rollout, last, config)
        if collector.steps // config.eval_every > curve[-1].steps // config.eval_every:
            record()
    if curve[-1].steps != collector.steps:
        record()
    collector.close()
    return agent, curve


def final_evaluation(agent: Agent, config: Config) -> dict[str, float]:
    """The greedy policy against the ``random`` bot on the first ``final_deals`` deals of the
    manifest: each one's mean and 95 % half-width, and their paired difference."""
    seeds = [config.deal_seed + i for i in range(config.final_deals)]
    ppo, rand = evaluate(agent, seeds), random_scores(seeds)
    (ppo_mean, ppo_ci), (rand_mean, rand_ci) = mean_ci(ppo), mean_ci(rand)
    diff, diff_ci = mean_ci([a - b for a, b in zip(ppo, rand, strict=True)])
    return {"deals": len(seeds), "ppo_mean": ppo_mean, "ppo_ci95": ppo_ci,
            "random_mean": rand_mean, "random_ci95": rand_ci,
            "paired_diff": diff, "paired_diff_ci95": diff_ci}


def write_outputs(curve: Sequence[Point], deals: int, out_dir: Path) -> tuple[Path, Path]:
    """``ppo-london.csv`` (one row per :class:`Point`) and ``ppo-london.png`` (mean score on
    the ``deals`` evaluation deals against steps and minutes, the random bot's mean and
    random + 15 dashed) in ``out_dir``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, png_path = out_dir / f"{CURVE_NAME}.csv", out_dir / f"{CURVE_NAME}.png"
    names = [f.name for f in fields(Point)]
    with csv_path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        for point in curve:
            writer.writerow({k: round(v, 3) if isinstance(v, float) else v
                             for k, v in asdict(point).items()})
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    means = np.array([p.eval_mean for p in curve])
    halves = np.array([p.eval_ci95 for p in curve])
    random_mean = curve[0].random_mean
    for axis, xs, label in (
        (axes[0], [p.steps for p in curve], "environment steps"),
        (axes[1], [p.minutes for p in curve], "wall-clock minutes (2 shared cores, nice 19)"),
    ):
        axis.plot(xs, means, marker="o", markersize=3, label="PPO, greedy")
        axis.fill_between(xs, means - halves, means + halves, alpha=0.2)
        axis.axhline(random_mean, color="grey", label=f"random bot ({random_mean:.1f})")
        axis.axhline(random_mean + 15, color="grey", linestyle="--", label="random + 15")
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean solo score, {deals} fixed deals")
    axes[0].legend(loc="lower right")
    figure.suptitle("Masked PPO on solo Next Station London")
    figure.tight_layout()
    figure.savefig(png_path, dpi=100)
    plt.close(figure)
    return csv_path, png_path


def positive_int(text: str) -> int:
    """An ``argparse`` type: an integer above 0."""
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def positive_float(text: str) -> float:
    """An ``argparse`` type: a finite number above 0."""
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def parse(argv: Sequence[str] | None = None) -> Config:
    """The :class:`Config` of the command line (``--help`` lists the flags).

    Raises:
        SystemExit: (``argparse``, exit 2) a flag's value is not of its type, or the
            rollout batch does not split into the minibatches.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = {"total_steps", "num_envs", "rollout", "epochs", "minibatches", "hidden",
            "eval_every", "eval_deals", "final_deals"}
    floats = {"minutes", "lr", "reward_scale"}
    for f in fields(Config):
        flag = "--" + f.name.replace("_", "-")
        kind: Any = (positive_int if f.name in ints else positive_float if f.name in floats
                     else type(f.default))
        parser.add_argument(flag, type=kind, default=f.default, help=f"default {f.default}")
    args = parser.parse_args(argv)
    config = Config(**vars(args))
    if (config.rollout * config.num_envs) % config.minibatches:
        parser.error(f"--rollout × --num-envs ({config.rollout * config.num_envs}) must split "
                     f"into --minibatches ({config.minibatches}) equal parts")
    return config


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, write the curve's CSV and PNG, evaluate on ``final_deals`` deals; the summary
    (also printed as JSON)."""
    config = parse(argv)
    agent, curve = train(config)
    csv_path, png_path = write_outputs(curve, config.eval_deals, Path(config.out_dir))
    summary = {"config": asdict(config), "final": asdict(curve[-1]),
               "manifest": final_evaluation(agent, config),
               "csv": str(csv_path), "png": str(png_path)}
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()
