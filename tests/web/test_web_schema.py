"""The published JSON Schema of the web table (``docs/web-schema.json``): the committed file is
what ``scripts/build_schema.py`` makes of the code, it is a valid 2020-12 schema, it is strict
enough to refuse what the contract refuses, and the web tests' check of every document
(``contract.py``) sees the views, summaries, replays and WebSocket messages of real rooms."""

from __future__ import annotations

import copy
import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from metrogames.web.app import create_app
from metrogames.web.rooms import views
from support.web import auth, create, make_settings, view
from support.web_contract import ContractCheck, problem, schema

ROOT = Path(__file__).resolve().parents[2]
FAMILY = {"london": "nextstation", "paris": "nextstation", "metro": "metro"}
"""The family of each built-in game, as docs/web-api.md ("Views") names it."""


def build_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "build_schema", ROOT / "scripts" / "build_schema.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_schema_is_the_code_s() -> None:
    shipped = (ROOT / "docs" / "web-schema.json").read_text(encoding="utf-8")
    assert shipped == build_script().render(), "run scripts/build_schema.py"


def test_the_schema_is_a_valid_2020_12_schema_with_every_definition() -> None:
    doc = schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    defs = doc["$defs"]
    for name in ("View", "NextStationView", "MetroView", "OtherView", "RoomSummary", "Replay"):
        assert name in defs, name
    for name in ("ServerMessage", "ClientMessage", "ViewMessage", "ErrorMessage", "ChatPush"):
        assert name in defs, name
    families = {defs[ref["$ref"].rsplit("/", 1)[-1]]["properties"]["family"].get("const")
                for ref in defs["View"]["oneOf"]}  # fmt: skip
    assert families == {"nextstation", "metro", None}  # None: OtherView, any other family


def play_some(client: TestClient, game: str, players: int, steps: int) -> dict[str, Any]:
    """A hot-seat room of ``game`` played ``steps`` actions through the HTTP API (the first
    legal action that is not ``pass``); returns the room's creation answer."""
    seats = [{"name": f"P{i}"} for i in range(players)]
    made = create(client, game=game, mode="hotseat" if players > 1 else "solo", seats=seats)
    room = made["room"]["room"]
    for _ in range(steps):
        for seat, token in made["tokens"].items():
            v = view(client, room, token)
            if int(seat) in v["to_move"]:
                action = next((a for a in v["legal"] if a != "pass"), v["legal"][0])
                r = client.post(f"/api/rooms/{room}/actions", headers=auth(token),
                                json={"action": action, "step": v["step"]})  # fmt: skip
                assert r.status_code == 200, r.text
                break
    return made


@pytest.mark.parametrize("game", ["london", "paris", "metro"])
def test_every_view_carries_its_family_and_is_checked(
    client: TestClient, contract: Counter[str], game: str
) -> None:
    made = play_some(client, game, 2, 6)
    room, token = made["room"]["room"], made["tokens"]["0"]
    mine = view(client, room, token)
    spectator = view(client, room)
    assert mine["family"] == spectator["family"] == FAMILY[game]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        ws.send_json({"type": "hello", "token": token})
        pushed = ws.receive_json()
        assert pushed["type"] == "view" and pushed["view"]["family"] == FAMILY[game]
        ws.send_json({"type": "action", "action": "nonsense", "step": 0})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["step"] == 0  # the refused action's step
    assert contract["View"] >= 8 and contract["RoomSummary"] >= 1
    assert contract["ServerMessage"] >= 2
    assert problem("View", mine) is None


def test_replay_frames_are_checked(client: TestClient, contract: Counter[str]) -> None:
    made = play_some(client, "metro", 2, 80)  # a whole two-player Metro game
    room = made["room"]["room"]
    assert client.get(f"/api/rooms/{room}").json()["status"] == "finished"
    r = client.get(f"/api/rooms/{room}/replay")
    assert r.status_code == 200, r.text
    assert contract["Replay"] == 1
    assert all(frame["family"] == "metro" for frame in r.json()["frames"])


def a_view(client: TestClient, game: str) -> dict[str, Any]:
    made = play_some(client, game, 2, 3)
    return view(client, made["room"]["room"], made["tokens"]["0"])


@pytest.mark.parametrize("game", ["london", "metro"])
def test_the_schema_refuses_what_the_contract_refuses(client: TestClient, game: str) -> None:
    good = a_view(client, game)
    assert problem("View", good) is None

    def spoiled(change: Any) -> dict[str, Any]:
        bad = copy.deepcopy(good)
        change(bad)
        return bad

    cases = [
        lambda v: v.update(stray=1),  # a key the contract does not name
        lambda v: v.pop("legal"),  # a common key missing
        lambda v: v.update(step="3"),  # a wrong type
        lambda v: v.update(status="paused"),  # a status that does not exist
        lambda v: v.update(family="metro" if game != "metro" else "nextstation"),
        lambda v: v["seats"][0].update(kind="robot"),
        lambda v: v.update(scores=[1.5] * len(v["scores"])),  # points are whole here
    ]
    if game == "london":
        cases.append(lambda v: v["players"][0]["lines"]["blue"].update(colour="blue"))
        cases.append(lambda v: v["players"][0].pop("sheet"))
    else:
        cases.append(lambda v: v.update(trains=[{"station": 1}]))
        cases.append(lambda v: v.update(hand="ab"))
    for i, change in enumerate(cases):
        assert problem("View", spoiled(change)) is not None, f"case {i} passed"


def test_a_view_of_another_family_keeps_its_own_keys_free() -> None:
    common: dict[str, Any] = {
        "room": "r", "game": "go", "family": "go", "status": "playing", "step": 0, "you": 0,
        "seats": [{"seat": 0, "name": "A", "kind": "human", "connected": True}],
        "to_move": [0], "clock": None, "timed_out": None, "winners": [], "spectators": 0, "scores": [0],
        "legal": ["a1"], "stones": {"a1": None},
    }  # fmt: skip
    assert problem("View", common) is None
    assert problem("View", {**common, "family": "metro"}) is not None  # a listed family: closed
    assert problem("View", {**common, "scores": "none"}) is not None  # common keys stay typed


def test_the_check_catches_an_app_that_breaks_the_contract(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wrapper itself: an app whose views gain a key is caught, on HTTP and WebSocket."""
    problems: list[str] = []
    checked: Counter[str] = Counter()
    build = views.build_view

    def stray(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**build(*args, **kwargs), "stray": True}

    monkeypatch.setattr("metrogames.web.rooms.summary.build_view", stray)  # HTTP views
    monkeypatch.setattr("metrogames.web.rooms.views.build_view", stray)  # pushed views (ViewCache)
    app = ContractCheck(create_app(make_settings(db_url)), problems, checked)
    with TestClient(app) as client:
        made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        view(client, room, token)
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            ws.receive_json()
    assert checked["View"] == 2
    assert len(problems) == 2 and all("'stray' was unexpected" in p for p in problems), problems


def test_client_messages_are_in_the_schema() -> None:
    """What the browser sends on the WebSocket is published too (docs/web-api.md)."""
    assert (
        problem("ClientMessage", {"type": "action", "action": {"square": "C5"}, "step": 3}) is None
    )
    assert problem("ClientMessage", {"type": "hello", "token": None}) is None
    assert problem("ClientMessage", {"type": "action", "step": 3}) is not None
    assert problem("ClientMessage", {"type": "act", "action": 1, "step": 3}) is not None
    summary = json.loads(json.dumps(schema()["$defs"]["RoomSummary"]))
    assert set(summary["required"]) == set(views.RoomSummary.__annotations__)
