"""``benchmarks/envs.py`` run small: every line it prints counts real steps and games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from support.benchmarks import load

bench = load("envs")


def test_the_table_has_a_line_per_game_and_mode(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--games", "london,metro", "--seconds", "0.3", "--envs", "2"])
    out = capsys.readouterr().out.splitlines()
    assert " cores, load average " in out[0]
    rows = [line.split(" | ") for line in out[3:]]
    assert [(r[0].strip("| "), r[2]) for r in rows] == [
        ("london", "one process"),
        ("london", "async ×2"),
        ("metro", "one process"),
        ("metro", "async ×2"),
    ]
    assert all(float(r[3].replace(",", "")) > 0 for r in rows)


def test_json_lines_count_steps_and_games(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--games", "paris", "--seconds", "0.5", "--envs", "", "--json"])
    report = json.loads(capsys.readouterr().out)
    (line,) = report["lines"]
    assert line["game"] == "paris" and line["envs"] == 1
    # a solo Paris game is 20 to 44 turns (4 rounds of 5 to 11 cards), one decision each;
    # the last game may be unfinished
    assert 20 * line["games"] <= line["steps"] <= 44 * (line["games"] + 1)
    assert line["games"] > 0
    assert line["steps_per_second"] == pytest.approx(line["steps"] / line["seconds"])


def test_metro_turns_plays_a_whole_game() -> None:
    """The benchmark's single-agent view of Metro: every placement is one step, each seat's
    in turn, until the 60 squares are filled."""
    env = bench.MetroTurns()
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space
    rng = np.random.default_rng(3)
    steps, terminated = 0, False
    while not terminated:
        obs, reward, terminated, _, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        steps += 1
        assert reward >= 0
    assert steps == 60 and not info["action_mask"].any()


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        bench.main(["--games", "chess"])
    with pytest.raises(SystemExit):
        bench.main(["--envs", "two"])
