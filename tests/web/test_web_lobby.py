"""The lobby of open tables (``docs/web-api.md``, "Lobby"): listed online rooms waiting for
players, newest first, filtered by game and seats; full, started, abandoned and expired rooms
leave it; its event stream follows it live; its requests are rate-limited per address and per
account. On SQLite and PostgreSQL; across two workers on PostgreSQL and Redis."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from support.two_workers import two_workers
from support.web import JSON, auth, create, make_settings


def lobby(client: TestClient, query: str = "") -> list[dict[str, Any]]:
    r = client.get(f"/api/lobby{query}")
    assert r.status_code == 200, r.text
    rooms: list[dict[str, Any]] = r.json()["rooms"]
    return rooms


def listed(client: TestClient, game: str = "london", seats: int = 2, **body: Any) -> dict[str, Any]:
    """A new listed online room of ``seats`` seats, the host at seat 0, the others open."""
    body.setdefault("listed", True)
    return create(
        client, game=game, mode="online", seats=[{"name": "Ada"}] + [{}] * (seats - 1), **body
    )


def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait until ``check()`` holds (the lobby reads in the background), at most ``seconds``."""
    give_up = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < give_up, "the lobby never got there"
        time.sleep(0.02)


def ids(rooms: list[dict[str, Any]]) -> list[str]:
    return [r["room"] for r in rooms]


def test_a_listed_room_shows_with_its_facts_and_an_unlisted_one_does_not(client: TestClient) -> None:
    before = time.time()
    made = listed(client, game="metro", seats=3, turn_clock=60)
    hidden = listed(client, listed=False)
    [entry] = lobby(client)
    room = made["room"]["room"]
    assert entry["room"] == room != hidden["room"]["room"]
    assert (entry["game"], entry["players"], entry["free"], entry["clock"]) == ("metro", 3, 2, 60)
    assert entry["host"] == "Ada" and entry["host_rating"] is None  # not signed in
    assert before <= entry["created"] <= time.time() and 0 <= entry["age"] <= 5
    settings = client.app.state.settings  # type: ignore[attr-defined]
    assert entry["expires"] == pytest.approx(entry["created"] + settings.lobby_expiry)
    assert entry["options"] == made["room"]["options"]
    assert entry["preset"] == made["room"]["preset"]


def test_only_an_online_room_can_be_listed(client: TestClient) -> None:
    r = client.post(
        "/api/rooms", json={"game": "london", "mode": "solo", "seats": [{}], "listed": True}
    )
    assert r.status_code == 400 and r.json()["reason"] == "bad-request"
    assert "listed" in r.json()["error"]
    assert lobby(client) == []


def test_newest_first_and_filtered_by_game_and_seats(client: TestClient) -> None:
    made = [
        listed(client, game="london", seats=2),
        listed(client, game="metro", seats=2),
        listed(client, game="london", seats=3),
        listed(client, game="metro", seats=4),
    ]
    rooms = [m["room"]["room"] for m in made]
    assert ids(lobby(client)) == rooms[::-1]
    assert ids(lobby(client, "?game=london")) == [rooms[2], rooms[0]]
    assert ids(lobby(client, "?players=2")) == [rooms[1], rooms[0]]
    assert ids(lobby(client, "?game=metro&players=4")) == [rooms[3]]
    assert ids(lobby(client, "?limit=2")) == [rooms[3], rooms[2]]
    assert lobby(client, "?game=metro&players=3") == []


@pytest.mark.parametrize(
    "query", ["?game=chess", "?players=0", "?players=x", "?players=99", "?limit=0"]
)
def test_bad_filters_are_refused_by_name(client: TestClient, query: str) -> None:
    r = client.get(f"/api/lobby{query}")
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["reason"] == "bad-request"
    assert query[1:].split("=", maxsplit=1)[0] in body["error"]


def test_a_join_counts_down_and_a_full_room_leaves_at_once(client: TestClient) -> None:
    made = listed(client, game="metro", seats=3)
    room = made["room"]["room"]
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bo"})
    assert r.status_code == 200, r.text
    assert [e["free"] for e in lobby(client)] == [1]
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 2, "name": "Cy"})
    assert r.status_code == 200, r.text
    assert lobby(client) == []
    r = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
    assert r.status_code == 200, r.text
    assert lobby(client) == []


def test_a_bot_seat_is_no_open_seat(client: TestClient) -> None:
    create(client, game="london", mode="online", seats=[{"name": "Ada"}, {"bot": "easy"}], listed=True)
    made = create(
        client, game="london", mode="online", seats=[{"name": "Ada"}, {"bot": "easy"}, {}], listed=True
    )
    [entry] = lobby(client)
    assert (entry["room"], entry["free"], entry["players"]) == (made["room"]["room"], 1, 3)


def test_a_room_its_host_left_leaves_and_comes_back_with_the_host(client: TestClient) -> None:
    made = listed(client)
    room = made["room"]["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
        assert ws.receive_json()["type"] == "view"
        assert ids(lobby(client)) == [room]
    until(lambda: lobby(client) == [])  # the host's last socket closed: abandoned
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
        assert ws.receive_json()["type"] == "view"
        until(lambda: ids(lobby(client)) == [room])
        with client.websocket_connect(f"/ws/rooms/{room}") as spectator:
            spectator.send_json({"type": "hello", "token": None})
            assert spectator.receive_json()["type"] == "view"
        time.sleep(0.2)  # a spectator leaving abandons nothing
        assert ids(lobby(client)) == [room]


def test_a_host_who_left_is_away_even_when_the_arrival_is_stored_after_the_departure(
    client: TestClient,
) -> None:
    """The host's socket comes and goes at once while storing its arrival is slow (a busy
    database thread): the departure must not be overwritten by the arrival stored after it —
    the room leaves the lobby (each socket's news is stored in turn, read when its turn comes)."""
    hub = client.app.state.lobby  # type: ignore[attr-defined]
    store = hub._mark_away

    def slow_arrival(room: str, away: bool) -> None:
        if not away:
            time.sleep(0.5)
        store(room, away)

    hub._mark_away = slow_arrival
    made = listed(client)
    room = made["room"]["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
        assert ws.receive_json()["type"] == "view"
    until(lambda: lobby(client) == [])
    time.sleep(1.0)  # every write stored: still away
    assert lobby(client) == []


def test_a_listed_room_nobody_joins_expires(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, lobby_expiry=600))) as client:
        old = listed(client)["room"]["room"]
        client.app.state.settings.lobby_expiry = 1200  # type: ignore[attr-defined]
        fresh = listed(client)["room"]["room"]
        assert ids(lobby(client)) == [fresh, old]
        hub = client.app.state.lobby  # type: ignore[attr-defined]
        hub.clock = lambda: time.time() + 601
        assert ids(lobby(client)) == [fresh]  # listed for 1200 s: 599 to go
        hub.wake()  # the stream's copy too (at the next expiry, or this wake)
        until(lambda: list(hub.entries) == [fresh])


def test_the_host_rating_is_the_signed_in_host_s_for_the_game_and_seats(client: TestClient) -> None:
    name = f"Hal {secrets.token_hex(4)}"
    signed = client.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert signed.status_code == 201, signed.text
    account = signed.json()["account"]
    made = listed(client)
    room = made["room"]["room"]
    r = client.post(f"/api/rooms/{room}/seats/0/account", headers=auth(made["tokens"]["0"]) | JSON)
    assert r.status_code == 200, r.text
    assert lobby(client)[0]["host_rating"] is None  # linked, not yet rated
    from metrogames.web.infra.models import RatingRow

    sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
    with sessions.begin() as session:
        session.add(RatingRow(account_id=account, game="london", players=2, mu=30.0, sigma=2.5, games=4, rated_id=1))
        session.add(RatingRow(account_id=account, game="london", players=3, mu=40.0, sigma=1.0, games=4, rated_id=2))
    assert lobby(client)[0]["host_rating"] == 22.5  # 30 - 3 * 2.5, of the 2-seat pool


class Events:
    """A lobby event stream read line by line: its events as ``(name, data)``."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines

    def next(self) -> tuple[str, Any]:
        name = None
        for line in self.lines:
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: ") and name is not None:
                return name, json.loads(line[len("data: ") :])
        raise AssertionError("the stream ended")


def test_the_event_stream_follows_the_lobby_live(client: TestClient) -> None:
    first = listed(client, game="metro")["room"]["room"]
    with client.stream("GET", "/api/lobby/events?game=london") as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = Events(r.iter_lines())
        assert events.next() == ("snapshot", {"rooms": []})  # the Metro room is filtered out
        made = listed(client, game="london", seats=3)
        room = made["room"]["room"]
        name, entry = events.next()
        assert (name, entry["room"], entry["free"]) == ("room", room, 2)
        listed(client, game="metro")  # not this stream's game: nothing sent
        assert client.post(f"/api/rooms/{room}/join", json={"seat": 1}).status_code == 200
        name, entry = events.next()
        assert (name, entry["room"], entry["free"]) == ("room", room, 1)
        assert client.post(f"/api/rooms/{room}/join", json={"seat": 2}).status_code == 200
        assert events.next() == ("gone", {"room": room})
    assert first in ids(lobby(client))


def test_a_stream_that_falls_behind_is_dropped_and_nobody_waits(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, lobby_queue=2))) as client:
        hub = client.app.state.lobby  # type: ignore[attr-defined]
        slow = client.portal.call(lambda: hub.subscribe(None, None))  # never read
        for _ in range(3):
            listed(client)
        until(lambda: slow.dropped)
        assert slow.queue.qsize() == 2  # its two places, then dropped: not waited for
        assert len(lobby(client)) == 3


def test_lobby_requests_are_rate_limited_per_address(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, rate_lobby="3/minute"))) as client:
        for _ in range(3):
            assert client.get("/api/lobby").status_code == 200
        r = client.get("/api/lobby/events")
        assert r.status_code == 429 and r.json()["reason"] == "rate-limited"
        assert "address" in r.json()["error"] and "Retry-After" in r.headers


def test_lobby_requests_are_rate_limited_per_account(db_url: str) -> None:
    app = create_app(make_settings(db_url, rate_lobby="3/minute"))
    with TestClient(app, client=("10.0.0.1", 5000)) as one:
        name = f"Ida {secrets.token_hex(4)}"
        assert one.post("/api/accounts", json={"name": name, "password": "long enough"}).status_code == 201
        for _ in range(2):
            assert one.get("/api/lobby").status_code == 200
        with TestClient(app, client=("10.0.0.2", 5000), cookies=one.cookies) as two:
            assert two.get("/api/lobby").status_code == 200
            r = two.get("/api/lobby")  # a new address, the same account: its 4th
            assert r.status_code == 429 and "account" in r.json()["error"]
        with TestClient(app, client=("10.0.0.3", 5000)) as three:
            assert three.get("/api/lobby").status_code == 200  # another address, no account


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_room_listed_on_one_worker_shows_on_the_other_and_leaves_it(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        hub_b = b.app.state.lobby  # type: ignore[attr-defined]
        with b.stream("GET", "/api/lobby/events") as r:
            events = Events(r.iter_lines())
            assert events.next() == ("snapshot", {"rooms": []})
            started = time.monotonic()
            made = listed(a)
            room = made["room"]["room"]
            name, entry = events.next()
            assert (name, entry["room"]) == ("room", room)
            assert time.monotonic() - started < 2  # told, not swept (every 5 s)
            assert a.post(f"/api/rooms/{room}/join", json={"seat": 1}).status_code == 200
            assert events.next() == ("gone", {"room": room})
        assert room not in hub_b.entries
