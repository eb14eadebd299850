"""Now playing (``docs/web-api.md``, "Now playing"): the listed online games in progress,
top-rated and newest first, with their spectators counted on every worker; unlisted rooms,
rooms not yet started or finished, and daily games never show; the event stream follows the
list; requests are rate-limited per address. On SQLite and PostgreSQL; the spectators across
two workers on PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from metrogames.web.infra.models import RatingRow, SeatRow
from metrogames.web.watch.hub import WatchStream
from support.daily import Clock, daily_client, started
from support.two_workers import two_workers
from support.web import JSON, Player, auth, create, make_settings, view


def now_playing(client: TestClient, query: str = "") -> dict[str, list[dict[str, Any]]]:
    r = client.get(f"/api/watch{query}")
    assert r.status_code == 200, r.text
    found: dict[str, list[dict[str, Any]]] = r.json()
    return found


def rooms_of(entries: list[dict[str, Any]]) -> list[str]:
    return [e["room"] for e in entries]


def playing(
    client: TestClient, game: str = "london", listed: bool = True, seats: int = 2
) -> dict[str, Any]:
    """A started online room, the host at seat 0, the other seats joined (``tokens``)."""
    made = create(
        client, game=game, mode="online", seats=[{"name": "Ada"}] + [{}] * (seats - 1), listed=listed
    )
    room = made["room"]["room"]
    for seat in range(1, seats):
        r = client.post(f"/api/rooms/{room}/join", json={"seat": seat, "name": f"P{seat}"})
        assert r.status_code == 200, r.text
        made["tokens"][str(seat)] = r.json()["token"]
    r = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
    assert r.status_code == 200, r.text
    return made


def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    give_up = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < give_up, "never got there"
        time.sleep(0.05)


def test_only_listed_online_games_in_progress_show(client: TestClient) -> None:
    shown = playing(client)["room"]["room"]
    unlisted = playing(client, listed=False)["room"]["room"]
    waiting = create(client, game="london", mode="online", seats=[{"name": "A"}, {}], listed=True)
    solo = client.post("/api/rooms", json={"game": "london", "mode": "solo", "seats": [{}]})
    assert solo.status_code in (200, 201), solo.text
    got = now_playing(client)
    assert rooms_of(got["recent"]) == [shown] == rooms_of(got["top"])
    assert unlisted != shown and waiting["room"]["room"] != shown
    [entry] = got["recent"]
    assert (entry["game"], entry["players"], entry["rating"], entry["spectators"]) == ("london", 2, None, 0)
    assert [(s["seat"], s["name"], s["kind"], s["rating"]) for s in entry["seats"]] == [
        (0, "Ada", "human", None),
        (1, "P1", "human", None),
    ]


def test_top_is_by_the_seats_mean_rating_and_recent_is_newest_first(client: TestClient) -> None:
    made = [playing(client) for _ in range(3)]
    rooms = [m["room"]["room"] for m in made]
    accounts = []
    for _ in range(3):
        name = f"Wat {secrets.token_hex(4)}"
        r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
        assert r.status_code == 201, r.text
        accounts.append(r.json()["account"])
    sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
    with sessions.begin() as session:
        # room 0: one seat rated 30 - 3*2 = 24; room 1: seats 40 - 3 = 37 and 10 - 3 = 7 (mean 22)
        for room, seat, account in ((rooms[0], 0, accounts[0]), (rooms[1], 0, accounts[1]), (rooms[1], 1, accounts[2])):
            session.query(SeatRow).filter_by(room_id=room, seat=seat).update({"account_id": account})
        for account, mu, sigma in ((accounts[0], 30.0, 2.0), (accounts[1], 40.0, 1.0), (accounts[2], 10.0, 1.0)):
            session.add(RatingRow(account_id=account, game="london", players=2, mu=mu, sigma=sigma, games=3, rated_id=1))
            session.add(RatingRow(account_id=account, game="london", players=3, mu=99.0, sigma=1.0, games=3, rated_id=2))
    got = now_playing(client)
    assert rooms_of(got["recent"]) == rooms[::-1]  # newest first
    assert rooms_of(got["top"]) == [rooms[0], rooms[1], rooms[2]]  # 24, 22, unrated
    ratings = {e["room"]: e["rating"] for e in got["top"]}
    assert ratings == {rooms[0]: 24.0, rooms[1]: 22.0, rooms[2]: None}
    one = next(e for e in got["top"] if e["room"] == rooms[1])
    assert [s["rating"] for s in one["seats"]] == [37.0, 7.0]
    assert rooms_of(now_playing(client, "?limit=1")["recent"]) == [rooms[2]]


def test_filtered_by_game_and_bad_filters_refused_by_name(client: TestClient) -> None:
    london = playing(client)["room"]["room"]
    metro = playing(client, game="metro")["room"]["room"]
    assert rooms_of(now_playing(client, "?game=metro")["recent"]) == [metro]
    assert rooms_of(now_playing(client, "?game=london")["top"]) == [london]
    for query in ("?game=chess", "?limit=0", "?limit=51", "?limit=x", "?game=" + "x" * 65):
        r = client.get(f"/api/watch{query}")
        assert r.status_code == 400 and r.json()["reason"] == "bad-request", (query, r.text)
        assert ("game" if "game" in query else "limit") in r.json()["error"]


def test_a_finished_game_leaves_the_list(client: TestClient) -> None:
    made = playing(client)
    room = made["room"]["room"]
    assert rooms_of(now_playing(client)["recent"]) == [room]
    sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
    from metrogames.web.infra.models import RoomRow

    with sessions.begin() as session:
        session.query(RoomRow).filter_by(id=room).update({"status": "finished"})
    assert now_playing(client) == {"top": [], "recent": []}


def test_spectators_are_counted_in_the_list_the_views_and_the_summary(client: TestClient) -> None:
    made = playing(client)
    room = made["room"]["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as one, client.websocket_connect(f"/ws/rooms/{room}") as two:
        for ws in (one, two):
            ws.send_json({"type": "hello", "token": None})
            first = ws.receive_json()
            assert first["type"] == "view" and first["view"]["you"] is None
            # the spectators' view, as the HTTP view without a token gives it
            public = {k: v for k, v in view(client, room).items() if k != "spectators"}
            assert {k: v for k, v in first["view"].items() if k != "spectators"} == public
        until(lambda: now_playing(client)["recent"][0]["spectators"] == 2)
        assert client.get(f"/api/rooms/{room}").json()["spectators"] == 2
        assert view(client, room, made["tokens"]["0"])["spectators"] == 2
        # what a spectator sees is the spectators' view: no seat's legal actions
        seen = view(client, room)
        assert seen["you"] is None and seen["legal"] == [] and seen["spectators"] == 2
    until(lambda: now_playing(client)["recent"][0]["spectators"] == 0)
    assert view(client, room, made["tokens"]["0"])["spectators"] == 0


def test_a_seated_socket_is_no_spectator(client: TestClient) -> None:
    made = playing(client)
    room = made["room"]["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": made["tokens"]["1"]})
        assert ws.receive_json()["view"]["you"] == 1
        assert now_playing(client)["recent"][0]["spectators"] == 0
        assert view(client, room, made["tokens"]["0"])["seats"][1]["connected"] is True


def test_an_open_daily_game_never_shows(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        r = client.post("/api/players", json={"name": "Day"})
        assert r.status_code in (200, 201), r.text
        game = started(client, r.json()["token"])
        assert game["room"]
        assert now_playing(client) == {"top": [], "recent": []}


class Events:
    """An event stream read line by line: its events as ``(name, data)``."""

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


def test_the_event_stream_follows_the_list(client: TestClient) -> None:
    with client.stream("GET", "/api/watch/events?game=london") as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = Events(r.iter_lines())
        assert events.next() == ("snapshot", {"top": [], "recent": []})
        playing(client, game="metro")  # not this stream's game
        room = playing(client)["room"]["room"]
        name, data = events.next()
        assert name == "snapshot" and rooms_of(data["recent"]) == [room] == rooms_of(data["top"])


def test_watch_requests_are_rate_limited_per_address(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, rate_watch="3/minute"))) as client:
        for _ in range(3):
            assert client.get("/api/watch").status_code == 200
        r = client.get("/api/watch/events")
        assert r.status_code == 429 and r.json()["reason"] == "rate-limited"
        assert "address" in r.json()["error"] and "Retry-After" in r.headers
        assert "now playing" in r.json()["error"]


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_spectators_on_two_workers_are_counted_on_both(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        made = playing(a)
        room = made["room"]["room"]
        with a.websocket_connect(f"/ws/rooms/{room}") as on_a, b.websocket_connect(f"/ws/rooms/{room}") as on_b:
            for ws in (on_a, on_b):
                ws.send_json({"type": "hello", "token": None})
                assert ws.receive_json()["view"]["you"] is None
            for worker in (a, b):
                until(lambda w=worker: now_playing(w)["recent"][0]["spectators"] == 2)  # type: ignore[misc]
            # a seat's view on either worker counts both spectators
            until(lambda: view(a, room, made["tokens"]["0"])["spectators"] == 2)
            until(lambda: view(b, room, made["tokens"]["1"])["spectators"] == 2)
            until(lambda: on_a.receive_json()["view"]["spectators"] == 2)
        for worker in (a, b):
            until(lambda w=worker: now_playing(w)["recent"][0]["spectators"] == 0)  # type: ignore[misc]


def test_a_profile_lists_its_finished_games_each_with_its_replay(client: TestClient) -> None:
    r = client.post("/api/accounts", json={"name": f"Fin {secrets.token_hex(4)}", "password": "long enough"})
    assert r.status_code == 201, r.text
    account = r.json()["account"]
    games = []
    for _ in range(2):
        made = playing(client, game="metro")
        room = made["room"]["room"]
        sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
        with sessions.begin() as session:
            session.query(SeatRow).filter_by(room_id=room, seat=1).update({"account_id": account})
        Player(room, made["tokens"]).play_out(client)
        games.append(room)
    still = playing(client)["room"]["room"]  # in progress: not a finished game
    with sessions.begin() as session:
        session.query(SeatRow).filter_by(room_id=still, seat=0).update({"account_id": account})
    profile = client.get(f"/api/accounts/{account}/profile").json()
    finished = profile["finished"]
    assert [g["room"] for g in finished] == games[::-1]  # the latest finished first
    assert {(g["game"], g["players"], g["seat"]) for g in finished} == {("metro", 2, 1)}
    assert finished[0]["finished"] >= finished[1]["finished"] > 0
    assert still in [g["room"] for g in profile["games"]] and still not in [g["room"] for g in finished]
    for g in finished:
        replay = client.get(f"/api/rooms/{g['room']}/replay")
        assert replay.status_code == 200 and replay.json()["frames"][-1]["status"] == "finished"


def test_the_openapi_schema_names_both_routes_and_the_list_s_shape(client: TestClient) -> None:
    schema = client.get("/api/openapi.json").json()
    assert {"/api/watch", "/api/watch/events"} <= set(schema["paths"])
    answer = schema["paths"]["/api/watch"]["get"]["responses"]["200"]["content"]["application/json"]
    assert answer["schema"]["$ref"].endswith("/NowPlaying")
    entry = schema["components"]["schemas"]["WatchEntry"]
    assert {"room", "game", "seats", "rating", "spectators"} <= set(entry["required"])
    params = {p["name"] for p in schema["paths"]["/api/watch/events"]["get"]["parameters"]}
    assert params == {"game", "limit"}


def test_a_stream_is_sent_only_changes_and_one_that_falls_behind_is_dropped() -> None:
    stream = WatchStream(None, 20, asyncio.Queue(1))
    empty: Any = {"top": [], "recent": []}
    stream.offer(empty)
    stream.offer({"top": [], "recent": []})  # the same ranking again: nothing queued
    assert stream.queue.qsize() == 1 and not stream.dropped
    stream.offer({"top": [{"room": "r"}], "recent": [{"room": "r"}]})  # no place left
    assert stream.dropped and stream.queue.qsize() == 1  # dropped, never waited for


def test_a_play_now_table_is_public_in_now_playing_and_never_in_the_lobby(db_url: str) -> None:
    """Play now seats strangers at a table nobody hosts: it is public from its creation (in
    now playing while it plays), and the lobby, which lists waiting rooms, never shows it."""
    settings = make_settings(db_url, rate_quickmatch="1000/minute", quickmatch_live_clock=100_000)
    with TestClient(create_app(settings)) as client:
        seated: list[str] = []
        for _ in range(2):
            name = "w" + secrets.token_hex(4)
            r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
            assert r.status_code == 201, r.text
            cookie = {"Cookie": f"metrogames_session={client.cookies['metrogames_session']}"}
            client.cookies.clear()
            body = {"game": "london", "players": 2, "clock": "live"}
            r = client.post("/api/quickmatch", json=body, headers=cookie | JSON)
            assert r.status_code == 201, r.text
            seated.append(r.json()["ticket"])
        mm = client.app.state.matchmaker  # type: ignore[attr-defined]
        assert client.portal is not None
        until(lambda: all(client.portal.call(mm.queue.state, t)[0] == "seated" for t in seated))  # type: ignore[union-attr]
        room = client.portal.call(mm.queue.seating, seated[0])["room"]
        listed = now_playing(client)
        assert room in rooms_of(listed["recent"]) and room in rooms_of(listed["top"])
        lobby = client.get("/api/lobby").json()
        assert room not in [e["room"] for e in lobby["rooms"]]
