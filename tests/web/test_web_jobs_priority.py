"""Job processes run behind the serving processes (``web/infra/jobs/process.py``
``lower_priority``, ``pin``, ``kinds.NICE``; issue "Hardened", fault 2: moves' p99 must not move when
heavy work is requested): a lane's processes are niced and on the batch scheduling policy."""

from __future__ import annotations

import multiprocessing
import os
import re

import pytest
from pydantic import ValidationError

from metrogames.web.infra.config import Settings, cpu_list
from metrogames.web.infra.jobs import process
from metrogames.web.infra.jobs.kinds import KINDS, NICE
from metrogames.web.infra.jobs.pool import LocalBackend
from metrogames.web.work import WORK
from support.web import run_async


def _lowered(nice: int) -> tuple[int, int]:
    process.lower_priority(nice)
    return os.nice(0), os.sched_getscheduler(0)


@pytest.mark.parametrize("lane", sorted(NICE))
def test_a_lanes_process_runs_niced_and_batch(lane: str) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        nice, policy = pool.apply(_lowered, (NICE[lane],))
    assert nice == min(19, os.nice(0) + NICE[lane])
    assert policy == os.SCHED_BATCH
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # this process is untouched


def test_every_lane_is_lowered_and_the_slow_lane_most() -> None:
    lanes = {kind.lane for kind in KINDS.values()}
    assert lanes == set(NICE) and all(NICE[lane] > 0 for lane in lanes)
    assert NICE["slow"] > max(NICE["play"], NICE["passwords"])


def test_a_lanes_processes_keep_to_the_job_cpus() -> None:
    """``METROGAMES_JOB_CPUS``: the processes a lane starts run only on the CPUs it names (the
    others are the serving processes'); the serving process keeps every CPU it had."""
    mine = os.sched_getaffinity(0)
    chosen = max(mine)
    backend = LocalBackend({"slow": 1}, 4, WORK, cpus=str(chosen))
    lane = backend.lanes["slow"]
    lane.warm()
    assert lane.warmed is not None
    pid = lane.warmed.result(timeout=120)
    try:
        assert pid != os.getpid() and os.sched_getaffinity(pid) == {chosen}
        assert os.sched_getaffinity(0) == mine
    finally:
        run_async(backend.close())


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("one", "'one' is no CPU number or range"),
        ("1,,x-2", "'x-2' is no CPU number or range"),
        ("3-1", "'3-1' is an empty range"),
        ("0-99999999", "no CPU 99999999 here (at most 4096)"),
        ("\u0661", "'\u0661' is no CPU number or range"),  # an Arabic-Indic one: not ASCII
        ("4095", "no CPU 4095 here (usable: "),
    ],
)
def test_a_job_cpu_list_that_names_no_cpu_here_is_refused(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)):
        cpu_list(text)
    with pytest.raises(ValidationError, match=re.escape(error)):
        Settings(job_cpus=text)


def test_a_job_cpu_list_reads_linux_notation() -> None:
    assert cpu_list("") == frozenset()
    usable = sorted(os.sched_getaffinity(0))
    assert cpu_list(f" {usable[0]} ") == {usable[0]}
    if usable == list(range(usable[0], usable[-1] + 1)):  # a range of usable CPUs
        assert cpu_list(f"{usable[0]}-{usable[-1]}") == set(usable)
    assert cpu_list(",".join(map(str, usable))) == set(usable)
