"""Limits that cannot be raced, and no blocking call on the event loop (issue "Hardened",
faults 4 and 5).

The attacker's inputs: 40 concurrent chat posts from one seat were all stored (limit 10 a
minute), 30 of 30 across two workers; the guest ranked cap per address let 4 start where the
cap is 3, in 2 of 3 runs across two workers; with Redis paused 5 s, a request that needed no
Redis took 4.1 s (rate-limit counts were synchronous Redis calls on the event loop). Each limit
is now counted atomically before its work (one Redis script, one database statement), and Redis
is only ever awaited, briefly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from test_web_chat import online, say

from metrogames.web.app import create_app
from metrogames.web.infra.models import ChatRow, DailyAttemptRow
from support.daily import DAY, Clock, daily_client, new_player
from support.two_workers import redis_url, two_workers
from support.web import auth, make_settings


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at the same time (a thread each), their results in order."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def chat_count(client: TestClient, room: str) -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        query = select(func.count()).select_from(ChatRow).where(ChatRow.room_id == room)
        return int(session.scalar(query) or 0)


def test_concurrent_chat_posts_store_no_more_than_the_limit(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, rate_chat="10/minute"))) as client:
        room, tokens = online(client)
        answers = at_once([lambda: say(client, room, tokens["0"], "hi")] * 40)
        codes = sorted(a.status_code for a in answers)
        assert codes == [201] * 10 + [429] * 30
        assert chat_count(client, room) == 10


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_concurrent_chat_posts_across_two_workers(db_url: str) -> None:
    with two_workers(db_url, rate_chat="10/minute") as (a, b):
        room, tokens = online(a)
        calls = [lambda c=c: say(c, room, tokens["0"], "hi") for c in (a, b) * 15]
        answers = at_once(calls)
        assert sum(r.status_code == 201 for r in answers) == 10
        assert chat_count(a, room) == 10


def ranked_guests(client: TestClient) -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        query = select(func.count()).select_from(DailyAttemptRow).where(DailyAttemptRow.ranked)
        return int(session.scalar(query) or 0)


def test_concurrent_guest_starts_keep_the_per_address_cap(db_url: str) -> None:
    with daily_client(db_url, Clock(), daily_guest_ranked=3) as client:
        tokens = [new_player(client, f"Guest {i}")[1] for i in range(8)]
        start = f"/api/daily/london/{DAY}/start"
        answers = at_once(
            [lambda t=t: client.post(start, json={}, headers=auth(t)) for t in tokens]
        )
        assert sorted(r.status_code for r in answers) == [200] * 3 + [409] * 5
        assert {r.json()["reason"] for r in answers if r.status_code == 409} == {"guest-limit"}
        assert ranked_guests(client) == 3


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_concurrent_guest_starts_across_two_workers_keep_the_cap(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock, daily_guest_ranked=3) as first:
        settings = make_settings(
            db_url,
            redis_url=redis_url(),
            daily_secret="metrogames-test-secret",
            daily_guest_ranked=3,
            rate_players="1000/minute",
        )
        with TestClient(create_app(settings, now=clock)) as second:
            tokens = [new_player(first, f"Guest {i}")[1] for i in range(8)]
            start = f"/api/daily/london/{DAY}/start"
            calls = [
                lambda t=t, c=c: c.post(start, json={}, headers=auth(t))
                for t, c in zip(tokens, (first, second) * 4, strict=True)
            ]
            answers = at_once(calls)
            assert sum(r.status_code == 200 for r in answers) == 3
            assert ranked_guests(first) == 3


def test_a_paused_redis_blocks_nothing_and_the_limits_still_count(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """With Redis paused, requests are answered at once (each count waits at most 1 s for
    Redis, then counts in this process for a while), and no step of the event loop takes
    long (asyncio's debug mode logs every step over 0.5 s: a synchronous Redis call waited
    1 s for its socket's timeout)."""
    url = redis_url()
    settings = make_settings(db_url, redis_url=url, rate_players="3/minute")
    app = create_app(settings)
    with TestClient(app, backend_options={"debug": True}) as client:
        loop = client.portal.call(asyncio.get_running_loop)  # type: ignore[union-attr]
        loop.slow_callback_duration = 0.5
        assert client.post("/api/players", json={"name": "Before"}).status_code == 201
        pauser = redis.Redis.from_url(url)
        try:
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                pauser.client_pause(4000, all=True)
                answers = [client.post("/api/players", json={"name": f"P{i}"}) for i in range(4)]
                games = client.get("/api/games")
        finally:
            pauser.client_unpause()
            pauser.close()
        # counted in this process while Redis does not answer (from nothing): 3 a minute
        assert [a.status_code for a in answers] == [201, 201, 201, 429]
        assert games.status_code == 200
        slow = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
        assert not [m for m in slow if "took" in m], slow
        assert any("redis did not answer" in r.getMessage() for r in caplog.records)
