"""Hostile input, hidden information and restarts (docs/web-api.md, "Errors", "Views"): every
refusal is a 4xx with a reason and leaves the stored game unchanged."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from support.web import JSON, act, auth, create, make_settings, play_out, record, view


def london_solo(client: TestClient) -> tuple[str, str]:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    return made["room"]["room"], made["tokens"]["0"]


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def test_hostile_actions_change_nothing(client: TestClient) -> None:
    room, token = london_solo(client)
    v = view(client, room, token)
    before = record(client, room)
    step = v["step"]
    target = next(iter(v["targets"]))
    # an illegal section: the engine's reason comes back
    bad = {"sections": [["A1", "J10"]]}
    r = act(client, room, token, bad, step)
    assert r.status_code == 400 and r.json()["reason"] not in ("bad-request", "")
    refused(act(client, room, token, {"sections": [["Q9", "A1"]]}, step), 400, "bad-notation")
    refused(act(client, room, token, "pass", step + 5), 409, "stale-step")
    refused(act(client, room, token, "pass", step - 1), 409, "stale-step")
    refused(act(client, room, "not-a-token", "pass", step), 403, "bad-token")
    r = client.post(f"/api/rooms/{room}/actions", json={"action": "pass", "step": step})
    refused(r, 401, "bad-token")
    url = f"/api/rooms/{room}/actions"
    for body in (
        b"{",
        b"[]",
        b'{"action": "pass"}',
        b'{"action": "pass", "step": "1"}',
        b'{"action": "pass", "step": 0, "x": 1}',
        b"\xff\xfe",
    ):
        refused(client.post(url, content=body, headers=auth(token) | JSON), 400, "bad-request")
    big = b'{"action": "' + b"x" * 70000 + b'", "step": 0}'
    refused(client.post(url, content=big, headers=auth(token) | JSON), 413, "too-large")
    refused(client.get("/api/rooms/zzzzzzzz/view"), 404, "not-found")
    refused(client.get("/api/rooms/../etc/view"), 404, "not-found")
    refused(client.get("/api/games/chess/board"), 404, "not-found")
    assert record(client, room) == before
    assert view(client, room, token)["step"] == step
    # a resent message applies once
    move = {"sections": [[target, v["targets"][target][0]]]}
    assert act(client, room, token, move, step).status_code == 200
    refused(act(client, room, token, move, step), 409, "stale-step")


def test_bad_rooms_are_refused(client: TestClient) -> None:
    for body in (
        {"game": "chess", "mode": "solo", "seats": [{}]},
        {"game": "london", "mode": "party", "seats": [{}]},
        {"game": "london", "mode": "solo", "seats": [{}, {}]},
        {"game": "metro", "mode": "solo", "seats": [{}]},
        {"game": "london", "mode": "bots", "seats": [{}, {"bot": "genius"}]},
        {"game": "london", "mode": "solo", "seats": [{"name": "x" * 65}]},
        {"game": "london", "mode": "solo", "seats": [{}], "options": {"powers": "many"}},
        {"game": "london", "mode": "solo", "seats": [{}], "turn_clock": 5},
        {"game": "london", "mode": "solo", "seats": [{}], "extra": 1},
    ):
        refused(client.post("/api/rooms", json=body), 400, "bad-request")


def test_actions_after_the_end(client: TestClient) -> None:
    made = create(client, game="metro", mode="bots", seats=[{"name": "A"}, {"bot": "random"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = play_out(client, room, made["tokens"], seed=5)
    before = record(client, room)
    refused(act(client, room, token, {"square": "A1"}, v["step"]), 409, "game-over")
    assert record(client, room) == before


def test_metro_hands_stay_hidden(client: TestClient) -> None:
    made = create(
        client,
        game="metro",
        mode="hotseat",
        options={"turn_mode": "hand"},
        seats=[{"name": "A"}, {"name": "B"}],
    )
    room, tokens = made["room"]["room"], made["tokens"]
    a, b = view(client, room, tokens["0"]), view(client, room, tokens["1"])
    spectator = view(client, room)
    # seat 0 holds its dealt tile and its draw, seat 1 its dealt tile; nobody sees another's
    assert len(a["hand"]) == 2 and len(b["hand"]) == 1
    assert spectator["hand"] == [] and spectator["legal"] == [] and b["legal"] == []
    assert {x["tile"] for x in a["legal"]} <= set(a["hand"])
    for v in (a, b, spectator):
        assert v["drawn"] is None and "?" not in str(v)
    refused(client.get(f"/api/rooms/{room}/record"), 409, "hidden-information")


def test_next_station_turn_actions_hidden_until_all_acted(client: TestClient) -> None:
    made = create(client, game="london", mode="hotseat", seats=[{"name": "A"}, {"name": "B"}])
    room, tokens = made["room"]["room"], made["tokens"]
    v0 = view(client, room, tokens["0"])
    start = next(iter(v0["targets"]))
    move = {"sections": [[start, v0["targets"][start][0]]]}
    assert act(client, room, tokens["0"], move, v0["step"]).status_code == 200
    colour = v0["players"][0]["colour"]
    mine = view(client, room, tokens["0"])["players"][0]
    assert mine["acted"] and mine["lines"][colour]["sections"]
    for other in (view(client, room, tokens["1"]), view(client, room)):
        p0 = other["players"][0]
        assert p0["acted"] and p0["lines"][colour]["sections"] == []
        assert other["scores"][0] == 0
    rec = record(client, room)
    assert "seed" not in rec and "deck" not in str(rec)
    assert rec["rounds"][0]["turns"][-1] == [None, None]
    v1 = view(client, room, tokens["1"])
    assert act(client, room, tokens["1"], "pass", v1["step"]).status_code == 200
    after = view(client, room, tokens["1"])
    assert after["players"][0]["lines"][colour]["sections"]
    assert record(client, room)["rounds"][0]["turns"][0][0] == move


def test_restart_continues_the_game(db_url: str) -> None:
    settings = make_settings(db_url)
    with TestClient(create_app(settings)) as first:
        made = create(first, game="paris", mode="bots", seats=[{"name": "A"}, {"bot": "greedy"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        for _ in range(6):
            v = view(first, room, token)
            assert act(first, room, token, v["legal"][-1], v["step"]).status_code == 200
        before = view(first, room, token)
        before_record = record(first, room)
    with TestClient(create_app(settings)) as second:
        assert view(second, room, token) == before
        assert record(second, room) == before_record
        v = before
        assert act(second, room, token, v["legal"][0], v["step"]).status_code == 200
        assert view(second, room, token)["step"] > v["step"]
