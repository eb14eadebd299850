"""One thread that runs calls in order for the event loop: the rooms' database writes.

``loop.run_in_executor`` on a one-thread pool does the same, but each call there makes a
:class:`concurrent.futures.Future` (a condition variable, its lock taken at each step), wraps it
in an asyncio future and chains the two by callbacks both ways; a write per action paid about
11 µs of CPU for that on the benchmark machine (40.6 µs against 29.3 µs a round trip, measured
2026-12-07, ``docs/performance.md``, "Where an action's time goes"). Here a call is queued with
the asyncio future that waits for it, and the thread answers that future on its loop
(``call_soon_threadsafe``), once.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, TypeVarTuple, Unpack

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
# Any: the queue holds every call's future, each of its own result type (a Future is invariant)
_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


class WriterThread:
    """Runs ``fn(*args)`` calls one at a time, in the order they are asked, on a thread of its
    own (started at the first call, named ``name``), and answers each on the asking event loop.

    A call whose waiter was cancelled before the call began is not run (as a pool's queued
    work item is not); one under way runs to its end. The thread ends once the writer is
    garbage, after the calls queued before; it is a daemon thread, so an interpreter that
    exits does not wait for it.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        weakref.finalize(self, self._calls.put, None)

    async def run(self, fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
        """``fn(*args)`` on the thread, after the calls asked before; its result, or the
        exception it raised."""
        if self._thread is None:
            self._begin()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._calls.put((loop, future, fn, args))
        return await future

    def _begin(self) -> None:
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=_serve, args=(self._calls,), name=self.name, daemon=True
                )
                self._thread.start()


def _serve(calls: queue.SimpleQueue[_Call | None]) -> None:
    """The thread: run each call and answer its future, until told to stop (``None``)."""
    while (call := calls.get()) is not None:
        loop, future, fn, args = call
        if future.cancelled():  # its waiter is gone: not begun, not run
            continue
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the waiter, as a pool's work item does
            _answer(loop, future, None, exc)
        else:
            _answer(loop, future, result, None)
        del call, future, fn, args  # hold nothing between calls


def _answer(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],  # Any: a queued call's future, as _Call says
    result: object,
    exc: BaseException | None,
) -> None:
    """Set ``future``'s outcome on its loop (unless cancelled meanwhile, or its loop closed)."""

    def settle() -> None:
        if future.cancelled():
            return
        if exc is None:
            future.set_result(result)
        else:
            future.set_exception(exc)

    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
        loop.call_soon_threadsafe(settle)
