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
