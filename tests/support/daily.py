"""Helpers of the daily-challenge tests: a movable clock, an app on a clean database, players,
starts and playing a daily room out by a seeded random legal policy (checked at the end against
an engine replay of the room's record)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import delete, update

from metrogames.web.app import create_app
from metrogames.web.infra.models import AccountRow, DailyAttemptRow, DailyBotScoreRow, PlayerRow
from support.web import Player, auth, make_settings, view

SECRET = "metrogames-test-secret"
DAY = "2026-02-28"
"""The tests' first day: its London seed is above 2**63 (stored as a negative BIGINT)."""


def at(text: str) -> float:
    """Epoch seconds of ``YYYY-MM-DDTHH:MM:SS`` UTC."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


class Clock:
    """A settable clock for ``create_app(now=...)``."""

    def __init__(self, start: str = f"{DAY}T12:00:00") -> None:
        self.t = at(start)

    def __call__(self) -> float:
        return self.t

    def set(self, text: str) -> None:
        self.t = at(text)

    def tick(self, seconds: float = 1.0) -> None:
        self.t += seconds


def clean(client: TestClient) -> None:
    """Forget every account, player, attempt and bot score (PostgreSQL is shared between
    tests; sessions and ratings go with their accounts)."""
    with client.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
        session.execute(delete(DailyAttemptRow))
        session.execute(delete(DailyBotScoreRow))
        session.execute(update(PlayerRow).values(account_id=None))
        for table in (AccountRow, PlayerRow):
            session.execute(delete(table))


GUEST_RANKED = 100
"""The tests' cap on ranked guest games per address and day (they all come from one address)."""


@contextmanager
def daily_client(
    db_url: str, clock: Clock, secret: str | None = SECRET, **settings: Any
) -> Iterator[TestClient]:
    """A test client of a fresh app on ``db_url`` with the daily tables and the accounts
    emptied (further ``settings`` as given; the guest cap :data:`GUEST_RANKED` by default)."""
    settings.setdefault("daily_guest_ranked", GUEST_RANKED)
    settings.setdefault("rate_accounts", "1000/minute")
    app = create_app(make_settings(db_url, daily_secret=secret, **settings), now=clock)
    with TestClient(app) as client:
        clean(client)
        yield client


def reopen(db_url: str, clock: Clock, secret: str | None = SECRET) -> TestClient:
    """Another app on the same database (not cleaned): a server restart."""
    settings = make_settings(db_url, daily_secret=secret, daily_guest_ranked=GUEST_RANKED)
    return TestClient(create_app(settings, now=clock))


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def new_player(client: TestClient, name: str) -> tuple[str, str]:
    """A new player: ``(player id, token)``."""
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["name"] == name
    return body["player"], body["token"]


PASSWORD = "correct horse battery"


_BROWSERS = itertools.count(1)


def new_account(
    client: TestClient, name: str, made: str | None = f"{DAY}T00:00:00"
) -> tuple[TestClient, dict[str, Any]]:
    """A new account signed in on a browser of its own (a client of the same app with its own
    cookies, from an address of its own, as two people's browsers are): ``(that client, the
    sign-up's answer)``. The account is dated an hour before ``made`` (UTC; by default the
    tests' first day opens, so it may rank that day's deal; ``None``: now, by the app's
    daily clock)."""
    n = next(_BROWSERS)
    browser = TestClient(
        client.app, client=(f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}", 50000)
    )
    r = browser.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    state = client.app.state  # type: ignore[attr-defined]
    created = state.now() if made is None else at(made) - 3600
    with state.rooms.sessions.begin() as session:
        session.execute(
            update(AccountRow).where(AccountRow.id == r.json()["account"]).values(created=created)
        )
    return browser, r.json()


def start(
    client: TestClient, token: str | None, game: str = "london", day: str = DAY, **body: Any
) -> Any:
    """Start a daily game with a player token, or (``None``) as the signed-in account."""
    headers = auth(token) if token else {}
    return client.post(f"/api/daily/{game}/{day}/start", headers=headers, json=body)


def started(
    client: TestClient, token: str | None, game: str = "london", day: str = DAY, **body: Any
) -> dict[str, Any]:
    r = start(client, token, game, day, **body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


Policy = int | str
"""How a test plays a daily room: a seed of :class:`webutil.Player`'s random legal policy, or
``"pass"`` (every turn)."""


def player(room: str, token: str, policy: Policy = 0) -> Player:
    """The :class:`webutil.Player` of a daily room's one seat (played with the player token)."""
    if policy == "pass":
        return Player(room, {"0": token}, passing=True)
    assert isinstance(policy, int), policy
    return Player(room, {"0": token}, policy)


def play(client: TestClient, room: str, token: str, policy: Policy | Player = 0) -> dict[str, Any]:
    """Play a daily room to its end by ``policy`` (a seed, ``"pass"``, or a :class:`Player`
    that already acted in it), check the end against the record; returns the final view."""
    p = policy if isinstance(policy, Player) else player(room, token, policy)
    p.play_out(client)
    p.check(client)
    return view(client, room, token)


def play_day(
    client: TestClient,
    token: str | None,
    game: str = "london",
    day: str = DAY,
    policy: Policy = 0,
    share: bool = True,
) -> dict[str, Any]:
    """Start and finish ``game`` of ``day`` with a player token, or (``None``) as the signed-in
    account (the start's seat token plays); returns the final view."""
    made = started(client, token, game, day, share=share)
    return play(client, made["room"], token or made["token"], policy)


def get(client: TestClient, url: str, token: str | None = None) -> Any:
    r = client.get(url, headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()
