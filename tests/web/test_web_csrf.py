"""Other sites' requests are refused (``docs/web-api.md``, "Errors": 415 ``not-json``, 403
``cross-site``): every state-changing route, found by walking the app's routes (a route added
later is covered without touching this file), refuses a body not said to be JSON and a foreign
``Origin`` or ``Sec-Fetch-Site``; the attacker's login form signs nobody in."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import func, select
from starlette.routing import Mount
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from metrogames.web.app import create_app
from metrogames.web.infra.config import Settings
from metrogames.web.infra.csrf import origin_of
from metrogames.web.infra.models import AccountSessionRow
from support.daily import Clock, daily_client
from support.web import JSON, create, make_settings

CHANGES = {"POST", "PUT", "PATCH", "DELETE"}
FOREIGN = "https://evil.example"
CSRF_REASONS = {"not-json", "cross-site"}


def routes(app: Any) -> list[tuple[str, set[str]]]:
    """``(path, methods)`` of every HTTP route of ``app``, however FastAPI nests included
    routers (its newer versions keep them as included-router entries), checked against the
    OpenAPI schema's list so none is missed."""
    found: list[tuple[str, set[str]]] = []
    for route in app.routes:
        if hasattr(route, "effective_route_contexts"):  # an included router
            found += [(c.path_format, set(c.methods)) for c in route.effective_route_contexts()]
        elif isinstance(route, Mount):
            found.append((route.path + "/index.html", set(CHANGES)))
        elif getattr(route, "methods", None):
            found.append((route.path_format, set(route.methods)))
    paths = {p for p, _ in found}
    schema = app.openapi()["paths"]
    assert set(schema) <= paths, set(schema) - paths
    for path, operations in schema.items():
        methods = set().union(*(m for p, m in found if p == path))
        assert {m.upper() for m in operations} <= methods, path
    return found


def changing_requests(app: Any) -> list[tuple[str, str]]:
    """``(method, path)`` of every state-changing method of every route of ``app`` (path
    parameters filled in), each method on the static files, and on an unknown path."""
    found = [
        (m, re.sub(r"\{[^}]+\}", "x1", path))
        for path, methods in routes(app)
        for m in sorted(methods & CHANGES)
    ]
    return found + [(m, "/api/no-such-route") for m in sorted(CHANGES)]


def refused(r: Any, status: int, reason: str) -> dict[str, Any]:
    assert r.status_code == status, (r.request.method, r.request.url, r.text)
    body = r.json()
    assert body["reason"] == reason and body["error"], body
    assert "set-cookie" not in r.headers
    return body


def test_every_changing_route_refuses_other_sites_and_non_json(client: TestClient) -> None:
    requests = changing_requests(client.app)
    paths = {p for _, p in requests}
    # the walk found the routes (not an empty list passing vacuously)
    assert {"/api/sessions", "/api/accounts", "/api/rooms", "/api/players/me"} <= paths
    assert len(requests) >= 20
    for method, path in requests:
        body = b'{"name": "Mal", "password": "a long password"}'
        plain = {"Content-Type": "text/plain"}
        message = refused(
            client.request(method, path, content=body, headers=plain), 415, "not-json"
        )
        assert "text/plain" in message["error"] and method in message["error"]
        for headers in ({}, {"Content-Type": "application/x-www-form-urlencoded"},
                        {"Content-Type": "multipart/form-data; boundary=x"},
                        {"Content-Type": "application/json-patch+json"}):  # fmt: skip
            refused(client.request(method, path, content=body, headers=headers), 415, "not-json")
        refused(client.request(method, path), 415, "not-json")  # no body, no type
        foreign = JSON | {"Origin": FOREIGN}
        message = refused(
            client.request(method, path, content=body, headers=foreign), 403, "cross-site"
        )
        assert FOREIGN in message["error"]
        for site in ("cross-site", "same-site"):
            fetched = JSON | {"Sec-Fetch-Site": site}
            refused(client.request(method, path, content=body, headers=fetched), 403, "cross-site")
        # the site's own page: not refused as another site's (whatever the route says then)
        own = JSON | {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
        r = client.request(method, path, content=b"{}", headers=own)
        assert r.status_code not in (403, 415) or r.json()["reason"] not in CSRF_REASONS, r.text


def test_the_attackers_login_form_signs_nobody_in(db_url: str) -> None:
    """Issue 21 item 7: a cross-site ``<form enctype=text/plain>`` posting to
    ``/api/sessions`` (its text is JSON by a trick of the field's name) gets no session."""
    with daily_client(db_url, Clock()) as client:
        attackers_form(client)


def attackers_form(client: TestClient) -> None:
    made = client.post("/api/accounts", json={"name": "Mallory", "password": "a long password"})
    assert made.status_code == 201, made.text
    assert client.delete("/api/sessions/current", headers=JSON).status_code == 204
    sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
    with sessions() as session:
        before = session.scalar(select(func.count()).select_from(AccountSessionRow))
    form = b'{"name": "Mallory", "password": "a long password", "x": "="}'
    for headers in (
        {"Content-Type": "text/plain", "Origin": FOREIGN, "Sec-Fetch-Site": "cross-site"},
        {"Content-Type": "text/plain"},  # a browser that sends neither header
        {"Content-Type": "text/plain", "Origin": "null"},  # from a sandboxed frame
    ):
        r = client.post("/api/sessions", content=form, headers=headers)
        assert r.status_code in (403, 415) and "set-cookie" not in r.headers, r.text
        assert client.get("/api/accounts/me").json() == {"account": None}
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(AccountSessionRow)) == before
    # the same request from the site's own page signs in
    r = client.post(
        "/api/sessions", content=form[:-11] + b"}", headers=JSON | {"Origin": "http://testserver"}
    )
    assert r.status_code == 200 and "set-cookie" in r.headers, r.text


def test_json_with_a_charset_and_origins_written_otherwise(client: TestClient) -> None:
    for content_type in ("application/json; charset=utf-8", "Application/JSON;charset=UTF-8"):
        r = client.post("/api/players", json={"name": "Cy"}, headers={"Content-Type": content_type})
        assert r.status_code == 201, r.text
    r = client.post("/api/players", content=b'{"name": "Cy"}',
                    headers={"Content-Type": "application/json; charset=latin-1"})  # fmt: skip
    assert "latin-1" in refused(r, 415, "not-json")["error"]
    for same in ("http://testserver", "http://TestServer:80", "http://testserver/"):
        r = client.post("/api/players", json={"name": "Cy"}, headers={"Origin": same})
        assert r.status_code == 201, (same, r.text)
    for other in ("https://testserver", "http://testserver:8080", "http://testserver.evil",
                  "null", "http://testserver/path", "file://"):  # fmt: skip
        refused(
            client.post("/api/players", json={"name": "Cy"}, headers={"Origin": other}),
            403,
            "cross-site",
        )
    r = client.post("/api/players", json={"name": "Cy"}, headers={"Sec-Fetch-Site": "none"})
    assert r.status_code == 201, r.text  # typed by the user, a bookmark


def test_refusals_are_translated(client: TestClient) -> None:
    r = client.post(
        "/api/rooms", content=b"{}", headers={"Content-Type": "text/plain", "Cookie": "lang=fr"}
    )
    body = refused(r, 415, "not-json")
    assert "Content-Type: application/json" in body["error"] and "requête" in body["error"], body
    r = client.post("/api/rooms", json={}, headers={"Origin": FOREIGN, "Accept-Language": "nl"})
    body = refused(r, 403, "cross-site")
    assert FOREIGN in body["error"] and "site" in body["error"] and "accepts" not in body["error"]


def test_configured_origins_are_allowed(db_url: str) -> None:
    settings = make_settings(
        db_url, allowed_origins="https://friend.example, http://LOCALHOST:5173"
    )
    with TestClient(create_app(settings)) as c:
        for origin in ("https://friend.example", "http://localhost:5173"):
            headers = {"Origin": origin, "Sec-Fetch-Site": "cross-site"}
            r = c.post("/api/players", json={"name": "Di"}, headers=headers)
            assert r.status_code == 201, (origin, r.text)
            with c.websocket_connect("/ws/rooms/abcdefgh", headers={"Origin": origin}) as ws:
                ws.send_json({"type": "hello", "token": None})
                assert ws.receive_json()["type"] == "error"  # no such room: the socket was served
        refused(
            c.post("/api/players", json={"name": "Di"}, headers={"Origin": FOREIGN}),
            403,
            "cross-site",
        )
        refused(
            c.post("/api/players", content=b"{}", headers={"Origin": "https://friend.example"}),
            415,
            "not-json",
        )


def test_settings_refuse_what_is_no_origin() -> None:
    for bad in ("ftp://x.example", "friend.example", "https://x.example/path", "https://"):
        with pytest.raises(ValidationError, match="no origin"):
            Settings(allowed_origins=bad)


def test_origins_are_compared_normalised() -> None:
    assert origin_of("HTTPS://Example.ORG:443") == "https://example.org"
    assert origin_of("http://example.org:8000") == "http://example.org:8000"
    assert origin_of("http://[::1]:8000") == "http://[::1]:8000"
    for bad in (
        "null",
        "",
        "example.org",
        "data:text/html,x",
        "http://a@example.org",
        "http://x:99999",
    ):
        assert origin_of(bad) is None, bad


def test_websocket_upgrade_from_another_site_is_refused(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ed"}])
    room = made["room"]["room"]
    with (
        pytest.raises(WebSocketDenialResponse) as denied,
        client.websocket_connect(f"/ws/rooms/{room}", headers={"Origin": FOREIGN}),
    ):
        pass
    assert denied.value.status_code == 403
    assert denied.value.json()["reason"] == "cross-site"
    for own in ({"Origin": "http://testserver"}, {}):  # a page of the site; a program
        with client.websocket_connect(f"/ws/rooms/{room}", headers=own) as ws:
            ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
            assert ws.receive_json()["type"] == "view"
    with (
        pytest.raises((WebSocketDenialResponse, WebSocketDisconnect)),
        client.websocket_connect("/ws/rooms/x", headers={"Origin": "null"}),
    ):
        pass
