"""A write that fails changes nothing (docs/web-api.md, "Errors"): for every operation that
stores something — creating rooms (online, started at once, dealt for the daily challenge),
joining, starting, acting over HTTP and WebSocket, handing a seat to a bot and reclaiming it,
bot and turn-clock actions, players, the daily finish — a database failure injected into its
transaction leaves the database and the room in memory as they were, and afterwards the room
answers and plays on. On SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from metrogames.web.app import create_app
from metrogames.web.infra.models import (
    ActionRow,
    DailyAttemptRow,
    DailyBotScoreRow,
    PlayerRow,
    RoomRow,
    SeatRow,
)
from metrogames.web.rooms import scheduler as rooms_module
from support.daily import DAY, Clock, clean, new_player, started
from support.web import JSON, act, auth, create, failing_writes, later, make_settings, record, view

MODELS = (RoomRow, SeatRow, PlayerRow, DailyAttemptRow, DailyBotScoreRow)


@pytest.fixture
def app_client(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """A client whose server errors come back as 500 answers (not raised in the test); bots
    and clocks whose write failed try again after 20 ms."""
    monkeypatch.setattr(rooms_module, "RETRY_SECONDS", 0.02)
    app = create_app(make_settings(db_url, daily_secret="test"), now=Clock())
    with TestClient(app, raise_server_exceptions=False) as client:
        clean(client)
        yield client


def stored(client: TestClient) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (other tests' rows included: compared before and after);
    actions, which are only ever added, as their count and last step per room."""
    out = {}
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        for model in MODELS:
            columns = [c.key for c in model.__table__.columns]
            rows = [tuple(getattr(r, c) for c in columns) for r in session.scalars(select(model))]
            out[model.__tablename__] = sorted(rows, key=repr)
        counts = select(ActionRow.room_id, func.count(), func.max(ActionRow.step))
        out["actions"] = sorted(
            tuple(r) for r in session.execute(counts.group_by(ActionRow.room_id))
        )
    return out


def players_stored(client: TestClient, room: str) -> list[int]:
    """The player of each stored action of ``room``, in order (-1: chance)."""
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows = session.scalars(
            select(ActionRow).where(ActionRow.room_id == room).order_by(ActionRow.step)
        )
        return [row.player for row in rows]


def seen(client: TestClient, room: str, tokens: dict[str, str]) -> dict[str, Any]:
    """What the room shows: its summary, every seat's view and a spectator's (clock aside)."""
    r = client.get(f"/api/rooms/{room}")
    assert r.status_code == 200, r.text
    views = {seat: view(client, room, token) for seat, token in tokens.items()}
    spectator = client.get(f"/api/rooms/{room}/view")  # refused for a daily game of today
    views["spectator"] = spectator.json() | {"status_code": spectator.status_code}
    for v in views.values():
        v.pop("clock", None)
    return {"summary": r.json(), "views": views}


def server_error(r: Any) -> None:
    assert r.status_code == 500, r.text
    assert r.json()["reason"] == "server-error"


def plays_on(client: TestClient, room: str, tokens: dict[str, str]) -> None:
    """Every seat to move plays a legal action, and the game moves on."""
    step = view(client, room, next(iter(tokens.values())))["step"]
    for token in tokens.values():
        v = view(client, room, token)
        if v["you"] in v["to_move"]:
            r = act(client, room, token, v["legal"][-1], v["step"])
            assert r.status_code == 200, r.text
    assert view(client, room, next(iter(tokens.values())))["step"] > step


def wait_for(check: Callable[[], bool], seconds: float = 10) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def online_room(client: TestClient, game: str = "london") -> tuple[str, dict[str, str], str]:
    made = create(client, game=game, mode="online", seats=[{"name": "Ada"}, {}])
    return made["room"]["room"], {"0": made["tokens"]["0"]}, made["host_token"]


def started_room(client: TestClient, game: str = "london") -> tuple[str, dict[str, str], str]:
    room, tokens, host = online_room(client, game)
    r = client.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"})
    tokens["1"] = r.json()["token"]
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    return room, tokens, host


def test_a_failed_room_creation_leaves_no_room(app_client: TestClient) -> None:
    c = app_client
    tables = c.app.state.rooms.tables  # type: ignore[attr-defined]
    for body in (
        {"game": "london", "mode": "online", "seats": [{"name": "Ada"}, {}]},
        {"game": "london", "mode": "solo", "seats": [{"name": "Ada"}]},  # started at once
        {"game": "metro", "mode": "bots", "seats": [{"name": "Ada"}, {"bot": "random"}]},
    ):
        before, rooms_before = stored(c), dict(tables)
        with failing_writes(c) as failed:
            server_error(c.post("/api/rooms", json=body))
        assert failed and stored(c) == before and tables == rooms_before
        made = create(c, **body)
        assert made["room"]["room"] in tables


def test_a_failed_join_leaves_the_seat_open(app_client: TestClient) -> None:
    c = app_client
    room, tokens, host = online_room(c)
    before, shown = stored(c), seen(c, room, tokens)
    with failing_writes(c) as failed:
        server_error(c.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"}))
    assert failed and stored(c) == before and seen(c, room, tokens) == shown
    assert shown["summary"]["seats"][1]["claimed"] is False
    r = c.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bob"})
    assert r.status_code == 200, r.text
    tokens["1"] = r.json()["token"]
    assert c.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    plays_on(c, room, tokens)


def test_a_failed_start_leaves_the_room_waiting(app_client: TestClient) -> None:
    c = app_client
    room, tokens, host = online_room(c, "metro")
    tokens["1"] = c.post(f"/api/rooms/{room}/join", json={"seat": 1}).json()["token"]
    before, shown = stored(c), seen(c, room, tokens)
    with failing_writes(c) as failed:
        server_error(c.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON))
    assert failed and stored(c) == before and seen(c, room, tokens) == shown
    assert shown["summary"]["status"] == "waiting"
    assert c.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    plays_on(c, room, tokens)


@pytest.mark.parametrize("game", ["london", "metro"])
def test_a_failed_action_is_not_played(app_client: TestClient, game: str) -> None:
    c = app_client
    room, tokens, _ = started_room(c, game)
    before, shown, rec = stored(c), seen(c, room, tokens), record(c, room)
    v = view(c, room, tokens["0"])
    with failing_writes(c) as failed:
        server_error(act(c, room, tokens["0"], v["legal"][-1], v["step"]))
    assert failed and stored(c) == before and seen(c, room, tokens) == shown
    assert record(c, room) == rec
    assert act(c, room, tokens["0"], v["legal"][-1], v["step"]).status_code == 200
    plays_on(c, room, tokens)


def test_a_failed_websocket_action_answers_an_error_and_the_socket_lives(
    app_client: TestClient,
) -> None:
    c = app_client
    room, tokens, _ = started_room(c)
    before, shown = stored(c), seen(c, room, tokens)
    with c.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": tokens["0"]})
        v = ws.receive_json()["view"]
        message = {"type": "action", "action": v["legal"][-1], "step": v["step"]}
        with failing_writes(c) as failed:
            ws.send_json(message)
            error = ws.receive_json()
        assert failed and error["type"] == "error" and error["reason"] == "server-error"
        assert stored(c) == before
        ws.send_json(message)
        after = ws.receive_json()
        assert after["type"] == "view" and after["view"]["step"] == v["step"] + 1
    assert shown["views"]["0"]["players"][0]["acted"] is False
    assert seen(c, room, tokens)["views"]["0"]["players"][0]["acted"] is True


def test_a_failed_handover_and_reclaim_leave_the_seat_as_it_was(app_client: TestClient) -> None:
    c = app_client
    room, tokens, host = started_room(c, "metro")
    later(c, 31)  # seat 1's player has been gone for the grace period
    url = f"/api/rooms/{room}/seats/1"
    before, shown = stored(c), seen(c, room, tokens)
    with failing_writes(c) as failed:
        server_error(c.post(f"{url}/bot", headers=auth(host), json={"bot": "greedy"}))
    assert failed and stored(c) == before and seen(c, room, tokens) == shown
    assert shown["summary"]["seats"][1]["kind"] == "human"
    r = c.post(f"{url}/bot", headers=auth(host), json={"bot": "greedy"})
    assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "bot"
    plays_on(c, room, tokens)  # seat 0 plays, the bot answers
    before, shown = stored(c), seen(c, room, tokens)
    with failing_writes(c) as failed:
        server_error(c.post(f"{url}/reclaim", headers=auth(tokens["1"]) | JSON))
    assert failed and stored(c) == before and seen(c, room, tokens) == shown
    assert shown["summary"]["seats"][1]["kind"] == "bot"
    r = c.post(f"{url}/reclaim", headers=auth(tokens["1"]) | JSON)
    assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "human"
    plays_on(c, room, tokens)


def test_a_failed_bot_action_is_tried_again(app_client: TestClient) -> None:
    c = app_client
    made = create(c, game="london", mode="bots", seats=[{"name": "Ada"}, {"bot": "greedy"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(c, room, token)
    dealt = players_stored(c, room)
    assert dealt and set(dealt) == {-1}  # the first card(s)

    def bot_action(statement: Any, rows: list[dict[str, Any]]) -> bool:
        table = getattr(statement, "table", None)
        return getattr(table, "name", "") == "actions" and any(r["player"] == 1 for r in rows)

    with failing_writes(c, bot_action) as failed:
        assert act(c, room, token, "pass", v["step"]).status_code == 200
        wait_for(lambda: len(failed) >= 2)  # the bot tried, and tried again
        stuck = view(c, room, token)
        assert stuck["step"] == v["step"] + 1 and stuck["to_move"] == [1]
        assert [p["acted"] for p in stuck["players"]] == [True, False]
        assert players_stored(c, room) == [*dealt, 0]
    wait_for(lambda: view(c, room, token)["turn"] > v["turn"])
    assert players_stored(c, room)[: len(dealt) + 3] == [*dealt, 0, 1, -1]
    assert record(c, room)["rounds"][0]["turns"][0][0] == "pass"
    plays_on(c, room, {"0": token})


def test_a_failed_clock_action_is_tried_again(app_client: TestClient) -> None:
    c = app_client
    made = create(
        c, game="london", mode="hotseat", turn_clock=60, seats=[{"name": "A"}, {"name": "B"}]
    )
    room, tokens = made["room"]["room"], made["tokens"]
    before = stored(c)
    with failing_writes(c) as failed:
        wait_for(lambda: len(failed) >= 2)  # the clock ran out, its passes failed, twice
        shown = seen(c, room, tokens)
        assert stored(c) == before
        assert shown["views"]["spectator"]["turn"] == 1
        assert shown["views"]["spectator"]["to_move"] == [0, 1]
    wait_for(lambda: view(c, room)["turn"] > 1)
    assert record(c, room)["rounds"][0]["turns"][0] == ["pass", "pass"]


def test_failed_player_writes_change_nothing(app_client: TestClient) -> None:
    c = app_client
    before = stored(c)
    with failing_writes(c) as failed:
        server_error(c.post("/api/players", json={"name": "Ada"}))
    assert failed and stored(c) == before
    _, token = new_player(c, "Ada")
    before = stored(c)
    with failing_writes(c) as failed:
        server_error(c.patch("/api/players/me", headers=auth(token), json={"name": "Eve"}))
    assert failed and stored(c) == before
    assert c.get("/api/players/me", headers=auth(token)).json()["name"] == "Ada"


def test_a_failed_daily_start_and_finish_change_nothing(app_client: TestClient) -> None:
    c = app_client
    tables = c.app.state.rooms.tables  # type: ignore[attr-defined]
    _, token = new_player(c, "Ada")
    before, rooms_before = stored(c), dict(tables)
    with failing_writes(c) as failed:
        server_error(c.post(f"/api/daily/london/{DAY}/start", headers=auth(token), json={}))
    assert failed and stored(c) == before and tables == rooms_before
    room = started(c, token)["room"]

    def finishing(statement: Any, _rows: list[dict[str, Any]]) -> bool:
        table = getattr(statement, "table", None)
        return statement.is_update and table is DailyAttemptRow.__table__

    last: dict[str, Any] = {}
    with failing_writes(c, finishing) as failed:
        while not failed:  # play until the action that ends the game fails
            v = view(c, room, token)
            last = {"action": v["legal"][-1], "step": v["step"]}
            before, shown = stored(c), seen(c, room, {"0": token})
            r = act(c, room, token, last["action"], last["step"])
            assert r.status_code == (500 if failed else 200), r.text
    assert stored(c) == before and seen(c, room, {"0": token}) == shown
    assert shown["views"]["0"]["status"] == "playing"
    result = c.get(f"/api/daily/london/{DAY}/result", headers=auth(token))
    assert result.json()["reason"] == "not-finished"
    assert act(c, room, token, last["action"], last["step"]).status_code == 200
    final = view(c, room, token)
    assert final["status"] == "finished"
    result = c.get(f"/api/daily/london/{DAY}/result", headers=auth(token))
    assert result.status_code == 200 and result.json()["score"] == final["scores"][0]
