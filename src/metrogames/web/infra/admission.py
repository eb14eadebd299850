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

The turns are shared fairly between clients (by client address,
:func:`~metrogames.web.infra.ratelimit.client_key`): each client's admissions wait in their
order, and a freed turn goes to the next client in rotation, so that one client's burst — a
script opening sockets and creating rooms as fast as its limits allow — takes at most its share
of the turns, and a player arriving meanwhile waits for one admission of each other client, not
for the whole burst.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator

from metrogames.web.infra.metrics import ADMISSION_WAIT


class _Gate:
    """One event loop's turns: how many run, and the waiters of each client, the clients in
    rotation order (a dict keeps its insertion order: the first is next)."""

    def __init__(self) -> None:
        self.running = 0
        self.queues: dict[str, deque[asyncio.Future[None]]] = {}

    def release(self) -> None:
        """A turn ends: hand it to the first waiter of the next client (who goes to the back
        of the rotation), or leave it free."""
        while self.queues:
            client = next(iter(self.queues))
            queue = self.queues.pop(client)
            waiter = queue.popleft()
            if queue:
                self.queues[client] = queue
            if not waiter.done():  # one cancelled while waiting is passed over
                waiter.set_result(None)
                return
        self.running -= 1

    def forget(self, client: str, waiter: asyncio.Future[None]) -> None:
        """A waiter gone before its turn (cancelled): out of its client's queue."""
        queue = self.queues.get(client)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self.queues[client]


class Admission:
    """The turns of one worker's admissions: at most ``limit`` run at once; the others wait,
    each client's in the order they came, the clients taking turns (see the module).

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
        self._gate: tuple[asyncio.AbstractEventLoop, _Gate] | None = None

    def _current(self) -> _Gate:
        """The running event loop's turns (a test may run the app on several loops)."""
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, _Gate())
        return self._gate[1]

    @property
    def waiting_clients(self) -> tuple[str, ...]:
        """The clients with admissions waiting now, the next to be let in first."""
        return () if self._gate is None else tuple(self._gate[1].queues)

    @contextlib.asynccontextmanager
    async def turn(self, client: str = "") -> AsyncIterator[None]:
        """Wait for this admission's turn and hold it while the block runs. ``client`` is who
        asks (its address: :func:`~metrogames.web.infra.ratelimit.client_key`; the turns go
        round the clients that wait). An admission never waits for another inside its turn (no
        nesting), so turns always come. The wait goes to the metrics
        (``admission_wait_seconds``: :mod:`.metrics`).

        Raises:
            asyncio.CancelledError: the waiter was cancelled (its place is given up; a turn
                already handed to it passes on).
        """
        gate = self._current()
        started = time.perf_counter()
        if gate.running < self.limit and not gate.queues:
            gate.running += 1
        else:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            gate.queues.setdefault(client, deque()).append(waiter)
            self.waiting += 1
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():  # the turn came with the cancel
                    gate.release()
                else:
                    gate.forget(client, waiter)
                raise
            finally:
                self.waiting -= 1
        ADMISSION_WAIT.observe(time.perf_counter() - started)
        try:
            yield
        finally:
            gate.release()
