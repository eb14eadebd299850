"""Play now for bot accounts (docs/web-api.md, "Bot accounts" and "Play now"): a bot queues
with its token for a game it declares, in its own pool unless its owner opted into people's
pools, and its event stream is told ``gameStart`` once when it is seated — on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from metrogames.web.accounts.service import COOKIE
from metrogames.web.app import create_app
from metrogames.web.infra.models import SeatRow
from support.bot_accounts import bot_account, bot_headers
from support.web import JSON, auth, make_settings

LONDON = {"game": "london", "players": 2, "clock": "live"}


@pytest.fixture
def app_client(db_url: str) -> Iterator[TestClient]:
    settings = make_settings(db_url, rate_quickmatch="1000/minute", quickmatch_live_clock=100_000)
    with TestClient(create_app(settings)) as c:
        yield c


def bot_asks(client: TestClient, token: str, **body: Any) -> Any:
    return client.post("/api/bot/quickmatch", headers=bot_headers(token), json=LONDON | body)


def waiting(client: TestClient) -> list[Any]:
    mm = client.app.state.matchmaker  # type: ignore[attr-defined]
    assert client.portal is not None
    found: list[Any] = client.portal.call(mm.queue.waiting)
    return found


def until_seated(client: TestClient, tickets: set[str], seconds: float = 20.0) -> None:
    """Wait until every one of ``tickets`` is seated (its table open, its seat tied)."""
    mm = client.app.state.matchmaker  # type: ignore[attr-defined]
    assert client.portal is not None
    give_up = time.monotonic() + seconds
    while any(client.portal.call(mm.queue.state, t)[0] != "seated" for t in tickets):
        assert time.monotonic() < give_up, "requests not seated"
        time.sleep(0.02)


def seats_of(client: TestClient, account: str) -> list[tuple[str, int]]:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows = session.execute(
            select(SeatRow.room_id, SeatRow.seat).where(SeatRow.account_id == account)
        ).all()
    return [(r, s) for r, s in rows]


def person_asks(client: TestClient) -> str:
    """A new person's account asks for LONDON; its request's ticket."""
    name = "qp" + secrets.token_hex(4)
    r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    cookie = {"Cookie": f"{COOKIE}={client.cookies[COOKIE]}"}
    client.cookies.clear()
    r = client.post("/api/quickmatch", json=LONDON, headers=cookie | JSON)
    assert r.status_code == 201, r.text
    return str(r.json()["ticket"])


def test_two_bots_meet_in_their_pool_and_a_person_is_not_seated_with_them(
    app_client: TestClient,
) -> None:
    client = app_client
    (a, token_a), (b, token_b) = bot_account(client), bot_account(client)
    human = person_asks(client)
    asked = [bot_asks(client, t) for t in (token_a, token_b)]
    assert [r.status_code for r in asked] == [201, 201], [r.text for r in asked]
    assert {r.json()["pool"] for r in asked} == {"bot"}
    until_seated(client, {r.json()["ticket"] for r in asked})
    (room_a, seat_a), (room_b, seat_b) = seats_of(client, a) + seats_of(client, b)
    assert room_a == room_b and {seat_a, seat_b} == {0, 1}
    assert [t.id for t in waiting(client)] == [human]  # the person waits on: another pool
    r = client.get(f"/api/rooms/{room_a}").json()
    assert r["status"] == "playing" and r["mode"] == "online"


def test_a_bot_whose_owner_opted_in_meets_a_person(app_client: TestClient) -> None:
    client = app_client
    account, token = bot_account(client)
    r = client.put("/api/accounts/me/bot", json={"games": ["london"], "human_pools": True})
    assert r.status_code == 200, r.text
    human = person_asks(client)
    r = bot_asks(client, token)
    assert r.status_code == 201 and r.json()["pool"] == "human", r.text
    until_seated(client, {human, r.json()["ticket"]})
    ((room, _),) = seats_of(client, account)
    tied = [s["account"] for s in client.get(f"/api/rooms/{room}/ratings").json()["seats"]]
    assert len(tied) == 2 and account in tied and None not in tied  # the bot and the person


def test_the_bots_event_stream_is_told_its_game_once(app_client: TestClient) -> None:
    """Seated while its stream is open: one ``gameStart`` for the room (the stream listens
    before it reads where the bot sits, and tells a game once)."""
    client = app_client
    (a, token_a), (_, token_b) = bot_account(client), bot_account(client)
    starts: list[dict[str, Any]] = []
    opened = threading.Event()

    def read() -> None:
        with client.stream("GET", "/api/bot/events", headers=auth(token_a)) as r:
            assert r.status_code == 200
            opened.set()
            for text in r.iter_lines():
                if text.strip():
                    event = json.loads(text)
                    if event["type"] == "gameStart":
                        starts.append(event)
                    if event["type"] == "turn" or len(starts) > 1:
                        return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert opened.wait(20)
    asked = [bot_asks(client, t).json()["ticket"] for t in (token_a, token_b)]
    until_seated(client, set(asked))
    reader.join(30)
    assert not reader.is_alive()
    ((room, seat),) = seats_of(client, a)
    assert starts == [{"type": "gameStart", "room": room, "seat": seat, "game": "london"}]


def test_bad_bot_requests_are_refused_and_queue_nothing(app_client: TestClient) -> None:
    client = app_client
    _, metro_only = bot_account(client, ["metro"])
    r = bot_asks(client, metro_only)
    assert r.status_code == 409 and r.json()["reason"] == "not-declared", r.text
    _, token = bot_account(client)
    assert bot_asks(client, token, players=9).status_code == 400
    r = client.post("/api/bot/quickmatch", headers=JSON, json=LONDON)
    assert r.status_code == 401, r.text
    read_only = client.post(
        "/api/accounts/me/bot/tokens", json={"name": "ro", "scopes": ["read"]}
    ).json()["token"]
    r = bot_asks(client, read_only)
    assert r.status_code == 403 and r.json()["reason"] == "bad-token", r.text
    assert waiting(client) == []
    mine = bot_asks(client, token).json()["ticket"]
    _, other = bot_account(client)
    r = client.request("DELETE", f"/api/bot/quickmatch/{mine}", headers=bot_headers(other))
    assert r.status_code == 404, r.text  # not the other bot's request
    r = client.request("DELETE", f"/api/bot/quickmatch/{mine}", headers=bot_headers(token))
    assert r.status_code == 200 and r.json() == {"cancelled": True}, r.text
    assert waiting(client) == []
