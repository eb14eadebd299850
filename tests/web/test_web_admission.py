"""Admissions wait their turn, moves never do (``web/infra/admission.py``): while every turn of a
worker's admission is taken, a room creation, a seat claim, a start and a socket's hello wait,
and a move in a game being played goes through; once the turns are free, the waiting admission
is served as usual. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.web.infra.admission import Admission
from support.web import JSON, act, auth, create, view

ONLINE = {"game": "metro", "mode": "online", "seats": [{"name": "host"}, {}]}


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, f"still not {what}"
        time.sleep(0.005)


@contextlib.contextmanager
def turns_taken(client: TestClient) -> Iterator[Admission]:
    """Every turn of the app's admission held (in the app's event loop) while the block runs."""
    admission: Admission = client.app.state.rooms.admission  # type: ignore[attr-defined]
    held: dict[str, asyncio.Event] = {}

    async def hold() -> None:
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(admission.limit):
                await stack.enter_async_context(admission.turn())
            held["free"] = asyncio.Event()
            await held["free"].wait()

    holding = client.portal.start_task_soon(hold)  # type: ignore[union-attr]
    try:
        until(lambda: "free" in held, "holding every turn")
        yield admission
    finally:
        until(lambda: "free" in held or holding.done(), "holding every turn")
        if "free" in held:
            client.portal.call(held["free"].set)  # type: ignore[union-attr]
        holding.result(timeout=20)


def a_move(client: TestClient, room: str, token: str) -> Any:
    """Play the first legal move of ``token``'s seat."""
    seen = view(client, room, token)
    return act(client, room, token, seen["legal"][0], seen["step"])


def admission_of(client: TestClient, kind: str) -> Callable[[], Any]:
    """The admission ``kind`` on a room made for it, as a call answering what it got."""
    made = create(client, **ONLINE)
    room, host = made["room"]["room"], made["host_token"]
    if kind == "create":
        return lambda: client.post("/api/rooms", json=ONLINE)
    if kind == "join":
        return lambda: client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "g"})
    joined = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "g"})
    assert joined.status_code == 200, joined.text
    if kind == "start":
        return lambda: client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON)

    def hello() -> Any:
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
            return ws.receive_json()

    return hello


@pytest.mark.parametrize("kind", ["create", "join", "start", "hello"])
def test_an_admission_waits_for_its_turn_and_a_move_does_not(client: TestClient, kind: str) -> None:
    solo = create(client, game="london", mode="solo", seats=[{"name": "solo"}])
    room, token = solo["room"]["room"], solo["tokens"]["0"]
    call = admission_of(client, kind)
    step = view(client, room, token)["step"]
    with ThreadPoolExecutor(1) as pool:
        waiting: Future[Any]
        with turns_taken(client) as admission:
            waiting = pool.submit(call)
            until(lambda: admission.waiting == 1, "waiting")
            assert admission.waiting_clients == ("testclient",)  # queued as its address's
            moved = a_move(client, room, token)
            assert moved.status_code == 200, moved.text
            assert view(client, room, token)["step"] > step
            assert not waiting.done() and admission.waiting == 1
        answer = waiting.result(timeout=20)
    if kind == "hello":
        assert answer["type"] == "view" and answer["view"]["status"] == "waiting"
    else:
        assert answer.status_code in (200, 201), answer.text
    assert admission.waiting == 0


def test_turns_come_in_order_and_at_most_limit_at_once() -> None:
    async def run() -> tuple[list[str], int]:
        admission = Admission(2)
        order: list[str] = []
        inside = 0
        most = 0

        async def one(name: str) -> None:
            nonlocal inside, most
            async with admission.turn():
                inside += 1
                most = max(most, inside)
                order.append(name)
                await asyncio.sleep(0.01)
                inside -= 1

        await asyncio.gather(*(one(f"a{i}") for i in range(7)))
        return order, most

    with ThreadPoolExecutor(1) as pool:  # a loop of its own (browser tests keep one here)
        order, most = pool.submit(asyncio.run, run()).result(timeout=20)
    assert order == [f"a{i}" for i in range(7)]
    assert most == 2


def test_a_limit_under_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1, not 0"):
        Admission(0)


def _in_own_loop(coroutine: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:  # a loop of its own (browser tests keep one here)
        return pool.submit(asyncio.run, coroutine).result(timeout=20)


def test_clients_take_turns_so_that_one_clients_burst_does_not_hold_up_another() -> None:
    """Client ``a`` queues five admissions, then ``b`` one, then ``c`` two: with one turn,
    each later client waits for one of ``a``'s, not for all five (round robin, each client's
    in order)."""

    async def run() -> list[str]:
        admission = Admission(1)
        order: list[str] = []

        async def one(client: str, name: str) -> None:
            async with admission.turn(client):
                order.append(name)
                await asyncio.sleep(0.005)

        async with admission.turn("x"):  # the turn taken while the others queue
            tasks = [asyncio.create_task(one("a", f"a{i}")) for i in range(5)]
            tasks += [asyncio.create_task(one("b", "b0"))]
            tasks += [asyncio.create_task(one("c", f"c{i}")) for i in range(2)]
            await asyncio.sleep(0.01)
            assert admission.waiting == 8
        await asyncio.gather(*tasks)
        return order

    assert _in_own_loop(run()) == ["a0", "b0", "c0", "a1", "c1", "a2", "a3", "a4"]


def test_a_waiter_cancelled_gives_up_its_place_and_no_turn_is_lost() -> None:
    async def run() -> tuple[list[str], int]:
        admission = Admission(1)
        order: list[str] = []

        async def one(client: str, name: str) -> None:
            async with admission.turn(client):
                order.append(name)

        async with admission.turn("x"):
            gone = asyncio.create_task(one("a", "gone"))
            kept = asyncio.create_task(one("b", "kept"))
            await asyncio.sleep(0.01)
            gone.cancel()
            await asyncio.sleep(0)
        await kept
        with contextlib.suppress(asyncio.CancelledError):
            await gone
        # the turns are all free again: as many as the limit at once, none waiting
        async with admission.turn("a"):
            order.append("after")
        return order, admission.waiting

    assert _in_own_loop(run()) == (["kept", "after"], 0)


def test_a_turn_handed_to_a_waiter_cancelled_at_that_moment_passes_on() -> None:
    async def run() -> list[str]:
        admission = Admission(1)
        order: list[str] = []

        async def one(name: str) -> None:
            async with admission.turn(name):
                order.append(name)

        holder = admission.turn("x")
        await holder.__aenter__()
        first = asyncio.create_task(one("first"))
        second = asyncio.create_task(one("second"))
        await asyncio.sleep(0.01)
        await holder.__aexit__(None, None, None)  # the turn goes to first's waiter...
        first.cancel()  # ...which is cancelled before it runs again
        await second
        with contextlib.suppress(asyncio.CancelledError):
            await first
        return order

    assert _in_own_loop(run()) == ["second"]
