"""One socket cannot slow a room (``web/infra/flood.py``, ``web/api/ws.py``; issue "Hardened", fault 6).

The attacker's inputs: about 1,550 illegal actions a second from one socket moved everyone's
p50 from 9 to 152 ms; 3,000 repeated hellos pushed 3,000 views (5.4 MB) to another socket of
the room. Messages are now limited per socket and per seat (a token bucket each), a socket that
keeps flooding is closed with a reason, and no socket is pushed a view that did not change.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from metrogames.web.api import ws
from metrogames.web.app import create_app
from metrogames.web.errors import RoomError
from metrogames.web.infra import flood
from metrogames.web.infra.flood import Bucket, Flood
from metrogames.web.rooms.tables import PRESENCE_SECONDS, Table
from support.web import auth, create, make_settings, run_async, view


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    now = [0.0]
    bucket = Bucket(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back (2 a second)
    assert [bucket.take(), bucket.take()] == [True, False]
    now[0] += 100  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_a_seats_bucket_is_kept_while_it_is_not_full_again() -> None:
    now = [0.0]
    seats = Flood(rate=2.0, burst=3, clock=lambda: now[0])  # full again 1.5 s after its last take
    assert [_takes(seats, "r", 0) for _ in range(4)] == [True, True, True, False]  # its burst
    now[0] += 2.4  # idle for 2.4 s: under 1.5 + 1 s, so kept (and refilled to 3 by its rate)
    seats.seat("r", 1)  # a new seat sweeps: seat 0 stays
    assert seats.seats_held() == 2
    assert [_takes(seats, "r", 0) for _ in range(4)] == [True, True, True, False]
    now[0] += 10  # both idle past 2.5 s: dropped at the next new seat, as good as new
    seats.seat("s", 0)
    assert seats.seats_held() == 1
    assert [_takes(seats, "r", 0) for _ in range(4)] == [True, True, True, False]


def test_the_seats_buckets_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flood, "SEATS_KEPT", 4)
    seats = Flood(rate=1.0, burst=5, clock=lambda: 0.0)  # none ever idle
    for seat in range(10):
        seats.seat("r", seat)
    assert seats.seats_held() == 4


def _takes(seats: Flood, room: str, seat: int) -> bool:
    try:
        seats.seat(room, seat)
    except RoomError as exc:
        assert exc.reason == "rate-limited"
        return False
    return True


def solo(client: TestClient) -> tuple[str, str]:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    return made["room"]["room"], made["tokens"]["0"]


ILLEGAL = {"type": "action", "action": "A1-A2", "step": 1}


def test_a_flooding_socket_is_refused_then_closed(db_url: str) -> None:
    settings = make_settings(db_url, socket_rate=1, socket_burst=5)
    with TestClient(create_app(settings)) as client:
        room, token = solo(client)
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            step = ws.receive_json()["view"]["step"]  # the hello took one of 5
            for _ in range(40):
                ws.send_json(ILLEGAL)
            replies: list[dict[str, Any]] = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    replies.append(ws.receive_json())
        reasons = [r["reason"] for r in replies]
        # 4 more messages were read and refused by the engine; then one rate-limited answer
        # (later refusals are not answered within the same second), then the socket closed
        assert "rate-limited" not in reasons[:4]
        assert reasons[4] == "rate-limited" and "at most 1 a second" in replies[4]["error"]
        assert len(replies) == 5
        assert closed.value.code == 1008 and closed.value.reason == "too many messages"
        # the room is untouched and still served
        assert view(client, room, token)["step"] == step


def test_a_seats_http_actions_share_its_bucket(db_url: str) -> None:
    settings = make_settings(db_url, socket_rate=1, socket_burst=3)
    with TestClient(create_app(settings)) as client:
        room, token = solo(client)
        step = view(client, room, token)["step"]
        answers = [
            client.post(
                f"/api/rooms/{room}/actions",
                headers=auth(token),
                json={"action": "A1-A2", "step": step},
            )
            for _ in range(5)
        ]
        assert [a.status_code for a in answers[:3]] == [400, 400, 400], [a.text for a in answers]
        assert [a.json()["reason"] for a in answers[3:]] == ["rate-limited"] * 2
        assert answers[3].headers["Retry-After"] == "1"


def test_repeated_hellos_push_no_view_to_another_socket(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url))) as client:
        room, token = solo(client)
        with client.websocket_connect(f"/ws/rooms/{room}") as watcher:
            watcher.send_json({"type": "hello", "token": token})
            first = watcher.receive_json()["view"]
            with client.websocket_connect(f"/ws/rooms/{room}") as hammer:
                for _ in range(50):
                    hammer.send_json({"type": "hello", "token": token})
                    assert hammer.receive_json()["type"] == "view"  # it asked: it gets one
                legal = first["legal"]
                move = next(a for a in legal if a != "pass")
                hammer.send_json({"type": "action", "action": move, "step": first["step"]})
                assert hammer.receive_json()["view"]["step"] > first["step"]
            # the watcher's next message is the move's view: none for the 50 hellos (the seat
            # was connected already: nothing it sees changed)
            pushed = watcher.receive_json()
            assert pushed["type"] == "view" and pushed["view"]["step"] > first["step"]


def test_a_repeated_hello_tells_nobody_else(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hello repeated with the same token only sends its socket the view again: the room's
    other listeners are not even asked (each hello told the whole room its seat had
    connected, a view rebuilt per listener), while a hello with another seat's token is a
    change of seat that the room hears of (within ``PRESENCE_SECONDS``)."""
    told = _count_notifies(monkeypatch)
    settle = PRESENCE_SECONDS + 0.3
    with TestClient(create_app(make_settings(db_url))) as client:
        made = create(client, game="london", mode="online", seats=[{"name": "Host"}, {}])
        room, host = made["room"]["room"], made["tokens"]["0"]
        joined = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bo"}).json()
        told.clear()  # the join's own push
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": host})
            assert ws.receive_json()["view"]["you"] == 0
            time.sleep(settle)
            assert len(told) == 1  # the seat's arrival is told, once
            for _ in range(20):
                ws.send_json({"type": "hello", "token": host})
                assert ws.receive_json()["view"]["you"] == 0
            time.sleep(settle)
            assert len(told) == 1
            ws.send_json({"type": "hello", "token": joined["token"]})  # another seat
            assert ws.receive_json()["view"]["you"] == 1
            time.sleep(settle)
            assert len(told) == 2


def test_a_socket_flipping_its_seat_is_told_to_the_room_once_per_period(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kind behind "3,000 hellos pushed 3,000 views": a socket saying hello with a seat's
    token, then with none, back and forth, changed the seat's presence each time and had the
    whole room's views rebuilt and pushed per hello. Presence is now pushed at most once per
    ``PRESENCE_SECONDS``, and the room's other socket still learns how it ended."""
    told = _count_notifies(monkeypatch)
    flips = 80
    with TestClient(create_app(make_settings(db_url))) as client:
        made = create(client, game="london", mode="online", seats=[{"name": "Host"}, {}])
        room, host = made["room"]["room"], made["tokens"]["0"]
        joined = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bo"}).json()
        with client.websocket_connect(f"/ws/rooms/{room}") as watcher:
            watcher.send_json({"type": "hello", "token": joined["token"]})
            assert watcher.receive_json()["view"]["you"] == 1
            time.sleep(PRESENCE_SECONDS + 0.3)
            told.clear()
            with client.websocket_connect(f"/ws/rooms/{room}") as flipper:
                began = time.monotonic()
                for n in range(flips):
                    flipper.send_json({"type": "hello", "token": host if n % 2 == 0 else None})
                    flipper.receive_json()
                elapsed = time.monotonic() - began
                time.sleep(PRESENCE_SECONDS + 0.3)
                assert 1 <= len(told) <= 2 + elapsed / PRESENCE_SECONDS < flips / 2
                seats = view(client, room)["seats"]
                assert [s["connected"] for s in seats] == [False, True]  # it ended a spectator
                flipper.send_json({"type": "hello", "token": host})
                flipper.receive_json()
                time.sleep(PRESENCE_SECONDS + 0.3)
                assert [s["connected"] for s in view(client, room)["seats"]] == [True, True]
                # the watcher's views end with the host connected (no flip lost, none extra)
                last = None
                while last is None or not last["seats"][0]["connected"]:
                    message = watcher.receive_json()
                    assert message["type"] == "view"
                    last = message["view"]


def _count_notifies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rooms whose listeners are all pushed a view, one entry per push."""
    told: list[str] = []
    notify = Table.notify

    async def counted(table: Table) -> None:
        told.append(table.id)
        await notify(table)

    monkeypatch.setattr(Table, "notify", counted)
    return told


def test_a_token_replaced_after_hello_no_longer_acts(db_url: str) -> None:
    """A socket greeted with a seat's token keeps acting only while the token is the seat's
    (fault 10: a token replaced by a new daily start kept working on an older socket)."""
    with TestClient(create_app(make_settings(db_url))) as client:
        room, token = solo(client)
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            seen = ws.receive_json()["view"]
            rooms = client.app.state.rooms  # type: ignore[attr-defined]
            table = rooms.tables[room]
            client.portal.call(rooms.seats.new_seat_token, table, 0)  # type: ignore[union-attr]
            move = next(a for a in seen["legal"] if a != "pass")
            ws.send_json({"type": "action", "action": move, "step": seen["step"]})
            refusal = ws.receive_json()
            assert refusal["type"] == "error" and refusal["reason"] == "bad-token"
            assert "no longer holds seat 1" in refusal["error"]
        assert client.get(f"/api/rooms/{room}/view", headers=auth(token)).status_code == 403


def test_a_socket_reopened_in_a_loop_is_refused(db_url: str) -> None:
    """A flooding socket closed and opened again pushed its seat's presence to every other
    socket of the room each time: one address opens at most ``rate_sockets`` a minute."""
    with TestClient(create_app(make_settings(db_url, rate_sockets="3/minute"))) as client:
        room, token = solo(client)
        for _ in range(3):
            with client.websocket_connect(f"/ws/rooms/{room}") as ws:
                ws.send_json({"type": "hello", "token": token})
                assert ws.receive_json()["type"] == "view"
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            refusal = ws.receive_json()
            assert refusal["reason"] == "rate-limited"
            assert "too many WebSocket connections from this address" in refusal["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 1008
        # opened again at once: denied at the handshake (no socket), the same error as JSON
        for _ in range(3):
            with pytest.raises(WebSocketDenialResponse) as denied:
                client.websocket_connect(f"/ws/rooms/{room}").__enter__()
            assert denied.value.status_code == 429
            assert denied.value.json()["reason"] == "rate-limited"
            assert 1 <= int(denied.value.headers["retry-after"]) <= 60
        # once the wait is over the next refusal is told on a socket again
        told = client.app.state.told  # type: ignore[attr-defined]
        told.until.clear()
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            assert ws.receive_json()["reason"] == "rate-limited"


class QueuedSocket:
    """A socket whose client's messages are all queued already: each read returns at once,
    the way uvicorn hands over frames it has buffered; then the client leaves."""

    def __init__(self, messages: int) -> None:
        self.left = messages

    async def receive(self) -> dict[str, Any]:
        if self.left == 0:
            return {"type": "websocket.disconnect"}
        self.left -= 1
        return {"type": "websocket.receive", "text": "{}"}


def test_a_socket_with_queued_messages_lets_the_loop_serve_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two messages of one socket the event loop runs everything else that is ready
    (one socket's 1,550 queued illegal actions a second held every other client's messages
    while it read them: the reads never waited)."""
    turns = 0
    seen: list[int] = []

    async def answer(_conn: object, _data: dict[str, Any]) -> None:
        seen.append(turns)

    async def other_clients() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    room = SimpleNamespace(notify_presence=lambda: None)  # a spectator leaving is told
    conn = SimpleNamespace(
        socket=QueuedSocket(50), table=room, key="listening", seat=None, close=lambda: None
    )
    monkeypatch.setattr(ws, "_answer", answer)

    async def run() -> None:
        others = asyncio.create_task(other_clients())
        await asyncio.sleep(0)
        await ws.serve_connection(conn)  # type: ignore[arg-type]
        others.cancel()

    run_async(run())
    assert len(seen) == 50
    assert all(later > earlier for earlier, later in itertools.pairwise(seen))
