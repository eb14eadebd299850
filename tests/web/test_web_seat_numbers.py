"""Seats in human-readable refusals are numbered from 1, as the page numbers them ("Seat 2"
for the JSON field's seat 1), in every language; the JSON fields stay 0-based."""

from __future__ import annotations

from fastapi.testclient import TestClient

from support.web import JSON, act, auth, create, later, view


def test_refusals_name_seats_as_the_page_does(client: TestClient) -> None:
    made = create(client, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
    room, host, ada = made["room"]["room"], made["host_token"], made["tokens"]["0"]
    r = client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON)
    assert r.json() == {"error": "seat 2 waits for a player", "reason": "seats-open"}
    bob = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"}).json()["token"]
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Eve"})
    assert r.json() == {"error": "seat 2 is not open", "reason": "seat-taken"}
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    v = view(client, room, bob)
    assert v["to_move"] == [0]  # Ada's turn: Bob (seat 1) plays out of turn
    r = act(client, room, bob, v["legal"][0] if v["legal"] else "draw", v["step"])
    assert r.status_code == 409
    assert r.json() == {"error": "seat 2 is not to move", "reason": "not-your-turn"}
    french = client.post(
        f"/api/rooms/{room}/actions",
        json={"action": "draw", "step": v["step"]},
        headers=auth(bob) | {"Cookie": "lang=fr"},
    )
    assert french.json()["error"] == "ce n'est pas au tour de la place 2", french.text
    r = client.post(f"/api/rooms/{room}/seats/1/reclaim", headers=auth(ada) | JSON)
    assert r.json() == {"error": "this token does not hold seat 2", "reason": "bad-token"}
    r = client.post(f"/api/rooms/{room}/seats/5/reclaim", headers=auth(ada) | JSON)
    assert r.json() == {"error": "no seat 6 in this room", "reason": "not-found"}
    later(client, 31)
    bot = f"/api/rooms/{room}/seats/1/bot"
    assert client.post(bot, headers=auth(host), json={"bot": "greedy"}).status_code == 200
    assert view(client, room, ada)["seats"][1]["kind"] == "bot"  # JSON: still seat 1
    v = view(client, room, bob)
    r = act(client, room, bob, "draw", v["step"])
    assert r.json() == {
        "error": "seat 2 is played by a bot; reclaim it first",
        "reason": "not-your-turn",
    }


def test_chat_and_profile_refusals_in_the_pages_language(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    r = client.post(
        f"/api/rooms/{room}/chat",
        json={"text": "hi"},
        headers=auth(token) | {"Cookie": "lang=nl"},
    )  # no raw mode word ("solo") in the sentence
    assert r.json() == {"error": "alleen onlinetafels hebben een chat", "reason": "no-chat"}
    r = client.get("/api/accounts/zzzz/profile", headers={"Cookie": "lang=fr"})
    assert r.status_code == 404
    assert r.json() == {"error": "aucun compte 'zzzz'", "reason": "not-found"}
