"""Security headers (docs/web-api.md, "Security"): every response — pages, scripts, API
answers, refusals and server errors — carries a Content-Security-Policy that allows only the
site's own scripts, styles and connections and no framing, ``X-Content-Type-Options: nosniff``
and a ``Referrer-Policy``. (The browser tests check that the client runs under the policy.)"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from support.web import JSON, auth, create, failing_writes, make_settings


def directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


def check_headers(r: Any) -> None:
    policy = directives(r.headers["content-security-policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert not any("unsafe" in v or "*" in v for values in policy.values() for v in values)
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    answers = {
        "/": (client.get("/"), 200),
        "/r/room": (client.get(f"/r/{room}"), 200),
        "script": (client.get("/js/app.js"), 200),
        "style": (client.get("/css/app.css"), 200),
        "schema": (client.get("/api/openapi.json"), 200),
        "view": (client.get(f"/api/rooms/{room}/view", headers=auth(token)), 200),
        "created": (client.post("/api/rooms", json={"game": "london", "mode": "solo", "seats": [{}]}), 201),
        "no file": (client.get("/nothing-here.js"), 404),
        "no room": (client.get("/api/rooms/zzzzzzzz"), 404),
        "not JSON": (client.post("/api/rooms", content=b"{", headers=JSON), 400),
        "bad query": (client.get("/api/daily/london/best?limit=x"), 400),
        "no token": (client.post(f"/api/rooms/{room}/actions", json={"action": "pass", "step": 0}), 401),
        "too large": (client.post("/api/rooms", content=b"x" * 70000, headers=JSON), 413),
        "no docs page": (client.get("/api/docs"), 404),  # it would run scripts from a CDN
    }  # fmt: skip
    for what, (r, status) in answers.items():
        assert r.status_code == status, (what, r.text)
        check_headers(r)


def test_server_errors_carry_the_security_headers(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url)), raise_server_exceptions=False) as client:
        with failing_writes(client) as failed:
            r = client.post("/api/players", json={"name": "Ada"})
        assert failed and r.status_code == 500
        assert r.json() == {
            "error": "the server failed on this request",
            "reason": "server-error",
        }
        check_headers(r)
