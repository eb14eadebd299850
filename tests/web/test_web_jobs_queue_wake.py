"""The scale-out job queue's wait (``web/infra/jobs/queue.py``) hears an answer announced
before the wait has started: the wake-up is armed before the first look, so an answer a job
worker announces while the serving worker is still claiming the job wakes the wait at once.
Before, such an announcement found no wait to wake and the answer was read only at the next
look, :data:`POLL_SECONDS` later — here made an hour, so that only the wake-up can end it."""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
from redis.asyncio import Redis

from metrogames.web.infra.jobs import queue as job_queue
from metrogames.web.infra.jobs.entry import DONE, result_key
from metrogames.web.infra.jobs.kinds import KINDS, Job
from metrogames.web.infra.jobs.queue import QueueBackend
from metrogames.web.work import WORK
from support.two_workers import redis_url
from support.web import run_async


def test_an_answer_announced_while_the_job_is_claimed_wakes_its_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = redis_url()
    monkeypatch.setattr(job_queue, "POLL_SECONDS", 3600.0)
    answer = {"moves": [], "figure": "score"}

    async def scenario() -> object:
        client = Redis.from_url(url)
        backend = QueueBackend(url, client, bound=10, work=WORK)

        async def found_running_then_finished(job: Job) -> bool:
            # another worker's RQ job computes the key; it finishes now, before the wait starts
            job.handle = "hint-elsewhere"
            while (await client.pubsub_numsub(DONE))[0][1] < 1:  # the listener hears DONE
                await asyncio.sleep(0.01)
            await client.set(result_key(job.key), json.dumps(answer), ex=60)
            await client.publish(DONE, job.key)
            for _ in range(50):  # the listener reads the announcement before the wait starts
                await asyncio.sleep(0.01)
            return True

        monkeypatch.setattr(backend, "_claim", found_running_then_finished)
        job = Job("wake-" + secrets.token_hex(6), KINDS["hint"], {}, asyncio.Future())  # type: ignore[typeddict-item]
        try:
            assert await backend.submit(job)
            return await asyncio.wait_for(job.answer, 30.0)
        finally:
            await backend.close()
            await client.aclose()

    assert run_async(scenario()) == answer
