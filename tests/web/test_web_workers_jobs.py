"""Heavy jobs with two workers and the Redis job queue (RQ): jobs run in the job workers'
processes, one job per key across the serving workers, a job nobody waits for any more is
removed from its queue or stopped, and passwords stay in each worker's own pool."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from metrogames.web.checks import hash_token, new_token
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.rooms.tables import Seat
from support.records import solo_record
from support.two_workers import job_workers, redis_url, two_workers
from support.web import act, auth, view

POSTGRES = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def jobs_of(client: TestClient) -> Jobs:
    found: Jobs = client.app.state.jobs  # type: ignore[attr-defined]
    return found


def enqueued(client: TestClient, kind: str) -> int:
    shared = jobs_of(client).shared
    assert shared is not None
    return shared.enqueued[kind]


def begin(client: TestClient, kind: str, payload: dict[str, Any], **kw: Any) -> Any:
    """A job's wait, started as a task on the app's loop; with a ``key``, returned once the
    job is in Redis (enqueued by this worker, or found there under its claim)."""
    jobs = jobs_of(client)

    async def start() -> asyncio.Task[Any]:
        return asyncio.get_running_loop().create_task(jobs.run(kind, payload, **kw))

    task = client.portal.call(start)  # type: ignore[union-attr]
    key = kw.get("key")
    if key is not None:
        until(lambda: in_redis(jobs, key))
    return task


def in_redis(jobs: Jobs, key: str) -> bool:
    """Whether the job of ``key`` has an RQ job in Redis (queued, started or done)."""
    job = jobs.jobs.get(key)
    return job is not None and job.handle is not None and rq_status(str(job.handle)) is not None


def end(client: TestClient, task: Any, cancel: bool = False) -> Any:
    async def finish() -> Any:
        if cancel:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return None
        return await task

    return client.portal.call(finish)  # type: ignore[union-attr]


def until(check: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def rq_status(rq_id: str) -> str | None:
    url = os.environ["METROGAMES_TEST_REDIS"]
    client = redis.Redis.from_url(url)
    try:
        status = client.hget(f"rq:job:{rq_id}", "status")
    finally:
        client.close()
    return None if status is None else bytes(status).decode()  # type: ignore[arg-type]


@POSTGRES
def test_hints_bots_and_passwords_run_elsewhere_and_equal_hints_once(db_url: str) -> None:
    with job_workers(redis_url()), two_workers(db_url) as (a, b):
        rooms_a, rooms_b = (c.app.state.rooms for c in (a, b))  # type: ignore[attr-defined]
        tokens = [new_token(), new_token()]

        async def deal(rooms: Any, token: str) -> str:
            seat = Seat(0, "Ada", True, None, hash_token(token))
            return str((await rooms.create_dealt("london", "solo", 777, [seat])).id)

        ids = [
            a.portal.call(deal, rooms_a, tokens[0]),  # type: ignore[union-attr]
            b.portal.call(deal, rooms_b, tokens[1]),  # type: ignore[union-attr]
        ]
        answers = []
        for client, room, token in zip((a, b), ids, tokens, strict=True):
            step = view(client, room, token)["step"]
            r = client.post(f"/api/rooms/{room}/hint", headers=auth(token), json={"step": step})
            assert r.status_code == 200, r.text
            answers.append(r.json()["moves"])
        # one hint computed for both rooms, on both workers, by a job worker's process
        assert answers[0] == answers[1]
        assert enqueued(a, "hint") + enqueued(b, "hint") == 1
        ran = jobs_of(a).ran["hint"] | jobs_of(b).ran["hint"]
        assert ran and os.getpid() not in ran
        # a searching bot's decision goes through the queue too
        made = a.post(
            "/api/rooms",
            json={"game": "metro", "mode": "bots", "seats": [{"name": "Ada"}, {"bot": "hard"}]},
        ).json()
        room, token = made["room"]["room"], made["tokens"]["0"]
        v = view(a, room, token)
        after = act(a, room, token, v["legal"][0], v["step"]).json()
        assert after["step"] > v["step"] + 1 and enqueued(a, "decide") >= 1
        assert os.getpid() not in jobs_of(a).ran["decide"]
        # an analysis through the queue; the same record on the other worker: found in Redis
        for client in (a, b):
            client.app.state.settings.analysis_budget = "rough"  # type: ignore[attr-defined]
        record = solo_record(41, "random")
        first = a.post("/api/analyses", json=record)
        assert first.status_code == 200, first.text
        assert b.post("/api/analyses", json=record).json() == first.json()
        assert enqueued(a, "analysis") == 1 and enqueued(b, "analysis") == 0
        assert os.getpid() not in jobs_of(a).ran["analysis"]
        # passwords: in the worker's own pool, never through Redis
        body = {"name": f"Ada{secrets.token_hex(4)}", "password": "correct horse battery"}
        assert a.post("/api/accounts", json=body).status_code == 201
        assert b.post("/api/sessions", json=body).status_code == 200
        assert os.getpid() not in jobs_of(a).ran["hash"] | jobs_of(b).ran["verify"]
        assert enqueued(a, "hash") == enqueued(b, "verify") == 0


@POSTGRES
def test_a_job_nobody_waits_for_is_removed_or_stopped_across_workers(db_url: str) -> None:
    with job_workers(redis_url(), play=1, slow=1), two_workers(db_url) as (a, b):
        # shared by a request on each worker: the first leaving keeps it
        on_a = begin(a, "probe", {"seconds": 2.0}, key="probe:shared")
        on_b = begin(b, "probe", {"seconds": 2.0}, key="probe:shared")
        end(a, on_a, cancel=True)
        pid = end(b, on_b)
        assert pid != os.getpid() and enqueued(a, "probe") + enqueued(b, "probe") == 1
        # the slow lane's one worker busy; a queued job's requester leaves: removed
        running = begin(a, "probe", {"seconds": 60.0}, key="probe:long")
        queued = begin(b, "probe", {"seconds": 60.0}, key="probe:queued")
        shared_b = jobs_of(b).shared
        assert shared_b is not None
        job = jobs_of(b).jobs["probe:queued"]
        rq_queued = str(job.handle)
        assert rq_status(rq_queued) == "queued"
        end(b, queued, cancel=True)
        until(lambda: rq_status(rq_queued) == "canceled")
        # the running one's requester leaves: stopped where it runs
        rq_running = str(jobs_of(a).jobs["probe:long"].handle)
        until(lambda: rq_status(rq_running) == "started")
        end(a, running, cancel=True)
        until(lambda: rq_status(rq_running) in {"stopped", "failed"})
        # the lane is free at once: a new job answers in far less than the 60 s stopped
        started = time.monotonic()
        assert end(a, begin(a, "probe", {"seconds": 0.0})) != os.getpid()
        assert time.monotonic() - started < 20
