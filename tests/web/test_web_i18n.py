"""Refusals in the player's language (docs/web-api.md, "Errors"): the ``lang`` cookie, else
the ``Accept-Language`` header, else English; the ``reason`` code never changes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from support.web import JSON, act, auth, create, view

CROSSING = {"sections": [["A1", "J10"]]}  # London: no link joins A1 and J10


def london_solo(client: TestClient) -> tuple[str, str, int]:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    return room, token, view(client, room, token)["step"]


def refusal(client: TestClient, room: str, token: str, step: int, **headers: str) -> dict:
    r = client.post(
        f"/api/rooms/{room}/actions",
        headers=auth(token) | headers,
        json={"action": CROSSING, "step": step},
    )
    assert r.status_code == 400, r.text
    return r.json()


def test_engine_refusal_over_http_follows_accept_language_and_cookie(client: TestClient) -> None:
    room, token, step = london_solo(client)
    english = act(client, room, token, CROSSING, step).json()
    item = english.pop("item")  # the refused section as data (docs/web-api.md, "Errors")
    assert item["section"] == ["A1", "J10"] and item["colour"] in {
        "blue",
        "pink",
        "purple",
        "green",
    }
    assert english == {
        "error": "round 1, turn 1, player 0: section A1-J10: no link joins these stations "
        "(not-a-link)",
        "reason": "not-a-link",
    }
    french = refusal(client, room, token, step, **{"Accept-Language": "de-DE, fr;q=0.8, en;q=0.5"})
    assert french.pop("item") == item
    assert french == {
        "error": "manche 1, tour 1, joueur 0 : tronçon A1-J10 : aucune liaison ne relie ces "
        "stations (not-a-link)",
        "reason": "not-a-link",
    }
    slovak = refusal(client, room, token, step, **{"Accept-Language": "fr", "Cookie": "lang=sk"})
    assert slovak["error"] == (
        "kolo 1, ťah 1, hráč 0: úsek A1-J10: tieto stanice nespája žiadne spojenie (not-a-link)"
    )
    assert slovak["reason"] == "not-a-link"
    unknown = refusal(client, room, token, step, **{"Accept-Language": "fr", "Cookie": "lang=xx"})
    assert unknown["error"].startswith("manche 1, tour 1, joueur 0 : tronçon A1-J10")


def test_server_refusals_are_translated_too(client: TestClient) -> None:
    room, token, step = london_solo(client)
    r = act(client, room, token, "pass", step + 5)
    assert r.json()["error"] == f"step {step + 5} is not the current step {step}"
    r = client.post(
        f"/api/rooms/{room}/actions",
        headers=auth(token) | {"Accept-Language": "nl-BE,nl;q=0.9"},
        json={"action": "pass", "step": step + 5},
    )
    assert r.status_code == 409
    assert r.json() == {
        "error": f"stap {step + 5} is niet de huidige stap {step}",
        "reason": "stale-step",
    }
    r = client.get("/api/rooms/zzzzzzzz/view", headers={"Accept-Language": "sk"})
    assert r.json() == {"error": "miestnosť 'zzzzzzzz' neexistuje", "reason": "not-found"}


def test_websocket_refusals_follow_the_upgrade_request(client: TestClient) -> None:
    room, token, step = london_solo(client)
    url = f"/ws/rooms/{room}"
    with client.websocket_connect(url, headers={"Accept-Language": "fr-FR"}) as ws:
        ws.send_json({"type": "action", "action": "pass", "step": step})
        assert ws.receive_json() == {
            "type": "error",
            "error": 'envoyez d\'abord {"type": "hello"}',
            "reason": "bad-request",
            "step": step,  # the refused action's
        }
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "view"
        ws.send_json({"type": "action", "action": CROSSING, "step": step})
        answer = ws.receive_json()
        assert answer.pop("item")["section"] == ["A1", "J10"]
        assert answer == {
            "type": "error",
            "error": "manche 1, tour 1, joueur 0 : tronçon A1-J10 : aucune liaison ne relie ces "
            "stations (not-a-link)",
            "reason": "not-a-link",
            "step": step,
        }
    headers = {"Accept-Language": "fr-FR", "Cookie": "lang=sk"}
    with client.websocket_connect(url, headers=headers) as ws:
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["type"] == "view"
        ws.send_json({"type": "action", "action": "pass", "step": step})
        assert ws.receive_json() == {
            "type": "error",
            "error": "diváci nemôžu hrať; pošlite hello s tokenom",
            "reason": "bad-token",
            "step": step,
        }


def test_join_and_chat_refusals_in_the_cookies_language(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    room, host = made["room"]["room"], made["host_token"]
    url = f"/api/rooms/{room}/join"
    english = client.post(url, json={"seat": 1, "name": "  "})
    assert english.json() == {
        "error": "a join: name: a name is 1 to 64 characters",
        "reason": "bad-request",
    }
    dutch = client.post(url, json={"seat": 1, "name": "  "}, headers={"Cookie": "lang=nl"})
    assert dutch.status_code == 400
    assert dutch.json() == {
        "error": "deelnemen: name: een naam: 1 tot 64 tekens",
        "reason": "bad-request",
    }
    r = client.post(url, json={"seat": 1, "name": "Bob"})
    assert r.status_code == 200, r.text
    taken = client.post(url, json={"seat": 1, "name": "Eve"}, headers={"Cookie": "lang=fr"})
    # the seat field is 0-based; the message names it as the page does (Place 2)
    assert taken.json() == {"error": "la place 2 n'est pas libre", "reason": "seat-taken"}
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    r = client.post(
        f"/api/rooms/{room}/chat",
        json={"text": "x" * 201},
        headers=auth(made["tokens"]["0"]) | {"Accept-Language": "sk-SK"},
    )
    assert r.status_code == 400
    assert r.json()["error"] == "správa v chate: text: obsah: 1 až 200 znakov"
    r = client.post(
        f"/api/rooms/{room}/chat",
        json={"text": ""},
        headers=auth(made["tokens"]["0"]) | {"Cookie": "lang=fr"},
    )  # the rule does not say "un message de discussion" twice
    assert r.json()["error"] == "un message de discussion : text : le texte : de 1 à 200 caractères"
