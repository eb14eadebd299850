"""Helpers of the daily-challenge tests: a movable clock, an app on a clean database, players,
starts and playing a daily room out by a simple policy."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import delete
from webutil import act, auth, make_settings, view

from metrogames.web.app import create_app
from metrogames.web.models import DailyAttemptRow, DailyBotScoreRow, PlayerRow

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
    """Forget every player, attempt and bot score (PostgreSQL is shared between tests)."""
    with client.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
        for table in (DailyAttemptRow, DailyBotScoreRow, PlayerRow):
            session.execute(delete(table))


@contextmanager
def daily_client(db_url: str, clock: Clock, secret: str | None = SECRET) -> Iterator[TestClient]:
    """A test client of a fresh app on ``db_url`` with the daily tables emptied."""
    settings = make_settings(db_url, daily_secret=secret)
    with TestClient(create_app(settings, now=clock)) as client:
        clean(client)
        yield client


def reopen(db_url: str, clock: Clock, secret: str | None = SECRET) -> TestClient:
    """Another app on the same database (not cleaned): a server restart."""
    return TestClient(create_app(make_settings(db_url, daily_secret=secret), now=clock))


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


def start(client: TestClient, token: str, game: str = "london", day: str = DAY, **body: Any) -> Any:
    return client.post(f"/api/daily/{game}/{day}/start", headers=auth(token), json=body)


def started(
    client: TestClient, token: str, game: str = "london", day: str = DAY, **body: Any
) -> dict[str, Any]:
    r = start(client, token, game, day, **body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def choose(v: dict[str, Any], policy: str) -> Any:
    """An action of ``v["legal"]`` by ``policy``: ``first``, ``middle``, ``last`` or ``pass``."""
    if policy == "pass":
        return "pass"
    legal = v["legal"]
    return {"first": legal[0], "middle": legal[len(legal) // 2], "last": legal[-1]}[policy]


def play(
    client: TestClient, room: str, token: str, policy: str = "first", limit: int = 400
) -> dict[str, Any]:
    """Play a daily room to its end by ``policy``; returns the final view."""
    for _ in range(limit):
        v = view(client, room, token)
        if v["status"] == "finished":
            return v
        r = act(client, room, token, choose(v, policy), v["step"])
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def play_day(
    client: TestClient,
    token: str,
    game: str = "london",
    day: str = DAY,
    policy: str = "first",
    share: bool = True,
) -> dict[str, Any]:
    """Start and finish ``game`` of ``day``; returns the final view."""
    room = started(client, token, game, day, share=share)["room"]
    return play(client, room, token, policy)


def get(client: TestClient, url: str, token: str | None = None) -> Any:
    r = client.get(url, headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()
