"""For operators: ``/metrics``, ``/api/health`` and the structured log lines."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import logging
import logging.config
import os
import time
from types import SimpleNamespace
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine

from metrogames.web.infra import logs, metrics
from metrogames.web.infra.config import Settings
from metrogames.web.infra.sockets import Told
from metrogames.web.rooms import views
from metrogames.web.server import server_config
from support.web import create, run_async

SERIES = (
    "metrogames_actions_total",
    "metrogames_action_round_trip_seconds",
    "metrogames_db_write_seconds",
    "metrogames_loop_lag_seconds",
    "metrogames_open_websockets",
    "metrogames_rooms_in_memory",
)


def samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """``GET /metrics`` parsed: (sample name, sorted labels) -> value."""
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_name_the_series_and_count_an_action(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    text = client.get("/metrics").text
    for series in SERIES:
        assert f"# TYPE {series} " in text, series
    before = samples(client)
    me = (("worker", str(os.getpid())),)
    actions = ("metrogames_actions_total", (("game", "london"),))
    trips = ("metrogames_action_round_trip_seconds_count", (("game", "london"),))
    writes = ("metrogames_db_write_seconds_count", (("op", "write"),))
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": token})
        step = ws.receive_json()["view"]["step"]
        during = samples(client)
        assert during[("metrogames_open_websockets", me)] >= 1
        assert during[("metrogames_rooms_in_memory", me)] >= 1
        ws.send_json({"type": "action", "action": "pass", "step": step})
        assert ws.receive_json()["view"]["step"] > step
    after = samples(client)
    assert after[actions] == before.get(actions, 0) + 1
    assert after[trips] == before.get(trips, 0) + 1
    assert after[writes] == before.get(writes, 0) + 1
    assert (
        after[("metrogames_open_websockets", me)] == during[("metrogames_open_websockets", me)] - 1
    )


def test_the_loop_lag_is_how_late_a_timer_ran() -> None:
    """A callback that holds the event loop 0.3 s shows as one lag of at least that; the
    others are the loop's own small delays."""

    def lags() -> tuple[float, float, float]:
        count = metrics.LOOP_LAG.collect()[0].samples
        found = {(x.name, x.labels.get("le")): x.value for x in count}
        return (
            found[("metrogames_loop_lag_seconds_count", None)],
            found[("metrogames_loop_lag_seconds_sum", None)],
            found[("metrogames_loop_lag_seconds_bucket", "0.25")],
        )

    async def scene() -> None:
        watcher = asyncio.create_task(metrics.watch_lag(0.05))
        await asyncio.sleep(0.2)
        time.sleep(0.3)  # a step that keeps every other client waiting
        await asyncio.sleep(0.2)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)

    count, total, quick = lags()
    run_async(scene())
    count2, total2, quick2 = lags()
    assert 4 <= count2 - count <= 9  # about 0.7 s / 0.05 s of sleeps, one of them 0.3 s late
    assert total2 - total >= 0.25
    assert (count2 - count) - (quick2 - quick) == 1  # one lag over 0.25 s, the rest under


def test_an_http_action_is_timed_too(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    trips = ("metrogames_action_round_trip_seconds_count", (("game", "london"),))
    before = samples(client).get(trips, 0)
    headers = {"Authorization": f"Bearer {token}"}
    step = client.get(f"/api/rooms/{room}/view", headers=headers).json()["step"]
    r = client.post(
        f"/api/rooms/{room}/actions", json={"action": "pass", "step": step}, headers=headers
    )
    assert r.status_code == 200 and r.json()["step"] > step, r.text
    assert samples(client)[trips] == before + 1
    refused = client.post(
        f"/api/rooms/{room}/actions", json={"action": "pass", "step": step}, headers=headers
    )
    assert refused.status_code == 409
    assert samples(client)[trips] == before + 1


def test_health_answers_ok(client: TestClient) -> None:
    r = client.get("/api/health")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ok" and body["database"] == "ok"
    assert body["redis"] == "not configured" and body["worker"] == os.getpid()


def test_health_is_503_when_the_database_does_not_answer(client: TestClient) -> None:
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    engine = rooms.store.engine
    closed = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")  # nothing listens
    rooms.store.engine = closed
    try:
        r = client.get("/api/health")
    finally:
        rooms.store.engine = engine
        closed.dispose()
    assert r.status_code == 503, r.text
    body = r.json()
    assert body["status"] == "error" and body["database"].startswith("error: OperationalError")
    assert body["redis"] == "not configured"


class _Redis:
    """A Redis client whose ping fails."""

    async def ping(self) -> bool:
        raise ConnectionError("Connection refused")


def test_health_is_503_when_redis_does_not_answer(client: TestClient) -> None:
    client.app.state.redis = _Redis()  # type: ignore[attr-defined]
    try:
        r = client.get("/api/health")
    finally:
        client.app.state.redis = None  # type: ignore[attr-defined]
    assert r.status_code == 503
    assert r.json()["redis"] == "error: ConnectionError: Connection refused"
    assert r.json()["database"] == "ok"


def _line(config: dict[str, Any], logger: str, message: str, *args: Any) -> str:
    """One record of logger ``logger`` written by the handler of ``config`` (to a buffer; the
    record goes to the handler directly, whatever other tests did to the loggers)."""
    handlers = config["handlers"]["lines"]
    assert handlers["stream"] == "ext://sys.stderr"
    assert config["root"]["handlers"] == ["lines"]
    buffer = io.StringIO()
    configured = dict(config, handlers={"lines": dict(handlers, stream=buffer)}, loggers={})
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    logging.config.dictConfig(configured)
    try:
        handler = root.handlers[0]
        handler.handle(logging.LogRecord(logger, logging.INFO, __file__, 1, message, args, None))
    finally:
        root.handlers[:], root.level = saved
    return buffer.getvalue()


def test_a_log_line_is_json_with_its_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda _self: None)
    app = SimpleNamespace(state=SimpleNamespace(told=Told()))  # all server_config reads of it
    config = server_config(app, Settings(log_format="json")).log_config  # type: ignore[arg-type]
    assert isinstance(config, dict)

    def in_a_socket() -> str:
        logs.bind(request="abc123", room="x7k2m9qa", seat=1)
        return _line(config, "metrogames.web.rooms", "room %s: %d", "x7k2m9qa", 3)

    record = json.loads(contextvars.copy_context().run(in_a_socket))
    assert record["message"] == "room x7k2m9qa: 3" and record["level"] == "INFO"
    assert record["logger"] == "metrogames.web.rooms" and record["worker"] == os.getpid()
    assert record["request"] == "abc123" and record["room"] == "x7k2m9qa" and record["seat"] == 1
    assert record["time"].endswith("+00:00")
    access_args = ("1.2.3.4:5", "GET", "/x", "1.1", 404)
    access = json.loads(_line(config, "uvicorn.access", '%s - "%s %s HTTP/%s" %d', *access_args))
    assert access["method"] == "GET" and access["path"] == "/x" and access["status"] == 404
    assert access["client"] == "1.2.3.4:5" and "request" not in access


def test_text_logs_and_bad_settings() -> None:
    config = logs.log_config("text", "info")
    line = _line(config, "metrogames.web.ws", "plain %s", "line")
    assert "INFO metrogames.web.ws" in line and line.rstrip().endswith("plain line")
    with pytest.raises(ValueError, match="log format"):
        Settings(log_format="xml")
    with pytest.raises(ValueError, match="log level"):
        Settings(log_level="loud")


def test_a_view_is_built_once_per_seat_and_change(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    built: list[int | None] = []
    build = views.build_view

    def counted(frame: Any, state: Any, you: int | None, **kw: Any) -> dict[str, Any]:
        built.append(you)
        return build(frame, state, you, **kw)

    monkeypatch.setattr(views, "build_view", counted)
    url = f"/ws/rooms/{room}"
    with (
        client.websocket_connect(url) as a,
        client.websocket_connect(url) as b,
        client.websocket_connect(url) as seat,
    ):
        for ws in (a, b):
            ws.send_json({"type": "hello", "token": None})
            ws.receive_json()
        seat.send_json({"type": "hello", "token": token})
        step = seat.receive_json()["view"]["step"]
        assert a.receive_json() == b.receive_json()  # the seat connected
        built.clear()
        seat.send_json({"type": "action", "action": "pass", "step": step})
        mine = seat.receive_json()["view"]
        seen_a, seen_b = a.receive_json()["view"], b.receive_json()["view"]
        assert sorted(built, key=str) == [0, None]  # one per seat, shared by the spectators
    assert seen_a == seen_b and seen_a["you"] is None and mine["you"] == 0
    assert seen_a["step"] == mine["step"] > step
