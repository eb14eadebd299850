"""Job processes run behind the serving processes (``web/infra/jobs/work.py``
``lower_priority``, ``kinds.NICE``; issue "Hardened", fault 2: moves' p99 must not move when
heavy work is requested): a lane's processes are niced and on the batch scheduling policy."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from metrogames.web.infra.jobs import work
from metrogames.web.infra.jobs.kinds import KINDS, NICE


def _lowered(nice: int) -> tuple[int, int]:
    work.lower_priority(nice)
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
