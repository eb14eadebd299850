"""Several workers, one truth: two apps on one PostgreSQL database and one Redis server
(:mod:`workers`) serve one room — a change made through either reaches the sockets of both,
a step is played once whichever worker gets it, clocks and bots act once, the rate limits
are counted once for both, and a database that cannot be reached is a 503 that changes
nothing."""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from metrogames.games import replay_record
from support.two_workers import two_workers
from support.web import JSON, act, auth, create, later, view

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def record_history(client: TestClient, room: str) -> list[Any]:
    r = client.get(f"/api/rooms/{room}/record")
    assert r.status_code == 200, r.text
    return list(replay_record(r.json()).history())


def online_metro(
    a: TestClient, b: TestClient, turn_clock: int | None = None
) -> tuple[str, list[str]]:
    """A started two-player Metro room: created and started on A, its second seat claimed on
    B; returns the room and the seat tokens."""
    made = create(
        a, game="metro", mode="online", seats=[{"name": "Ada"}, {}], turn_clock=turn_clock
    )
    room = made["room"]["room"]
    j = b.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bo"})
    assert j.status_code == 200, j.text
    r = a.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
    assert r.status_code == 200, r.text
    return room, [made["tokens"]["0"], j.json()["token"]]


def race(workers: list[TestClient], room: str, token: str, action: Any, step: int) -> list[Any]:
    """The same action sent to every worker at once; their answers."""
    go = threading.Barrier(len(workers))

    def send(worker: TestClient) -> Any:
        go.wait()
        return act(worker, room, token, action, step)

    with ThreadPoolExecutor(len(workers)) as pool:
        return list(pool.map(send, workers))


def spy(client: TestClient, part: str, method: str) -> list[Any]:
    """The first argument of each call of ``method`` of the worker's room-service ``part``
    (``store``, ``sync``: a room id, a table), as the calls are made."""
    rooms = getattr(client.app.state.rooms, part)  # type: ignore[attr-defined]
    calls: list[Any] = []
    real = getattr(rooms, method)

    def recorded(*args: Any) -> Any:
        calls.append(args[0])
        return real(*args)

    setattr(rooms, method, recorded)
    return calls


def test_an_action_on_one_worker_reaches_a_socket_on_the_other(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": tokens[1]})
            first = ws.receive_json()["view"]
            mover = first["to_move"][0]
            seen = view(a, room, tokens[mover])
            r = act(a, room, tokens[mover], seen["legal"][0], seen["step"])
            assert r.status_code == 200, r.text
            pushed = ws.receive_json()["view"]
            while pushed["step"] == first["step"]:  # the seat-connected view may come first
                pushed = ws.receive_json()["view"]
            assert pushed["step"] > seen["step"]  # the move (and the tile drawn after it)
            assert pushed["to_move"] == [1 - mover]
        # B, which had the room in memory, plays on from the position A stored
        now = view(b, room, tokens[1 - mover])
        assert now["step"] == pushed["step"]
        r = act(b, room, tokens[1 - mover], now["legal"][0], now["step"])
        assert r.status_code == 200, r.text
        history = record_history(a, room)
        assert [who for who, _ in history[seen["step"] :] if who >= 0] == [mover, 1 - mover]


def test_a_worker_at_the_previous_version_applies_a_published_change_without_reading(
    db_url: str,
) -> None:
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        reads = spy(b, "store", "fetch")
        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": tokens[1]})
            pushed = ws.receive_json()["view"]
            for _ in range(3):  # A plays; B's copy takes each change as published
                seen = view(a, room, tokens[pushed["to_move"][0]])
                mover = seen["to_move"][0]
                assert (
                    act(a, room, tokens[mover], seen["legal"][0], seen["step"]).status_code == 200
                )
                while pushed["step"] <= seen["step"]:
                    pushed = ws.receive_json()["view"]
                assert pushed["to_move"] == [1 - mover]
        assert reads == []
        assert record_history(b, room) == record_history(a, room)
        now = view(b, room, tokens[pushed["to_move"][0]])
        assert (
            act(b, room, tokens[now["to_move"][0]], now["legal"][0], now["step"]).status_code == 200
        )
        assert reads == []  # B's copy was at the room's version: no catching up
        assert record_history(a, room) == record_history(b, room)


def test_setting_up_a_room_across_workers_reads_nothing_back(db_url: str) -> None:
    # created on A, a seat claimed on B, started on A, a socket on each: every change is
    # published with what it changed (seats too), and a room loaded or created knows its
    # version, so neither worker reads the room back from the database
    with two_workers(db_url) as (a, b):
        reads_a, reads_b = spy(a, "store", "fetch"), spy(b, "store", "fetch")
        room, tokens = online_metro(a, b)
        with (
            a.websocket_connect(f"/ws/rooms/{room}") as ws_a,
            b.websocket_connect(f"/ws/rooms/{room}") as ws_b,
        ):
            ws_a.send_json({"type": "hello", "token": tokens[0]})
            ws_b.send_json({"type": "hello", "token": tokens[1]})
            seen_a, seen_b = ws_a.receive_json()["view"], ws_b.receive_json()["view"]
        assert reads_a == [] and reads_b == []
        for seen in (seen_a, seen_b):
            assert seen["status"] == "playing"
            assert [s["name"] for s in seen["seats"]] == ["Ada", "Bo"]
        assert seen_a["step"] == seen_b["step"]


def test_a_copy_serving_nothing_is_marked_stale_rather_than_changed(db_url: str) -> None:
    # B claimed a seat (so it holds the room) a minute ago and has no socket, clock or bot
    # on it: it does not replay A's changes as they come, and catches up once asked again
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        rooms_b = b.app.state.rooms  # type: ignore[attr-defined]
        applied = spy(b, "sync", "apply_published")
        rooms_b.tables[room].touched -= 60  # its last request was a minute ago
        for _ in range(3):
            mover = view(a, room)["to_move"][0]
            seen = view(a, room, tokens[mover])
            assert act(a, room, tokens[mover], seen["legal"][0], seen["step"]).status_code == 200
        wait_for_stale = time.monotonic() + 5
        while not rooms_b.tables[room].stale and time.monotonic() < wait_for_stale:
            time.sleep(0.01)
        assert applied == [] and rooms_b.tables[room].stale
        now = view(b, room, tokens[1])
        assert now["step"] == view(a, room, tokens[1])["step"]  # caught up when asked
        assert record_history(b, room) == record_history(a, room)


def test_a_player_connected_to_the_other_worker_keeps_the_seat(db_url: str) -> None:
    # the host on A may hand Bob's seat to a bot only once Bob, whose socket is on B, has
    # been gone from B for the grace period (30 s): B's sockets and departures reach A
    with two_workers(db_url) as (a, b):
        made = create(a, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
        room, host = made["room"]["room"], made["host_token"]
        bob = b.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"}).json()["token"]
        assert a.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
        later(a, 3600)
        later(b, 3600)  # an hour on for both: only Bob's socket on B counts

        def hand_over() -> Any:
            return a.post(
                f"/api/rooms/{room}/seats/1/bot", headers=auth(host), json={"bot": "greedy"}
            )

        def until(reason: str) -> Any:
            deadline = time.monotonic() + 5
            while True:  # B tells Redis in the background
                r = hand_over()
                if reason in r.text or time.monotonic() > deadline:
                    return r
                time.sleep(0.02)

        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": bob})
            ws.receive_json()
            r = until("is connected")
            assert r.status_code == 409 and r.json()["reason"] == "player-present", r.text
            assert r.json()["error"].startswith("seat 2's player is connected")
        r = until("was here")
        assert r.status_code == 409 and r.json()["error"].startswith(
            "seat 2's player was here 0 s ago"
        )
        later(a, 31)
        r = hand_over()
        assert r.status_code == 200, r.text
        assert [s["kind"] for s in r.json()["seats"]] == ["human", "bot"]


def marks(message: dict[str, Any]) -> list[bool]:
    """The seats' connected marks of a pushed view."""
    return [s["connected"] for s in message["view"]["seats"]]


def summary_marks(worker: TestClient, room: str) -> list[bool]:
    r = worker.get(f"/api/rooms/{room}")
    assert r.status_code == 200, r.text
    return [s["connected"] for s in r.json()["seats"]]


def until_marks(worker: TestClient, room: str, expected: list[bool]) -> None:
    deadline = time.monotonic() + 10
    while summary_marks(worker, room) != expected:  # the other worker tells in the background
        assert time.monotonic() < deadline, f"still {summary_marks(worker, room)}"
        time.sleep(0.02)


def test_a_seat_connected_to_one_worker_is_connected_in_the_others_views(db_url: str) -> None:
    # Ada's socket is on A, Bo's on B: each worker marks both seats connected, and A pushes
    # Ada a view when Bo comes and when he goes
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        with a.websocket_connect(f"/ws/rooms/{room}") as ada:
            ada.send_json({"type": "hello", "token": tokens[0]})
            assert marks(ada.receive_json()) == [True, False]
            until_marks(b, room, [True, False])
            with b.websocket_connect(f"/ws/rooms/{room}") as bo:
                bo.send_json({"type": "hello", "token": tokens[1]})
                assert marks(bo.receive_json()) == [True, True]
                assert marks(ada.receive_json()) == [True, True]
                assert summary_marks(a, room) == [True, True]
            assert marks(ada.receive_json()) == [True, False]
            assert summary_marks(a, room) == [True, False]


def test_a_dead_workers_sockets_stop_counting(db_url: str) -> None:
    # B holds Bo's socket, then goes silent (its "alive" key gone, as when it was killed):
    # A stops marking Bo connected and pushes Ada the view that says so
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        with a.websocket_connect(f"/ws/rooms/{room}") as ada:
            ada.send_json({"type": "hello", "token": tokens[0]})
            ada.receive_json()
            with b.websocket_connect(f"/ws/rooms/{room}") as bo:
                bo.send_json({"type": "hello", "token": tokens[1]})
                bo.receive_json()
                assert marks(ada.receive_json()) == [True, True]
                cluster_b = b.app.state.rooms.cluster  # type: ignore[attr-defined]

                async def silent() -> None:
                    pass

                cluster_b.alive = silent  # B says nothing any more...
                client = redis.Redis.from_url(b.app.state.rooms.settings.redis_url)  # type: ignore[attr-defined]
                try:
                    client.delete(f"metrogames:alive:{cluster_b.worker}")  # ...and its word ran out
                finally:
                    client.close()
                rooms_a = a.app.state.rooms  # type: ignore[attr-defined]
                a.portal.call(rooms_a.sync.forget_departed)  # type: ignore[union-attr]
                assert marks(ada.receive_json()) == [True, False]
                assert summary_marks(a, room) == [True, False]
                client = redis.Redis.from_url(b.app.state.rooms.settings.redis_url)  # type: ignore[attr-defined]
                try:  # and B's count is gone from Redis: a room loaded later will not show it
                    fields = client.hkeys(f"metrogames:presence:{room}")
                finally:
                    client.close()
                assert f"{cluster_b.worker}:1".encode() not in fields
                assert f"{rooms_a.cluster.worker}:0".encode() in fields


def test_presence_heard_while_a_room_loads_is_kept(db_url: str) -> None:
    # B starts loading the room (its presence read from Redis first), Ada connects on A
    # meanwhile: B, once loaded, marks her connected
    with two_workers(db_url) as (a, b):
        made = create(a, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
        room = made["room"]["room"]
        rooms_b = b.app.state.rooms  # type: ignore[attr-defined]
        loading, go = threading.Event(), threading.Event()
        real_load = rooms_b.store.load

        def held_load(room_id: str) -> Any:
            loading.set()  # B has read the room's presence (nobody yet) and reads the database
            assert go.wait(20)
            return real_load(room_id)

        rooms_b.store.load = held_load
        with ThreadPoolExecutor(1) as pool:
            summary = pool.submit(b.get, f"/api/rooms/{room}")
            assert loading.wait(20)
            with a.websocket_connect(f"/ws/rooms/{room}") as ada:
                ada.send_json({"type": "hello", "token": made["tokens"]["0"]})
                ada.receive_json()
                deadline = time.monotonic() + 10
                while room not in rooms_b.sync.heard_presence:  # A tells in the background
                    assert time.monotonic() < deadline, "B heard nothing"
                    time.sleep(0.01)
                go.set()
                r = summary.result(timeout=20)
                assert r.status_code == 200, r.text
                assert [s["connected"] for s in r.json()["seats"]] == [True, False]


def test_one_action_sent_to_both_workers_is_played_once(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        for _ in range(6):  # each worker has the room in memory; they race for each step
            seen = view(a, room, tokens[0])
            mover = seen["to_move"][0]
            seen = view(b, room, tokens[mover])
            answers = race([a, b], room, tokens[mover], seen["legal"][0], seen["step"])
            results = [r.status_code for r in answers]
            assert sorted(results) == [200, 409]
            assert [r.json()["reason"] for r in answers if r.status_code == 409] == ["stale-step"]
            history = record_history(b, room)
            assert [who for who, _ in history[seen["step"] :] if who >= 0] == [mover]


def test_a_stale_worker_catches_up_before_it_plays(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        seen = view(b, room, tokens[0])  # B holds the room at this step
        mover = seen["to_move"][0]
        assert act(a, room, tokens[mover], seen["legal"][0], seen["step"]).status_code == 200
        again = act(b, room, tokens[mover], seen["legal"][0], seen["step"])
        assert again.status_code == 409 and again.json()["reason"] == "stale-step"
        history = record_history(a, room)
        assert [who for who, _ in history[seen["step"] :] if who >= 0] == [mover]


def test_a_turn_clock_held_by_both_workers_plays_once(db_url: str) -> None:
    # a turn-clock second lasts 10 ms: 150 s of clock run out after 1.5 s
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b, turn_clock=150)
        start = view(b, room, tokens[0])  # B loads the room and runs its clock too
        assert start["clock"] is not None
        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": tokens[0]})
            current = ws.receive_json()["view"]
            while current["step"] == start["step"]:
                current = ws.receive_json()["view"]
        time.sleep(0.3)  # a second firing of the same deadline would have played by now
        history = record_history(a, room)
        assert [who for who, _ in history[start["step"] :] if who >= 0] == start["to_move"]


def test_a_bot_due_on_both_workers_moves_once(db_url: str) -> None:
    with two_workers(db_url, bot_delay=0.2) as (a, b):
        made = create(a, game="metro", mode="bots", seats=[{"name": "Ada"}, {"bot": "random"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        seen = view(b, room, token)
        while 0 not in seen["to_move"]:  # the bot opens: wait for the human's turn
            time.sleep(0.05)
            seen = view(b, room, token)
        assert act(a, room, token, seen["legal"][0], seen["step"]).status_code == 200
        # B takes the room over while A's bot waits out its delay: both run the bot
        assert b.portal.call(b.app.state.rooms.take_over) >= 1  # type: ignore[union-attr, attr-defined]
        after = view(a, room, token)
        while 0 not in after["to_move"] and after["status"] == "playing":
            time.sleep(0.05)
            after = view(a, room, token)
        for worker in (a, b):
            table = worker.app.state.rooms.tables[room]  # type: ignore[attr-defined]
            while table.bot_task is not None:
                time.sleep(0.05)
        history = record_history(b, room)
        assert [who for who, _ in history[seen["step"] :] if who >= 0] == [0, 1]


def test_rate_limits_are_counted_once_for_both_workers(db_url: str) -> None:
    with two_workers(db_url, rate_accounts="2/minute") as (a, b):
        names = [f"W{secrets.token_hex(4)}" for _ in range(3)]
        body = {"password": "correct horse battery"}
        assert a.post("/api/accounts", json={"name": names[0], **body}).status_code == 201
        assert b.post("/api/accounts", json={"name": names[1], **body}).status_code == 201
        r = a.post("/api/accounts", json={"name": names[2], **body})
        assert r.status_code == 429 and r.json()["reason"] == "rate-limited", r.text
        r = b.post("/api/accounts", json={"name": names[2], **body})
        assert r.status_code == 429 and r.json()["reason"] == "rate-limited", r.text


def test_chat_said_on_one_worker_reaches_the_other(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        made = create(a, game="london", mode="online", seats=[{"name": "Ada"}, {}])
        room = made["room"]["room"]
        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": None})
            assert ws.receive_json()["type"] == "view"
            r = a.post(
                f"/api/rooms/{room}/chat", headers=auth(made["tokens"]["0"]), json={"text": "hi"}
            )
            assert r.status_code == 201, r.text
            message = ws.receive_json()
            while message["type"] != "chat":
                message = ws.receive_json()
            assert message["message"]["text"] == "hi"


def test_an_unreachable_database_is_a_503_that_changes_nothing(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        made = create(a, game="london", mode="solo", seats=[{"name": "Ada"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        seen = view(b, room, token)
        engine = b.app.state.rooms.store.engine  # type: ignore[attr-defined]

        def down(_conn: Any, statement: Any, *_rest: Any) -> None:
            if getattr(statement, "is_dml", False):  # every write, ORM flush or Core statement
                raise OperationalError("COMMIT", {}, ConnectionRefusedError("the server is down"))

        event.listen(engine, "after_execute", down)
        try:
            r = act(b, room, token, seen["legal"][0], seen["step"])
            assert r.status_code == 503, r.text
            assert r.json()["reason"] == "unavailable" and r.headers["retry-after"] == "2"
            with b.websocket_connect(f"/ws/rooms/{room}") as ws:
                ws.send_json({"type": "hello", "token": token})
                assert ws.receive_json()["view"]["step"] == seen["step"]
                ws.send_json({"type": "action", "action": seen["legal"][0], "step": seen["step"]})
                answer = ws.receive_json()
                assert answer["type"] == "error" and answer["reason"] == "unavailable"
        finally:
            event.remove(engine, "after_execute", down)
        assert view(a, room, token)["step"] == seen["step"]  # nothing was stored
        r = act(b, room, token, seen["legal"][0], seen["step"])  # sent again: played once
        assert r.status_code == 200, r.text
        assert view(a, room, token)["step"] > seen["step"]


def test_a_worker_dead_between_its_write_and_its_release_leaves_no_stale_copy(
    db_url: str,
) -> None:
    with two_workers(db_url) as (a, b):
        room, tokens = online_metro(a, b)
        seen = view(b, room, tokens[0])
        mover = seen["to_move"][0]
        # B plays: its copy is at the room's version
        assert act(b, room, tokens[mover], seen["legal"][0], seen["step"]).status_code == 200
        now = view(a, room, tokens[1 - mover])

        async def dies(*_args: Any) -> None:  # A writes, then never releases nor publishes
            return None

        a.app.state.rooms.cluster._release = dies  # type: ignore[attr-defined]
        assert act(a, room, tokens[1 - mover], now["legal"][0], now["step"]).status_code == 200
        with b.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": tokens[mover]})
            assert ws.receive_json()["view"]["step"] > now["step"]  # B caught up
