"""Admission: each worker seats at most a few players at once; moves never wait for them.

An *admission* is what brings a player to a table: creating a room (the daily challenge's
too), claiming a seat, starting a game, and a socket's hello (its first view). Moves and
messages in a game being played are not admissions and never wait here. When a crowd comes at
once, a worker's event loop would otherwise run hundreds of admissions side by side, and every
move made meanwhile would wait behind each of their steps: with 1,000 players arriving within
2 s on two workers (``benchmarks/load_web.py``), moves took 0.3–1 s (p99) for the 6–7 s the
crowd took to be seated; with admissions two at a time per worker they stayed near 100 ms at
worst, and the crowd was seated about as fast (the figures: ``docs/performance.md``, "Several
workers").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from metrogames.web.infra.metrics import ADMISSION_WAIT


class Admission:
    """The turns of one worker's admissions: at most ``limit`` run at once, the others wait in
    the order they came.

    Args:
        limit: how many admissions may run at once (``METROGAMES_ADMISSIONS``), at least 1.

    Raises:
        ValueError: ``limit`` under 1.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"admission needs a limit of at least 1, not {limit}")
        self.limit = limit
        self.waiting = 0
        """How many admissions wait for their turn now."""
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def _semaphore(self) -> asyncio.Semaphore:
        """The running event loop's semaphore (a test may run the app on several loops)."""
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Semaphore(self.limit))
        return self._gate[1]

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for this admission's turn and hold it while the block runs. An admission never
        waits for another inside its turn (no nesting), so turns always come. The wait goes
        to the metrics (``admission_wait_seconds``: :mod:`.metrics`)."""
        gate = self._semaphore()
        started = time.perf_counter()
        self.waiting += 1
        try:
            await gate.acquire()
        finally:
            self.waiting -= 1
        ADMISSION_WAIT.observe(time.perf_counter() - started)
        try:
            yield
        finally:
            gate.release()
