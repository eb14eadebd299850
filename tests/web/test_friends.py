"""Friends and invitations (docs/web-api.md, "Friends and invitations"): follows, with whether a
followed player is online and playing; invitations from a room's host to a person, pushed to
the invitee's open pages at once, accepted (seated in the same transaction) or declined;
blocks, which refuse invitations, chat and play now's pairing; rate limits per address and per
account. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import inspect, select

from metrogames.web.accounts.service import COOKIE
from metrogames.web.app import create_app
from metrogames.web.infra.models import Base, ChatRow, InvitationRow, SeatRow
from support.web import JSON, auth, create, make_settings, view

Person = tuple[str, dict[str, str]]
"""An account's name and its session as a Cookie header."""


def sign_up(client: TestClient, stem: str = "fr") -> Person:
    """A new account: its name and session (the client's jar left empty)."""
    name = stem + secrets.token_hex(4)
    r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    cookie = {"Cookie": f"{COOKIE}={client.cookies[COOKIE]}"}
    client.cookies.clear()
    return name, cookie


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def hosted(client: TestClient, host: Person, seats: int = 2) -> dict[str, Any]:
    """A waiting online London room whose host (seat 0) is ``host``'s account."""
    made = create(
        client, game="london", mode="online", seats=[{"name": "Host"}] + [{}] * (seats - 1)
    )
    room, token = made["room"]["room"], made["tokens"]["0"]
    r = client.post(
        f"/api/rooms/{room}/seats/0/account", headers=auth(token) | host[1] | JSON, json={}
    )
    assert r.status_code == 200, r.text
    return made


def invite(client: TestClient, made: dict[str, Any], host: Person, to: str, seat: int = 1) -> Any:
    body = {"room": made["room"]["room"], "seat": seat, "to": to}
    return client.post(
        "/api/invitations", json=body, headers=auth(made["host_token"]) | host[1] | JSON
    )


def friends(client: TestClient, who: Person) -> dict[str, Any]:
    r = client.get("/api/friends", headers=who[1])
    assert r.status_code == 200, r.text
    found: dict[str, Any] = r.json()
    return found


def put(client: TestClient, who: Person, path: str) -> Any:
    return client.put(path, headers=who[1] | JSON, json={})


def remove(client: TestClient, who: Person, path: str) -> Any:
    return client.delete(path, headers=who[1] | JSON)


def test_follows_are_listed_by_name_and_undone(client: TestClient) -> None:
    me, zed, amy = sign_up(client), sign_up(client, "zz"), sign_up(client, "aa")
    for other in (zed, amy, zed):  # twice: no change
        assert put(client, me, f"/api/friends/follows/{other[0]}").status_code == 204
    shown = friends(client, me)
    assert [f["name"] for f in shown["following"]] == [amy[0], zed[0]]
    assert shown["following"][0] == {"name": amy[0], "online": False, "playing": None}
    r = remove(client, me, f"/api/friends/follows/{zed[0]}")
    assert r.status_code == 204
    assert [f["name"] for f in friends(client, me)["following"]] == [amy[0]]
    assert friends(client, zed)["following"] == []  # following is one way


def test_bad_follows_are_refused_and_store_nothing(client: TestClient) -> None:
    me = sign_up(client)
    refused(put(client, me, "/api/friends/follows/nobody-here"), 404, "not-found")
    refused(put(client, me, f"/api/friends/follows/{me[0]}"), 400, "bad-request")
    refused(client.put(f"/api/friends/follows/{me[0]}", json={}), 401, "bad-session")
    r = client.put(f"/api/friends/follows/{me[0]}x", headers=me[1] | JSON, json={"x": 1})
    refused(r, 400, "bad-request")
    assert friends(client, me) == {"following": [], "blocked": []}


def test_a_followed_player_shows_online_while_seated_with_a_socket_and_playing_once_started(
    client: TestClient,
) -> None:
    me, pal = sign_up(client), sign_up(client)
    assert put(client, me, f"/api/friends/follows/{pal[0]}").status_code == 204
    made = hosted(client, pal)  # pal holds seat 0 (its account)
    room, token = made["room"]["room"], made["tokens"]["0"]
    assert friends(client, me)["following"][0]["online"] is False  # seated, no socket
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "view"
        assert friends(client, me)["following"][0] == {
            "name": pal[0],
            "online": True,
            "playing": None,
        }
        assert client.post(f"/api/rooms/{room}/join", json={"seat": 1}).status_code == 200
        r = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
        assert r.status_code == 200, r.text
        assert friends(client, me)["following"][0]["playing"] == "london"
    assert friends(client, me)["following"][0]["online"] is False  # the socket closed


def test_an_invitation_is_pushed_listed_and_accepted_into_the_seat(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    room = made["room"]["room"]
    guest_id = client.get("/api/accounts/me", headers=guest[1]).json()["account"]
    events = client.app.state.events  # type: ignore[attr-defined]
    inbox = client.portal.call(events.subscribe, guest_id)  # type: ignore[union-attr]
    r = invite(client, made, host, guest[0])
    assert r.status_code == 201, r.text
    invitation = r.json()
    assert (invitation["room"], invitation["seat"], invitation["from"]) == (room, 1, host[0])
    pushed = inbox.queue.get_nowait()  # there already: published before the answer
    assert pushed == {"type": "invitation", "invitation": invitation}
    r = client.get("/api/invitations", headers=guest[1])
    assert [i["id"] for i in r.json()] == [invitation["id"]]
    assert client.get("/api/invitations", headers=host[1]).json() == []
    r = client.post(f"/api/invitations/{invitation['id']}/accept", headers=guest[1] | JSON, json={})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["room"], answer["seat"]) == (room, 1)
    assert view(client, room, answer["token"])["you"] == 1
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        seat = session.get(SeatRow, (room, 1))
        assert seat is not None and seat.account_id == guest_id
        row = session.get(InvitationRow, invitation["id"])
        assert row is not None and row.status == "accepted"
    assert client.get("/api/invitations", headers=guest[1]).json() == []
    again = client.post(
        f"/api/invitations/{invitation['id']}/accept", headers=guest[1] | JSON, json={}
    )
    refused(again, 404, "not-found")


def test_an_accept_that_fails_claims_nothing_and_keeps_the_invitation(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host, seats=3)
    room = made["room"]["room"]
    first = invite(client, made, host, guest[0], seat=1).json()
    second = invite(client, made, host, guest[0], seat=2).json()
    r = client.post(f"/api/invitations/{first['id']}/accept", headers=guest[1] | JSON, json={})
    assert r.status_code == 200, r.text
    # the account holds seat 1 now: taking seat 2 too is refused, and the claim undone
    r = client.post(f"/api/invitations/{second['id']}/accept", headers=guest[1] | JSON, json={})
    refused(r, 409, "seat-taken")
    seats = client.get(f"/api/rooms/{room}").json()["seats"]
    assert [s["claimed"] for s in seats] == [True, True, False]
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        row = session.get(SeatRow, (room, 2))
        assert row is not None and row.token_hash is None and row.account_id is None
        kept = session.get(InvitationRow, second["id"])
        assert kept is not None and kept.status == "pending"  # its seat is still open


def test_a_declined_invitation_leaves_and_cannot_be_accepted(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    invitation = invite(client, made, host, guest[0]).json()
    r = client.post(f"/api/invitations/{invitation['id']}/decline", headers=host[1] | JSON, json={})
    refused(r, 404, "not-found")  # not the host's to answer
    r = client.post(
        f"/api/invitations/{invitation['id']}/decline", headers=guest[1] | JSON, json={}
    )
    assert r.status_code == 204, r.text
    assert client.get("/api/invitations", headers=guest[1]).json() == []
    r = client.post(f"/api/invitations/{invitation['id']}/accept", headers=guest[1] | JSON, json={})
    refused(r, 404, "not-found")
    assert client.get(f"/api/rooms/{made['room']['room']}").json()["seats"][1]["claimed"] is False
    assert invite(client, made, host, guest[0]).status_code == 201  # the seat may be offered again


def test_bad_invitations_are_refused_and_store_nothing(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    room = made["room"]["room"]
    cookie = host[1] | JSON
    cases = [
        (
            {"room": room, "seat": 1, "to": "nobody-here"},
            auth(made["host_token"]),
            404,
            "not-found",
        ),
        ({"room": room, "seat": 0, "to": guest[0]}, auth(made["host_token"]), 409, "seat-taken"),
        ({"room": room, "seat": 5, "to": guest[0]}, auth(made["host_token"]), 400, "bad-request"),
        ({"room": room, "seat": 1, "to": host[0]}, auth(made["host_token"]), 400, "bad-request"),
        ({"room": room, "seat": 1, "to": guest[0]}, auth(made["tokens"]["0"]), 403, "bad-token"),
        ({"room": room, "seat": 1, "to": guest[0]}, {}, 401, "bad-token"),
        ({"room": room, "seat": "1", "to": guest[0]}, auth(made["host_token"]), 400, "bad-request"),
    ]
    for body, token, status, reason in cases:
        refused(client.post("/api/invitations", json=body, headers=token | cookie), status, reason)
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        assert (
            session.scalars(select(InvitationRow).where(InvitationRow.room_id == room)).all() == []
        )


@pytest.mark.parametrize("who_blocks", ["guest", "host"])
def test_a_block_either_way_refuses_the_invitation(client: TestClient, who_blocks: str) -> None:
    host, guest = sign_up(client), sign_up(client)
    blocker, blocked = (guest, host) if who_blocks == "guest" else (host, guest)
    assert put(client, blocker, f"/api/friends/blocks/{blocked[0]}").status_code == 204
    assert friends(client, blocker)["blocked"] == [blocked[0]]
    made = hosted(client, host)
    r = invite(client, made, host, guest[0])
    refused(r, 403, "blocked")
    assert "blocked" in r.json()["error"]
    assert client.get("/api/invitations", headers=guest[1]).json() == []
    refused(put(client, blocked, f"/api/friends/follows/{blocker[0]}"), 403, "blocked")
    assert remove(client, blocker, f"/api/friends/blocks/{blocked[0]}").status_code == 204
    assert invite(client, made, host, guest[0]).status_code == 201


def test_blocking_stops_following(client: TestClient) -> None:
    me, other = sign_up(client), sign_up(client)
    assert put(client, me, f"/api/friends/follows/{other[0]}").status_code == 204
    assert put(client, me, f"/api/friends/blocks/{other[0]}").status_code == 204
    assert friends(client, me) == {"following": [], "blocked": [other[0]]}


def test_a_block_refuses_the_chat_of_both_and_stores_nothing(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    room = made["room"]["room"]
    invitation = invite(client, made, host, guest[0]).json()
    r = client.post(f"/api/invitations/{invitation['id']}/accept", headers=guest[1] | JSON, json={})
    guest_token = r.json()["token"]
    say = {"text": "hello"}
    assert (
        client.post(f"/api/rooms/{room}/chat", json=say, headers=auth(guest_token)).status_code
        == 201
    )
    assert put(client, host, f"/api/friends/blocks/{guest[0]}").status_code == 204
    for token in (guest_token, made["tokens"]["0"]):
        r = client.post(f"/api/rooms/{room}/chat", json={"text": "again"}, headers=auth(token))
        refused(r, 403, "blocked")
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        texts = session.scalars(select(ChatRow.text).where(ChatRow.room_id == room)).all()
    assert list(texts) == ["hello"]


def test_play_now_never_seats_two_accounts_with_a_block(db_url: str) -> None:
    settings = make_settings(db_url, quickmatch_live_clock=100_000)
    with TestClient(create_app(settings)) as client:
        ann, bob = sign_up(client), sign_up(client)
        assert put(client, ann, f"/api/friends/blocks/{bob[0]}").status_code == 204
        mm = client.app.state.matchmaker  # type: ignore[attr-defined]
        asks = []
        for who in (ann, bob):
            r = client.post(
                "/api/quickmatch",
                json={"game": "london", "players": 2, "clock": "live"},
                headers=who[1] | JSON,
            )
            assert r.status_code == 201, r.text
            asks.append(r.json())
        assert client.portal.call(mm.round) == 0  # type: ignore[union-attr]
        assert len(client.portal.call(mm.queue.waiting)) == 2  # type: ignore[union-attr]
        assert remove(client, ann, f"/api/friends/blocks/{bob[0]}").status_code == 204
        client.portal.call(mm.round)  # type: ignore[union-attr]
        assert client.portal.call(mm.queue.waiting) == []  # type: ignore[union-attr]


def test_requests_are_rate_limited_per_address_and_per_account(db_url: str) -> None:
    app = create_app(make_settings(db_url, rate_friends="3/minute"))
    with TestClient(app, client=("10.0.0.1", 5000)) as one:
        me = sign_up(one)
        for _ in range(3):
            assert one.get("/api/friends", headers=me[1]).status_code == 200
        r = one.get("/api/invitations", headers=me[1])
        assert r.status_code == 429 and "address" in r.json()["error"]
        with TestClient(app, client=("10.0.0.2", 5000)) as two:
            r = two.get("/api/friends", headers=me[1])  # a new address, the same account
            assert r.status_code == 429 and "account" in r.json()["error"]
            other = sign_up(two)
            assert two.get("/api/friends", headers=other[1]).status_code == 200


def test_the_page_stream_starts_with_the_pending_invitations(client: TestClient) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    invitation = invite(client, made, host, guest[0]).json()
    with client.stream("GET", "/api/friends/events", headers=guest[1]) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = r.iter_lines()
        name = data = None
        for line in lines:
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data = json.loads(line[len("data: ") :])
                break
    assert name == "invitations" and data == {"type": "invitations", "invitations": [invitation]}
    refused(client.get("/api/friends/events"), 401, "bad-session")


def test_the_migration_makes_the_tables_the_models_declare(client: TestClient) -> None:
    engine = client.app.state.rooms.store.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    ours = [d for d in diffs if any(n in repr(d) for n in ("'follows'", "'blocks'", "ix_blocks"))]
    assert ours == []
    assert {"follows", "blocks"} <= set(inspect(engine).get_table_names())


def cancelled_meanwhile(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host cancels each invitation just as its acceptance claims the seat (between the
    acceptance's read of the invitation and the claim's transaction)."""
    invitations = client.app.state.invitations  # type: ignore[attr-defined]
    accepting = invitations.accepting

    def late(invitation: str, target: str, room: str, seat: int) -> Any:
        assert invitations.settle(invitation, "cancelled")
        return accepting(invitation, target, room, seat)

    monkeypatch.setattr(invitations, "accepting", late)


def test_an_invitation_cancelled_while_accepted_leaves_the_seat_open(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, guest = sign_up(client), sign_up(client)
    made = hosted(client, host)
    room = made["room"]["room"]
    invitation = invite(client, made, host, guest[0]).json()
    cancelled_meanwhile(client, monkeypatch)
    r = client.post(f"/api/invitations/{invitation['id']}/accept", headers=guest[1] | JSON, json={})
    refused(r, 404, "not-found")
    assert client.get(f"/api/rooms/{room}").json()["seats"][1]["claimed"] is False
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        seat = session.get(SeatRow, (room, 1))
        assert seat is not None and seat.token_hash is None and seat.account_id is None
        row = session.get(InvitationRow, invitation["id"])
        assert row is not None and row.status == "cancelled"


def test_a_bot_s_challenge_cancelled_while_accepted_leaves_the_seat_open(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "Bot" + secrets.token_hex(4)
    r = client.post("/api/accounts", json={"name": name, "password": "long enough"})
    account = r.json()["account"]
    assert client.put("/api/accounts/me/bot", json={"games": ["london"]}).status_code == 200
    body = {"name": "ci", "scopes": ["read", "play"]}
    token = client.post("/api/accounts/me/bot/tokens", json=body).json()["token"]
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    room = made["room"]["room"]
    path = f"/api/rooms/{room}/invitations"
    asked = client.post(
        path, headers=auth(made["host_token"]) | JSON, json={"seat": 1, "account": account}
    )
    cancelled_meanwhile(client, monkeypatch)
    r = client.post(
        f"/api/bot/invitations/{asked.json()['id']}/accept", headers=auth(token) | JSON, json={}
    )
    refused(r, 404, "not-found")
    assert client.get(f"/api/rooms/{room}").json()["seats"][1]["claimed"] is False
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        seat = session.get(SeatRow, (room, 1))
        assert seat is not None and seat.token_hash is None and seat.account_id is None
