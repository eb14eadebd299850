"""The server texts a player meets beyond refusals, in the request's language (issue 12): the
daily challenge's midnight rule, the bots' figures, option and body refusals, pluralised
counts; and the refused item of an engine refusal as data (docs/web-api.md, "Errors")."""

from __future__ import annotations

from itertools import pairwise

from fastapi.testclient import TestClient

from support.web import JSON, auth, create

BLUE = ["F8", "F5", "E4", "F4", "G3", "H4", "J2", "J1"]
CROSSED = {
    "game": "london",
    "lines": {"blue": [list(p) for p in pairwise(BLUE)], "pink": [["H4", "H6"], ["H6", "E6"]]},
}
"""A London sheet whose second pink section crosses the blue line."""


def test_the_midnight_rule_in_the_requests_language(client: TestClient) -> None:
    english = client.get("/api/daily").json()["midnight_rule"]
    assert english.startswith("A ranked game counts for the day it was started only if")
    french = client.get("/api/daily", headers={"Cookie": "lang=fr"}).json()["midnight_rule"]
    assert french.startswith("Une partie classée compte pour le jour où elle a commencé")
    slovak = client.get("/api/daily", headers={"Accept-Language": "sk"}).json()["midnight_rule"]
    assert slovak.startswith("Hodnotená hra sa počíta pre deň, keď sa začala")


def test_the_bots_figures_in_the_requests_language(client: TestClient) -> None:
    def labels(**headers: str) -> dict[str, str]:
        games = client.get("/api/games", headers=headers).json()
        return next(g for g in games if g["game"] == "london")["bot_labels"]

    assert labels()["hard"] == "Hard — Monte Carlo (500 game estimates)"
    assert labels(Cookie="lang=fr")["hard"] == "Hard — Monte Carlo (500 estimations de partie)"
    assert labels(Cookie="lang=sk")["hard"] == "Hard — Monte Carlo (500 odhadov hry)"
    assert labels(Cookie="lang=sk")["expert"] == "Expert — Monte Carlo (800 hlbokých odhadov hry)"
    assert labels()["expert"] == "Expert — Monte Carlo (800 deep game estimates)"
    assert labels(Cookie="lang=nl")["medium"] == "Medium — greedy"  # no figures


def test_room_option_refusals_in_the_requests_language(client: TestClient) -> None:
    body = {"game": "metro", "mode": "hotseat", "seats": [{"name": "A"}, {"name": "B"}]}
    r = client.post("/api/rooms", json=body | {"options": {"turn_mode": "sideways"}})
    assert r.status_code == 400
    assert r.json() == {
        "error": "a room: options: metro options: unknown turn_mode 'sideways' "
        "(expected draw, hand, official-hand)",
        "reason": "bad-request",
    }
    r = client.post(
        "/api/rooms",
        json=body | {"options": {"colours": 1, "speed": 2}},
        headers={"Cookie": "lang=nl"},
    )
    assert r.json()["error"] == (
        "een kamer: opties: onbekende opties voor metro: colours, speed "
        "(bekend: turn_mode, one_tile_routes)"
    )
    london = {"game": "london", "mode": "solo", "seats": [{"name": "A"}]}
    r = client.post(
        "/api/rooms",
        json=london | {"options": {"objectives": ["thames-6"]}},
        headers={"Cookie": "lang=fr"},
    )
    assert r.json()["error"] == (
        "une salle : options : options de london : objectives : donnez 2 identifiants "
        'distincts ou "random", pas 1'
    )


def test_body_refusals_name_the_field_in_the_requests_language(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    url = f"/api/rooms/{made['room']['room']}/join"
    fr = {"Cookie": "lang=fr"}
    r = client.post(url, json={"seat": "1", "name": "Bob"}, headers=fr)
    assert r.json() == {
        "error": "rejoindre : seat : doit être un nombre entier",
        "reason": "bad-request",
    }
    r = client.post(
        url, json={"seat": 1, "name": "Bob", "colour": "x"}, headers={"Cookie": "lang=sk"}
    )
    assert r.json()["error"] == "pripojenie: colour: neznámy kľúč"
    r = client.post(url, json={"seat": "1", "name": 2, "x": 0})
    assert r.json()["error"] == "a join: seat: should be a whole number (and 2 more problems)"
    r = client.post(url, content=b'{"seat": 1, "name": "Bob"', headers=fr | JSON)
    assert r.json()["reason"] == "bad-request"
    assert r.json()["error"].startswith(
        "rejoindre n'est pas du JSON en texte valide (UTF-8, sans substitut isolé"
    )
    assert "ligne 1, colonne 25 (à '" in r.json()["error"]
    r = client.get("/api/players/p1/history?limit=x", headers={"Accept-Language": "nl"})
    assert r.json() == {
        "error": "queryparameter limit: moet een geheel getal zijn",
        "reason": "bad-request",
    }


def test_a_room_waiting_for_players_counts_them(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}, {}])
    r = client.post(
        f"/api/rooms/{made['room']['room']}/start",
        headers=auth(made["host_token"]) | {"Cookie": "lang=sk"} | JSON,
    )
    # seats 1 and 2 (0-based) are the page's "Miesto 2" and "Miesto 3"
    assert r.json() == {"error": "miesta 2, 3 čakajú na hráčov", "reason": "seats-open"}


def test_a_refused_sheet_names_its_item_as_data(client: TestClient) -> None:
    r = client.post("/api/score", json=CROSSED, headers={"Cookie": "lang=fr"})
    assert r.status_code == 400
    body = r.json()
    assert body["reason"] == "crosses-section"
    assert body["item"] == {"colour": "pink", "section": 2}
    assert body["error"].startswith("ligne rose, tronçon 2 : ")
    circled = {"game": "london", "lines": {"blue": [["F8", "F5"]]}, "circled": {"blue": "J1"}}
    r = client.post("/api/score", json=circled)
    assert r.json()["item"] == {"colour": "blue", "station": "J1"}
    metro = {"game": "metro", "player_count": 2, "placements": [{"square": "C3", "tile": "aaaa"}]}
    r = client.post("/api/score", json=metro)
    assert r.status_code == 400 and r.json()["reason"] == "not-adjacent", r.text
    assert r.json()["item"] == {"placement": 1, "square": "C3", "tile": "aaaa"}
    r = client.post("/api/score", json={"game": "london", "lines": {}, "x": 1})
    assert "item" not in r.json()  # not an engine refusal: no item


def test_the_routers_own_refusals_in_the_requests_language(client: TestClient) -> None:
    r = client.get("/api/no-such-route", headers={"Cookie": "lang=fr"})
    assert r.status_code == 404
    assert r.json() == {
        "error": "cette page ou cette route d'API n'existe pas",
        "reason": "not-found",
    }
    r = client.delete("/api/games", headers={"Accept-Language": "nl"} | JSON)
    assert r.json()["error"] == "deze API-route aanvaardt die methode niet"
