"""Job processes run behind the serving processes (``web/infra/jobs/process.py``
``lower_priority``, ``pin``, ``kinds.NICE``; issue "Hardened", fault 2: moves' p99 must not move when
heavy work is requested): a lane's processes are niced and on the batch scheduling policy, and a
job whose cost a client chooses runs on the idle policy, in a thread of its own."""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
import time

import pytest
from pydantic import ValidationError

from metrogames.web import work
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


def test_only_a_bots_decision_is_not_a_clients_choice() -> None:
    """Hints, checks, reports, analyses, replays, expert games and passwords are asked for by a
    client at a cost of its choosing; a bot's decision is a turn of a game being played."""
    assert {name for name, kind in KINDS.items() if not kind.chosen} == {"decide"}


def _policy_and_thread(_job: object) -> list[object]:
    return [os.sched_getscheduler(0), threading.current_thread() is threading.main_thread()]


def test_a_chosen_job_runs_idle_in_a_thread_of_its_own_and_a_decision_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(work.JOBS, "hint", _policy_and_thread)
    monkeypatch.setitem(work.JOBS, "decide", _policy_and_thread)
    before = os.sched_getscheduler(0)
    here = [before, threading.current_thread() is threading.main_thread()]
    assert work.run("hint", {})["value"] == [os.SCHED_IDLE, False]
    assert work.run("decide", {})["value"] == here
    assert os.sched_getscheduler(0) == before  # the caller's thread keeps its policy
    assert "failed" in work.run("no-such-kind", {})  # still an answer, never a raise


def test_with_the_idle_policy_off_a_chosen_job_runs_as_the_process_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``METROGAMES_JOB_IDLE=false`` (a machine shared with other busy work)."""
    monkeypatch.setitem(work.JOBS, "hint", _policy_and_thread)
    monkeypatch.setattr(process, "SETUP", process.ProcessSetup(idle=False))
    here = [os.sched_getscheduler(0), threading.current_thread() is threading.main_thread()]
    assert work.run("hint", {})["value"] == here
    monkeypatch.setenv("METROGAMES_JOB_IDLE", "no")
    assert Settings().job_idle is False
    monkeypatch.setenv("METROGAMES_JOB_IDLE", "sometimes")
    with pytest.raises(ValidationError, match="job_idle"):
        Settings()


def _threads_policies(pid: int) -> list[int]:
    return sorted(os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task"))


def test_a_lanes_process_runs_a_chosen_job_idle_and_stays_batch() -> None:
    """In a real lane process (niced, batch): while a slow-lane probe runs, one of its threads
    is on the idle policy and the process's main thread still on the batch one; afterwards the
    process has no idle thread left (the next bot's decision runs as the process does)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1, initializer=process.lower_priority, initargs=(NICE["slow"],)) as pool:
        pid = pool.apply(os.getpid)
        running = pool.apply_async(work.run, ("probe", {"seconds": 3.0}))
        deadline = time.monotonic() + 60
        while os.SCHED_IDLE not in _threads_policies(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        during = _threads_policies(pid)
        assert running.get(timeout=60)["value"] == pid
        while os.SCHED_IDLE in _threads_policies(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # the job's thread is joined a moment before its OS thread ends
        after = _threads_policies(pid)
    assert os.SCHED_IDLE in during and os.SCHED_BATCH in during, during
    assert os.SCHED_IDLE not in after and os.SCHED_BATCH in after, after


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
