"""Online rooms, WebSocket updates, turn clocks and seat handover (docs/web-api.md, "Rooms",
"Playing"), on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from support.web import JSON, act, auth, create, later, record, run_clock_out, view


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def next_view(ws: Any, step: int) -> dict[str, Any]:
    """Read messages until a view of ``step`` or later comes."""
    for _ in range(50):
        message = ws.receive_json()
        if message["type"] == "view" and message["view"]["step"] >= step:
            return message["view"]  # type: ignore[no-any-return]
    raise AssertionError(f"no view of step {step}")


def online_london(client: TestClient) -> tuple[str, dict[str, str], str]:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    room, host = made["room"]["room"], made["host_token"]
    assert made["room"]["status"] == "waiting" and list(made["tokens"]) == ["0"]
    refused(client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON), 409, "seats-open")
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"})
    assert r.status_code == 200
    refused(client.post(f"/api/rooms/{room}/join", json={"seat": 1}), 409, "seat-taken")
    refused(client.post(f"/api/rooms/{room}/join", json={"seat": 0}), 409, "seat-taken")
    tokens = {"0": made["tokens"]["0"], "1": r.json()["token"]}
    refused(
        client.post(f"/api/rooms/{room}/start", headers=auth(tokens["1"]) | JSON), 403, "bad-token"
    )
    refused(act(client, room, tokens["0"], "pass", 0), 409, "not-started")
    r = client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON)
    assert r.status_code == 200 and r.json()["status"] == "playing"
    refused(
        client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON), 409, "already-started"
    )
    return room, tokens, host


def test_two_websocket_clients_follow_each_step(client: TestClient) -> None:
    room, tokens, _ = online_london(client)
    url = f"/ws/rooms/{room}"
    with client.websocket_connect(url) as ws0, client.websocket_connect(url) as ws1:
        ws0.send_json({"type": "hello", "token": tokens["0"]})
        first = ws0.receive_json()["view"]
        ws1.send_json({"type": "hello", "token": tokens["1"]})
        step = first["step"]
        v1 = next_view(ws1, step)
        assert v1["you"] == 1 and v1["seats"][0]["connected"] and v1["seats"][1]["connected"]
        ws0.send_json({"type": "action", "action": "pass", "step": step})
        assert next_view(ws0, step + 1)["players"][0]["acted"]
        assert next_view(ws1, step + 1)["players"][0]["acted"]
        ws0.send_json({"type": "action", "action": "pass", "step": step})
        error = ws0.receive_json()
        assert error["type"] == "error" and error["reason"] == "stale-step"
        for bad, reason in (
            ("not json", "bad-request"),
            ('{"type": "shout"}', "bad-request"),
            ('{"type": "hello", "token": "x" }', "bad-token"),
            ('{"type": "hello", "token": "' + "x" * 20000 + '"}', "too-large"),
        ):
            ws1.send_text(bad)
            message = ws1.receive_json()
            assert message["type"] == "error" and message["reason"] == reason, message
        # seat 1 plays over HTTP; both sockets see the new turn (one or two cards follow)
        assert act(client, room, tokens["1"], "pass", step + 1).status_code == 200
        turn = next_view(ws0, step + 3)
        assert turn["players"][0]["acted"] is False and turn["to_move"] == [0, 1]
    # reconnecting: the current view at once
    with client.websocket_connect(url) as again:
        again.send_json({"type": "hello", "token": tokens["1"]})
        assert again.receive_json()["view"] == view(client, room, tokens["1"]) | {
            "seats": again_seats(client, room)
        }


def again_seats(client: TestClient, room: str) -> list[dict[str, Any]]:
    """The seats as a connected seat 1 sees them."""
    return [
        {k: s[k] for k in ("seat", "name", "kind")} | {"connected": s["seat"] == 1}
        for s in client.get(f"/api/rooms/{room}").json()["seats"]
    ]


def test_websocket_spectator_and_unknown_room(client: TestClient) -> None:
    room, _, _ = online_london(client)
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": None})
        spectator = ws.receive_json()["view"]
        assert spectator["you"] is None and spectator["legal"] == []
        ws.send_json({"type": "action", "action": "pass", "step": spectator["step"]})
        assert ws.receive_json()["reason"] == "bad-token"
    with client.websocket_connect("/ws/rooms/nosuchrm") as ws:
        assert ws.receive_json()["reason"] == "not-found"


def wait_for(client: TestClient, room: str, check: Any, seconds: float = 10) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = view(client, room)
        if check(v):
            return v
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_next_station_clock_passes_for_late_players(client: TestClient) -> None:
    made = create(
        client, game="london", mode="hotseat", turn_clock=100_000, seats=[{"name": "A"}, {"name": "B"}]
    )  # 1,000 s a turn (a turn-clock second lasts 10 ms here): run out below, after A's move
    room, tokens = made["room"]["room"], made["tokens"]
    v = view(client, room, tokens["0"])
    assert v["clock"]["deadline"] > time.time() + 900
    assert v["legal"], v
    assert act(client, room, tokens["0"], v["legal"][-1], v["step"]).status_code == 200
    run_clock_out(client, room)
    wait_for(client, room, lambda w: w["turn"] >= 2)
    first_turn = record(client, room)["rounds"][0]["turns"][0]
    assert first_turn[0] == v["legal"][-1] and first_turn[1] == "pass"


def test_metro_clock_has_a_bot_play_the_turn(client: TestClient) -> None:
    made = create(
        client, game="metro", mode="bots", turn_clock=10, seats=[{"name": "A"}, {"bot": "random"}]
    )
    room = made["room"]["room"]
    wait_for(client, room, lambda w: len(w["board"]) >= 4)


def test_host_hands_a_seat_to_a_bot_and_the_player_reclaims_it(client: TestClient) -> None:
    made = create(client, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
    room, host, t0 = made["room"]["room"], made["host_token"], made["tokens"]["0"]
    t1 = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"}).json()["token"]
    client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON)
    seat_bot = f"/api/rooms/{room}/seats/1/bot"
    refused(client.post(seat_bot, headers=auth(t1), json={"bot": "greedy"}), 403, "bad-token")
    refused(client.post(seat_bot, headers=auth(host), json={"bot": "nope"}), 400, "bad-request")
    later(client, 31)  # Bob has not been seen for the grace period (30 s)
    r = client.post(seat_bot, headers=auth(host), json={"bot": "greedy"})
    assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "bot"
    v = view(client, room, t0)
    assert act(client, room, t0, v["legal"][0], v["step"]).status_code == 200
    v = view(client, room, t1)
    assert v["to_move"] == [0] and len(v["board"]) == 2  # the bot played seat 1's turn
    refused(act(client, room, t1, {"square": "A1"}, v["step"]), 409, "not-your-turn")
    reclaim = f"/api/rooms/{room}/seats/1/reclaim"
    refused(client.post(reclaim, headers=auth(t0) | JSON), 403, "bad-token")
    r = client.post(reclaim, headers=auth(t1) | JSON)
    assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "human"
    v = view(client, room, t0)
    assert act(client, room, t0, v["legal"][0], v["step"]).status_code == 200
    v = view(client, room, t1)
    assert v["to_move"] == [1] and v["legal"]
    assert act(client, room, t1, v["legal"][0], v["step"]).status_code == 200
