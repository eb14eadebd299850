"""Play now over HTTP (``docs/web-api.md``, "Play now"): two players asking for the same game
meet at a started online room and play it out; bad requests are refused and queue nothing;
a player waits in one queue at most; cancelling and the bots' offer; the rate limits by
address and by account. On SQLite and PostgreSQL; across two workers on PostgreSQL and
Redis."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.web.accounts.service import COOKIE
from metrogames.web.app import create_app
from support.two_workers import two_workers
from support.web import JSON, auth, make_settings, play_out, view

LONDON = {"game": "london", "players": 2, "clock": "live"}
LIVE = 100_000


def sign_up(client: TestClient) -> dict[str, str]:
    """A new account's session, as a Cookie header (the client's jar left empty)."""
    name = "qm" + secrets.token_hex(4)
    r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    cookie = {"Cookie": f"{COOKIE}={client.cookies[COOKIE]}"}
    client.cookies.clear()
    return cookie


def ask(client: TestClient, who: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/api/quickmatch", json=LONDON | body, headers=who | JSON)
    assert r.status_code == 201, r.text
    found: dict[str, Any] = r.json()
    return found


def events(client: TestClient, ticket: str, until: str = "seated") -> list[tuple[str, Any]]:
    """The request's stream, read up to its first ``until`` event (or its end)."""
    seen: list[tuple[str, Any]] = []
    with client.stream("GET", f"/api/quickmatch/{ticket}/events") as r:
        assert r.status_code == 200, r.read()
        name = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: ") and name is not None:
                seen.append((name, json.loads(line[len("data: ") :])))
                if name in (until, "seated", "gone"):
                    break
    return seen


def waiting(client: TestClient) -> list[Any]:
    """The requests waiting in the app's queue, read on the app's event loop."""
    mm = client.app.state.matchmaker  # type: ignore[attr-defined]
    assert client.portal is not None
    found: list[Any] = client.portal.call(mm.queue.waiting)
    return found


def until_empty(client: TestClient, seconds: float = 10.0) -> None:
    """Wait until no request waits (one left in the background), at most ``seconds``."""
    give_up = time.monotonic() + seconds
    while waiting(client):
        assert time.monotonic() < give_up, "requests still wait"
        time.sleep(0.02)


@pytest.fixture
def app_client(db_url: str) -> Iterator[TestClient]:
    # a live table's clock (seconds, 10 ms each in tests: make_settings) left long enough
    # for a test to play it out
    settings = make_settings(db_url, rate_quickmatch="1000/minute", quickmatch_live_clock=LIVE)
    with TestClient(create_app(settings)) as c:
        yield c


def test_two_players_meet_and_play_it_out(app_client: TestClient) -> None:
    client = app_client
    ann, bob = sign_up(client), sign_up(client)
    first, second = ask(client, ann), ask(client, bob)
    assert first["rating"] == 0.0 and first["token"] != second["token"]
    seen = events(client, first["ticket"])
    # "waiting" while it waits; a request seated before its stream opens is told "seated"
    # alone (docs/web-api.md, "Play now"): which one depends on the matcher's timing
    assert seen[-1][0] == "seated" and [name for name, _ in seen[:-1]] in ([], ["waiting"])
    room, seat = seen[-1][1]["room"], seen[-1][1]["seat"]
    (other,) = [data for name, data in events(client, second["ticket"]) if name == "seated"]
    assert other["room"] == room and {seat, other["seat"]} == {0, 1}
    summary = client.get(f"/api/rooms/{room}").json()
    assert summary["status"] == "playing" and summary["mode"] == "online"
    assert summary["turn_clock"] == LIVE and [s["kind"] for s in summary["seats"]] == ["human"] * 2
    assert view(client, room, first["token"])["you"] == seat  # the request's token holds it
    ratings = client.get(f"/api/rooms/{room}/ratings").json()
    assert all(s["account"] is not None for s in ratings["seats"])  # tied to the accounts
    tokens = {str(seat): first["token"], str(other["seat"]): second["token"]}
    final = play_out(client, room, tokens)
    assert final["status"] == "finished"
    assert waiting(client) == []


def test_a_bot_account_seated_by_play_now_reads_bot(app_client: TestClient) -> None:
    client = app_client
    ann, bot = sign_up(client), sign_up(client)
    r = client.put("/api/accounts/me/bot", json={"games": ["london"]}, headers=bot | JSON)
    assert r.status_code == 200 and r.json()["bot"] is True, r.text
    first, second = ask(client, ann), ask(client, bot)
    (seated,) = [data for name, data in events(client, first["ticket"]) if name == "seated"]
    (other,) = [data for name, data in events(client, second["ticket"]) if name == "seated"]
    kinds = {seated["seat"]: "human", other["seat"]: "bot"}
    summary = client.get(f"/api/rooms/{seated['room']}").json()
    assert [s["kind"] for s in summary["seats"]] == [kinds[0], kinds[1]]
    assert [s["kind"] for s in view(client, seated["room"], first["token"])["seats"]] == [kinds[0], kinds[1]]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"game": "chess"}, "play now: game: unknown game"),
        ({"players": 1}, "play now: players: london is played by 2 to 4 players"),
        ({"players": 7}, "play now: players: london is played by 2 to 4 players"),
        ({"clock": "blitz"}, "clock"),
        ({"players": "2"}, "players"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_requests_are_refused_and_queue_nothing(
    app_client: TestClient, body: dict[str, Any], words: str
) -> None:
    r = app_client.post("/api/quickmatch", json=LONDON | body, headers=JSON)
    assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text
    assert words in r.json()["error"]
    assert waiting(app_client) == []


def test_a_player_waits_in_one_queue_at_most(app_client: TestClient) -> None:
    ann = sign_up(app_client)
    first = ask(app_client, ann)
    second = ask(app_client, ann, game="metro")
    assert [t.id for t in waiting(app_client)] == [second["ticket"]]
    r = app_client.get(f"/api/quickmatch/{first['ticket']}/events")
    assert r.status_code == 404 and r.json()["reason"] == "not-found"
    bob = sign_up(app_client)
    third = ask(app_client, bob, game="metro")
    (seated,) = [d for n, d in events(app_client, third["ticket"]) if n == "seated"]
    assert client_seats(app_client, seated["room"]) == 2


def client_seats(client: TestClient, room: str) -> int:
    return len(client.get(f"/api/rooms/{room}").json()["seats"])


def test_cancel_needs_the_token_and_leaves_the_queue(app_client: TestClient) -> None:
    mine = ask(app_client, sign_up(app_client))
    path = f"/api/quickmatch/{mine['ticket']}"
    assert app_client.delete(path, headers=JSON).status_code == 401
    assert app_client.delete(path, headers=auth("nope") | JSON).status_code == 403
    r = app_client.delete(path, headers=auth(mine["token"]) | JSON)
    assert r.status_code == 200 and r.json() == {"cancelled": True}
    assert waiting(app_client) == []
    assert app_client.delete(path, headers=auth(mine["token"]) | JSON).status_code == 404
    r = app_client.delete("/api/quickmatch/NOT-A-TICKET", headers=JSON)
    assert r.status_code == 400 and "ticket" in r.json()["error"]


def test_the_bots_are_offered_after_the_wait(db_url: str) -> None:
    settings = make_settings(db_url, quickmatch_bots_after=30, rate_quickmatch="1000/minute")
    with TestClient(create_app(settings)) as client:
        mm = client.app.state.matchmaker  # type: ignore[attr-defined]
        mine = ask(client, sign_up(client), players=3)
        bots = f"/api/quickmatch/{mine['ticket']}/bots"
        early = client.post(bots, headers=auth(mine["token"]) | JSON)
        assert early.status_code == 409 and early.json()["reason"] == "too-early"
        assert "30 more seconds" in early.json()["error"]
        mm.clock = lambda: time.time() + 31  # the wait is over
        seen = events(client, mine["ticket"], until="offer")
        assert [n for n, _ in seen] == ["waiting", "offer"]
        until_empty(client)  # its client left the stream: the request left the queue
        mine = ask(client, sign_up(client), players=3)
        assert client.post(bots, headers=auth(mine["token"]) | JSON).status_code == 404
        bots = f"/api/quickmatch/{mine['ticket']}/bots"
        mm.clock = lambda: time.time() + 62  # its wait is over too
        assert client.post(bots, headers=auth("wrong") | JSON).status_code == 403
        r = client.post(bots, headers=auth(mine["token"]) | JSON)
        assert r.status_code == 200, r.text
        room, seat = r.json()["room"], r.json()["seat"]
        summary = client.get(f"/api/rooms/{room}").json()
        assert [s["kind"] for s in summary["seats"]] == ["human", "bot", "bot"] and seat == 0
        assert summary["status"] == "playing"
        assert view(client, room, mine["token"])["you"] == 0
        assert client.post(bots, headers=auth(mine["token"]) | JSON).status_code == 404
        (seated,) = [d for n, d in events(client, mine["ticket"]) if n == "seated"]
        assert seated == {"room": room, "seat": 0}


def from_address(client: TestClient, address: str) -> None:
    """The client's next requests come from ``address`` (its test transport's peer)."""
    client._transport.client = (address, 5000)  # type: ignore[attr-defined]


def test_requests_are_rate_limited_per_address_and_account(db_url: str) -> None:
    app = create_app(make_settings(db_url, rate_quickmatch="2/minute"))
    with TestClient(app, client=("10.0.0.1", 5000)) as client:
        for _ in range(2):
            ask(client, {})
        r = client.post("/api/quickmatch", json=LONDON, headers=JSON)
        assert r.status_code == 429 and r.json()["reason"] == "rate-limited"
        assert len(waiting(client)) == 1  # the earlier request still waits, alone
        from_address(client, "10.0.0.2")
        who = sign_up(client)
        ask(client, who)
        from_address(client, "10.0.0.3")
        ask(client, who)  # a new address, the same account: its second
        r = client.post("/api/quickmatch", json=LONDON, headers=who | JSON)
        assert r.status_code == 429 and "account" in r.json()["error"]
        from_address(client, "10.0.0.4")
        ask(client, {})  # another address, no account


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_players_on_two_workers_meet(db_url: str) -> None:
    with two_workers(db_url, rate_quickmatch="1000/minute") as (a, b):
        first = ask(a, sign_up(a))
        second = ask(b, sign_up(b))
        (one,) = [d for n, d in events(a, first["ticket"]) if n == "seated"]
        (two,) = [d for n, d in events(b, second["ticket"]) if n == "seated"]
        assert one["room"] == two["room"] and {one["seat"], two["seat"]} == {0, 1}
        assert view(b, one["room"], first["token"])["you"] == one["seat"]
        assert waiting(a) == [] and waiting(b) == []


def test_redis_failing_is_a_503_that_queues_nothing(app_client: TestClient) -> None:
    from redis.exceptions import ConnectionError as RedisDown

    mm = app_client.app.state.matchmaker  # type: ignore[attr-defined]

    async def down(ticket: Any) -> None:
        raise RedisDown("refused")

    real, mm.queue.join = mm.queue.join, down
    try:
        r = app_client.post("/api/quickmatch", json=LONDON, headers=JSON)
    finally:
        mm.queue.join = real
    assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text
    assert r.headers["retry-after"] == "2"
    assert waiting(app_client) == []


def test_a_request_seated_while_its_stream_opens_is_streamed_its_seat_not_refused(
    app_client: TestClient,
) -> None:
    """The 300-player benchmark's 404s: the stream looked at the request twice (its state,
    then the request itself) and a seating between the two looks answered 404. Here the
    request is claimed and seated right after the first look; the stream gives the seat."""
    ticket = ask(app_client, sign_up(app_client))["ticket"]
    mm = app_client.app.state.matchmaker  # type: ignore[attr-defined]
    first_look = mm.queue.state
    seating = {"room": "abcdefgh", "seat": 1}

    async def seated_right_after(ticket_id: str) -> Any:
        found = await first_look(ticket_id)
        mine = await mm.queue.get(ticket_id)
        if mine is not None:  # the matcher takes it now, between this look and any other
            assert await mm.queue.claim([mine])
            await mm.queue.seat(ticket_id, seating)
        return found

    mm.queue.state = seated_right_after
    try:
        seen = events(app_client, ticket)
    finally:
        mm.queue.state = first_look
    assert seen[-1] == ("seated", seating), seen


def test_a_seating_told_while_the_wait_looks_wakes_it_at_once(app_client: TestClient) -> None:
    """A seating stored and told while :meth:`Matchmaker.wait` is reading the queue (its look
    saw nothing yet) wakes the wait: it returns the seat, not ``None`` after its timeout."""
    mm = app_client.app.state.matchmaker  # type: ignore[attr-defined]
    seating = {"room": "abcdefgh", "seat": 0}
    looks: list[str] = []
    real_seating = mm.queue.seating

    async def told_during_the_look(ticket_id: str) -> Any:
        before = await real_seating(ticket_id)
        if not looks:  # the first look read nothing; the seating and its news come now
            mm.queue.seatings[ticket_id] = (mm.queue.clock() + 60, seating)
            mm.wake_stream(ticket_id)
        looks.append(ticket_id)
        return before

    async def wait() -> Any:
        mm.queue.seating = told_during_the_look
        try:  # an hour's timeout: only the wake-up can end it within the test's deadline
            return await asyncio.wait_for(mm.wait("t-lost-wake", 3600.0), 30.0)
        finally:
            mm.queue.seating = real_seating
            mm.forget("t-lost-wake")

    assert app_client.portal is not None
    assert app_client.portal.call(wait) == seating
    assert len(looks) == 2  # the look that missed it, and the look after the wake-up
