"""Job workers of the scale-out start: RQ workers on the shared Redis (:mod:`.queue`).

``metrogames serve --workers N --redis URL`` starts ``job_workers`` workers of the ``play`` lane
and ``job_slow_workers`` of the ``slow`` lane beside its serving workers (:func:`start_workers`,
each a process started afresh, never forked from a server); ``metrogames jobs worker`` runs
workers on another machine (:func:`run_worker`). A worker imports the job functions (the
app's :class:`~.kinds.Work`) and warms the games once,
lowers its CPU priority (:data:`~metrogames.web.infra.jobs.pool.NICE`), then takes its lane's jobs
one at a time, first priority first, each in a work horse forked from it (stopped when nobody
waits for its job any more).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from multiprocessing.process import BaseProcess

import redis
from pydantic import TypeAdapter
from rq import Queue, Worker
from rq.serializers import JSONSerializer

from metrogames.web.infra.jobs.entry import queue_names
from metrogames.web.infra.jobs.kinds import NICE, QUEUED_LANES, Work
from metrogames.web.infra.jobs.process import preload

log = logging.getLogger("metrogames.web.jobs.worker")  # the name its log lines always had
STOP_SECONDS = 5.0
"""How long stopping waits for a worker before killing it."""


def check_lanes(lanes: Sequence[str]) -> list[str]:
    """``lanes`` checked (``play``, ``slow``), in order.

    Raises:
        ValueError: an unknown lane, or none.
    """
    known = QUEUED_LANES
    bad = [lane for lane in lanes if lane not in known]
    if bad or not lanes:
        raise ValueError(f"lanes must be among {', '.join(known)}, not {', '.join(bad) or 'none'}")
    return list(dict.fromkeys(lanes))


def run_worker(url: str, lanes: Sequence[str], work: Work, first_only: bool = False) -> None:
    """Be one job worker of ``lanes`` (their queues in order; ``first_only``: only each
    lane's first priority) on the Redis server at ``url``, until stopped (SIGTERM: the job
    running is stopped, the worker ends). ``work``: the job functions; given, their module is
    imported (and so is every module they run) before the first job, and each work horse
    forked from this worker finds them loaded."""
    lanes = check_lanes(lanes)
    log.debug("jobs worker of %s runs %s", ",".join(lanes), work.entry.__module__)
    preload(
        max(NICE[lane] for lane in lanes),
        plugins=os.environ.get("METROGAMES_GAMES", ""),
        cpus=os.environ.get("METROGAMES_JOB_CPUS", ""),
        idle=TypeAdapter(bool).validate_python(os.environ.get("METROGAMES_JOB_IDLE", "true")),
    )
    connection = redis.Redis.from_url(url)
    queues = [
        Queue(name, connection=connection, serializer=JSONSerializer)
        for lane in lanes
        for name in queue_names(lane)[: 1 if first_only else None]
    ]
    worker = ColdWorker(queues, connection=connection, serializer=JSONSerializer)
    worker.work(with_scheduler=False, logging_level="WARNING")


class ColdWorker(Worker):
    """An RQ worker that stops at once on SIGTERM or SIGINT: the job running is stopped (its
    work horse killed), never waited for (shutdown never waits for queued work)."""

    def _install_signal_handlers(self) -> None:
        signal.signal(signal.SIGINT, self._cold_stop)
        signal.signal(signal.SIGTERM, self._cold_stop)

    def _cold_stop(self, _signum: int, _frame: object) -> None:
        if self.horse_pid:
            self.kill_horse()  # SIGKILL
            self.wait_for_horse()
        raise SystemExit(0)


def start_workers(
    url: str, counts: dict[str, int], work: Work, lanes_of: Sequence[str] | None = None
) -> list[BaseProcess]:
    """Start ``counts[lane]`` job workers of each lane, running the job functions of ``work``
    (processes started with ``spawn``;
    ``lanes_of``: the lanes every one of them takes instead, in order). Of several workers of
    a lane, the first takes only its first priority (a bot's decision never waits for hints
    on every worker)."""
    context = multiprocessing.get_context("spawn")
    processes: list[BaseProcess] = []
    for lane, count in counts.items():
        lanes = list(lanes_of) if lanes_of is not None else [lane]
        for index in range(count):
            first_only = count > 1 and index == 0
            process = context.Process(
                target=run_worker, args=(url, lanes, work, first_only), daemon=True
            )
            process.start()
            processes.append(process)
    return processes


def stop_workers(processes: Sequence[BaseProcess]) -> None:
    """Stop job workers (SIGTERM; killed when still there after :data:`STOP_SECONDS`)."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1.0)
