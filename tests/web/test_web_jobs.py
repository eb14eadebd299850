"""Heavy jobs (``metrogames.web.infra.jobs``) in the single-process start: they run in other
processes, their lanes' queues and the requesters' quotas refuse with the documented reasons,
a job nobody waits for is stopped, equal positions are one hint."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from metrogames.web.app import create_app
from metrogames.web.checks import hash_token, new_token
from metrogames.web.errors import RoomError
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.infra.models import AccountRow
from metrogames.web.rooms.tables import Seat
from support.web import act, auth, create, make_settings, view


@pytest.fixture
def app_client(db_url: str) -> Iterator[TestClient]:
    settings = make_settings(db_url, job_slow_workers=1, job_queue=1, job_quota=1)
    with TestClient(create_app(settings)) as client:
        yield client


def jobs_of(client: TestClient) -> Jobs:
    found: Jobs = client.app.state.jobs  # type: ignore[attr-defined]
    return found


def alive(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


def elsewhere(jobs: Jobs, kind: str) -> set[int]:
    """The processes that ran ``kind``: never this one, each alive (a pool's worker)."""
    pids = jobs.ran.get(kind, set())
    assert pids and os.getpid() not in pids, (kind, pids)
    return pids


def test_hints_bots_and_passwords_run_in_other_processes(client: TestClient) -> None:
    jobs = jobs_of(client)
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    r = client.post(f"/api/rooms/{room}/hint", headers=auth(token), json={"step": v["step"]})
    assert r.status_code == 200, r.text
    assert all(alive(p) for p in elsewhere(jobs, "hint"))
    # a searching bot's decision (Metro's hard level) is a job; it played
    made = create(client, game="metro", mode="bots", seats=[{"name": "Ada"}, {"bot": "hard"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    after = act(client, room, token, v["legal"][0], v["step"]).json()
    assert after["step"] > v["step"] + 1
    elsewhere(jobs, "decide")
    # sign-up hashes, sign-in verifies, in the passwords lane's processes
    body = {"name": f"Ada{secrets.token_hex(4)}", "password": "correct horse battery"}
    assert client.post("/api/accounts", json=body).status_code == 201
    assert client.post("/api/sessions", json=body).status_code == 200
    wrong = client.post("/api/sessions", json={**body, "password": "wrong horse battery"})
    assert wrong.status_code == 401 and wrong.json()["reason"] == "bad-password"
    passwords = elsewhere(jobs, "hash") | elsewhere(jobs, "verify")
    assert not passwords & (jobs.ran["hint"] | jobs.ran["decide"])  # a lane of their own


def run_in_app(client: TestClient, coroutine: Any) -> Any:
    async def run() -> Any:
        return await coroutine

    return client.portal.call(run)  # type: ignore[union-attr]


def started(client: TestClient, kind: str, payload: dict[str, Any], **kw: Any) -> Any:
    """A job's wait, started as a task on the app's loop."""
    jobs = jobs_of(client)

    async def begin() -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(jobs.run(kind, payload, **kw))
        await asyncio.sleep(0.05)
        return task

    return client.portal.call(begin)  # type: ignore[union-attr]


def until(check: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def cancel(client: TestClient, task: Any) -> None:
    async def stop() -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    client.portal.call(stop)  # type: ignore[union-attr]


def outcome(client: TestClient, task: Any) -> Any:
    async def wait() -> Any:
        return await task

    return client.portal.call(wait)  # type: ignore[union-attr]


def test_warm_job_processes_start_with_the_server_and_serve_the_first_job(db_url: str) -> None:
    """``METROGAMES_JOB_WARM``: every lane's processes are started by the server's start (a
    no-op job answered by another process), and the first hint is served by that same pool."""
    with TestClient(create_app(make_settings(db_url, job_warm=True))) as client:
        lanes = jobs_of(client).local.lanes
        assert set(lanes) == {"passwords", "play", "slow"}
        pools = {}
        for name, lane in lanes.items():
            assert lane.warmed is not None and lane.pool is not None, name
            pid = lane.warmed.result(timeout=60)
            assert pid != os.getpid() and alive(pid), name
            pools[name] = lane.pool
        made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        step = view(client, room, token)["step"]
        r = client.post(f"/api/rooms/{room}/hint", headers=auth(token), json={"step": step})
        assert r.status_code == 200, r.text
        assert lanes["play"].pool is pools["play"]
    with TestClient(create_app(make_settings(db_url))) as client:  # not warmed: no process
        assert all(lane.pool is None for lane in jobs_of(client).local.lanes.values())


def test_a_full_lane_refuses_busy_and_a_requester_over_its_quota_429(
    app_client: TestClient,
) -> None:
    client, jobs = app_client, jobs_of(app_client)
    first = run_in_app(client, jobs.run("probe", {"seconds": 0}))  # the slow lane's process
    running = started(client, "probe", {"seconds": 60}, who=["address:a"])
    until(lambda: jobs.local.lanes["slow"].running)
    queued = started(client, "probe", {"seconds": 60}, who=["address:b"])
    assert jobs.depth("slow") == 1
    with pytest.raises(RoomError) as refused:  # the queue holds its one job
        run_in_app(client, jobs.run("probe", {"seconds": 0}, who=["address:c"]))
    assert refused.value.status == 503 and refused.value.reason == "busy"
    assert refused.value.headers and int(refused.value.headers["Retry-After"]) > 0
    with pytest.raises(RoomError) as refused:  # address a has its one job under way
        run_in_app(client, jobs.run("probe", {"seconds": 0}, who=["address:a"]))
    assert refused.value.status == 429 and refused.value.reason == "rate-limited"
    assert int(refused.value.headers["Retry-After"]) > 0  # type: ignore[index]
    # the queued job's requester leaves: dropped, never run; the running one's: stopped
    cancel(client, queued)
    assert jobs.depth("slow") == 0
    cancel(client, running)
    until(lambda: not alive(first))  # the process that ran it was ended
    again = run_in_app(client, jobs.run("probe", {"seconds": 0}, who=["address:a"]))
    assert again != first and jobs.started["probe"] == 4  # quota and queue free again


def test_a_refused_sign_up_stores_nothing(app_client: TestClient) -> None:
    client, jobs = app_client, jobs_of(app_client)
    holding = started(client, "probe", {"seconds": 60}, who=["address:testclient"])
    name = f"Ada{secrets.token_hex(4)}"  # PostgreSQL keeps other tests' accounts
    r = client.post("/api/accounts", json={"name": name, "password": "correct horse battery"})
    assert r.status_code == 429 and r.json()["reason"] == "rate-limited", r.text
    assert int(r.headers["retry-after"]) > 0
    with client.app.state.rooms.sessions() as s:  # type: ignore[attr-defined]
        assert s.scalar(select(func.count()).where(AccountRow.name == name)) == 0
    cancel(client, holding)
    assert "hash" not in jobs.started


def test_a_job_two_requesters_share_survives_the_first_leaving(app_client: TestClient) -> None:
    client, jobs = app_client, jobs_of(app_client)
    a = started(client, "probe", {"seconds": 1.5}, key="probe:shared")
    b = started(client, "probe", {"seconds": 1.5}, key="probe:shared")
    cancel(client, a)
    pid = outcome(client, b)
    assert alive(pid) and pid != os.getpid() and jobs.started["probe"] == 1


def test_equal_positions_in_two_rooms_are_one_hint(client: TestClient) -> None:
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    tokens = [new_token(), new_token()]

    async def deal() -> list[str]:
        made = []
        for token in tokens:  # the same deal in two rooms
            seat = Seat(0, "Ada", True, None, hash_token(token))
            made.append((await rooms.create_dealt("london", "solo", 12345, [seat])).id)
        return made

    ids = client.portal.call(deal)  # type: ignore[union-attr]
    answers = []
    for room, token in zip(ids, tokens, strict=True):
        step = view(client, room, token)["step"]
        r = client.post(f"/api/rooms/{room}/hint", headers=auth(token), json={"step": step})
        assert r.status_code == 200, r.text
        answers.append({k: v for k, v in r.json().items() if k != "step"})
    assert answers[0] == answers[1] and jobs_of(client).started["hint"] == 1


def test_a_searching_bot_plays_the_same_after_a_restart(db_url: str) -> None:
    # each decision is seeded from (room seed, seat, step), none carries a generator: a room
    # continued by a restarted server plays as one never interrupted
    settings = make_settings(db_url, bot_delay=0)
    token = new_token()

    def deal(client: TestClient) -> str:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        seats = [
            Seat(0, "Ada", True, None, hash_token(token)),
            Seat(1, "hard", False, "hard", None),
        ]

        async def make() -> str:
            return str((await rooms.create_dealt("metro", "bots", 4242, seats)).id)

        return str(client.portal.call(make))  # type: ignore[union-attr]

    def turns(client: TestClient, room: str, count: int) -> None:
        for _ in range(count):
            v = view(client, room, token)
            assert act(client, room, token, v["legal"][0], v["step"]).status_code == 200

    def moves(client: TestClient, room: str) -> list[Any]:
        got: list[Any] = client.get(f"/api/rooms/{room}/moves", headers=auth(token)).json()["moves"]
        return got

    with TestClient(create_app(settings)) as client:
        whole = deal(client)
        turns(client, whole, 3)
        interrupted = deal(client)
        turns(client, interrupted, 1)
    with TestClient(create_app(settings)) as client:  # the server restarted
        turns(client, interrupted, 2)
        assert moves(client, interrupted) == moves(client, whole)
        assert len(moves(client, whole)) > 6  # the bot played between the turns


def test_a_lane_keeps_a_process_for_its_first_priority(db_url: str) -> None:
    # two slow-lane processes, two long probes (last priority): one runs, one waits, and a
    # replay (first priority) runs at once on the process kept for it
    from support.records import solo_record

    settings = make_settings(db_url, job_slow_workers=2)
    with TestClient(create_app(settings)) as client:
        jobs = jobs_of(client)
        waits = [started(client, "probe", {"seconds": 60}) for _ in range(2)]
        until(lambda: len(jobs.local.lanes["slow"].running) == 1)
        assert jobs.depth("slow") == 1
        began = time.monotonic()
        r = client.post("/api/replays", json=solo_record(1, "random"))
        assert r.status_code == 200 and r.json()["frames"], r.text
        assert time.monotonic() - began < 30 and os.getpid() not in jobs.ran["replay"]
        for wait in waits:
            cancel(client, wait)
