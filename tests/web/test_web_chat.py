"""The table chat of online rooms (docs/web-api.md, "Table chat"): short messages from seats
(never spectators), checked like names, rate-limited per seat (stored messages count), stored with the room (a
restart and the game's end keep them), pushed to every socket of the room; a refused or failed
write stores and sends nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from metrogames.web.app import create_app
from metrogames.web.infra.models import ChatRow
from support.web import JSON, auth, create, failing_writes, make_settings, view


def refused(r: Any, status: int, reason: str, words: str = "") -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text
    assert words in r.json()["error"], r.text


def online(client: TestClient, game: str = "london") -> tuple[str, dict[str, str]]:
    """A started online room of Ada (seat 0) and Bob (seat 1): its id and seat tokens."""
    made = create(client, game=game, mode="online", seats=[{"name": "Ada"}, {}])
    room, host = made["room"]["room"], made["host_token"]
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"})
    tokens = {"0": made["tokens"]["0"], "1": r.json()["token"]}
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    return room, tokens


def say(client: TestClient, room: str, token: str | None, text: Any) -> Any:
    headers = auth(token) if token else {}
    return client.post(f"/api/rooms/{room}/chat", json={"text": text}, headers=headers)


def messages(client: TestClient, room: str) -> list[dict[str, Any]]:
    r = client.get(f"/api/rooms/{room}/chat")
    assert r.status_code == 200, r.text
    return r.json()["messages"]  # type: ignore[no-any-return]


def stored(client: TestClient, room: str) -> list[tuple[int, int, str, str]]:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows = session.scalars(
            select(ChatRow).where(ChatRow.room_id == room).order_by(ChatRow.seq)
        ).all()
        return [(r.seq, r.seat, r.name, r.text) for r in rows]


def test_seats_chat_and_everyone_reads_the_text_verbatim(client: TestClient) -> None:
    room, tokens = online(client)
    r = say(client, room, tokens["0"], "  <script>alert(1)</script> &amp; \u0065\u0301  ")
    assert r.status_code == 201, r.text
    first = r.json()["message"]
    # NFC (e + combining acute → é) and trimmed; markup stays text, never escaped or stripped
    assert first["text"] == "<script>alert(1)</script> &amp; \u00e9"
    assert (first["seq"], first["seat"], first["name"]) == (1, 0, "Ada")
    assert isinstance(first["time"], float)
    assert say(client, room, tokens["1"], "hi Ada").json()["message"]["seq"] == 2
    got = messages(client, room)
    assert got[0] == first
    assert [(m["seq"], m["seat"], m["name"], m["text"]) for m in got] == [
        (1, 0, "Ada", "<script>alert(1)</script> &amp; \u00e9"),
        (2, 1, "Bob", "hi Ada"),
    ]
    r = client.get(f"/api/rooms/{room}/chat")
    assert r.headers["content-type"] == "application/json"
    assert "<script>alert(1)</script>" in r.text


def test_bad_texts_and_spectators_are_refused_with_reasons(client: TestClient) -> None:
    room, tokens = online(client)
    token = tokens["0"]
    refused(say(client, room, token, ""), 400, "bad-request", "1 to 200 characters")
    refused(say(client, room, token, "   "), 400, "bad-request", "1 to 200 characters")
    refused(say(client, room, token, "x" * 201), 400, "bad-request", "1 to 200 characters")
    refused(say(client, room, token, "a\nb"), 400, "bad-request", "control character U+000A")
    refused(say(client, room, token, "a\u202eb"), 400, "bad-request", "bidi control U+202E")
    refused(say(client, room, token, "\u200b"), 400, "bad-request", "visible character")
    refused(say(client, room, token, 5), 400, "bad-request", "text")
    r = client.post(f"/api/rooms/{room}/chat", json={"text": "hi", "seat": 1}, headers=auth(token))
    refused(r, 400, "bad-request", "seat")
    refused(say(client, room, None, "hi"), 401, "bad-token")
    refused(say(client, room, "not-a-token", "hi"), 403, "bad-token")
    refused(say(client, "nosuchrm", token, "hi"), 404, "not-found")
    assert say(client, room, token, "x" * 200).status_code == 201
    assert stored(client, room) == [(1, 0, "Ada", "x" * 200)]


def test_only_online_rooms_have_a_chat(client: TestClient) -> None:
    made = create(client, game="london", mode="hotseat", seats=[{"name": "A"}, {"name": "B"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    refused(say(client, room, token, "hi"), 409, "no-chat", "online")
    refused(client.get(f"/api/rooms/{room}/chat"), 409, "no-chat")


def test_the_chat_is_rate_limited_per_seat(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, rate_chat="2/minute"))) as client:
        room, tokens = online(client)
        assert say(client, room, tokens["0"], "one").status_code == 201
        assert say(client, room, tokens["0"], "two").status_code == 201
        r = say(client, room, tokens["0"], "three")
        refused(r, 429, "rate-limited", "too many chat messages from this seat: at most 2 per 1")
        assert int(r.headers["Retry-After"]) >= 1
        assert say(client, room, tokens["1"], "mine").status_code == 201  # another seat
        refused(say(client, room, tokens["0"], ""), 400, "bad-request")  # body before limit
        assert [m["text"] for m in messages(client, room)] == ["one", "two", "mine"]


def test_a_failed_write_stores_and_sends_nothing(db_url: str) -> None:
    app = create_app(make_settings(db_url, rate_chat="2/minute"))
    with TestClient(app, raise_server_exceptions=False) as client:
        failed_write_sends_nothing(client)


def failed_write_sends_nothing(client: TestClient) -> None:
    room, tokens = online(client)
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["type"] == "view"
        with failing_writes(client) as failed:
            r = say(client, room, tokens["0"], "lost")
        assert failed and r.status_code == 500 and r.json()["reason"] == "server-error"
        assert messages(client, room) == []
        # counted before it was stored (2 a minute here): the failed message took one place
        assert say(client, room, tokens["0"], "kept").json()["message"]["seq"] == 1
        refused(say(client, room, tokens["0"], "more"), 429, "rate-limited")
        pushed = ws.receive_json()  # the first message pushed is the stored one
        assert pushed["type"] == "chat" and pushed["message"]["text"] == "kept"


def test_the_chat_is_kept_across_a_restart_and_after_the_game(db_url: str) -> None:
    settings = make_settings(db_url)
    with TestClient(create_app(settings)) as first:
        room, tokens = online(first)
        say(first, room, tokens["0"], "before")
    with TestClient(create_app(settings)) as second:
        assert [m["text"] for m in messages(second, room)] == ["before"]
        assert say(second, room, tokens["1"], "after").json()["message"]["seq"] == 2
        v = view(second, room, tokens["0"])
        while v["status"] != "finished":  # both pass every turn until the game ends
            for seat in ("0", "1"):
                u = view(second, room, tokens[seat])
                if int(seat) in u["to_move"]:
                    r = second.post(
                        f"/api/rooms/{room}/actions",
                        json={"action": "pass", "step": u["step"]},
                        headers=auth(tokens[seat]),
                    )
                    assert r.status_code == 200, r.text
            v = view(second, room, tokens["0"])
        assert say(second, room, tokens["0"], "gg").status_code == 201
        assert [(m["seq"], m["name"], m["text"]) for m in messages(second, room)] == [
            (1, "Ada", "before"),
            (2, "Bob", "after"),
            (3, "Ada", "gg"),
        ]


def test_messages_are_pushed_to_every_socket_and_sent_over_the_socket(client: TestClient) -> None:
    room, tokens = online(client, "metro")
    url = f"/ws/rooms/{room}"
    with (
        client.websocket_connect(url) as ada,
        client.websocket_connect(url) as bob,
        client.websocket_connect(url) as spectator,
    ):
        spectator.send_json({"type": "hello", "token": None})
        assert spectator.receive_json()["type"] == "view"
        for ws, token in ((ada, tokens["0"]), (bob, tokens["1"])):
            ws.send_json({"type": "hello", "token": token})
        ada.send_json({"type": "chat", "text": "<b>hello</b>"})
        bob.send_json({"type": "chat", "text": "a\tb"})
        spectator.send_json({"type": "chat", "text": "I watch"})
        seen = {id(ws): until(ws, {"chat"}) for ws in (ada,)}
        seen |= {id(ws): until(ws, {"chat", "error"}) for ws in (bob, spectator)}
        for ws in (ada, bob, spectator):
            (chat,) = [m for m in seen[id(ws)] if m["type"] == "chat"]
            assert chat["message"] | {"time": 0} == {
                "seq": 1,
                "seat": 0,
                "name": "Ada",
                "text": "<b>hello</b>",
                "time": 0,
            }
        (error,) = [m for m in seen[id(bob)] if m["type"] == "error"]
        assert error["reason"] == "bad-request" and "control character U+0009" in error["error"]
        (error,) = [m for m in seen[id(spectator)] if m["type"] == "error"]
        assert error["reason"] == "bad-token" and "spectators cannot chat" in error["error"]
    assert stored(client, room) == [(1, 0, "Ada", "<b>hello</b>")]


def until(ws: Any, kinds: set[str]) -> list[dict[str, Any]]:
    """Messages read until one of each type in ``kinds`` came."""
    seen: list[dict[str, Any]] = []
    for _ in range(50):
        seen.append(ws.receive_json())
        if kinds <= {m["type"] for m in seen}:
            return seen
    raise AssertionError(f"no {kinds} messages in {seen}")
