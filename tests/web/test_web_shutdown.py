"""A stopping worker never hangs on one part of its shutdown: each part is waited for a
bounded time, then logged by name and left behind."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from metrogames.web import app as app_module


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
