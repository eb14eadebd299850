"""Two workers of one service in a test: two apps on one PostgreSQL database and one Redis
server (``METROGAMES_TEST_PG``, ``METROGAMES_TEST_REDIS``: ``./dev test`` starts both), each
app behind its own test client — as two server processes behind one address would be."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from support.web import make_settings

REDIS_URL = os.environ.get("METROGAMES_TEST_REDIS")


def redis_url() -> str:
    """The test Redis server's URL, emptied (its rate-limit counts and locks are an earlier
    test's)."""
    if not REDIS_URL:
        pytest.fail("METROGAMES_TEST_REDIS is not set (./dev test starts Redis and sets it)")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.flushdb()
    finally:
        client.close()
    return REDIS_URL


@contextmanager
def two_workers(db_url: str, **settings: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two running apps (workers A and B) on ``db_url`` (PostgreSQL) sharing the test Redis
    server, with ``settings`` as :func:`~webutil.make_settings` takes them."""
    url = redis_url()
    with ExitStack() as stack:
        a, b = (
            stack.enter_context(
                TestClient(create_app(make_settings(db_url, redis_url=url, **settings)))
            )
            for _ in range(2)
        )
        yield a, b


class Alternating(TestClient):
    """One client of two workers: its requests and sockets go to A and B in turn (no sticky
    sessions), each worker keeping its own cookies."""

    def __init__(self, a: TestClient, b: TestClient) -> None:
        super().__init__(a.app)
        self.workers = (a, b)
        self.turn = 0

    def _next(self) -> TestClient:
        self.turn ^= 1
        return self.workers[self.turn]

    def request(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return self._next().request(*args, **kwargs)

    def websocket_connect(self, *args: Any, **kwargs: Any) -> Any:
        return self._next().websocket_connect(*args, **kwargs)


@contextmanager
def job_workers(url: str, play: int = 1, slow: int = 1) -> Iterator[list[Any]]:
    """RQ job workers of the ``play`` and ``slow`` lanes on the test Redis server (processes
    of their own, as ``serve --workers N`` starts them), stopped at the end."""
    from metrogames.web.infra.jobs.worker import start_workers, stop_workers
    from metrogames.web.work import WORK

    processes = start_workers(url, {"play": play, "slow": slow}, WORK)
    try:
        yield processes
    finally:
        stop_workers(processes)
