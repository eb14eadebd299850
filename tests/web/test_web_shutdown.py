"""A stopping worker never hangs on one part of its shutdown: each part is waited for a
bounded time, then logged by name and left behind."""

from __future__ import annotations

import asyncio
import logging

import pytest

from metrogames.web import app as app_module


def test_a_part_that_never_stops_is_logged_and_left(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(app_module, "SHUTDOWN_STEP", 0.05)

    async def run() -> bool:
        forever = asyncio.get_running_loop().create_future()
        await app_module.bounded("the stuck part", forever)
        return forever.cancelled()

    with caplog.at_level(logging.WARNING, logger="metrogames.web.app"):
        cancelled = asyncio.run(run())
    assert cancelled  # the wait ended by cancelling it, not by the part finishing
    assert "the stuck part did not stop within 0.05 s" in caplog.text


def test_a_part_that_stops_in_time_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    async def quick() -> None:
        await asyncio.sleep(0)

    with caplog.at_level(logging.WARNING, logger="metrogames.web.app"):
        asyncio.run(app_module.bounded("a quick part", quick()))
    assert "a quick part" not in caplog.text
