"""The scale-out backend: the ``play`` and ``slow`` lanes as RQ queues on the shared Redis,
run by job worker processes of their own (:mod:`.worker`).

Why RQ (over arq and Dramatiq): its worker runs each job in a *work horse* forked from a worker
that has already imported and warmed the games, and a running job can be stopped from any
process (``send_stop_job_command``: the horse is killed) and a queued one removed
(``Job.cancel``) — arq runs jobs as coroutines (a CPU-bound job blocks its loop and cannot be
aborted), Dramatiq's workers are threads that cannot be stopped mid-job. A worker listens to
its lane's queues in priority order (one queue per priority: a bot's decision is taken before
a hint). Jobs and their arguments are JSON (RQ's ``JSONSerializer``).

Across the serving workers one job per key: a claim (``SET NX``) decides which worker enqueues
it; the job's entry (:class:`~.kinds.Work`'s ``entry``) stores the answer under the key (kept for cached kinds,
briefly for the others) and announces it (``PUBLISH``); every waiting worker then reads it.
How many requests of all workers wait for a key is counted in Redis: when the count drops to
zero the job is removed from its queue, or stopped if it runs. Each wait also looks at the
job every :data:`POLL_SECONDS` (a lost announcement, a job stopped or lost: claimed again).
RQ's own calls are synchronous: they run on this module's two threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar, TypeVarTuple, Unpack

import redis
from redis.asyncio import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.command import send_stop_job_command
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job as RqJob
from rq.job import JobStatus
from rq.serializers import JSONSerializer

from metrogames.web.infra import metrics
from metrogames.web.infra.jobs.entry import (
    BRIEF_SECONDS,
    DONE,
    claim_key,
    interest_key,
    queue_name,
    queue_names,
    result_key,
    text_of,
)
from metrogames.web.infra.jobs.kinds import QUEUED_LANES, Job, Work

log = logging.getLogger("metrogames.web.jobs.queue")  # the name its log lines always had
T = TypeVar("T")
Ts = TypeVarTuple("Ts")
POLL_SECONDS = 1.0
"""How often a wait looks at its job besides the announcements."""
REDIS_TIMEOUT = 2.0


class QueueBackend:
    """The lanes ``play`` and ``slow`` on the Redis server at ``url`` (``client``: the app's
    redis.asyncio client), each with at most ``bound`` jobs queued, each job an RQ job of
    ``work.entry``."""

    lanes = QUEUED_LANES

    def __init__(self, url: str, client: Redis, bound: int, work: Work) -> None:
        self.redis = client
        self.entry = work.entry
        self.bound = bound
        self.sync = redis.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
        )
        self.queues = {
            name: Queue(name, connection=self.sync, serializer=JSONSerializer)
            for lane in self.lanes
            for name in queue_names(lane)
        }
        self._threads = ThreadPoolExecutor(2, thread_name_prefix="metrogames-rq")
        self._done: dict[str, asyncio.Event] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._depths: dict[str, int] = {}
        self.enqueued: Counter[str] = Counter()
        """Jobs this worker put in a queue, by kind (not those it found queued or answered)."""
        self._interested: set[Job] = set()
        """The jobs whose waiters this worker counts in Redis (one count per job here)."""

    async def _call(self, fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._threads, fn, *args)

    def depth(self, lane: str) -> int:
        """Jobs queued in ``lane`` when last looked at."""
        return self._depths.get(lane, 0)

    async def submit(self, job: Job) -> bool:
        """Have ``job`` computed (``False``: its lane's queue is full, nothing queued); its
        ``answer`` resolves when a worker has stored it."""
        if self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(self._listen())
        interest = interest_key(job.key)
        pipe = self.redis.pipeline()
        pipe.incr(interest)
        pipe.expire(interest, int(job.kind.timeout) + 60)
        await pipe.execute()
        self._interested.add(job)
        # the wake-up armed before the first look: an answer announced while the claim looks
        # (or before the wait below starts) wakes the wait at once, not after POLL_SECONDS
        self._done.setdefault(job.key, asyncio.Event())
        try:
            if not await self._claim(job):
                self._done.pop(job.key, None)
                await self.release(job, drop=False)
                return False
        except BaseException:
            self._done.pop(job.key, None)
            await self.release(job, drop=True)
            raise
        task = asyncio.get_running_loop().create_task(self._wait(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _claim(self, job: Job) -> bool:
        """Find ``job``'s answer, or the job computing it, or enqueue it (``False``: refused,
        the lane is full)."""
        if await self._answered(job):
            return True
        rq_id = f"{job.kind.name}-{secrets.token_hex(8)}"
        claim = claim_key(job.key)
        ttl = int(job.kind.timeout) + 60
        if not await self.redis.set(claim, rq_id, nx=True, ex=ttl):
            held = await self.redis.get(claim)
            if held is not None:
                job.handle = text_of(held)
                return True
            return await self._claim(job)  # released meanwhile: answered, or claim again
        depth = await self._lane_depth(job.kind.lane)
        if depth >= self.bound:
            await self.redis.delete(claim)
            return False
        job.handle = rq_id
        job.mine = True
        queue = self.queues[queue_name(job)]
        await self._call(
            lambda: queue.enqueue_call(
                self.entry,
                args=(job.kind.name, job.key, job.payload),
                timeout=int(job.kind.timeout),
                result_ttl=0,
                failure_ttl=BRIEF_SECONDS,
                ttl=int(job.kind.timeout),
                job_id=rq_id,
            )
        )
        self.enqueued[job.kind.name] += 1
        return True

    async def _lane_depth(self, lane: str) -> int:
        pipe = self.redis.pipeline()
        for name in queue_names(lane):
            pipe.llen(self.queues[name].key)
        depth = int(sum(await pipe.execute()))
        self._depths[lane] = depth
        metrics.JOB_QUEUE.labels(lane).set(depth)
        return depth

    async def _answered(self, job: Job) -> bool:
        text = await self.redis.get(result_key(job.key))
        if text is None:
            return False
        if not job.answer.done():
            job.answer.set_result(json.loads(text))
        return True

    async def _wait(self, job: Job) -> None:
        """Until ``job`` is answered (or nobody waits): its announcement, or a look at it
        every :data:`POLL_SECONDS`."""
        event = self._done.setdefault(job.key, asyncio.Event())
        misses = 0
        try:
            while not job.answer.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), POLL_SECONDS)
                event.clear()
                try:
                    if await self._answered(job) or job.answer.done():
                        return
                    lost = await self._lost(job)
                    misses = misses + 1 if lost else 0
                    if misses >= 2:  # twice: not a job being enqueued right now
                        misses = 0
                        await self.redis.delete(claim_key(job.key))
                        if not await self._claim(job) and not job.answer.done():
                            job.answer.set_result({"busy": True})
                except (RedisError, OSError) as exc:
                    log.warning("jobs: redis failed while waiting for %s (%s)", job.key, exc)
        finally:
            self._done.pop(job.key, None)

    async def _lost(self, job: Job) -> bool:
        """Whether ``job``'s RQ job is gone without an answer (stopped, failed, expired)."""
        status = await self.redis.hget(f"rq:job:{job.handle}", "status")
        if status is None:
            return not await self._answered(job)
        return text_of(status) in {
            JobStatus.FAILED.value,
            JobStatus.STOPPED.value,
            JobStatus.CANCELED.value,
        }

    async def _listen(self) -> None:
        """Until cancelled: wake the waits of each announced key."""
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(DONE)
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is None:
                        continue
                    event = self._done.get(text_of(message["data"]))
                    if event is not None:
                        event.set()
            except (RedisError, OSError) as exc:
                log.warning("jobs: redis failed while listening (%s); again in 1 s", exc)
                await asyncio.sleep(1.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def abandon(self, job: Job) -> None:
        """Nobody here waits for ``job`` any more (:meth:`release` with ``drop``)."""
        if not job.answer.done():
            job.answer.cancel()
        await self.release(job, drop=True)

    async def release(self, job: Job, drop: bool) -> None:
        """Count this worker's interest in ``job`` off in Redis (once); with ``drop`` and no
        worker left waiting, remove the job from its queue or stop it where it runs."""
        if job not in self._interested:
            return
        self._interested.discard(job)
        left = await self.redis.decr(interest_key(job.key))
        if left > 0 or job.handle is None or not drop:
            return
        rq_id = str(job.handle)
        await self._call(self._drop, rq_id)
        claim = claim_key(job.key)
        if text_of(await self.redis.get(claim) or b"") == rq_id:
            await self.redis.delete(claim)

    def _drop(self, rq_id: str) -> None:
        """Remove the RQ job ``rq_id`` from its queue, or stop it where it runs."""
        try:
            found = RqJob.fetch(rq_id, connection=self.sync, serializer=JSONSerializer)
            status = found.get_status()
            if status in (JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED):
                found.cancel()
            elif status == JobStatus.STARTED:
                send_stop_job_command(self.sync, rq_id, serializer=JSONSerializer)
        except (NoSuchJobError, InvalidJobOperation):
            pass  # finished or gone meanwhile

    async def close(self) -> None:
        """Stop listening; the jobs this worker waited for were abandoned by their waits."""
        if self._listener is not None:
            self._listener.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(
            *([self._listener] if self._listener else []), *self._tasks, return_exceptions=True
        )
        self._threads.shutdown(wait=False, cancel_futures=True)
        self.sync.close()
