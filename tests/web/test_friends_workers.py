"""Friends and invitations on two workers (PostgreSQL and Redis): a followed player seated on
one worker shows online on the other, and an invitation sent on one worker reaches the
invitee's open page on the other, at once (through the pub/sub hub)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest
from test_friends import sign_up

from support.two_workers import two_workers
from support.web import JSON, auth, create

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait until ``check()`` holds, failing after ``seconds`` (a deadline, not a speed)."""
    give_up = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < give_up, "never came"
        time.sleep(0.02)


def sse(lines: Iterator[str]) -> tuple[str, dict[str, object]]:
    """The next server-sent event of ``lines``: its name and data."""
    name = None
    for line in lines:
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: ") and name is not None:
            data: dict[str, object] = json.loads(line[len("data: ") :])
            return name, data
    raise AssertionError("the stream ended")


def test_a_player_seated_on_one_worker_shows_online_on_the_other(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        me, pal = sign_up(a), sign_up(a)
        assert (
            b.put(f"/api/friends/follows/{pal[0]}", headers=me[1] | JSON, json={}).status_code
            == 204
        )
        made = create(a, game="london", mode="online", seats=[{"name": "Pal"}, {}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        r = a.post(
            f"/api/rooms/{room}/seats/0/account", headers=auth(token) | pal[1] | JSON, json={}
        )
        assert r.status_code == 200, r.text

        def online() -> bool:
            following = b.get("/api/friends", headers=me[1]).json()["following"]
            return bool(following[0]["online"])

        assert online() is False
        with a.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "view"
            until(online)  # B knows it only from A's counts in Redis
        until(lambda: not online())


def test_an_invitation_sent_on_one_worker_reaches_the_page_open_on_the_other(db_url: str) -> None:
    with two_workers(db_url) as (a, b):
        host, guest = sign_up(a, "host"), sign_up(a, "guest")
        made = create(a, game="london", mode="online", seats=[{"name": "Host"}, {}])
        room = made["room"]["room"]
        r = a.post(
            f"/api/rooms/{room}/seats/0/account",
            headers=auth(made["tokens"]["0"]) | host[1] | JSON,
            json={},
        )
        assert r.status_code == 200, r.text
        with b.stream("GET", "/api/friends/events", headers=guest[1]) as stream:
            lines = stream.iter_lines()
            assert sse(lines) == ("invitations", {"type": "invitations", "invitations": []})
            body = {"room": room, "seat": 1, "to": guest[0]}
            sent = a.post(
                "/api/invitations", json=body, headers=auth(made["host_token"]) | host[1] | JSON
            )
            assert sent.status_code == 201, sent.text
            assert sse(lines) == ("invitation", {"type": "invitation", "invitation": sent.json()})
            ident = sent.json()["id"]
            r = a.post(f"/api/invitations/{ident}/decline", headers=guest[1] | JSON, json={})
            assert r.status_code == 204
            assert sse(lines) == ("invitationGone", {"type": "invitationGone", "invitation": ident})
