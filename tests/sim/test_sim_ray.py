"""``simulate --ray``: the same games, the same results in the same order, as one process and
``--workers 2``, on a seeded run and a deal manifest; resuming on Ray. One local Ray instance
(2 CPUs, loopback only) is shared by the whole module: starting Ray takes seconds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from metrogames.cli.main import app
from metrogames.sim.cluster import LOOPBACK_ENV, local_init, run_ray
from metrogames.sim.runner import Task, run_many


def ok(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    old = os.environ.get(LOOPBACK_ENV)
    os.environ[LOOPBACK_ENV] = "0"
    import ray  # the cluster extra, installed by ./dev: missing, this fails

    local_init(2)
    yield ray
    ray.shutdown()
    if old is None:
        os.environ.pop(LOOPBACK_ENV, None)
    else:
        os.environ[LOOPBACK_ENV] = old


def test_local_ray_listens_on_loopback_only(local_ray: Any) -> None:
    address = local_ray.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:")
    assert local_ray.cluster_resources()["CPU"] == 2


def test_run_ray_gives_run_manys_results_in_order(local_ray: Any) -> None:
    tasks = [Task("metro", ("random", "greedy", "random"), 100 + i, None, None, True)
             for i in range(9)]  # fmt: skip
    assert list(run_ray(tasks)) == list(run_many(tasks))  # records included
    assert list(run_ray([])) == []


@pytest.mark.parametrize("source", ["seed", "deals"])
def test_ray_equals_workers_and_one_process(tmp_path: Path, local_ray: Any, source: str) -> None:
    if source == "seed":
        run = ("simulate", "london", "--bots", "greedy,random", "--games", "14", "--seed", "9")
    else:
        manifest = tmp_path / "deals.jsonl"
        ok("deals", "metro", "--games", "14", "--players", "3", "--out", manifest)
        run = ("simulate", "metro", "--bots", "greedy,random,random", "--deals", str(manifest))
    outputs = {}
    for name, extra in (("one", ()), ("workers", ("--workers", "2")),
                        ("ray", ("--workers", "2", "--ray"))):  # fmt: skip
        results = tmp_path / f"{name}.jsonl"
        summary = ok(*run, "--results", results, "--json", *extra).stdout  # a bare, last --ray
        outputs[name] = (results.read_bytes(), summary)
    assert outputs["ray"] == outputs["one"] == outputs["workers"]
    assert outputs["one"][0].count(b"\n") == 14


def test_ray_run_resumes(tmp_path: Path, local_ray: Any) -> None:
    run = ("simulate", "paris", "--bots", "random,greedy", "--games", "12", "--ray")
    full = tmp_path / "full.jsonl"
    summary = ok(*run, "--results", full, "--json").stdout
    cut = tmp_path / "cut.jsonl"
    shutil.copy(full, cut)
    text = cut.read_text().splitlines(keepends=True)
    cut.write_text("".join(text[:5]) + text[5][:20])
    assert ok(*run, "--results", cut, "--resume", "--json").stdout == summary
    assert cut.read_bytes() == full.read_bytes()


@pytest.mark.parametrize("option", ["--ray", "--ray-address"])
def test_ray_address_connects_to_a_running_cluster(
    tmp_path: Path, local_ray: Any, option: str
) -> None:
    """A second driver (a new process) plays on the cluster at an address, shipping the
    package as a runtime environment: the cluster how-to of ``docs/research.md``, on this machine, with
    ``--ray ADDRESS`` and its alias ``--ray-address ADDRESS``."""
    address = local_ray.get_runtime_context().gcs_address
    results, one = tmp_path / "remote.jsonl", tmp_path / "one.jsonl"
    run = ("simulate", "london", "--bots", "random,random", "--games", "6", "--seed", "3")
    ok(*run, "--results", one)
    exe = Path(sys.executable).with_name("metrogames")
    env = {**os.environ, "RAY_AUTH_MODE": "token"}  # the cluster's token: ~/.ray/auth_token
    done = subprocess.run(
        [str(exe), *run, option, address, "--results", str(results)],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert results.read_bytes() == one.read_bytes()


def test_an_unusable_address_is_a_clear_error() -> None:
    exe = Path(sys.executable).with_name("metrogames")
    done = subprocess.run(
        [str(exe), "simulate", "london", "--bots", "random", "--games", "2",
         "--ray", "nowhere://x"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "error: cannot start or reach the Ray cluster at nowhere://x" in done.stderr
    assert "Traceback" not in done.stderr
