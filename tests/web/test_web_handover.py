"""Seat handover (docs/web-api.md, "Rooms"): the host may hand only a departed player's seat to
a bot — one with no connection and no action for the grace period (30 s) — never the seat of a
player who is connected, has just acted, or has just lost the connection. On SQLite and
PostgreSQL; the service's presence clock is moved instead of waiting."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from support.web import JSON, act, auth, create, later, view


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def metro_online(client: TestClient) -> tuple[str, dict[str, str], str]:
    """A started online Metro room: Ada (seat 0, the host) and Bob (seat 1)."""
    made = create(client, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
    room, host = made["room"]["room"], made["host_token"]
    bob = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"}).json()["token"]
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    return room, {"0": made["tokens"]["0"], "1": bob}, host


def hand_over(client: TestClient, room: str, host: str, seat: int = 1) -> Any:
    url = f"/api/rooms/{room}/seats/{seat}/bot"
    return client.post(url, headers=auth(host), json={"bot": "greedy"})


def kinds(client: TestClient, room: str) -> list[str]:
    return [s["kind"] for s in client.get(f"/api/rooms/{room}").json()["seats"]]


def test_a_connected_player_keeps_the_seat_in_the_middle_of_a_turn(client: TestClient) -> None:
    room, tokens, host = metro_online(client)
    v = view(client, room, tokens["0"])
    assert act(client, room, tokens["0"], v["legal"][0], v["step"]).status_code == 200
    later(client, 3600)  # an hour on: only the live connection counts
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": tokens["1"]})
        mine = ws.receive_json()["view"]
        assert mine["to_move"] == [1] and mine["legal"]  # Bob's turn
        r = hand_over(client, room, host)
        refused(r, 409, "player-present")
        assert r.json()["error"].startswith("seat 2's player is connected")  # Bob, seat 1
        assert kinds(client, room) == ["human", "human"]
        ws.send_json({"type": "action", "action": mine["legal"][0], "step": mine["step"]})
        played = ws.receive_json()
        assert played["type"] == "view" and played["view"]["step"] > mine["step"]


def test_the_seat_is_handed_over_only_after_the_grace_period(client: TestClient) -> None:
    room, tokens, host = metro_online(client)
    later(client, 3600)
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": tokens["1"]})
        ws.receive_json()
    # Bob's connection dropped just now: a reload or a tunnel, not yet a departure
    r = hand_over(client, room, host)
    refused(r, 409, "player-present")
    assert r.json()["error"].startswith("seat 2's player was here 0 s ago")  # Bob, seat 1
    assert "30 s" in r.json()["error"]
    later(client, 29)
    refused(hand_over(client, room, host), 409, "player-present")
    assert kinds(client, room) == ["human", "human"]
    later(client, 2)  # 31 s without Bob
    r = hand_over(client, room, host)
    assert r.status_code == 200, r.text
    assert kinds(client, room) == ["human", "bot"]
    # a bot seat may change bots at once; the player takes it back with the seat token
    r = client.post(f"/api/rooms/{room}/seats/1/bot", headers=auth(host), json={"bot": "random"})
    assert r.status_code == 200 and r.json()["seats"][1]["bot"] == "random"
    r = client.post(f"/api/rooms/{room}/seats/1/reclaim", headers=auth(tokens["1"]) | JSON)
    assert r.status_code == 200 and kinds(client, room) == ["human", "human"]
    refused(hand_over(client, room, host), 409, "player-present")  # just came back


def test_acting_without_a_socket_counts_as_present(client: TestClient) -> None:
    room, tokens, host = metro_online(client)
    refused(hand_over(client, room, host), 409, "player-present")  # the room is new
    later(client, 3600)
    v = view(client, room, tokens["0"])
    assert act(client, room, tokens["0"], v["legal"][0], v["step"]).status_code == 200
    v = view(client, room, tokens["1"])
    assert act(client, room, tokens["1"], v["legal"][0], v["step"]).status_code == 200
    refused(hand_over(client, room, host), 409, "player-present")
    refused(hand_over(client, room, host, seat=0), 409, "player-present")
    later(client, 31)
    assert hand_over(client, room, host).status_code == 200
    assert kinds(client, room) == ["human", "bot"]
