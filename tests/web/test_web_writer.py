"""The writer thread (web/infra/writer.py): calls run one at a time, in the order asked, off
the event loop; results and exceptions reach their waiters; a call whose waiter was cancelled
before it began is not run; the thread ends once its writer is garbage."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from metrogames.web.infra.writer import WriterThread
from support.web import run_async


def test_calls_run_in_order_on_one_thread_off_the_loop() -> None:
    seen: list[tuple[int, str]] = []

    def record(n: int) -> int:
        seen.append((n, threading.current_thread().name))
        return n * n

    async def run() -> tuple[list[int], str]:
        writer = WriterThread("test-writer")
        squares = await asyncio.gather(*(writer.run(record, n) for n in range(20)))
        return list(squares), threading.current_thread().name

    squares, loop_thread = run_async(run())
    assert squares == [n * n for n in range(20)]
    assert [n for n, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"test-writer"} and loop_thread != "test-writer"


def test_an_exception_reaches_its_waiter_and_the_thread_goes_on() -> None:
    def fail(text: str) -> None:
        raise ValueError(text)

    async def run() -> int:
        writer = WriterThread("test-writer")
        with pytest.raises(ValueError, match="no such room"):
            await writer.run(fail, "no such room")
        return await writer.run(len, "four")

    assert run_async(run()) == 4


def test_a_call_whose_waiter_was_cancelled_before_it_began_is_not_run() -> None:
    ran: list[str] = []
    release = threading.Event()

    def block() -> None:
        release.wait(10)
        ran.append("block")

    async def run() -> None:
        writer = WriterThread("test-writer")
        first = asyncio.ensure_future(writer.run(block))
        second = asyncio.ensure_future(writer.run(ran.append, "second"))
        third = asyncio.ensure_future(writer.run(ran.append, "third"))
        await asyncio.sleep(0.05)  # all three queued; the first under way
        second.cancel()
        release.set()
        await first
        await third
        with pytest.raises(asyncio.CancelledError):
            await second

    run_async(run())
    assert ran == ["block", "third"]


def test_the_thread_ends_once_its_writer_is_garbage() -> None:
    async def run() -> threading.Thread:
        writer = WriterThread("test-writer-gone")
        await writer.run(len, "x")
        (thread,) = [t for t in threading.enumerate() if t.name == "test-writer-gone"]
        del writer
        gc.collect()
        return thread

    thread = run_async(run())
    thread.join(10)
    assert not thread.is_alive()
