"""Fuzz (hypothesis): generated bodies — wrong types, lone surrogates, control and bidi
characters, nesting thousands deep, numbers too large or not finite, bytes that are not text —
against every route that reads a body, path or query, and every WebSocket message type. No
answer is a 5xx, every refusal is ``{"error", "reason"}``, the socket never closes, and after
the barrage the rooms still answer and play. The bot API's routes too (a bot account seated
in a started room, its token among the tokens tried), and friends and invitations (a person
to follow, block and invite). On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import quote

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.web import JSON, act, auth, create, play_out, record, view

EXAMPLES = 120
"""Examples per test and database (the whole file takes a few seconds)."""

SPECIALS = "\ud800\udfff\x00\n\x7f\u202e\u2066\u200f\u3164\u200b\u0301\u2028\ufeff\U0001f469"
characters = st.characters() | st.characters(categories=["Cs"]) | st.sampled_from(SPECIALS)
texts = st.text(characters, max_size=70) | st.sampled_from(
    ["", "pass", "greedy", "london", "metro", "hello", "action", "x" * 65, "A1", "D3"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 300)
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | texts
)
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(texts, kids, max_size=4),
    max_leaves=12,
)


PART = texts.map(lambda t: quote(t.encode("utf-8", "surrogatepass"), safe=""))
"""A generated path or query part (any text, percent-encoded as a client would)."""

ACTIONS = [
    "pass",
    {"sections": [["D3", "G3"]]},
    {"sections": [["D3", "E4"], ["E4", "E1"]], "power": "double-section"},
    {"sections": [["F5", "E4"]], "circle": "E4"},
    {"square": "C5", "tile": "cbaa"},
    {"square": "A1"},
]
"""Action JSON of every shape (``docs/notation.md``), to be mutated."""

SHEET = {
    "game": "london",
    "lines": {"blue": [["F8", "F5"], ["F5", "E4"]], "pink": [], "purple": [], "green": []},
    "circled": {"blue": "E4"},
    "objectives": ["thames-6"],
}
"""A score sheet (``docs/notation.md``, "Score sheet"), to be mutated."""


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: the root, then each key's or index's value, recursively."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*at, i))
    return found


def replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    """``value`` with the place ``at`` holding ``new`` (a copy)."""
    if not at:
        return new
    head, rest = at[0], at[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    return [replaced(v, rest, new) if i == head else v for i, v in enumerate(value)]


def mutated(value: Any) -> st.SearchStrategy[Any]:
    """``value`` with one place (anywhere inside it) given a generated value."""
    return st.tuples(st.sampled_from(paths(value)), values).map(lambda pv: replaced(value, *pv))


def dump(value: Any) -> bytes:
    """JSON of ``value``: surrogates escaped (``\\ud800``), ``NaN``/``Infinity`` as Python
    writes them."""
    return json.dumps(value).encode()


def raw_body(good: dict[str, Any]) -> st.SearchStrategy[bytes]:
    """Bodies around a good one (its values, or strategies drawing them): the good body, the
    good body with one place anywhere inside it changed; its keys kept, dropped or given any value, extra
    keys; any JSON value; nesting 30 to 3000 deep at a field or at the top; bytes; text
    written as UTF-8 with its surrogates kept (not UTF-8 then)."""

    def kept(v: Any) -> st.SearchStrategy[Any]:
        return v if isinstance(v, st.SearchStrategy) else st.just(v)

    whole = st.fixed_dictionaries({k: kept(v) for k, v in good.items()})
    near = whole.flatmap(mutated)
    fields = {k: kept(v) | values for k, v in good.items()}
    objects = st.fixed_dictionaries({}, optional={**fields, "extra": values})
    deep = st.integers(30, 3000).map(lambda n: "[" * n + "]" * n)
    deep_field = st.tuples(st.sampled_from(sorted(good) or ["x"]), deep).map(
        lambda kv: b'{"%s": %s}' % (kv[0].encode(), kv[1].encode())
    )
    utf8 = objects.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return st.one_of(
        whole.map(dump),
        near.map(dump),
        objects.map(dump),
        values.map(dump),
        deep.map(str.encode),
        deep_field,
        utf8,
        st.binary(max_size=40),
    )


class Scene:
    """Rooms in every state a route can meet: an online London room waiting (seat 1 open), a
    started online Metro room (its players departed long ago), a London hotseat game, a
    finished solo London game; and a player."""

    def __init__(self, client: TestClient) -> None:
        made = create(client, game="london", mode="online", seats=[{"name": "Ada"}, {}])
        self.waiting, self.waiting_host = made["room"]["room"], made["host_token"]
        made = create(client, game="metro", mode="online", seats=[{"name": "Ada"}, {}])
        self.room, self.host, self.ada = (
            made["room"]["room"],
            made["host_token"],
            made["tokens"]["0"],
        )
        r = client.post(f"/api/rooms/{self.room}/join", json={"seat": 1, "name": "Bob"})
        self.bob = r.json()["token"]
        assert (
            client.post(f"/api/rooms/{self.room}/start", headers=auth(self.host) | JSON).status_code
            == 200
        )
        made = create(
            client, game="london", mode="hotseat", seats=[{"name": "Eva"}, {"name": "Fe"}]
        )
        self.london, self.london_tokens = made["room"]["room"], list(made["tokens"].values())
        made = create(client, game="london", mode="solo", seats=[{"name": "Cy"}])
        self.finished = made["room"]["room"]
        play_out(client, self.finished, made["tokens"])
        self.record = record(client, self.finished)
        self.player = client.post("/api/players", json={"name": "Di"}).json()["token"]
        # a person to follow, block and invite (signed up first: the cookie ends as Gus's)
        self.friend = f"Flo{secrets.token_hex(4)}"
        signed = client.post("/api/accounts", json={"name": self.friend, "password": "long enough"})
        assert signed.status_code == 201, signed.text
        # signed in (the client keeps the session cookie): the account routes get past it
        name = f"Gus {secrets.token_hex(4)}"  # PostgreSQL keeps earlier tests' accounts
        signed = client.post("/api/accounts", json={"name": name, "password": "long enough"})
        assert signed.status_code == 201, signed.text
        self.account, self.name = signed.json()["account"], name
        asked = client.post("/api/quickmatch", json={"game": "metro", "players": 4, "clock": "live"})
        assert asked.status_code == 201, asked.text
        self.ticket, self.ticket_token = asked.json()["ticket"], asked.json()["token"]
        # the account is a bot, seated (by a host's invitation) in a started London room
        assert client.put("/api/accounts/me/bot", json={"games": ["london"]}).status_code == 200
        made = client.post("/api/accounts/me/bot/tokens", json={"name": "f", "scopes": ["read", "play"]})
        self.bot = made.json()["token"]
        made = create(client, game="london", mode="online", seats=[{"name": "Ida"}, {}])
        self.bot_room, self.bot_host = made["room"]["room"], made["host_token"]
        asked = client.post(f"/api/rooms/{self.bot_room}/invitations", headers=auth(self.bot_host) | JSON,
                            json={"seat": 1, "account": self.account}).json()
        accepted = client.post(f"/api/bot/invitations/{asked['id']}/accept", headers=auth(self.bot) | JSON, json={})
        assert accepted.status_code == 200, accepted.text
        started = client.post(f"/api/rooms/{self.bot_room}/start", headers=auth(self.bot_host) | JSON)
        assert started.status_code == 200, started.text
        self.bot_step = st.builds(lambda: view(client, self.bot_room)["step"])
        client.app.state.settings.analysis_budget = "rough"  # type: ignore[attr-defined]
        client.app.state.rooms.clock = lambda: float("inf")  # type: ignore[attr-defined]
        self.step = st.builds(lambda: view(client, self.room)["step"])
        """The Metro room's step when drawn: actions at it reach the engine."""
        self.london_step = st.builds(lambda: view(client, self.london)["step"])

    def routes(self) -> st.SearchStrategy[tuple[str, str, str | None, bytes]]:
        """``(method, url, token, body)`` for every route that reads a body; half the time
        with the token the route needs."""
        rooms = st.sampled_from([self.waiting, self.room, self.london, self.finished, self.bot_room]) | PART
        # path parameters parsed by their declared types: '²'.isdigit() is true and int('²')
        # fails (was a 500), and other digits and numbers that are not plain ones
        seats = (
            st.sampled_from(
                ["0", "1", "7", "-1", "x", "%C2%B2", "%D9%A1", "1_0", "%201", "1.0", "9" * 30]
            )
            | PART
        )
        days = st.sampled_from(["2026-01-01", "2026-13-01", "%C2%B2026-01-01"]) | PART
        tokens = [None, self.ada, self.bob, self.host, self.waiting_host, self.player, self.ticket_token, self.bot]
        tickets = st.sampled_from([self.ticket, "0" * 16]) | PART
        action = {"action": st.sampled_from(ACTIONS), "step": self.step}

        def route(method: str, url: Any, good: dict[str, Any], *right: str) -> Any:
            url = url if isinstance(url, st.SearchStrategy) else st.just(url)
            token = st.sampled_from(right or tokens) | st.sampled_from(tokens)
            return st.tuples(st.just(method), url, token, raw_body(good))

        return st.one_of(
            route("POST", "/api/rooms", {"game": "london", "mode": "solo", "seats": [{"name": "A"}],
                                         "options": {}, "turn_clock": None}),
            route("POST", "/api/rooms", {"game": "metro", "mode": "online", "seats": [{"name": "A"}, {}],
                                         "turn_clock": 60, "listed": True}),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/join"), {"seat": 1, "name": "Bob"}),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/start"), {}, self.host, self.waiting_host),
            route("POST", st.tuples(rooms, seats).map(lambda rs: f"/api/rooms/{rs[0]}/seats/{rs[1]}/bot"), {"bot": "greedy"}, self.host),
            route("POST", st.tuples(rooms, seats).map(lambda rs: f"/api/rooms/{rs[0]}/seats/{rs[1]}/reclaim"), {}, self.ada, self.bob),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/actions"), action, self.ada, self.bob),
            self.engine_actions(),
            route("POST", "/api/replays", self.record),
            route("POST", "/api/players", {"name": "Ed"}),
            route("PATCH", "/api/players/me", {"name": "Ed"}, self.player),
            route("POST", st.tuples(st.sampled_from(["london", "paris", "metro"]) | PART, days).map(lambda gd: f"/api/daily/{gd[0]}/{gd[1]}/start"), {"share": True}, self.player),
            route("POST", "/api/accounts", {"name": "Hal", "password": "long enough"}),
            route("POST", "/api/sessions", {"name": self.name, "password": "long enough"}),
            route("PATCH", "/api/accounts/me", {"name": self.name}),
            route("POST", "/api/accounts/me/claim", {}, self.player),
            route("POST", st.tuples(rooms, seats).map(lambda rs: f"/api/rooms/{rs[0]}/seats/{rs[1]}/account"), {}, self.ada),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/chat"), {"text": "hello"}, self.ada, self.bob),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/hint"), {"step": self.step, "about": st.sampled_from(ACTIONS)}, *self.london_tokens),
            route("POST", "/api/score", SHEET),
            route("POST", "/api/analyses", self.record),
            route("POST", "/api/quickmatch", {"game": "london", "players": 2, "clock": "live", "name": "Ann"}),
            route("DELETE", tickets.map(lambda t: f"/api/quickmatch/{t}"), {}, self.ticket_token),
            route("POST", tickets.map(lambda t: f"/api/quickmatch/{t}/bots"), {}, self.ticket_token),
            route("PUT", "/api/accounts/me/bot", {"games": ["london", "metro"], "human_pools": False}),
            route("POST", "/api/accounts/me/bot/tokens", {"name": "g", "scopes": ["read"]}),
            route("DELETE", PART.map(lambda t: f"/api/accounts/me/bot/tokens/{t}"), {}),
            route("POST", rooms.map(lambda r: f"/api/rooms/{r}/invitations"), {"seat": 1, "account": st.just(self.account) | texts}, self.waiting_host, self.bot_host),
            route("DELETE", st.tuples(rooms, PART).map(lambda ri: f"/api/rooms/{ri[0]}/invitations/{ri[1]}"), {}, self.waiting_host),
            route("POST", st.tuples(PART, st.sampled_from(["accept", "decline"])).map("/api/bot/invitations/{0[0]}/{0[1]}".format), {}, self.bot),
            route("POST", rooms.map(lambda r: f"/api/bot/rooms/{r}/join"), {"seat": 1}, self.bot),
            route("POST", "/api/bot/quickmatch", {"game": "london", "players": 2, "clock": "live"}, self.bot),
            route("DELETE", tickets.map(lambda t: f"/api/bot/quickmatch/{t}"), {}, self.bot),
            route("POST", rooms.map(lambda r: f"/api/bot/games/{r}/move"), {"action": st.sampled_from(ACTIONS), "step": self.bot_step}, self.bot),
            route("PUT", st.tuples(st.sampled_from(["follows", "blocks"]), st.just(self.friend) | PART).map("/api/friends/{0[0]}/{0[1]}".format), {}),
            route("DELETE", st.tuples(st.sampled_from(["follows", "blocks"]), st.just(self.friend) | PART).map("/api/friends/{0[0]}/{0[1]}".format), {}),
            route("POST", "/api/invitations", {"room": rooms, "seat": st.integers(0, 2), "to": st.just(self.friend) | texts}, self.waiting_host),
            route("POST", st.tuples(PART, st.sampled_from(["accept", "decline"])).map("/api/invitations/{0[0]}/{0[1]}".format), {}),
        )  # fmt: skip

    def engine_actions(self) -> st.SearchStrategy[tuple[str, str, str | None, bytes]]:
        """Actions that reach the engine: a seat's token, the current step, and an action of
        any shape with one place changed, or any JSON value."""
        actions = st.sampled_from(ACTIONS).flatmap(mutated) | values
        metro = st.tuples(
            st.just(f"/api/rooms/{self.room}/actions"),
            st.sampled_from([self.ada, self.bob]),
            st.fixed_dictionaries({"action": actions, "step": self.step}).map(dump),
        )
        london = st.tuples(
            st.just(f"/api/rooms/{self.london}/actions"),
            st.sampled_from(self.london_tokens),
            st.fixed_dictionaries({"action": actions, "step": self.london_step}).map(dump),
        )
        return (metro | london).map(lambda ub: ("POST", *ub))

    def reads(self) -> st.SearchStrategy[str]:
        """GET URLs with generated path and query parts."""
        part = PART
        rooms = st.sampled_from([self.waiting, self.room, self.london, self.finished]) | part
        return st.one_of(
            rooms.map(lambda r: f"/api/rooms/{r}"),
            st.tuples(rooms, st.sampled_from(["view", "record", "replay"])).map("/api/rooms/{0[0]}/{0[1]}".format),
            part.map(lambda g: f"/api/games/{g}/board"),
            st.tuples(part, part, part, part).map("/api/daily/{0[0]}/{0[1]}/leaderboard?limit={0[2]}&offset={0[3]}".format),
            st.tuples(part, part).map("/api/daily/{0[0]}/{0[1]}/deal".format),
            st.tuples(part, part).map("/api/daily/{0[0]}/best?limit={0[1]}".format),
            st.tuples(part, part, part).map("/api/players/{0[0]}/history?game={0[1]}&limit={0[2]}".format),
            part.map(lambda p: f"/r/{p}"),
            st.sampled_from(["/api/daily", "/api/games", "/api/players/me", "/api/accounts/me"]),
            st.tuples(st.just(self.account) | part, part).map("/api/accounts/{0[0]}/profile?limit={0[1]}".format),
            st.tuples(part, part).map("/api/daily/{0[0]}/{0[1]}/result".format),
            st.tuples(part, part, part, part).map("/api/daily/{0[0]}/{0[1]}/guests?limit={0[2]}&offset={0[3]}".format),
            st.tuples(rooms, st.sampled_from(["analysis", "chat", "moves", "ratings"]), part).map("/api/rooms/{0[0]}/{0[1]}?after={0[2]}".format),
            st.tuples(st.sampled_from(["london", "metro"]) | part, st.sampled_from(["2", "3"]) | part, part).map("/api/lobby?game={0[0]}&players={0[1]}&limit={0[2]}".format),
            st.tuples(part, part).map("/api/lobby/events?game={0[0]}&players={0[1]}".format),
            st.tuples(st.sampled_from(["london", "metro"]) | part, part).map("/api/watch?game={0[0]}&limit={0[1]}".format),
            st.tuples(part, part).map("/api/watch/events?game={0[0]}&limit={0[1]}".format),
            (st.just(self.ticket) | part).map("/api/quickmatch/{0}/events".format),
            st.sampled_from(["/api/bot/account", "/api/bot/events", "/api/accounts/me/bot", "/api/accounts/me/bot/tokens"]),
            rooms.map(lambda r: f"/api/bot/games/{r}/stream"),
            rooms.map(lambda r: f"/api/rooms/{r}/invitations"),
            st.sampled_from(["/api/friends", "/api/invitations", "/api/friends/events"]),
        )  # fmt: skip


def answered(r: Any) -> None:
    """Not a server error; a refusal is ``{"error", "reason"}``."""
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
        body = r.json()
        assert set(body) == {"error", "reason"} and body["reason"], body


def read_answered(client: TestClient, url: str, headers: dict[str, str]) -> None:
    """``GET url`` is :func:`answered`; an event stream that opens (``/api/lobby/events``,
    ``/api/watch/events``, ``/api/quickmatch/{ticket}/events``) opens with its ``retry`` line and ``snapshot`` event
    (play now: ``waiting``, or ``seated`` alone), then is left."""
    with client.stream("GET", url, headers=headers) as r:
        if r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"):
            lines = r.iter_lines()
            first = next(lines)
            if first == "event: seated":
                return
            assert [first, next(lines), next(lines)] in (
                ["retry: 2000", "", "event: snapshot"],
                ["retry: 2000", "", "event: waiting"],
                ["retry: 2000", "", "event: invitations"],
            )
            return
        if r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson"):
            first = json.loads(next(r.iter_lines()))  # a bot's stream: its first event, then left
            assert first["type"] in ("view", "challenge", "gameStart"), first
            return
        r.read()
        answered(r)


def plays_on(client: TestClient, scene: Scene) -> None:
    """After the barrage: every room answers; the Metro room plays a turn (its seats taken back
    from any bot); a new game is created and played to its end."""
    for room in (scene.waiting, scene.room, scene.london, scene.finished, scene.bot_room):
        assert client.get(f"/api/rooms/{room}").status_code == 200
        assert client.get(f"/api/rooms/{room}/view").status_code == 200
    for seat, token in enumerate((scene.ada, scene.bob)):
        client.post(f"/api/rooms/{scene.room}/seats/{seat}/reclaim", headers=auth(token) | JSON)
    for token in (scene.ada, scene.bob):
        v = view(client, scene.room, token)
        if v["you"] in v["to_move"]:
            assert act(client, scene.room, token, v["legal"][0], v["step"]).status_code == 200
    made = create(client, game="london", mode="bots", seats=[{"name": "Ed"}, {"bot": "random"}])
    assert play_out(client, made["room"]["room"], made["tokens"])["status"] == "finished"
    asked = client.post("/api/quickmatch", json={"game": "london", "players": 2, "clock": "live"})
    assert asked.status_code == 201, asked.text


def test_generated_requests_never_break_the_server(client: TestClient) -> None:
    scene = Scene(client)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=scene.routes(), read=scene.reads())
    def barrage(request: tuple[str, str, str | None, bytes], read: str) -> None:
        method, url, token, body = request
        headers = {"Content-Type": "application/json", **(auth(token) if token else {})}
        answered(client.request(method, url, content=body, headers=headers))
        read_answered(client, read, headers)

    barrage()
    plays_on(client, scene)


def test_generated_websocket_messages_never_close_the_socket(client: TestClient) -> None:
    scene = Scene(client)
    tokens = st.sampled_from([scene.ada, scene.bob, scene.host]) | values
    messages = st.one_of(
        raw_body({"type": "hello", "token": scene.ada}),
        raw_body({"type": "action", "action": st.sampled_from(ACTIONS), "step": scene.step}),
        st.fixed_dictionaries({"type": st.just("hello"), "token": tokens}).map(dump),
        st.fixed_dictionaries(
            {"type": st.just("action"), "action": values, "step": scene.step | values}
        ).map(dump),
        raw_body({"type": "chat", "text": "hello"}),
    )
    with client.websocket_connect(f"/ws/rooms/{scene.room}") as ws:
        ws.send_json({"type": "hello", "token": scene.ada})
        assert ws.receive_json()["type"] == "view"

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(message=messages)
        def barrage(message: bytes) -> None:
            try:
                ws.send_text(message.decode())
            except UnicodeDecodeError:
                ws.send_bytes(message)
            answer = ws.receive_json()
            assert answer["type"] in ("view", "error", "chat"), answer
            if answer["type"] == "error":
                assert answer["reason"] != "server-error", answer

        barrage()
        ws.send_json({"type": "hello", "token": scene.ada})  # still open, still answering
        while (answer := ws.receive_json())["type"] != "view" or answer["view"]["you"] != 0:
            pass
    plays_on(client, scene)
