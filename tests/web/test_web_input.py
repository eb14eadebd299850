"""Input that is JSON but not acceptable (docs/web-api.md, "Errors"): lone surrogates in
names, keys, tokens and actions, nesting thousands deep, numbers that are not finite or too
large, wrong types, names that are not displayable text. Each is a 400 ``bad-request`` naming
the field (or a WebSocket error message, the socket staying open), never a 500, and changes
nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from metrogames.web.infra.models import ActionRow, PlayerRow, RoomRow, SeatRow
from support.web import JSON, act, auth, create, record, view

DEEP = 2000


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def stored(client: TestClient) -> list[Any]:
    """The rooms, seats and players stored, and each room's count of actions."""
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows: list[Any] = []
        for model in (RoomRow, SeatRow, PlayerRow):
            columns = [c.key for c in model.__table__.columns]
            rows += sorted(
                (tuple(getattr(r, c) for c in columns) for r in session.scalars(select(model))),
                key=repr,
            )
        counts = select(ActionRow.room_id, func.count()).group_by(ActionRow.room_id)
        return rows + sorted(tuple(r) for r in session.execute(counts))


class Scene:
    """An online London room with seat 1 open, a started Metro room (seat 1 handed to a bot)
    and a player: every body-taking route has a target."""

    def __init__(self, client: TestClient) -> None:
        made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
        self.waiting, self.host = made["room"]["room"], made["host_token"]
        self.token = made["tokens"]["0"]
        made = create(client, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
        self.room, self.metro_host = made["room"]["room"], made["host_token"]
        self.metro = made["tokens"]["0"]
        r = client.post(f"/api/rooms/{self.room}/join", json={"seat": 1, "name": "Bob"})
        self.bob = r.json()["token"]
        r = client.post(f"/api/rooms/{self.room}/start", headers=auth(self.metro_host) | JSON)
        assert r.status_code == 200, r.text
        r = client.post("/api/players", json={"name": "Cy"})
        self.player = r.json()["token"]
        self.step = view(client, self.room)["step"]

    def targets(self) -> list[tuple[str, str, str | None, str]]:
        """``(method, url, token, template)``: ``template`` is the body with ``@`` where a
        field's value goes."""
        room, waiting = self.room, self.waiting
        return [
            ("POST", "/api/rooms", None, '{"game": "london", "mode": "solo", "seats": [{"name": @}]}'),
            ("POST", "/api/rooms", None, '{"game": "london", "mode": "solo", "seats": [{}], "options": {"powers": @}}'),
            ("POST", f"/api/rooms/{waiting}/join", None, '{"seat": 1, "name": @}'),
            ("POST", f"/api/rooms/{waiting}/start", self.host, '{"x": @}'),
            ("POST", f"/api/rooms/{room}/seats/1/bot", self.metro_host, '{"bot": @}'),
            ("POST", f"/api/rooms/{room}/seats/0/reclaim", self.metro, '{"x": @}'),
            ("POST", f"/api/rooms/{room}/actions", self.metro, '{"action": @, "step": ' + str(self.step) + "}"),
            ("POST", f"/api/rooms/{room}/actions", self.metro, '{"action": "pass", "step": @}'),
            ("POST", "/api/replays", None, '{"format": "metrogames/1", "game": "london", "players": [@]}'),
            ("POST", "/api/players", None, '{"name": @}'),
            ("PATCH", "/api/players/me", self.player, '{"name": @}'),
            ("POST", "/api/daily/london/2026-01-01/start", self.player, '{"share": @}'),
        ]  # fmt: skip


def send(client: TestClient, method: str, url: str, token: str | None, body: bytes) -> Any:
    headers = {"Content-Type": "application/json", **(auth(token) if token else {})}
    return client.request(method, url, content=body, headers=headers)


def field_of(template: str) -> str:
    """The key the ``@`` of a template is the value of."""
    before = template.split("@", maxsplit=1)[0].rstrip(": [{")
    return before.rsplit('"', 2)[-2]


@pytest.mark.parametrize(
    "value",
    [
        b'"\\ud800"',  # a lone high surrogate
        b'"a\\udc00b"',  # a lone low surrogate
        b'"\xed\xa0\x80"',  # a surrogate encoded in the bytes: not UTF-8
        b'"\xff"',  # not UTF-8 at all
        nested(DEEP).encode(),
        nested(40).encode(),  # under the parser's limit, over ours
        b"1e400",
        b"NaN",
        b"-Infinity",
        b"1" * 5000,
    ],
    ids=["high", "low", "utf8", "bytes", "deep", "deep40", "1e400", "nan", "inf", "huge"],
)
def test_bad_values_are_refused_by_every_route(client: TestClient, value: bytes) -> None:
    scene = Scene(client)
    before, views = stored(client), view(client, scene.room, scene.metro)
    for method, url, token, template in scene.targets():
        r = send(client, method, url, token, template.encode().replace(b"@", value))
        refused(r, 400, "bad-request")
        message = r.json()["error"]
        assert field_of(template) in message, (url, template, message)
    # a key that is not text, and a token that is not
    body = b'{"seat": 1, "name": "Bob", "\\ud800": 1}'
    refused(
        send(client, "POST", f"/api/rooms/{scene.waiting}/join", None, body), 400, "bad-request"
    )
    assert stored(client) == before
    assert view(client, scene.room, scene.metro) == views
    with client.websocket_connect(f"/ws/rooms/{scene.room}") as ws:
        for message in (
            b'{"type": "hello", "token": @}',
            b'{"type": "action", "action": @, "step": 0}',
            b'{"type": "action", "action": "pass", "step": @}',
            b'{"type": @, "token": null}',
            b'{"type": "hello", "token": null, "x": @}',
        ):
            data = message.replace(b"@", value)
            try:
                ws.send_text(data.decode())
            except UnicodeDecodeError:  # not text: a binary message
                ws.send_bytes(data)
            answer = ws.receive_json()
            assert answer["type"] == "error" and answer["reason"] == "bad-request", answer
        ws.send_json({"type": "hello", "token": scene.metro})  # the socket still answers
        assert ws.receive_json()["view"]["you"] == 0
    assert stored(client) == before


def test_the_lone_surrogate_join_changes_nothing(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    room, host, ada = made["room"]["room"], made["host_token"], made["tokens"]["0"]
    url = f"/api/rooms/{room}/join"
    r = client.post(url, content=b'{"seat": 1, "name": "\\ud800"}', headers=JSON)
    refused(r, 400, "bad-request")
    assert '"name"' in r.json()["error"]
    summary = client.get(f"/api/rooms/{room}").json()
    assert summary["seats"][1]["claimed"] is False
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": ada})
        assert ws.receive_json()["view"]["seats"][1]["name"] == ""
        bob = client.post(url, json={"seat": 1, "name": "Bob"}).json()["token"]
        assert ws.receive_json()["view"]["seats"][1]["name"] == "Bob"
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    for token in (ada, bob):
        v = view(client, room, token)
        assert act(client, room, token, v["legal"][-1], v["step"]).status_code == 200


def test_wrong_types_name_the_field(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    step = view(client, room)["step"]
    for body, field in (
        ({"action": "pass", "step": "1"}, "step"),
        ({"action": "pass", "step": True}, "step"),
        ({"action": "pass", "step": 1.0}, "step"),
        ({"action": "pass", "step": -1}, "step"),
        ({"action": "pass"}, "step"),
        ({"action": "pass", "step": step, "extra": 1}, "extra"),
    ):
        r = client.post(f"/api/rooms/{room}/actions", json=body, headers=auth(token))
        refused(r, 400, "bad-request")
        assert f"{field}:" in r.json()["error"], r.json()
    for body, field in (
        ({"game": "london", "mode": "solo", "seats": [{"name": 7}]}, "seats.0.name"),
        ({"game": "london", "mode": "solo", "seats": "one"}, "seats"),
        ({"game": "london", "mode": "solo", "seats": [{}] * 17}, "seats"),
        ({"game": "london", "mode": "duel", "seats": [{}]}, "mode"),
        ({"game": "london", "mode": "solo", "seats": [{}], "turn_clock": 5}, "turn_clock"),
        (
            {"game": "london", "mode": "solo", "seats": [{}], "turn_clock": 7 * 86400 + 1},
            "turn_clock",
        ),
        ({"game": ["london"], "mode": "solo", "seats": [{}]}, "game"),
    ):
        r = client.post("/api/rooms", json=body)
        refused(r, 400, "bad-request")
        assert f"{field}:" in r.json()["error"], r.json()
    assert view(client, room)["step"] == step


GOOD_NAMES = [
    ("e\u0301tienne", "\u00e9tienne"),  # NFC: one é
    ("  Ada  ", "Ada"),
    ("x" * 64, "x" * 64),
    ("\U0001f469\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),  # a joined emoji
    ("\u0639\u0644\u064a", "\u0639\u0644\u064a"),  # right-to-left script, no controls
]
BAD_NAMES = [
    "",
    "   ",
    "x" * 65,
    "\u202eevil",  # right-to-left override
    "a\u2066b\u2069",  # isolates
    "a\u200fb",  # right-to-left mark
    "a\x00b",
    "a\nb",
    "a\x7fb",
    "a\u2028b",  # line separator
    "\u3164",  # Hangul filler: a letter drawn as nothing
    "\u200b\u200b",  # zero-width spaces
    "\u0301",  # a combining mark alone
]


def test_names_are_normalised_and_checked(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}, {}])
    room = made["room"]["room"]
    token = client.post("/api/players", json={"name": "Cy"}).json()["token"]
    before = stored(client)
    for bad in BAD_NAMES:
        for r in (
            client.post("/api/rooms", json={"game": "london", "mode": "solo", "seats": [{"name": bad}]}),
            client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": bad}),
            client.post("/api/players", json={"name": bad}),
            client.patch("/api/players/me", headers=auth(token), json={"name": bad}),
        ):  # fmt: skip
            refused(r, 400, "bad-request")
            assert "name: a name" in r.json()["error"], (bad, r.json())
    assert stored(client) == before
    for given, kept in GOOD_NAMES:
        made = create(client, game="london", mode="solo", seats=[{"name": given}])
        assert made["room"]["seats"][0]["name"] == kept
        r = client.patch("/api/players/me", headers=auth(token), json={"name": given})
        assert r.status_code == 200 and r.json()["name"] == kept
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 2, "name": "e\u0301"})
    assert r.status_code == 200
    assert client.get(f"/api/rooms/{room}").json()["seats"][2]["name"] == "\u00e9"


def test_odd_tokens_are_wrong_tokens(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room = made["room"]["room"]
    before = record(client, room)
    for header in (b"Bearer \xc3\xa9\xff", b"Bearer " + b"x" * 5000, b"bearer \x01"):
        r = client.get(f"/api/rooms/{room}/view", headers={"Authorization": header})
        refused(r, 403, "bad-token")
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": "x" * 300})
        assert ws.receive_json()["reason"] == "bad-request"
        ws.send_json({"type": "hello", "token": "\u00e9\u202e"})
        assert ws.receive_json()["reason"] == "bad-token"
        ws.send_json({"type": "hello", "token": made["tokens"]["0"]})
        assert ws.receive_json()["view"]["you"] == 0
    assert record(client, room) == before


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("/api/daily/london/2026-11-30/leaderboard?limit=abc", "limit"),
        ("/api/daily/london/2026-11-30/leaderboard?offset=1.5", "offset"),
        ("/api/daily/london/2026-11-30/deal?limit=%F0", "limit"),
        ("/api/daily/london/best?limit=1e3", "limit"),
        ("/api/players/p1/history?limit=-x", "limit"),
    ],
)
def test_bad_query_parameters_are_named_without_server_internals(
    client: TestClient, url: str, name: str
) -> None:
    r = client.get(url)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["reason"] == "bad-request"
    assert body["error"].startswith(f"query parameter {name}: ")
    assert ".py" not in body["error"] and "File " not in body["error"], body


def test_people_cannot_pose_as_bots_and_bots_keep_their_mark(client: TestClient) -> None:
    for name in ("bot:greedy", "BOT:random", " bot:x"):
        r = client.post(
            "/api/rooms", json={"game": "london", "mode": "hotseat", "seats": [{"name": name}]}
        )
        assert r.status_code == 400 and "bots'" in r.json()["error"], r.text
        r = client.post("/api/players", json={"name": name})
        assert r.status_code == 400 and "bots'" in r.json()["error"], r.text
    made = client.post(
        "/api/rooms",
        json={"game": "metro", "mode": "online",
              "seats": [{"name": "Ada"}, {}, {"bot": "greedy", "name": "Rita"}]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    room = made.json()["room"]["room"]
    seats = made.json()["room"]["seats"]
    assert [s["name"] for s in seats] == ["Ada", "", "bot:Rita"]
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "bot:random"})
    assert r.status_code == 400 and "bots'" in r.json()["error"], r.text
    assert client.get(f"/api/rooms/{room}").json()["seats"][1]["claimed"] is False


def test_two_bots_at_one_table_have_distinct_names(client: TestClient) -> None:
    made = client.post(
        "/api/rooms",
        json={"game": "metro", "mode": "bots",
              "seats": [{"name": "Ada"}, {"bot": "random"}, {"bot": "random"},
                        {"bot": "greedy", "name": "random"}, {"bot": "greedy"}]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    names = [s["name"] for s in made.json()["room"]["seats"]]
    assert names == ["Ada", "bot:random", "bot:random 2", "bot:random 3", "bot:greedy"]
    record = client.get(f"/api/rooms/{made.json()['room']['room']}/record").json()
    assert record["players"] == names  # records say the same


def test_a_turn_based_clock_of_up_to_seven_days(client: TestClient) -> None:
    made = client.post(
        "/api/rooms",
        json={"game": "london", "mode": "online", "seats": [{"name": "Ada"}, {}],
              "turn_clock": 7 * 86400},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["room"]["turn_clock"] == 604800


@pytest.mark.parametrize(
    ("body", "escape", "column"),
    [
        (b'{"seat": 1, "name": "\\udc00"}', "\\udc00", 27),  # lone trailing half
        (b'{"seat": 1, "name": "\\ud800"}', "\\ud800", 28),  # leading half, string ends
        (b'{"seat": 1, "name": "\\ud800\\u0041"}', "\\ud800", 33),  # leading half, no pair
    ],
    ids=["low", "high-end", "high-unpaired"],
)
def test_a_lone_surrogate_is_named(
    client: TestClient, body: bytes, escape: str, column: int
) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    r = client.post(f"/api/rooms/{made['room']['room']}/join", content=body, headers=JSON)
    refused(r, 400, "bad-request")
    assert r.json()["error"] == (
        f"a join is not JSON of valid text: lone surrogate {escape} (half of a "
        f"\\ud800–\\udfff pair without the other half) at line 1, column {column} "
        f"(at {body[:column].decode()!r})"
    )


def test_other_json_errors_do_not_blame_a_surrogate_pair(client: TestClient) -> None:
    made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
    body = b'{"name": "\\ud83d\\ude00", "seat": x}'
    r = client.post(f"/api/rooms/{made['room']['room']}/join", content=body, headers=JSON)
    assert r.json()["error"] == (
        "a join is not JSON of valid text (UTF-8, no lone surrogate \\ud800–\\udfff): "
        'line 1, column 34 (at \'name": "\\\\ud83d\\\\ude00", "seat": x\')'
    )


def test_a_client_gone_before_its_body_is_no_server_error(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    # the body stops after 8 of its 40 declared bytes and the client disconnects: the request
    # ends quietly (no 500 and no error logged) and nothing is stored
    app = client.app
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/rooms", "raw_path": b"/api/rooms", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80),
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"40")],
    }  # fmt: skip
    incoming = iter(
        [
            {"type": "http.request", "body": b'{"game":', "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return next(incoming)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rooms_before = session.scalar(select(func.count()).select_from(RoomRow))
    client.portal.call(app, scope, receive, send)  # type: ignore[union-attr]
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [400]
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        assert session.scalar(select(func.count()).select_from(RoomRow)) == rooms_before
