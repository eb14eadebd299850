"""Arrivals wait their turn: each worker sets up at most a few of them at once.

An *arrival* is what brings a player to a table: creating a room (the daily challenge's too),
claiming a seat, starting a game, and a socket's hello (its first view). Moves and messages in a
game being played are not arrivals and never wait here. When a crowd arrives at once, the
worker's event loop would otherwise run hundreds of set-ups side by side, and every move made
meanwhile would wait its turn behind each of their steps: with 1,000 players arriving within
2 s on two workers (``benchmarks/load_web.py``), moves took 0.3–1 s (p99) for the 7 s the
crowd took to seat; with arrivals let in two at a time they stayed under about 100 ms, and the
crowd was seated as fast (the README's "Several workers" gives the figures).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from metrogames.web.metrics import ARRIVAL_WAIT


class Arrivals:
    """The turns of one worker's arrivals: at most ``limit`` run at once, the others wait in
    the order they came.

    Args:
        limit: how many arrivals may run at once (``METROGAMES_ARRIVALS``), at least 1.

    Raises:
        ValueError: ``limit`` under 1.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"arrivals need a limit of at least 1, not {limit}")
        self.limit = limit
        self.waiting = 0
        """How many arrivals wait for their turn now."""
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def _semaphore(self) -> asyncio.Semaphore:
        """The running event loop's semaphore (a test may run the app on several loops)."""
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Semaphore(self.limit))
        return self._gate[1]

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for this arrival's turn and hold it while the block runs. An arrival never
        waits for another inside its turn (no nesting), so turns always come. The wait goes
        to the metrics (``arrival_wait_seconds``: :mod:`.metrics`)."""
        gate = self._semaphore()
        started = time.perf_counter()
        self.waiting += 1
        try:
            await gate.acquire()
        finally:
            self.waiting -= 1
        ARRIVAL_WAIT.observe(time.perf_counter() - started)
        try:
            yield
        finally:
            gate.release()
