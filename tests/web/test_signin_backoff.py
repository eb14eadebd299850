"""The sign-in back-off per account (docs/web-api.md, "Accounts"; ``web/accounts/backoff.py``): issue 21
item 10 — 72 wrong passwords from 8 addresses are not all answered; the wait doubles with each
further failure up to its cap; a success clears it; a lookalike of the name counts for the
account; the counts are shared by the workers through Redis, and kept in memory while Redis
cannot be reached."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from fastapi.testclient import TestClient
from redis.asyncio import Redis

from metrogames.web.accounts.backoff import SignInBackoff
from support.daily import Clock, daily_client, refused
from support.two_workers import two_workers
from support.web import run_async

PASSWORD = "correct horse battery"
WRONG = "not the password at all"


class Monotonic:
    """A settable clock for the back-off's own counts."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def attempt(client: TestClient, name: str, password: str, address: str = "203.0.113.1") -> Any:
    return client.post(
        "/api/sessions",
        json={"name": name, "password": password},
        headers={"X-Forwarded-For": address},
    )


def app_client(db_url: str, **settings: Any) -> Any:
    """A client whose requests come through a trusted proxy naming their address."""
    settings.setdefault("trusted_proxies", "127.0.0.1")
    settings.setdefault("rate_signins", "1000/minute")
    return daily_client(db_url, Clock(), **settings)


def test_72_wrong_passwords_from_8_addresses_are_not_all_answered(db_url: str) -> None:
    with app_client(db_url, rate_signins="10/minute;100/hour") as client:
        client.__init__(client.app, client=("127.0.0.1", 50000))  # type: ignore[misc]
        assert (
            client.post("/api/accounts", json={"name": "Ada", "password": PASSWORD}).status_code
            == 201
        )
        client.cookies.clear()
        answered, refusals = 0, []
        for n in range(72):  # 9 from each address: under the per-address limit of 10
            r = attempt(client, "Ada", f"{WRONG} {n}", f"198.51.100.{n % 8}")
            if r.status_code == 401:
                answered += 1
            else:
                refused(r, 429, "rate-limited")
                refusals.append(r)
        assert answered == 5  # METROGAMES_SIGNIN_FREE
        assert all(0 < int(r.headers["retry-after"]) <= 30 for r in refusals)
        assert "failed sign-ins to this account" in refusals[0].json()["error"]
        # the right password waits its turn too: a guesser cannot tell it from a wrong one
        refused(attempt(client, "Ada", PASSWORD), 429, "rate-limited")


def test_the_wait_doubles_up_to_its_cap_and_a_success_clears_it(db_url: str) -> None:
    with app_client(db_url, signin_free=3, signin_backoff=10, signin_backoff_cap=60) as client:
        client.__init__(client.app, client=("127.0.0.1", 50000))  # type: ignore[misc]
        clock = Monotonic()
        client.app.state.backoff.now = clock  # type: ignore[attr-defined]
        assert (
            client.post("/api/accounts", json={"name": "Ada", "password": PASSWORD}).status_code
            == 201
        )
        client.cookies.clear()
        for _ in range(3):
            refused(attempt(client, "Ada", WRONG), 401, "bad-password")
        waits = []
        for _ in range(5):
            r = attempt(client, "Ada", WRONG)
            refused(r, 429, "rate-limited")
            wait = int(r.headers["retry-after"])
            waits.append(wait)
            clock.t += wait - 1
            refused(attempt(client, "Ada", WRONG), 429, "rate-limited")  # not yet
            clock.t += 1
            refused(attempt(client, "Ada", WRONG), 401, "bad-password")  # one more try
        assert waits == [10, 20, 40, 60, 60]
        # a lookalike of the name is the same account's count
        refused(attempt(client, "\u0410DA", WRONG), 429, "rate-limited")
        clock.t += 60
        assert attempt(client, "Ada", PASSWORD).status_code == 200
        client.cookies.clear()
        for _ in range(3):  # cleared: the free attempts again
            refused(attempt(client, "Ada", WRONG), 401, "bad-password")
        refused(attempt(client, "Ada", WRONG), 429, "rate-limited")
        # a name nobody has backs off alike (a refusal tells nothing of which names exist)
        for _ in range(3):
            refused(attempt(client, "Zed", WRONG), 401, "bad-password")
        refused(attempt(client, "Zed", WRONG), 429, "rate-limited")
        # another account is not slowed down
        refused(attempt(client, "Bea", WRONG), 401, "bad-password")


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_workers_share_the_counts(db_url: str) -> None:
    name = f"Ada{secrets.token_hex(4)}"  # the database keeps earlier tests' accounts
    with two_workers(db_url, rate_signins="1000/minute", signin_free=4) as (a, b):
        assert a.post("/api/accounts", json={"name": name, "password": PASSWORD}).status_code == 201
        a.cookies.clear()
        for worker in (a, b, a, b):
            refused(
                worker.post("/api/sessions", json={"name": name, "password": WRONG}),
                401,
                "bad-password",
            )
        for worker in (a, b):
            r = worker.post("/api/sessions", json={"name": name, "password": PASSWORD})
            refused(r, 429, "rate-limited")
            assert 0 < int(r.headers["retry-after"]) <= 30
        assert not a.app.state.backoff.local and not b.app.state.backoff.local  # type: ignore[attr-defined]


def test_without_redis_each_worker_counts_in_its_memory() -> None:
    async def run() -> list[float]:
        dead = Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=0.2)  # nothing there
        backoff = SignInBackoff(dead, free=2, base=5, cap=50, now=lambda: 0.0)
        waits = []
        for _ in range(3):
            try:
                await backoff.admit("k")
                waits.append(0.0)
            except Exception as exc:
                waits.append(float(exc.headers["Retry-After"]))  # type: ignore[attr-defined]
        await dead.aclose()
        return waits

    assert run_async(run()) == [0.0, 0.0, 5.0]
