"""The one door to heavy work: :class:`Jobs` (``app.state.jobs``), used by the routes and
services for hints, bots' searching decisions, map checks, analyses, uploaded replays, the daily expert's
game and passwords.

:meth:`Jobs.run` is the single place where a job request is accepted, in this order:

1. a kind whose answers are kept (``hint``, ``analysis``, ``replay``) and whose answer for the
   key is in this process's cache is answered at once (nothing counted);
2. the requester's quota (``who``: its address, its account): at most ``job_quota`` jobs
   queued or running at once for each, else 429 ``rate-limited`` with ``Retry-After``
   (counted in Redis with several workers);
3. a job already queued or running for the same key (here, or on another worker through
   Redis) is waited for; else ``on_start()`` (e.g. a per-minute rate limit) and the job is
   queued in its lane — refused with 503 ``busy`` and ``Retry-After`` when the lane's queue
   holds ``job_queue`` jobs (nothing queued, nothing stored);
4. the wait has a deadline (the kind's time limit and a margin); a request that stops waiting
   (its client is gone: :func:`~metrogames.web.api.jobs.while_connected`) gives up its
   interest, and a job nobody waits for any more is dropped from its queue, or stopped.

Where jobs run: the single-process start keeps a process pool per lane (:mod:`.pool`); with
Redis (``serve --workers N``) the ``play`` and ``slow`` lanes are RQ queues run by job workers
(:mod:`.queue`, :mod:`.worker`), while passwords stay in each serving worker's own small pool —
a password never travels through Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Literal, overload

from cachetools import LRUCache
from redis.asyncio import Redis
from redis.exceptions import RedisError
from typing_extensions import Unpack

from metrogames.i18n import N_, Message, msg
from metrogames.web.errors import RoomError
from metrogames.web.infra import metrics
from metrogames.web.infra.config import Settings
from metrogames.web.infra.jobs.entry import PREFIX
from metrogames.web.infra.jobs.kinds import KINDS, Job, Work
from metrogames.web.infra.jobs.pool import LocalBackend
from metrogames.web.infra.jobs.process import refusal_of
from metrogames.web.infra.jobs.queue import QueueBackend
from metrogames.web.infra.jobs.shapes import (
    AnalysisJob,
    Answer,
    DecideAnswer,
    DecideJob,
    ExpertJob,
    HashJob,
    HintAnswer,
    HintJob,
    How,
    JobPayload,
    JobValue,
    MapCheckAnswer,
    MapCheckJob,
    MapReportAnswer,
    MapReportJob,
    ProbeJob,
    ReplayJob,
    VerifyAnswer,
    VerifyJob,
)

log = logging.getLogger("metrogames.web.jobs.service")  # the name its log lines always had
PASSWORD_PROCESSES = 2
"""Processes hashing passwords per serving process (each hash holds 64 MiB while it runs)."""
CACHE_BYTES = 32 * 1024 * 1024
"""Answers kept in this process, by key (their JSON's size)."""
GRACE = 10.0
"""Seconds a wait gives a job beyond the kind's time limit (queueing, start-up)."""
RETRY_BUSY = 5
"""``Retry-After`` of a ``busy`` refusal (seconds)."""
RETRY_QUOTA = 2
"""``Retry-After`` of a refusal over the quota (seconds)."""
QUOTA_SECONDS = 3600
"""How long a count in Redis outlives a worker that died holding it."""


def busy(kind: str, why: str = "full") -> RoomError:
    """503 ``busy``: the lane's queue is full (or the server is stopping)."""
    metrics.JOB_REFUSALS.labels(kind, "busy").inc()
    text = (
        N_("the server is stopping; try again shortly")
        if why == "stopping"
        else N_("the server is busy with work of this kind; try again in {wait} s")
    )
    return RoomError(503, "busy", msg(text, wait=RETRY_BUSY), headers={"Retry-After": str(RETRY_BUSY)})


def unreachable(exc: BaseException) -> RoomError:
    """503 ``unavailable``: Redis, where the jobs are queued and counted, does not answer."""
    log.warning("jobs: redis failed (%s)", exc)
    return RoomError(503, "unavailable", msg(N_("the server is busy; try again")))


class Quotas:
    """Jobs queued or running at once per requester key: in this process, or in Redis."""

    def __init__(self, redis: Redis | None) -> None:
        self.redis = redis
        self.counts: Counter[str] = Counter()

    async def take(self, who: str, limit: int) -> bool:
        """Count one more job of ``who`` unless it has ``limit`` already."""
        if self.redis is None:
            if self.counts[who] >= limit:
                return False
            self.counts[who] += 1
            return True
        key = PREFIX + "quota:" + who
        pipe = self.redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, QUOTA_SECONDS)
        count, _ = await pipe.execute()
        if count > limit:
            await self.redis.decr(key)
            return False
        return True

    async def give(self, who: str) -> None:
        """Count one job of ``who`` less."""
        if self.redis is None:
            self.counts[who] -= 1
            if self.counts[who] <= 0:
                del self.counts[who]
            return
        await self.redis.decr(PREFIX + "quota:" + who)


class Jobs:
    """The heavy jobs of one serving process (``settings``: ``job_workers``,
    ``job_slow_workers``, ``job_queue``, ``job_quota``, ``job_cpus``, ``job_idle``,
    ``redis_url``; ``redis``: the app's client when several workers share a Redis server;
    ``work``: the job functions, the app's :data:`metrogames.web.work.WORK`)."""

    def __init__(self, settings: Settings, work: Work, redis: Redis | None = None) -> None:
        self.quota = settings.job_quota
        lanes = {"passwords": PASSWORD_PROCESSES}
        self.shared: QueueBackend | None = None
        if redis is not None and settings.redis_url:
            self.shared = QueueBackend(settings.redis_url, redis, settings.job_queue, work)
        else:
            lanes |= {"play": settings.job_workers, "slow": settings.job_slow_workers}
        self.local = LocalBackend(
            lanes, settings.job_queue, work, settings.games, settings.job_cpus, settings.job_idle
        )
        self.quotas = Quotas(redis)
        self.cache: LRUCache[str, tuple[JobValue, int]] = LRUCache(CACHE_BYTES, getsizeof=lambda v: v[1])
        self.jobs: dict[str, Job] = {}
        self.started: Counter[str] = Counter()
        """Jobs this process handed its backends, by kind (with Redis, what it put in a queue
        is the backend's ``enqueued``)."""
        self.ran: dict[str, set[int]] = {}
        """The processes that answered this process's jobs, by kind."""
        self.closed = False
        self._background: set[asyncio.Task[None]] = set()

    def warm(self) -> None:
        """Start this process's job processes now rather than at their first jobs (the
        single-process start's lanes, and the passwords lane)."""
        self.local.warm()

    def depth(self, lane: str) -> int:
        """Jobs queued in ``lane`` (as this process last saw it)."""
        if lane in self.local.lanes:
            return self.local.depth(lane)
        assert self.shared is not None
        return self.shared.depth(lane)

    @overload
    async def run(self, kind: Literal["decide"], payload: DecideJob, **how: Unpack[How]) -> DecideAnswer: ...
    @overload
    async def run(self, kind: Literal["hint"], payload: HintJob, **how: Unpack[How]) -> HintAnswer: ...
    @overload
    async def run(
        self, kind: Literal["mapcheck"], payload: MapCheckJob, **how: Unpack[How]
    ) -> MapCheckAnswer: ...
    @overload
    async def run(
        self, kind: Literal["mapreport"], payload: MapReportJob, **how: Unpack[How]
    ) -> MapReportAnswer: ...
    @overload
    async def run(self, kind: Literal["analysis"], payload: AnalysisJob, **how: Unpack[How]) -> str: ...
    @overload
    async def run(self, kind: Literal["replay"], payload: ReplayJob, **how: Unpack[How]) -> str: ...
    @overload
    async def run(self, kind: Literal["expert"], payload: ExpertJob, **how: Unpack[How]) -> int: ...
    @overload
    async def run(self, kind: Literal["hash"], payload: HashJob, **how: Unpack[How]) -> str: ...
    @overload
    async def run(self, kind: Literal["verify"], payload: VerifyJob, **how: Unpack[How]) -> VerifyAnswer: ...
    @overload
    async def run(self, kind: Literal["probe"], payload: ProbeJob, **how: Unpack[How]) -> int: ...
    async def run(
        self,
        kind: str,
        payload: JobPayload,
        *,
        key: str | None = None,
        who: Sequence[str] = (),
        on_start: Callable[[], object] | None = None,
    ) -> JobValue:
        """The answer of job ``kind`` on ``payload`` (:mod:`metrogames.web.work` says what each takes and
        gives; :mod:`.shapes` types them, one overload per kind), computed once per ``key`` (the content it is made of; ``None``: a job of its
        own) for the requesters ``who`` (quota keys such as ``address:…``, ``account:…``);
        ``on_start()`` runs only when a new job is queued (it may refuse).

        Raises:
            RoomError: 429 ``rate-limited`` (a requester's quota), 503 ``busy`` (the lane's
                queue is full, the job outlived its deadline, or the server is stopping), or
                the job's own refusal (e.g. an analysis of a record that is not solo).
            RuntimeError: the job failed (a bug: logged with its traceback).
        """
        spec = KINDS[kind]
        if key is not None and spec.cached:
            hit = self.cache.get(key)
            if hit is not None:
                return hit[0]
        if self.closed:
            raise busy(kind, "stopping")
        key = key or f"{kind}:{secrets.token_hex(12)}"
        async with self._quota(kind, who):
            job = self.jobs.get(key)
            fresh = job is None
            if job is None:
                job = Job(key, spec, payload, asyncio.get_running_loop().create_future())
                self.jobs[key] = job
                job.answer.add_done_callback(functools.partial(self._finished, job))
            job.waiters += 1
            try:
                if fresh:
                    await self._submit(job, on_start)
                async with asyncio.timeout(spec.timeout + GRACE):
                    answer = await asyncio.shield(job.answer)
            except TimeoutError:
                raise busy(kind, "late") from None
            finally:
                job.waiters -= 1
                if job.waiters == 0 and not job.answer.done():
                    self._abandon(job)
        return self._value(job, answer)

    async def _submit(self, job: Job, on_start: Callable[[], object] | None) -> None:
        try:
            if on_start is not None:
                started = on_start()  # e.g. a rate limit's charge (which may become async)
                if inspect.isawaitable(started):
                    await started
            backend = self.shared if job.kind.lane not in self.local.lanes else None
            queued = self.local.submit(job) if backend is None else await backend.submit(job)
        except (RedisError, OSError) as exc:
            refusal = unreachable(exc)
            if not job.answer.done():
                job.answer.set_exception(refusal)
            raise refusal from exc
        except Exception as exc:  # the waiters that joined meanwhile get the same refusal
            if not job.answer.done():
                job.answer.set_exception(exc)
            raise
        if not queued:
            job.answer.set_result({"busy": True})
        else:
            self.started[job.kind.name] += 1

    def _finished(self, job: Job, _answer: object = None) -> None:
        if self.jobs.get(job.key) is job:
            del self.jobs[job.key]
        if self.shared is not None and job.kind.lane not in self.local.lanes:
            self._spawn(self.shared.release(job, drop=_given_up(job)))
        answer = job.answer
        if not answer.cancelled() and answer.exception() is None and "pid" in answer.result():
            self.ran.setdefault(job.kind.name, set()).add(answer.result()["pid"])
            if job.mine:
                metrics.JOB_SECONDS.labels(job.kind.name).observe(answer.result()["seconds"])
        if job.kind.cached and not answer.cancelled() and answer.exception() is None:
            value = answer.result().get("value")
            if value is not None:
                size = len(value) if isinstance(value, str) else len(json.dumps(value))
                self.cache[job.key] = (value, size)
        elif not answer.cancelled():
            answer.exception()  # retrieved: its waiters raised it

    def _abandon(self, job: Job) -> None:
        if job.kind.lane in self.local.lanes:
            self.local.abandon(job)
        else:  # the answer is cancelled: _finished drops the job in Redis
            job.answer.cancel()

    def _spawn(self, step: Awaitable[object]) -> None:
        """Run ``step`` (a count given back in Redis) in the background, its failure logged."""

        async def run() -> None:
            try:
                await step
            except (RedisError, OSError) as exc:
                log.warning("jobs: redis failed while giving a count back (%s)", exc)

        task = asyncio.get_running_loop().create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _value(self, job: Job, answer: Answer) -> JobValue:
        kind = job.kind.name
        if "value" in answer:
            return answer["value"]
        if "refused" in answer:
            raise refusal_of(answer["refused"])
        if "busy" in answer:
            raise busy(kind)
        if "stopping" in answer:
            raise busy(kind, "stopping")
        log.error("jobs: a %s job failed: %s", kind, answer.get("failed"))
        raise RuntimeError(f"the {kind} job failed")

    @contextlib.asynccontextmanager
    async def _quota(self, kind: str, who: Sequence[str]) -> AsyncIterator[None]:
        taken: list[str] = []
        try:
            for requester in who:
                try:
                    allowed = await self.quotas.take(requester, self.quota)
                except (RedisError, OSError) as exc:
                    raise unreachable(exc) from exc
                if not allowed:
                    metrics.JOB_REFUSALS.labels(kind, "quota").inc()
                    who = N_("address") if requester.startswith("address:") else N_("account")
                    raise RoomError(
                        429,
                        "rate-limited",
                        msg(
                            N_("too many {what} from this {who}: at most {limit} (try again in {wait} s)"),
                            what=Message(N_("heavy requests (hints, analyses, sign-ins) under way")),
                            who=Message(who),
                            limit=self.quota,
                            wait=RETRY_QUOTA,
                        ),
                        headers={"Retry-After": str(RETRY_QUOTA)},
                    )
                taken.append(requester)
            yield
        finally:
            for requester in taken:
                if self.quotas.redis is None:
                    await self.quotas.give(requester)
                else:
                    self._spawn(self.quotas.give(requester))

    async def close(self) -> None:
        """At shutdown: refuse new jobs, drop the queued ones and stop the running ones (the
        waits still under way are answered 503 ``busy``); never waits for queued work."""
        self.closed = True
        for job in list(self.jobs.values()):
            if job.kind.lane not in self.local.lanes and not job.answer.done():
                job.answer.set_result({"stopping": True})  # _finished drops it in Redis
        self.jobs.clear()
        await self.local.close()
        if self._background:
            await asyncio.wait(list(self._background), timeout=5.0)
        if self.shared is not None:
            await self.shared.close()


def _given_up(job: Job) -> bool:
    """Whether ``job`` ended without its answer: abandoned, or the server stopping."""
    answer = job.answer
    if answer.cancelled():
        return True
    return answer.exception() is None and "stopping" in answer.result()
