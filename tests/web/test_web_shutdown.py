"""A stopping worker never hangs on one part of its shutdown: each part is waited for a
bounded time, then logged by name and left behind."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.web import app as app_module
from metrogames.web.app import create_app
from support.web import create, make_settings


def run_alone(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coroutine`` on an event loop of its own thread (the browser tests' Playwright
    keeps a loop running in the main thread)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_part_that_never_stops_is_logged_and_left(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(app_module, "SHUTDOWN_STEP", 0.05)

    async def run() -> bool:
        forever = asyncio.get_running_loop().create_future()
        await app_module.bounded("the stuck part", forever)
        return forever.cancelled()

    with caplog.at_level(logging.WARNING, logger="metrogames.web.app"):
        cancelled = run_alone(run())
    assert cancelled  # the wait ended by cancelling it, not by the part finishing
    assert "the stuck part did not stop within 0.05 s" in caplog.text


def test_a_part_that_stops_in_time_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    async def quick() -> None:
        await asyncio.sleep(0)

    with caplog.at_level(logging.WARNING, logger="metrogames.web.app"):
        run_alone(app_module.bounded("a quick part", quick()))
    assert "a quick part" not in caplog.text


def test_the_database_connections_are_closed_at_shutdown(db_url: str) -> None:
    """An app's pooled connections are closed when it stops (each test's app left its pool
    to the garbage collector: psycopg warned "connection ... was deleted while still open"
    in whichever later test collected it)."""
    app = create_app(make_settings(db_url))
    with TestClient(app) as client:
        create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
        pool = app.state.rooms.store.engine.pool
        assert pool.checkedin() >= 1  # the room's writes left a connection in the pool
    assert pool.checkedin() == 0 and pool.checkedout() == 0
