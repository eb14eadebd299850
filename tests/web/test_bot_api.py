"""Bot accounts (docs/web-api.md, "Bot accounts"): tokens stored hashed, shown once, scoped
and revoked at once; a bot token is no session; invitations to a seat; a bot's moves go
through the room's own checks (no move out of turn, no other seat's view) — on SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import AsyncGenerator, AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from fastapi import Request
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import select, update

from metrogames.web.accounts.bots import BotAuth
from metrogames.web.accounts.service import COOKIE, Account
from metrogames.web.api.bots import STREAMS_PER_TOKEN, _streaming
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import BotTokenRow, InvitationRow, SeatRow
from support.bot_accounts import PASSWORD, bot_account, bot_headers
from support.web import JSON, auth, create, run_async, view


def seated(client: TestClient, token: str) -> tuple[str, dict[str, Any]]:
    """An online London room, a human host at seat 0, the bot invited to seat 1 and seated:
    (room, creation answer)."""
    room = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    code = room["room"]["room"]
    account = client.get("/api/bot/account", headers=auth(token)).json()["account"]
    host = auth(room["host_token"])
    r = client.post(
        f"/api/rooms/{code}/invitations", headers=host, json={"seat": 1, "account": account}
    )
    assert r.status_code == 201, r.text
    invitation = r.json()
    assert invitation["status"] == "pending" and invitation["game"] == "london"
    r = client.post(
        f"/api/bot/invitations/{invitation['id']}/accept", headers=bot_headers(token), json={}
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"room": code, "seat": 1}
    return code, room


def test_a_token_is_shown_once_stored_as_its_sha256_and_listed_without_it(
    client: TestClient,
) -> None:
    _, token = bot_account(client)
    assert token.startswith("mgb_") and len(token) >= 40
    listed = client.get("/api/accounts/me/bot/tokens").json()
    assert token not in json.dumps(listed)
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        row = session.scalars(select(BotTokenRow).where(BotTokenRow.id == listed[0]["id"])).one()
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert client.get("/api/bot/account", headers=auth(token)).json()["games"] == ["london"]


def test_a_revoked_token_stops_at_once_and_a_token_is_no_session(client: TestClient) -> None:
    _, token = bot_account(client)
    token_id = client.get("/api/accounts/me/bot/tokens").json()[0]["id"]
    signed_in = client.cookies.get(COOKIE)
    client.cookies.clear()
    # a bot token as the session cookie, or as a bearer: no account, no password change
    assert client.get("/api/accounts/me", cookies={COOKIE: token}).json() == {"account": None}
    body = {"password": PASSWORD, "new_password": "another horse battery"}
    r = client.post("/api/accounts/me/password", headers=bot_headers(token), json=body)
    assert r.status_code == 401 and r.json()["reason"] == "bad-session"
    r = client.post(
        "/api/accounts/me/bot/tokens",
        headers=bot_headers(token),
        json={"name": "x", "scopes": ["play"]},
    )
    assert r.status_code == 401
    # the bot routes never read a cookie: a session alone is refused
    client.cookies.set(COOKIE, signed_in or "")
    assert client.get("/api/bot/account").status_code == 401
    assert client.delete(f"/api/accounts/me/bot/tokens/{token_id}", headers=JSON).status_code == 204
    r = client.get("/api/bot/account", headers=auth(token))
    assert r.status_code == 401 and r.json()["reason"] == "bad-token"


def test_a_read_token_cannot_play_and_an_undeclared_game_is_refused(client: TestClient) -> None:
    account, _ = bot_account(client, ["metro"])
    r = client.post("/api/accounts/me/bot/tokens", json={"name": "ro", "scopes": ["read"]})
    read_only = r.json()["token"]
    room = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    code = room["room"]["room"]
    r = client.post(
        f"/api/rooms/{code}/invitations",
        headers=auth(room["host_token"]),
        json={"seat": 1, "account": account},
    )
    assert r.status_code == 409 and r.json()["reason"] == "not-declared"
    r = client.post(f"/api/bot/rooms/{code}/join", headers=bot_headers(read_only), json={"seat": 1})
    assert r.status_code == 403 and r.json()["reason"] == "bad-token"


def test_only_the_host_invites_and_a_declined_invitation_seats_nobody(client: TestClient) -> None:
    account, token = bot_account(client)
    room = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    code = room["room"]["room"]
    body = {"seat": 1, "account": account}
    r = client.post(f"/api/rooms/{code}/invitations", headers=auth(room["tokens"]["0"]), json=body)
    assert r.status_code == 403
    r = client.post(f"/api/rooms/{code}/invitations", headers=auth(room["host_token"]), json=body)
    invitation = r.json()["id"]
    again = client.post(
        f"/api/rooms/{code}/invitations", headers=auth(room["host_token"]), json=body
    )
    assert again.status_code == 409
    r = client.post(
        f"/api/bot/invitations/{invitation}/decline", headers=bot_headers(token), json={}
    )
    assert r.status_code == 204
    r = client.post(
        f"/api/bot/invitations/{invitation}/accept", headers=bot_headers(token), json={}
    )
    assert r.status_code == 404
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        status = session.scalar(select(InvitationRow.status).where(InvitationRow.id == invitation))
    assert status == "declined"
    assert client.get(f"/api/rooms/{code}").json()["seats"][1]["claimed"] is False


def test_a_bot_seated_nowhere_in_a_room_cannot_move_in_it(client: TestClient) -> None:
    code, room = seated(client, bot_account(client)[1])
    _, other = bot_account(client)
    start = client.post(
        f"/api/rooms/{code}/start", headers=bot_headers(room["host_token"]), json={}
    )
    assert start.status_code == 200, start.text
    # a bot seated nowhere in this room cannot act in it
    r = client.post(
        f"/api/bot/games/{code}/move",
        headers=bot_headers(other),
        json={"action": "pass", "step": 0},
    )
    assert r.status_code == 404
    human = view(client, code, room["tokens"]["0"])
    assert human["to_move"] == [0, 1]  # London: a simultaneous turn


def test_a_bot_accounts_seat_reads_bot_in_views_and_the_summary(client: TestClient) -> None:
    code, room = seated(client, bot_account(client)[1])
    host = bot_headers(room["host_token"])
    assert client.post(f"/api/rooms/{code}/start", headers=host, json={}).status_code == 200

    def kinds() -> tuple[list[str], list[str], list[str | None]]:
        seen = view(client, code, room["tokens"]["0"])
        summary = client.get(f"/api/rooms/{code}").json()
        return (
            [s["kind"] for s in seen["seats"]],
            [s["kind"] for s in summary["seats"]],
            [s["bot"] for s in summary["seats"]],
        )

    # seat 0 is the person who made the room, seat 1 the bot account (no server bot code)
    assert kinds() == (["human", "bot"], ["human", "bot"], [None, None])
    client.app.state.rooms.tables.pop(code)  # type: ignore[attr-defined]  (read from the rows)
    assert kinds() == (["human", "bot"], ["human", "bot"], [None, None])


def test_the_game_stream_of_a_finished_game_gives_the_seats_view_and_ends(
    client: TestClient,
) -> None:
    _, token = bot_account(client)
    code, room = seated(client, token)
    host = bot_headers(room["host_token"])
    assert client.post(f"/api/rooms/{code}/start", headers=host, json={}).status_code == 200
    seen = view(client, code, room["tokens"]["0"])
    step = seen["step"]
    r = client.post(
        f"/api/bot/games/{code}/move",
        headers=bot_headers(token),
        json={"action": "pass", "step": step + 5},
    )
    assert r.status_code == 409 and r.json()["reason"] == "stale-step"
    r = client.post(
        f"/api/bot/games/{code}/move",
        headers=bot_headers(token),
        json={"action": "pass", "step": step},
    )
    assert r.status_code == 200, r.text
    mine = r.json()
    assert mine["you"] == 1
    # the bot played its seat's action; the human's view says seat 1 has acted, not what
    human = view(client, code, room["tokens"]["0"])
    assert 1 not in human["to_move"] and 0 in human["to_move"]
    r = client.post(
        f"/api/bot/games/{code}/move",
        headers=bot_headers(token),
        json={"action": "pass", "step": step},
    )
    assert r.status_code == 409 and r.json()["reason"] in ("not-your-turn", "stale-step")


def _finished_with_human_account(client: TestClient, human_pools: bool) -> tuple[str, Any]:
    """A two-seat London game, seat 0 a person's account (another client), seat 1 the bot
    account (``human_pools`` as given), played to its end; (room, the bot's profile)."""
    account, token = bot_account(client)
    client.put("/api/accounts/me/bot", json={"games": ["london"], "human_pools": human_pools})
    code, room = seated(client, token)
    with client.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
        # the bot runs on another machine than the person (one address rates nothing)
        session.execute(
            update(SeatRow)
            .where(SeatRow.room_id == code, SeatRow.seat == 1)
            .values(address="another machine")
        )
    person = TestClient(client.app)  # its own cookies; the app's lifespan is client's
    name = "Ada" + secrets.token_hex(4)
    signed = person.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert signed.status_code == 201, signed.text
    r = person.post(
        f"/api/rooms/{code}/seats/0/account", headers=bot_headers(room["tokens"]["0"]), json={}
    )
    assert r.status_code == 200, r.text
    assert (
        client.post(
            f"/api/rooms/{code}/start", headers=bot_headers(room["host_token"]), json={}
        ).status_code
        == 200
    )
    for _ in range(200):
        seen = view(client, code, room["tokens"]["0"])
        if seen["status"] == "finished":
            break
        if 0 in seen["to_move"]:
            client.post(
                f"/api/rooms/{code}/actions",
                headers=bot_headers(room["tokens"]["0"]),
                json={"action": "pass", "step": seen["step"]},
            )
        mine = client.post(
            f"/api/bot/games/{code}/move",
            headers=bot_headers(token),
            json={"action": "pass", "step": seen["step"]},
        )
        assert mine.status_code in (200, 409), mine.text
    assert view(client, code)["status"] == "finished"
    return code, client.get(f"/api/accounts/{account}/profile").json()


def test_a_bot_account_is_rated_in_its_own_pool_unless_its_owner_opts_in(
    client: TestClient,
) -> None:
    client.app.state.limits.rules["accounts"] = parse_many("100/minute")  # type: ignore[attr-defined]
    _, own_pool = _finished_with_human_account(client, human_pools=False)
    assert own_pool["bot"] is True and own_pool["ratings"] == []  # a person's game: not rated
    _, human_pool = _finished_with_human_account(client, human_pools=True)
    assert [(r["game"], r["players"], r["games"]) for r in human_pool["ratings"]] == [
        ("london", 2, 1)
    ]


def test_a_token_holds_at_most_its_streams_open_and_a_closed_one_gives_its_place_back() -> None:
    """``STREAMS_PER_TOKEN`` streams of one token on one worker; one more is refused with 429
    ``rate-limited`` (another token is not), and a stream that ends, however it ends, frees
    its place."""
    app = SimpleNamespace(state=SimpleNamespace())
    request = cast(Request, SimpleNamespace(app=app, headers={}))
    one = BotAuth(account=cast(Account, None), token="tok1", scopes=frozenset({"read"}), games=())
    two = BotAuth(account=cast(Account, None), token="tok2", scopes=frozenset({"read"}), games=())

    async def endless() -> AsyncIterator[str]:
        while True:
            yield "{}\n"
            await asyncio.sleep(0)

    async def story() -> None:
        held = [_streaming(request, one, endless()) for _ in range(STREAMS_PER_TOKEN)]
        with pytest.raises(RoomError) as refused:
            _streaming(request, one, endless())
        assert (refused.value.status, refused.value.reason) == (429, "rate-limited")
        _streaming(request, two, endless())  # another token's count is its own
        first = cast(AsyncGenerator[str, None], held[0].body_iterator)
        assert await anext(first) == "{}\n"
        await first.aclose()  # the client went away
        _streaming(request, one, endless())  # its place is free again
        with pytest.raises(RoomError):
            _streaming(request, one, endless())

    run_async(story())


def test_a_bot_token_never_appears_in_the_logs(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Every log line of a bot's session, its refusals and its revocation included, names
    neither the token nor its stored SHA-256 (docs/web-api.md, "Bot accounts")."""
    caplog.set_level(logging.DEBUG)
    _, token = bot_account(client)
    stored = hashlib.sha256(token.encode()).hexdigest()
    assert client.get("/api/bot/account", headers=auth(token)).status_code == 200
    code, _ = seated(client, token)
    client.post(f"/api/bot/games/{code}/move", headers=bot_headers(token), json={"action": "x"})
    client.post("/api/bot/quickmatch", headers=bot_headers(token), json={"game": "chess"})
    client.get("/api/bot/account", headers=auth(token + "x"))
    listed = client.get("/api/accounts/me/bot/tokens").json()
    (tid,) = [t["id"] for t in listed]
    assert client.delete(f"/api/accounts/me/bot/tokens/{tid}", headers=JSON).status_code == 204
    assert client.get("/api/bot/account", headers=auth(token)).status_code == 401
    assert caplog.records, "nothing was logged: the test would prove nothing"
    text = "\n".join(r.getMessage() + repr(r.__dict__) for r in caplog.records)
    assert token not in text and stored not in text
