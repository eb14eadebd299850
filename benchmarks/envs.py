"""Learning environments' speed: environment steps per second (``docs/performance.md``,
"Learning environments").

Measurements, not tests. Run from the repository root::

    nice -n 10 PYTHONPATH=src .venv/bin/python benchmarks/envs.py [--games london,paris,metro]
        [--seconds 3] [--envs 2,4] [--observation box|fields] [--json]

Every line plays uniformly random *masked* actions (a legal action drawn from the action mask
at every step, in the process that steps the environments, as a learner would) for
``--seconds`` of wall-clock time, and counts the steps (one ``step`` of one environment: one
decision, its observation and mask included; chance happens inside) and the games finished:

* ``one process`` — one environment stepped in a loop: ``gymnasium.make("metrogames/London-v0",
  observation=…)`` (and Paris), Metro's PettingZoo AEC environment (2 players, ``draw``) with
  ``env.last()`` / ``env.step``;
* ``async ×N`` — ``N`` environments in ``N`` worker processes, stepped together from this one:
  ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="async", observation=…)`` for the
  cities; for Metro, Gymnasium's ``AsyncVectorEnv`` over a thin single-agent view of the AEC
  environment (:class:`MetroTurns`: one step is the move of the seat to play, every seat
  playing the same policy — self-play), since PettingZoo has no vector environment of its own.

Steps per second are wall-clock, so they depend on what else the machine runs: the load
average is printed with them. ``CPU µs/step`` is the CPU time of every process of the line (this
one and, for ``async``, its workers: ``/proc``, so Linux only) over the timed steps, per
step: what a step costs whatever the load, and so how many steps per second ``k`` free cores
could give at most (``k × 10⁶ / µs``); ``of which main`` is this process's share, the part
that does not spread over the workers (choosing the actions, Gymnasium's pipes and merging of
the workers' ``info``), so ``10⁶ / main`` bounds ``async`` whatever the number of cores.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium
import numpy as np

import metrogames.envs
from metrogames.envs import metro_env

GAMES = ("london", "paris", "metro")


class MetroTurns(gymnasium.Env[np.ndarray, np.int64]):
    """Metro's AEC environment seen as one agent that plays every seat in turn (the
    benchmark's way to vectorise it): the observation and mask are those of the seat to move,
    the reward is the acting seat's, the episode ends with the game."""

    def __init__(self, players: int = 2, observation: str = "box") -> None:
        self.aec = metro_env(players=players, observation=observation)
        spaces = self.aec.observation_space("player_0")
        assert isinstance(spaces, gymnasium.spaces.Dict), spaces
        self.observation_space = spaces["observation"]
        self.action_space = self.aec.action_space("player_0")

    def _last(self) -> tuple[Any, dict[str, Any]]:
        obs, *_ = self.aec.last()
        return obs["observation"], {"action_mask": obs["action_mask"]}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        return self._last()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.aec.agent_selection
        self.aec.step(int(action))
        obs, info = self._last()
        return obs, self.aec.rewards[agent], self.aec.engine_state.is_over(), False, info


@dataclass
class Line:
    game: str
    mode: str
    envs: int
    observation: str
    steps: int
    games: int
    seconds: float
    cpu_seconds: float
    main_cpu_seconds: float

    @property
    def cpu_us_per_step(self) -> float:
        return self.cpu_seconds / self.steps * 1e6

    @property
    def main_us_per_step(self) -> float:
        return self.main_cpu_seconds / self.steps * 1e6

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def _cpu(pids: list[int] | None = None) -> float:
    """CPU seconds so far of this process and of the processes ``pids`` (Linux's
    ``/proc/PID/stat``: user and system time, in clock ticks)."""
    total = time.process_time()
    for pid in pids or []:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _masked(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal action drawn uniformly from ``mask`` (0 for an all-zero mask: an ended game,
    whose action the vector environment ignores)."""
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


def single_env(game: str, observation: str) -> gymnasium.Env[Any, Any]:
    """One environment of ``game`` with the Gymnasium API (Metro: :class:`MetroTurns`)."""
    if game == "metro":
        return MetroTurns(observation=observation)
    return gymnasium.make(metrogames.envs.GYM_IDS[game], observation=observation)


def one_process(game: str, observation: str, seconds: float, seed: int) -> Line:
    """One environment in a loop; Metro through the AEC API itself."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    if game == "metro":
        aec = metro_env(players=2, observation=observation)
        start, cpu = time.perf_counter(), _cpu()
        while time.perf_counter() - start < seconds:
            aec.reset(seed=seed + games)
            for _agent in aec.agent_iter():
                obs, _, terminated, truncated, _ = aec.last()
                aec.step(None if terminated or truncated else _masked(rng, obs["action_mask"]))
                steps += not (terminated or truncated)
            games += 1
    else:
        env = single_env(game, observation)
        start, cpu = time.perf_counter(), _cpu()
        _, info = env.reset(seed=seed)
        while time.perf_counter() - start < seconds:
            _, _, terminated, truncated, info = env.step(_masked(rng, info["action_mask"]))
            steps += 1
            if terminated or truncated:
                games += 1
                _, info = env.reset()
        env.close()
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    return Line(game, "one process", 1, observation, steps, games, elapsed, cpu, cpu)


def async_envs(game: str, observation: str, seconds: float, seed: int, n: int) -> Line:
    """``n`` environments in ``n`` worker processes (Gymnasium's async vector environment)."""
    rng = np.random.default_rng(seed)
    vec: gymnasium.vector.VectorEnv[Any, Any, Any]
    if game == "metro":
        make: Callable[[], gymnasium.Env[Any, Any]] = lambda: MetroTurns(observation=observation)  # noqa: E731
        vec = gymnasium.vector.AsyncVectorEnv([make] * n)
    else:
        vec = gymnasium.make_vec(
            metrogames.envs.GYM_IDS[game],
            num_envs=n,
            vectorization_mode="async",
            observation=observation,
        )
    try:
        inner = vec.unwrapped
        assert isinstance(inner, gymnasium.vector.AsyncVectorEnv), inner
        pids = [p.pid for p in inner.processes if p.pid is not None]
        _, info = vec.reset(seed=seed)
        steps = games = 0
        start, cpu, main = time.perf_counter(), _cpu(pids), time.process_time()
        while time.perf_counter() - start < seconds:
            actions = np.array([_masked(rng, m) for m in info["action_mask"]], np.int64)
            _, _, terminated, truncated, info = vec.step(actions)
            steps += n
            games += int(np.sum(terminated | truncated))
        elapsed, cpu = time.perf_counter() - start, _cpu(pids) - cpu
        main = time.process_time() - main
    finally:
        vec.close()
    return Line(game, f"async ×{n}", n, observation, steps, games, elapsed, cpu, main)


def measure(
    games: list[str], observation: str, seconds: float, envs: list[int], seed: int = 2026
) -> list[Line]:
    """Every line of the table: per game, one process, then each ``async ×N``."""
    lines: list[Line] = []
    for game in games:
        lines.append(one_process(game, observation, seconds, seed))
        lines.extend(async_envs(game, observation, seconds, seed, n) for n in envs)
    return lines


def header() -> dict[str, Any]:
    """When and where: date (UTC), Python, cores, the load average before the run."""
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def table(lines: list[Line]) -> str:
    """The lines as a Markdown table."""
    out = [
        "| game | observation | environments | steps/s | games/s | CPU µs/step | of which main |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for line in lines:
        out.append(
            f"| {line.game} | {line.observation} | {line.mode} | "
            f"{line.steps_per_second:,.0f} | {line.games_per_second:,.1f} | "
            f"{line.cpu_us_per_step:,.0f} | {line.main_us_per_step:,.0f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help="london,paris,metro")
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-clock seconds a line")
    parser.add_argument("--envs", default="2,4", help="the N of each async line (none: '')")
    parser.add_argument("--observation", choices=("box", "fields"), default="box")
    parser.add_argument("--json", action="store_true", help="one JSON object instead")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}: choose from {', '.join(GAMES)}")
    try:
        envs = [int(n) for n in args.envs.split(",") if n]
    except ValueError:
        parser.error(f"--envs takes numbers separated by commas, not {args.envs!r}")
    if any(n < 1 for n in envs) or args.seconds <= 0:
        parser.error("--envs numbers and --seconds must be positive")
    before = header()
    lines = measure(games, args.observation, args.seconds, envs)
    if args.json:
        rows = [
            {**asdict(x), "steps_per_second": x.steps_per_second,
             "games_per_second": x.games_per_second, "cpu_us_per_step": x.cpu_us_per_step,
             "main_us_per_step": x.main_us_per_step}
            for x in lines
        ]  # fmt: skip
        json.dump({**before, "lines": rows}, sys.stdout, indent=1)
        print()
        return
    print(
        f"{before['date']}, Python {before['python']}, {before['cores']} cores, "
        f"load average {before['load']} before the run, {args.seconds:g} s a line"
    )
    print(table(lines))


if __name__ == "__main__":
    main()
