"""Accounts (docs/web-api.md, "Accounts"): sign-up, sign-in, sign-out, sessions in an HttpOnly
SameSite cookie, the sign-up and sign-in rate limits, claiming an anonymous player's history,
and each refusal leaving nothing stored — on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from argon2 import PasswordHasher, extract_parameters
from argon2.exceptions import VerifyMismatchError
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from metrogames.web.accounts.service import COOKIE, dummy_hash
from metrogames.web.infra.models import AccountRow, AccountSessionRow, PlayerRow
from support.daily import Clock, daily_client, new_player, play_day, refused
from support.web import JSON, auth, failing_writes

PASSWORD = "correct horse battery"


def count(client: TestClient, row: Any) -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(row)) or 0)


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/accounts", json={"name": name, "password": password})


def test_sign_up_in_and_out_with_an_httponly_samesite_cookie(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        r = sign_up(client, "Ada")
        assert r.status_code == 201, r.text
        made = r.json()
        assert made["name"] == "Ada" and made["players"] == [made["player"]]
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=")
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie and "Max-Age=2592000" in cookie
        token = client.cookies[COOKIE]
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            stored = session.scalars(select(AccountRow)).one()
            assert stored.password_hash.startswith("$argon2id$") and PASSWORD not in str(
                stored.password_hash
            )
            assert session.scalars(select(AccountSessionRow.token_hash)).one() != token
        assert client.get("/api/accounts/me").json() == made
        # signing out ends the session on the server, not only in this browser
        assert client.delete("/api/sessions/current", headers=JSON).status_code == 204
        assert COOKIE not in client.cookies
        assert client.get("/api/accounts/me").json() == {"account": None}
        refused(client.patch("/api/accounts/me", json={"name": "Bea"}), 401, "bad-session")
        client.cookies.set(COOKIE, token)  # the old cookie, kept: the server ended it
        nobody = client.get("/api/accounts/me")
        assert nobody.status_code == 200 and nobody.json() == {"account": None}
        client.cookies.clear()
        # sign in: any case of the name; a wrong password and an unknown name read alike
        wrong = client.post("/api/sessions", json={"name": "Ada", "password": "not it at all"})
        unknown = client.post("/api/sessions", json={"name": "Zed", "password": PASSWORD})
        refused(wrong, 401, "bad-password")
        refused(unknown, 401, "bad-password")
        assert wrong.json() == unknown.json() and COOKIE not in client.cookies
        r = client.post("/api/sessions", json={"name": "ADA", "password": PASSWORD})
        assert r.status_code == 200 and r.json() == made
        assert client.get("/api/accounts/me").json()["account"] == made["account"]
        assert count(client, AccountSessionRow) == 1  # the signed-out session is gone


def test_sessions_expire_and_cookies_are_secure_when_configured(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock, secure_cookies=True, session_days=1) as client:
        r = sign_up(client, "Ada")
        assert "Secure" in r.headers["set-cookie"] and "Max-Age=86400" in r.headers["set-cookie"]
        # the test client is on http://: it would not send a Secure cookie back by itself
        client.cookies.set(COOKIE, r.headers["set-cookie"].split(";")[0].split("=", 1)[1])
        assert client.get("/api/accounts/me").status_code == 200
        accounts = client.app.state.accounts  # type: ignore[attr-defined]
        start = accounts.now()
        accounts.now = lambda: start + 86_399
        assert client.get("/api/accounts/me").status_code == 200
        accounts.now = lambda: start + 86_401
        assert client.get("/api/accounts/me").json() == {"account": None}


def test_refused_sign_ups_store_nothing(db_url: str) -> None:
    with daily_client(db_url, Clock(), rate_accounts="100/minute") as client:
        assert sign_up(client, "Ada").status_code == 201
        client.cookies.clear()
        before = (count(client, AccountRow), count(client, PlayerRow))
        refused(sign_up(client, "ada"), 409, "name-taken")  # names compare case-folded
        refused(sign_up(client, " ADA "), 409, "name-taken")
        refused(sign_up(client, "Bob", "short"), 400, "bad-request")
        refused(sign_up(client, "bot:Bob"), 400, "bad-request")
        refused(sign_up(client, "Bob", "x" * 257), 400, "bad-request")
        extra = client.post("/api/accounts", json={"name": "Bob", "password": PASSWORD, "a": 1})
        refused(extra, 400, "bad-request")
        refused(
            client.post("/api/accounts", json={"name": "Bob", "password": 12345678}),
            400,
            "bad-request",
        )
        quiet = TestClient(client.app, raise_server_exceptions=False)  # the same app
        with failing_writes(client) as failed:
            r = sign_up(quiet, "Cy")
            assert r.status_code == 500 and r.json()["reason"] == "server-error" and failed
        assert (count(client, AccountRow), count(client, PlayerRow)) == before
        assert COOKIE not in quiet.cookies


def test_sign_ups_and_sign_ins_are_rate_limited_per_address(db_url: str) -> None:
    with daily_client(db_url, Clock(), rate_accounts="2/minute", rate_signins="3/minute") as c:
        assert sign_up(c, "Ada").status_code == 201
        refused(sign_up(c, "Ada"), 409, "name-taken")  # counted: it reached the service
        r = sign_up(c, "Bob")
        refused(r, 429, "rate-limited")
        assert "too many sign-ups from this address: at most 2 per 1 minute" in r.json()["error"]
        assert int(r.headers["retry-after"]) >= 1
        assert count(c, AccountRow) == 1
        # a bad body is refused for its body (400), before the limit is looked at
        refused(sign_up(c, "Bob", "short"), 400, "bad-request")
        # another address has its own count
        other = c.post(
            "/api/accounts",
            json={"name": "Bob", "password": PASSWORD},
            headers={"X-Forwarded-For": "203.0.113.9"},
        )
        refused(other, 429, "rate-limited")  # no trusted proxy: the header names no one
        for _ in range(3):
            refused(
                c.post("/api/sessions", json={"name": "Ada", "password": "guess 1234"}),
                401,
                "bad-password",
            )
        refused(
            c.post("/api/sessions", json={"name": "Ada", "password": PASSWORD}), 429, "rate-limited"
        )


def test_a_guest_history_is_claimed_into_an_account(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        guest, token = new_player(client, "Ada as guest")
        score = play_day(client, token, policy=3)["scores"][0]
        refused(
            client.post("/api/accounts/me/claim", headers=auth(token) | JSON), 401, "bad-session"
        )
        made = sign_up(client, "Ada").json()
        refused(client.post("/api/accounts/me/claim", headers=JSON), 401, "bad-token")
        refused(
            client.post("/api/accounts/me/claim", headers=auth("forged") | JSON), 403, "bad-token"
        )
        r = client.post("/api/accounts/me/claim", headers=auth(token) | JSON)
        assert r.status_code == 200, r.text
        assert r.json()["players"] == [made["player"], guest]
        # the guest token is spent: no second claim, no more guest play with it
        refused(client.post("/api/accounts/me/claim", headers=auth(token) | JSON), 403, "bad-token")
        refused(client.get("/api/players/me", headers=auth(token)), 403, "bad-token")
        profile = client.get(f"/api/accounts/{made['account']}/profile").json()
        assert [(d["date"], d["score"]) for d in profile["daily"]] == [("2026-02-28", score)]


def test_a_password_hashed_with_older_parameters_is_rehashed_at_sign_in(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        assert sign_up(client, "Ada").status_code == 201
        weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORD)
        with client.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
            session.execute(update(AccountRow).values(password_hash=weak))
        wrong = client.post("/api/sessions", json={"name": "Ada", "password": "not the one"})
        refused(wrong, 401, "bad-password")
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            assert session.scalars(select(AccountRow.password_hash)).one() == weak
        r = client.post("/api/sessions", json={"name": "Ada", "password": PASSWORD})
        assert r.status_code == 200, r.text
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            stored = session.scalars(select(AccountRow.password_hash)).one()
        assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        assert PasswordHasher().verify(stored, PASSWORD)


def test_an_unknown_name_is_checked_against_a_dummy_of_the_stored_parameters() -> None:
    """The dummy a sign-in of an unknown name verifies against: the parameters of a real hash
    (so it costs as long), a fresh salt and digest per server, matching no password."""
    hasher = PasswordHasher()
    real = hasher.hash(PASSWORD)
    dummy, other = dummy_hash(hasher), dummy_hash(hasher)
    assert dummy != other and extract_parameters(dummy) == extract_parameters(real)
    assert not hasher.check_needs_rehash(dummy)
    with pytest.raises(VerifyMismatchError):
        hasher.verify(dummy, PASSWORD)
