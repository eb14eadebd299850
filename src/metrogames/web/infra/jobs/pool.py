"""The local backend: a process pool per lane (``pebble.ProcessPool``), for the single-process
start and for the jobs that never leave a serving process's machine (passwords).

Why pebble: a running job's future can be cancelled, which ends the worker process running it
(the pool starts another), and a job past its time limit is stopped the same way — the
standard library's pools can do neither. The worker processes are started by a *forkserver*
(never forked from the serving process, which has threads and an event loop) that has
imported the job functions' module once (:class:`~.kinds.Work`'s ``run``), and each lowers its
CPU priority (``os.nice``) and warms the games before its first job
(:func:`~metrogames.web.infra.jobs.process.preload`). A lane's pool starts at its
first job, or when the server starts (:meth:`LocalBackend.warm`, ``METROGAMES_JOB_WARM``).

The queue is this module's, not the pool's: a lane hands the pool at most as many jobs as it
has processes, so a job still queued is dropped without a trace when nobody waits for it any
more, and the queue is ordered by the kind's priority (a bot's decision before a hint); a lane
of several processes keeps one for its first priority.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import multiprocessing
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FutureTimeout
from multiprocessing.context import ForkServerContext

from pebble import ProcessExpired, ProcessFuture, ProcessPool

from metrogames.web.infra import metrics
from metrogames.web.infra.jobs import process
from metrogames.web.infra.jobs.kinds import NICE, Job, Work
from metrogames.web.infra.jobs.shapes import Answer

log = logging.getLogger("metrogames.web.jobs.pool")  # the name its log lines always had
STOP_SECONDS = 5.0
"""How long closing waits for a lane's processes to end."""


def _context(work: Work) -> ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([work.run.__module__])
    return context


class Lane:
    """One lane's queue and pool: ``workers`` processes, at most ``bound`` jobs queued; its
    processes load the plug-in games of ``plugins`` (``METROGAMES_GAMES``) as the server did
    and run the jobs with ``work.run``."""

    def __init__(
        self,
        name: str,
        workers: int,
        bound: int,
        work: Work,
        plugins: str = "",
        cpus: str = "",
        idle: bool = True,
    ) -> None:
        self.name = name
        self.work = work
        self.plugins = plugins
        self.cpus = cpus
        self.idle = idle
        self.workers = workers
        self.bound = bound
        self.queue: list[tuple[int, int, Job]] = []
        self.running: set[Job] = set()
        self.pool: ProcessPool | None = None
        self.warmed: ProcessFuture[int] | None = None
        self._seq = 0

    def depth(self) -> int:
        """Jobs queued (not yet running)."""
        return len(self.queue)

    def submit(self, job: Job) -> bool:
        """Queue ``job`` (``False``: the queue is full, nothing queued)."""
        if len(self.queue) >= self.bound:
            return False
        self._seq += 1
        job.seq = self._seq
        heapq.heappush(self.queue, (job.kind.priority, job.seq, job))
        self._pump()
        return True

    def abandon(self, job: Job) -> None:
        """Nobody waits for ``job``: drop it from the queue, or stop its process."""
        if job in self.running:
            future = job.handle
            assert isinstance(future, ProcessFuture)  # a running job's, as _start set it
            future.cancel()  # type: ignore[no-untyped-call]  # ends the worker process; the pool starts another
            if not job.answer.done():
                job.answer.cancel()  # a new request for its key makes a new job
            return
        entries = [e for e in self.queue if e[2] is not job]
        if len(entries) != len(self.queue):
            self.queue = entries
            heapq.heapify(self.queue)
            metrics.JOB_QUEUE.labels(self.name).set(len(self.queue))
        if not job.answer.done():
            job.answer.cancel()

    def _pump(self) -> None:
        """Start queued jobs, first priority first, while processes are free — one process
        kept for the lane's first priority when it has several (a bot's decision never waits
        for two hints to end)."""
        while self.queue and len(self.running) < self.workers:
            priority, _, job = self.queue[0]
            if job.answer.done():
                heapq.heappop(self.queue)
                continue
            others = sum(1 for j in self.running if j.kind.priority > 0)
            if priority > 0 and self.workers > 1 and others >= self.workers - 1:
                break
            heapq.heappop(self.queue)
            self._start(job)
        metrics.JOB_QUEUE.labels(self.name).set(len(self.queue))

    def warm(self) -> None:
        """Start the lane's processes now, before its first job (each warms the games, at its
        lower priority), instead of at the first job; ``warmed`` is answered with the id of
        the process that ran the start's no-op job."""
        self.warmed = self._pool().schedule(process.ready)

    def _pool(self) -> ProcessPool:
        if self.pool is None:
            self.pool = ProcessPool(
                self.workers,
                initializer=process.preload,
                initargs=(
                    NICE.get(self.name, 10),
                    self.name != "passwords",
                    self.plugins,
                    self.cpus,
                    self.idle,
                ),
                context=_context(self.work),
            )
        return self.pool

    def _start(self, job: Job) -> None:
        pool = self._pool()
        loop = asyncio.get_running_loop()
        job.mine = True
        future = pool.schedule(self.work.run, (job.kind.name, job.payload), timeout=job.kind.timeout)
        job.handle = future
        self.running.add(job)
        metrics.JOB_RUNNING.labels(self.name).set(len(self.running))

        def finished(done: ProcessFuture[Answer]) -> None:
            loop.call_soon_threadsafe(self._finished, job, done)

        future.add_done_callback(finished)  # type: ignore[arg-type]

    def _finished(self, job: Job, done: ProcessFuture[Answer]) -> None:
        self.running.discard(job)
        metrics.JOB_RUNNING.labels(self.name).set(len(self.running))
        if not job.answer.done():
            job.answer.set_result(_answer(done))
        if self.pool is not None and self.pool.active:
            self._pump()

    def drop(self) -> ProcessPool | None:
        """Drop the queued jobs and give up the running ones (their waiters are told at
        once); returns the pool, whose processes :func:`_stop` ends."""
        for job in [entry[2] for entry in self.queue] + list(self.running):
            if not job.answer.done():
                job.answer.set_result({"stopping": True})
        self.queue = []
        metrics.JOB_QUEUE.labels(self.name).set(0)
        metrics.JOB_RUNNING.labels(self.name).set(0)
        pool, self.pool = self.pool, None
        return pool


def _stop(pool: ProcessPool) -> None:
    """End ``pool``'s processes, running jobs and all (blocks: on a thread)."""
    pool.stop()  # type: ignore[no-untyped-call]
    try:
        pool.join(STOP_SECONDS)
    except TimeoutError:  # pragma: no cover - pebble kills its workers on stop
        log.warning("jobs: a pool's processes did not end in time")


def _answer(done: ProcessFuture[Answer]) -> Answer:
    """The answer of a finished pool future (as :func:`~metrogames.web.infra.jobs.process.run`'s)."""
    try:
        answer = done.result()
    except CancelledError:
        return {"failed": "the job was stopped"}
    except FutureTimeout:
        return {"failed": "the job ran past its time limit and was stopped"}
    except ProcessExpired as exc:
        return {"failed": f"the job's process died ({exc})"}
    except Exception as exc:  # e.g. a payload that cannot be sent to the process
        return {"failed": f"the job could not run: {exc!r}"}
    return answer


class LocalBackend:
    """The lanes named in ``workers`` (lane → processes), each with at most ``bound`` jobs
    queued, their processes running the job functions of ``work``, loading the plug-in games of
    ``plugins``, kept to the CPUs of ``cpus`` (``METROGAMES_JOB_CPUS``) and running a client's
    chosen jobs on the idle policy with ``idle`` (``METROGAMES_JOB_IDLE``)."""

    def __init__(
        self,
        workers: dict[str, int],
        bound: int,
        work: Work,
        plugins: str = "",
        cpus: str = "",
        idle: bool = True,
    ) -> None:
        self.lanes = {
            name: Lane(name, count, bound, work, plugins, cpus, idle)
            for name, count in workers.items()
        }

    def submit(self, job: Job) -> bool:
        """Queue ``job`` in its lane (``False``: the lane's queue is full)."""
        return self.lanes[job.kind.lane].submit(job)

    def abandon(self, job: Job) -> None:
        """Nobody waits for ``job`` any more: drop or stop it."""
        self.lanes[job.kind.lane].abandon(job)

    def depth(self, lane: str) -> int:
        """Jobs queued in ``lane``."""
        return self.lanes[lane].depth()

    def warm(self) -> None:
        """Start every lane's processes now (:meth:`Lane.warm`)."""
        for lane in self.lanes.values():
            lane.warm()

    async def close(self) -> None:
        """Drop every queued job and stop the running ones (off the event loop)."""
        pools = [lane.drop() for lane in self.lanes.values()]
        await asyncio.gather(*(asyncio.to_thread(_stop, p) for p in pools if p is not None))
