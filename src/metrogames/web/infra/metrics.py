"""What the server does, for Prometheus (``prometheus-client``): ``GET /metrics`` (text format).

Series (all prefixed ``metrogames_``):

* ``actions_total{game}`` — player actions applied and stored (humans', bots', and those a turn
  clock played), a counter: ``rate(metrogames_actions_total[1m])`` is actions per second;
* ``action_round_trip_seconds{game}`` — a histogram of the server's part of an action, sent
  over the WebSocket or as ``POST /api/rooms/{room}/actions`` (how browsers play): from the
  message or request received to the views of its change handed to every socket of the room
  (HTTP: and the seat's view built for the answer); with ``bot_delay`` 0, the bots that play
  inline after it are included;
* ``db_write_seconds{op}`` — a histogram of the database writes on the writer thread, by
  operation (``write``: an action; ``save_seat``, ``save_room``, ``write_room``…);
* ``loop_lag_seconds`` — a histogram of how late each worker's event loop ran a timer due
  every :data:`LAG_SECONDS` (:func:`watch_lag`): the longest any one step of its work kept
  every other client of the worker waiting (a healthy worker: a few milliseconds);
* ``admission_wait_seconds`` — a histogram of how long admissions (room creations, seat claims,
  starts, sockets' hellos) waited for their turn (:mod:`.admission`): long waits say a crowd
  comes faster than the workers seat it (more workers, or ``METROGAMES_ADMISSIONS``);
* ``job_queue_length{lane}`` — heavy jobs queued (not yet running) in each lane (``play``,
  ``passwords``, ``slow``: :mod:`.jobs`), as the worker last saw it (several workers: the
  longest);
* ``job_running{lane}`` — heavy jobs running in the lane's worker processes of this worker's
  own pools (the single-process start; with Redis: the ``passwords`` lane);
* ``job_seconds{kind}`` — a histogram of the heavy jobs' run time in their worker process, by
  kind (``decide``, ``hint``, ``analysis``, ``replay``, ``expert``, ``hash``, ``verify``);
* ``job_refusals_total{kind,reason}`` — job requests refused: ``busy`` (the lane's queue is
  full, 503) or ``quota`` (the requester has its jobs under way, 429);
* ``open_websockets{worker}`` and ``rooms_in_memory{worker}`` — gauges per worker process
  (``worker``: its process id); the rooms are sampled every :data:`SAMPLE_SECONDS` and at each
  scrape.

**Several workers** (``metrogames serve --workers N``): each process has its own counters, and
a scrape reaches one worker at random. Set ``PROMETHEUS_MULTIPROC_DIR`` to an empty folder
(wiped at each start) in the environment of ``metrogames serve``: every worker then writes its
values there and any worker's ``/metrics`` answers for all of them (``prometheus_client``'s
multiprocess mode) — counters and histograms summed over the workers, live and dead; the gauges
per live worker (a killed worker's are dropped at the next scrape). Without it (one process) the values are that process's own.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, TypeVarTuple, Unpack, cast

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
SAMPLE_SECONDS = 5.0
"""How often each worker samples its rooms in memory."""
LAG_SECONDS = 0.25
"""How often each worker measures its event loop's lag (:func:`watch_lag`)."""

ACTIONS = Counter(
    "metrogames_actions",
    "Player actions applied and stored (bots' and turn clocks' included)",
    ["game"],
)
ROUND_TRIP = Histogram(
    "metrogames_action_round_trip_seconds",
    "An action in the server (WebSocket or HTTP): received to the room's views sent",
    ["game"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
DB_WRITE = Histogram(
    "metrogames_db_write_seconds",
    "A database write on the writer thread, by operation",
    ["op"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
LOOP_LAG = Histogram(
    "metrogames_loop_lag_seconds",
    "How late the event loop ran a timer (every 0.25 s): how long one step kept the others waiting",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
ADMISSION_WAIT = Histogram(
    "metrogames_admission_wait_seconds",
    "How long an admission (room creation, seat claim, start, hello) waited for its turn",
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
JOB_QUEUE = Gauge(
    "metrogames_job_queue_length",
    "Heavy jobs queued (not yet running) in a lane",
    ["lane"],
    multiprocess_mode="livemax",
)
JOB_RUNNING = Gauge(
    "metrogames_job_running",
    "Heavy jobs running in a lane's worker processes (this worker's pools)",
    ["lane"],
    multiprocess_mode="livesum",
)
JOB_SECONDS = Histogram(
    "metrogames_job_seconds",
    "A heavy job's run time in its worker process, by kind",
    ["kind"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)
JOB_REFUSALS = Counter(
    "metrogames_job_refusals",
    "Heavy job requests refused (busy: the lane's queue is full; quota: the requester's)",
    ["kind", "reason"],
)
SOCKETS = Gauge(
    "metrogames_open_websockets",
    "Open WebSockets of this worker",
    ["worker"],
    multiprocess_mode="livesum",
)
ROOMS = Gauge(
    "metrogames_rooms_in_memory",
    "Rooms in this worker's memory",
    ["worker"],
    multiprocess_mode="livesum",
)


M = TypeVar("M", Counter, Histogram)
_CHILDREN: dict[tuple[Counter | Histogram, str], Counter | Histogram] = {}


def child(metric: M, value: str) -> M:
    """``metric.labels(value)`` (a metric of one label), looked up once per metric and value:
    ``labels`` checks the value and takes the metric's lock at each call, and the hot paths
    (every action, every database write) count with the same few children."""
    found = _CHILDREN.get((metric, value))
    if found is None:
        found = _CHILDREN[(metric, value)] = metric.labels(value)
    return cast(M, found)


def worker() -> str:
    """This process's ``worker`` label (its process id)."""
    return str(os.getpid())


def timed_write(fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
    """Run the database write ``fn(*args)`` and observe its duration in ``db_write_seconds``
    (labelled with ``fn``'s name without its leading underscore)."""
    started = time.perf_counter()
    try:
        return fn(*args)
    finally:
        op = getattr(fn, "__name__", "write").lstrip("_")
        child(DB_WRITE, op).observe(time.perf_counter() - started)


def sample_rooms(count: int) -> None:
    """Record how many rooms this worker holds in memory."""
    ROOMS.labels(worker()).set(count)


async def sample(rooms: Callable[[], int]) -> None:
    """Sample ``rooms()`` (rooms in memory) every :data:`SAMPLE_SECONDS`, forever (and show
    this worker's open sockets from the start, at 0)."""
    SOCKETS.labels(worker())
    while True:
        sample_rooms(rooms())
        await asyncio.sleep(SAMPLE_SECONDS)


async def watch_lag(period: float = LAG_SECONDS) -> None:
    """Forever: sleep ``period`` seconds and observe in ``loop_lag_seconds`` how much later
    than due the event loop woke (seconds, 0 at best)."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + period
        await asyncio.sleep(period)
        LOOP_LAG.observe(max(0.0, loop.time() - due))


def exposition() -> tuple[bytes, str]:
    """The metrics in Prometheus' text format and its content type: every worker's (in
    multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR`` set) or this process's."""
    folder = os.environ.get(MULTIPROC_ENV)
    if folder:
        forget_dead_workers(folder)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def forget_dead_workers(folder: str) -> None:
    """Drop from the multiprocess ``folder`` the live gauges of worker processes that are gone
    without saying so (killed: their files would count forever)."""
    for path in Path(folder).glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _running(int(pid)):
            multiprocess.mark_process_dead(int(pid), folder)  # type: ignore[no-untyped-call]


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's
        return True
    return True


def worker_gone() -> None:
    """At a worker's exit (multiprocess mode): drop its live gauges."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
