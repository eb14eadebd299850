"""Bounded resources (docs/web-api.md, "Errors", "Rooms"): rooms nothing uses leave memory and
come back on demand, one client address cannot create rooms, players or seat claims without
limit (X-Forwarded-For counts only from trusted proxies) nor hold WebSockets open without limit,
and the WebSocket protocol refuses an oversized frame before buffering it. On SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import uvicorn
import websockets
from fastapi import WebSocketDisconnect
from fastapi.testclient import TestClient
from pydantic import ValidationError
from starlette.requests import Request
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.web.api.jobs import requester
from metrogames.web.api.ws import FRAME_LIMIT
from metrogames.web.app import create_app
from metrogames.web.infra.config import Settings
from metrogames.web.server import server_config
from support.web import JSON, Player, act, auth, create, later, make_settings, run_async, view

ROOM = {"game": "london", "mode": "solo", "seats": [{"name": "Ada"}]}


def wait_for(check: Callable[[], bool], seconds: float = 10) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


# -- eviction -----------------------------------------------------------------------------------
def test_rooms_nothing_uses_leave_memory_and_come_back(db_url: str) -> None:
    settings = make_settings(db_url, room_idle=100, finished_idle=10)
    with TestClient(create_app(settings)) as c:
        rooms = c.app.state.rooms  # type: ignore[attr-defined]
        tables = rooms.tables
        made = create(c, game="london", mode="online", seats=[{"name": "Ada"}, {}])
        waiting, host = made["room"]["room"], made["host_token"]
        solo = create(c, game="london", mode="solo", seats=[{"name": "Bo"}])
        playing, token = solo["room"]["room"], solo["tokens"]["0"]
        clocked = create(
            c, game="london", mode="hotseat", turn_clock=600, seats=[{"name": "A"}, {"name": "B"}]
        )["room"]["room"]
        before = view(c, playing, token)
        later(c, 50)
        assert rooms.evict_idle() == []  # 50 s: nothing idle long enough
        later(c, 60)  # 110 s since: the idle rooms go, the clock's room stays (its task runs)
        assert sorted(rooms.evict_idle()) == sorted([waiting, playing])
        assert set(tables) == {clocked}
        # reloaded on demand, as it was, and plays on
        assert view(c, playing, token) == before and playing in tables
        assert act(c, playing, token, "pass", before["step"]).status_code == 200
        r = c.post(f"/api/rooms/{waiting}/join", json={"seat": 1, "name": "Cy"})
        assert r.status_code == 200, r.text
        assert c.post(f"/api/rooms/{waiting}/start", headers=auth(host) | JSON).status_code == 200
        # a socket holds its room, however long it stays idle
        with c.websocket_connect(f"/ws/rooms/{waiting}") as ws:
            ws.send_json({"type": "hello", "token": None})
            step = ws.receive_json()["view"]["step"]
            later(c, 1000)
            assert waiting not in rooms.evict_idle() and waiting in tables
            assert view(c, waiting)["step"] == step
        later(c, 1000)
        assert waiting in rooms.evict_idle()


def test_finished_rooms_leave_sooner_and_the_sweeper_runs(db_url: str) -> None:
    settings = make_settings(db_url, room_idle=600, finished_idle=0.05)
    with TestClient(create_app(settings)) as c:
        tables = c.app.state.rooms.tables  # type: ignore[attr-defined]
        made = create(c, **ROOM)
        room, token = made["room"]["room"], made["tokens"]["0"]
        other = create(c, **ROOM)["room"]["room"]
        final = Player(room, made["tokens"], passing=True).play_out(c)
        wait_for(lambda: room not in tables)  # the lifespan's sweeper evicted it
        assert other in tables
        assert view(c, room, token)["scores"] == final["scores"] and room in tables


# -- rate limits --------------------------------------------------------------------------------


def limited(
    db_url: str, **limits: str
) -> tuple[TestClient, Callable[[str, dict[str, str] | None], TestClient]]:
    """An app with ``limits`` and a maker of clients of it from a given address."""
    app = create_app(make_settings(db_url, **limits))

    def client_from(address: str, headers: dict[str, str] | None = None) -> TestClient:
        return TestClient(app, client=(address, 40000), headers=headers)

    return TestClient(app), client_from


def test_room_creation_is_limited_per_address(db_url: str) -> None:
    main, client_from = limited(db_url, rate_rooms="3/minute")
    with main:
        ada, bob = client_from("192.0.2.1"), client_from("192.0.2.2")
        for _ in range(3):
            create(ada, **ROOM)
        r = ada.post("/api/rooms", json=ROOM)
        refused(r, 429, "rate-limited")
        assert "at most 3 per 1 minute" in r.json()["error"]
        assert 1 <= int(r.headers["retry-after"]) <= 60
        refused(ada.post("/api/rooms", json={"game": "nope"}), 400, "bad-request")  # not counted
        create(bob, **ROOM)  # another address
        tables = main.app.state.rooms.tables  # type: ignore[attr-defined]
        assert len(tables) == 4  # the refused creation made nothing


def test_daily_starts_players_and_joins_are_limited(db_url: str) -> None:
    main, client_from = limited(
        db_url, rate_players="2/minute", rate_joins="1/minute", rate_rooms="2/minute"
    )
    with main:
        ada = client_from("192.0.2.1")
        tokens = [ada.post("/api/players", json={"name": n}).json()["token"] for n in "AB"]
        refused(ada.post("/api/players", json={"name": "C"}), 429, "rate-limited")
        made = create(ada, game="london", mode="online", seats=[{"name": "A"}, {}, {}])
        room = made["room"]["room"]
        assert ada.post(f"/api/rooms/{room}/join", json={"seat": 1}).status_code == 200
        refused(ada.post(f"/api/rooms/{room}/join", json={"seat": 2}), 429, "rate-limited")
        daily = "/api/daily/london/2020-01-01/start"
        assert ada.post(daily, headers=auth(tokens[0]), json={}).status_code == 200
        refused(ada.post(daily, headers=auth(tokens[1]), json={}), 429, "rate-limited")
        refused(ada.post("/api/rooms", json=ROOM), 429, "rate-limited")  # rooms all the same
        bob = client_from("192.0.2.2")
        assert bob.post(f"/api/rooms/{room}/join", json={"seat": 2}).status_code == 200
        assert bob.post(daily, headers=auth(tokens[1]), json={}).status_code == 200


def test_forwarded_addresses_count_only_from_trusted_proxies(db_url: str) -> None:
    main, client_from = limited(db_url, rate_rooms="1/minute", trusted_proxies="10.0.0.0/24")
    with main:
        for client in ("198.51.100.7", "2001:db8::1"):
            via_proxy = client_from("10.0.0.5", {"X-Forwarded-For": client})
            create(via_proxy, **ROOM)
            refused(via_proxy.post("/api/rooms", json=ROOM), 429, "rate-limited")
        # the same /64 network counts as one IPv6 client
        same_net = client_from("10.0.0.6", {"X-Forwarded-For": "2001:db8::2"})
        refused(same_net.post("/api/rooms", json=ROOM), 429, "rate-limited")
        # through the proxy, a client the proxy appended after a forged entry is still itself
        forged = client_from("10.0.0.5", {"X-Forwarded-For": "198.51.100.7, 203.0.113.9"})
        create(forged, **ROOM)
        # an untrusted peer cannot pick its address with the header
        direct = client_from("203.0.113.50", {"X-Forwarded-For": "198.51.100.99"})
        create(direct, **ROOM)
        for fake in ("198.51.100.100", "198.51.100.101"):
            spoof = client_from("203.0.113.50", {"X-Forwarded-For": fake})
            refused(spoof.post("/api/rooms", json=ROOM), 429, "rate-limited")


def test_exempt_addresses_are_counted_by_no_per_address_limit(db_url: str) -> None:
    """``METROGAMES_RATE_EXEMPT``: the operator's own addresses pass the rate limits and the
    socket cap and have no address quota for jobs; every other address meets them all."""
    main, client_from = limited(
        db_url, rate_rooms="1/minute", ws_per_address="1", rate_exempt="192.0.2.0/28, 2001:db8::1"
    )
    with main:
        ours, v6, ada = client_from("192.0.2.5"), client_from("2001:db8::1"), client_from("192.0.2.99")
        rooms = [create(client, **ROOM)["room"]["room"] for client in (ours, ours, ours, v6, v6)]
        create(ada, **ROOM)
        refused(ada.post("/api/rooms", json=ROOM), 429, "rate-limited")
        path = f"/ws/rooms/{rooms[0]}"
        hello = {"type": "hello", "token": None}
        with ours.websocket_connect(path) as one, ours.websocket_connect(path) as two:
            for ws in (one, two):
                ws.send_json(hello)
                assert ws.receive_json()["type"] == "view"
            with ada.websocket_connect(path) as first, ada.websocket_connect(path) as second:
                first.send_json(hello)
                assert first.receive_json()["type"] == "view"
                assert second.receive_json()["reason"] == "rate-limited"
        sockets = main.app.state.sockets  # type: ignore[attr-defined]
        assert sockets.open == {}  # the exempt sockets were never counted


def test_the_job_quota_of_an_exempt_address_is_its_accounts_only(db_url: str) -> None:
    app = create_app(make_settings(db_url, rate_exempt="192.0.2.0/28"))

    def keys(host: str) -> list[str]:
        scope = {"type": "http", "app": app, "client": (host, 1), "headers": [], "method": "GET"}
        return run_async(requester(Request(scope), "Ada"))

    assert keys("192.0.2.5") == ["name:Ada"]
    assert keys("192.0.2.16") == ["address:192.0.2.16", "name:Ada"]


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("rate_rooms", "lots"),
        ("rate_exempt", "10.0.0.0/33"),
        ("rate_players", "10 per fortnight"),
        ("trusted_proxies", "proxy.example"),
        ("trusted_proxies", "10.0.0.1, 10.0.0.300"),
    ],
)
def test_bad_limit_settings_are_refused_by_name(setting: str, value: str) -> None:
    with pytest.raises(ValidationError, match=setting):
        Settings(**{setting: value})


# -- WebSocket frames -----------------------------------------------------------------------------
def test_an_oversized_websocket_frame_is_refused_by_the_protocol(db_url: str) -> None:
    app = create_app(make_settings(db_url))
    settings = make_settings(db_url, host="127.0.0.1", port=0)

    async def run() -> dict[str, Any]:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(server_config(app, settings))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            while not server.started:
                assert not task.done(), "the server did not start"
                await asyncio.sleep(0.02)
            base = f"127.0.0.1:{port}"
            out: dict[str, Any] = {}
            async with websockets.connect(f"ws://{base}/ws/rooms/{room}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": None}))
                out["view"] = json.loads(await ws.recv())["type"]
                await ws.send("x" * (20 * 1024))  # over the message limit: an error, still open
                out["large"] = json.loads(await ws.recv())["reason"]
                await ws.send(json.dumps({"type": "hello", "token": None}))
                out["after"] = json.loads(await ws.recv())["type"]
                await ws.send("x" * (FRAME_LIMIT + 1))  # over the frame limit: closed unread
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                out["code"] = closed.value.rcvd.code if closed.value.rcvd else None
            async with websockets.connect(f"ws://{base}/ws/rooms/{room}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": None}))
                out["again"] = json.loads(await ws.recv())["type"]
            return out
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 15)
            sock.close()

    with TestClient(app) as c:
        room = create(c, **ROOM)["room"]["room"]
    # a thread of its own: the browser tests' sync Playwright keeps a loop running here
    with ThreadPoolExecutor(1) as pool:
        out = pool.submit(asyncio.run, run()).result(60)
    assert out == {
        "view": "view",
        "large": "too-large",
        "after": "view",
        "code": 1009,
        "again": "view",
    }


def test_serve_refuses_a_bad_setting_by_name() -> None:
    result = CliRunner().invoke(cli, ["serve"], env={"METROGAMES_TRUSTED_PROXIES": "proxy.example"})
    assert result.exit_code != 0
    assert "bad setting" in result.output and "trusted_proxies" in result.output
    assert "'proxy.example' is no IP address or network" in result.output


# -- open WebSockets per address ----------------------------------------------------------------
def test_open_websockets_are_capped_per_address(db_url: str) -> None:
    main, client_from = limited(db_url, ws_per_address="2", trusted_proxies="10.0.0.0/24")
    with main:
        room = create(main, **ROOM)["room"]["room"]
        path = f"/ws/rooms/{room}"
        hello = {"type": "hello", "token": None}
        ada = client_from("192.0.2.1")
        via_proxy = client_from("10.0.0.5", {"X-Forwarded-For": "192.0.2.1"})
        spoof = client_from("203.0.113.5", {"X-Forwarded-For": "192.0.2.1"})  # not ada
        with ada.websocket_connect(path) as one, via_proxy.websocket_connect(path) as two:
            for ws in (one, two):
                ws.send_json(hello)
                assert ws.receive_json()["type"] == "view"
            # a third from the same address (directly or through the trusted proxy): refused
            for client in (ada, via_proxy):
                with client.websocket_connect(path) as three:
                    error = three.receive_json()
                    assert error == {
                        "type": "error",
                        "error": "too many open connections from this address: at most 2",
                        "reason": "rate-limited",
                    }
                    with pytest.raises(WebSocketDisconnect) as closed:
                        three.receive_json()
                    assert closed.value.code == 1008
                    assert closed.value.reason == error["error"]
            # other addresses are counted apart; a header from an untrusted peer names nobody
            for client in (client_from("192.0.2.2"), spoof, spoof):
                with client.websocket_connect(path) as other:
                    other.send_json(hello)
                    assert other.receive_json()["type"] == "view"
            two.send_json(hello)  # the open sockets still work
            assert two.receive_json()["type"] == "view"
        # closing frees the address's places
        with ada.websocket_connect(path) as again, ada.websocket_connect(path) as more:
            for ws in (again, more):
                ws.send_json(hello)
                assert ws.receive_json()["type"] == "view"
        sockets = main.app.state.sockets  # type: ignore[attr-defined]
        assert sockets.open == {}
