"""Changing a password and signing out the other sessions (docs/web-api.md, "Accounts"):
``POST /api/accounts/me/password`` ends every other session of the account and keeps the asking
one; ``DELETE /api/sessions/others`` ends the others alone; refusals change nothing."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from metrogames.web.accounts.service import COOKIE
from metrogames.web.infra.models import AccountRow, AccountSessionRow
from support.daily import Clock, daily_client, refused
from support.web import JSON

PASSWORD = "correct horse battery"
NEW = "a new and longer one"


def sessions_of(client: TestClient, name: str = "Ada") -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows = session.scalars(
            select(AccountSessionRow.token_hash)
            .join(AccountRow, AccountRow.id == AccountSessionRow.account_id)
            .where(AccountRow.name == name)
        ).all()
    return len(rows)


def three_sessions(client: TestClient) -> list[str]:
    """Sign up Ada and sign her in twice more (three browsers); the tokens, the last one the
    client's cookie."""
    r = client.post("/api/accounts", json={"name": "Ada", "password": PASSWORD})
    assert r.status_code == 201, r.text
    tokens = [client.cookies[COOKIE]]
    for _ in range(2):
        client.cookies.clear()
        r = client.post("/api/sessions", json={"name": "Ada", "password": PASSWORD})
        assert r.status_code == 200, r.text
        tokens.append(client.cookies[COOKIE])
    return tokens


def signed_in_as(client: TestClient, token: str) -> Any:
    client.cookies.set(COOKIE, token)
    return client.get("/api/accounts/me").json().get("name")


def change(client: TestClient, password: str, new: str) -> Any:
    return client.post(
        "/api/accounts/me/password", json={"password": password, "new_password": new}
    )


def test_a_password_change_ends_the_other_sessions(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        first, second, mine = three_sessions(client)
        assert sessions_of(client) == 3
        for password, new, status, reason in (
            ("not the password", NEW, 401, "bad-password"),
            (PASSWORD, PASSWORD, 400, "bad-request"),
            (PASSWORD, "short", 400, "bad-request"),
        ):
            refused(change(client, password, new), status, reason)
        assert sessions_of(client) == 3
        r = change(client, PASSWORD, NEW)
        assert r.status_code == 200 and r.json() == {"sessions_ended": 2}, r.text
        assert sessions_of(client) == 1 and signed_in_as(client, mine) == "Ada"
        assert signed_in_as(client, first) is None and signed_in_as(client, second) is None
        client.cookies.clear()
        refused(
            client.post("/api/sessions", json={"name": "Ada", "password": PASSWORD}),
            401,
            "bad-password",
        )
        assert (
            client.post("/api/sessions", json={"name": "Ada", "password": NEW}).status_code == 200
        )
        client.cookies.clear()
        refused(change(client, NEW, PASSWORD), 401, "bad-session")


def test_signing_out_the_other_sessions(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        first, second, mine = three_sessions(client)
        r = client.delete("/api/sessions/others", headers=JSON)
        assert r.status_code == 200 and r.json() == {"sessions_ended": 2}, r.text
        assert signed_in_as(client, mine) == "Ada"
        assert signed_in_as(client, first) is None and signed_in_as(client, second) is None
        client.cookies.set(COOKIE, mine)
        r = client.delete("/api/sessions/others", headers=JSON)
        assert r.json() == {"sessions_ended": 0}
        assert sessions_of(client) == 1
        client.cookies.clear()
        refused(client.delete("/api/sessions/others", headers=JSON), 401, "bad-session")


def test_wrong_current_passwords_back_off_like_sign_ins(db_url: str) -> None:
    """A stolen session cannot guess the password through the change form faster than a
    sign-in could."""
    with daily_client(db_url, Clock(), signin_free=3) as client:
        three_sessions(client)
        for _ in range(3):
            refused(change(client, "a wrong guess!", NEW), 401, "bad-password")
        refused(change(client, PASSWORD, NEW), 429, "rate-limited")
        client.cookies.clear()
        refused(
            client.post("/api/sessions", json={"name": "Ada", "password": PASSWORD}),
            429,
            "rate-limited",
        )
