"""Every view, room summary, replay and WebSocket message a web test's app sends is checked
against the published JSON Schema, ``docs/web-schema.json`` (``scripts/build_schema.py``).

:class:`ContractCheck` wraps an app (every ``TestClient`` of a web test gets one: the autouse
fixture ``contract`` of ``conftest.py``): it reads what the app answers on the routes that
return these documents and the text messages of its WebSockets, validates each with
``jsonschema-rs`` (a validator of JSON Schema 2020-12 fast enough to check thousands of views
per test) against the committed file — not against the code that made it — and notes each
problem; the fixture fails the test with them. A document's route says which definition it must
match (:data:`ROUTES`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "web-schema.json"
ROOM = r"/api/rooms/[^/]+"
ROUTES: list[tuple[str, re.Pattern[str], str, str | None]] = [
    ("GET", re.compile(rf"{ROOM}/view"), "View", None),
    ("POST", re.compile(rf"{ROOM}/actions"), "View", None),
    ("GET", re.compile(ROOM), "RoomSummary", None),
    ("POST", re.compile(r"/api/rooms"), "RoomSummary", "room"),
    ("POST", re.compile(rf"{ROOM}/start"), "RoomSummary", None),
    ("POST", re.compile(rf"{ROOM}/seats/\d+/(?:bot|reclaim)"), "RoomSummary", None),
    ("GET", re.compile(rf"{ROOM}/replay"), "Replay", None),
    ("POST", re.compile(r"/api/replays"), "Replay", None),
    ("GET", re.compile(r"/api/lobby"), "Lobby", None),
    ("GET", re.compile(r"/api/watch"), "NowPlaying", None),
]
"""(method, whole path, definition, key of the answer holding the document or None)."""


@cache
def schema() -> dict[str, Any]:
    """The committed schema document."""
    document: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return document


@cache
def validator(name: str) -> Any:
    """A validator of the schema file's definition ``name``."""
    doc = schema()
    root = {"$schema": doc["$schema"], "$defs": doc["$defs"], "$ref": f"#/$defs/{name}"}
    return jsonschema_rs.validator_for(root)


def branch(name: str, document: Any) -> str:
    """The branch of a ``oneOf`` definition (``View``, ``ServerMessage``) that ``document``
    claims to be by its constant key (``family``, ``type``); ``name`` itself when none does."""
    options = schema()["$defs"][name].get("oneOf")
    if not options or not isinstance(document, dict):
        return name
    fallback = name
    for option in options:
        target = option["$ref"].rsplit("/", 1)[-1]
        properties = schema()["$defs"][target].get("properties", {})
        for key in ("family", "type"):
            const = properties.get(key, {}).get("const")
            if const is not None and document.get(key) == const:
                return target
        if target == "OtherView":
            fallback = target
    return fallback


def problem(name: str, document: Any) -> str | None:
    """Why ``document`` is no ``name`` of the schema, or ``None``: the first error of the
    definition it claims to be (its family's view, its message type's)."""
    if validator(name).is_valid(document):
        return None
    target = branch(name, document)
    if target == "ViewMessage" and isinstance(document.get("view"), dict):
        inner = problem("View", document["view"])
        if inner:
            return f"ViewMessage at view: {inner}"
    for error in validator(target).iter_errors(document):
        where = "/".join(str(p) for p in error.instance_path) or "(top)"
        return f"{target} at {where}: {error.message[:300]}"
    return f"{name}: matches none of its branches (or several)"


def route_of(method: str, path: str) -> tuple[str, str | None] | None:
    for m, pattern, name, key in ROUTES:
        if m == method and pattern.fullmatch(path):
            return name, key
    return None


class ContractCheck:
    """An ASGI app around ``app`` that checks the documents ``app`` sends (:data:`ROUTES`, and
    every WebSocket text message as a ``ServerMessage``), noting problems in ``problems`` and
    counting what it checked by definition in ``checked``. Attributes it lacks are ``app``'s
    (tests read ``client.app.state``)."""

    def __init__(self, app: Any, problems: list[str], checked: Counter[str]) -> None:
        self.app = app
        self.problems = problems
        self.checked = checked

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    def check(self, name: str, document: Any, where: str) -> None:
        self.checked[name] += 1
        found = problem(name, document)
        if found:
            self.problems.append(f"{where}: {found}")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Any, receive: Any, send: Any) -> None:
        target = route_of(scope["method"], scope["path"])
        if target is None:
            await self.app(scope, receive, send)
            return
        status = 0
        body: list[bytes] = []

        async def watch(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and status in (200, 201):
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self._answer(target, b"".join(body), f"{scope['method']} {scope['path']}")
            await send(message)

        await self.app(scope, receive, watch)

    def _answer(self, target: tuple[str, str | None], raw: bytes, where: str) -> None:
        name, key = target
        try:
            document = json.loads(raw)
        except ValueError:
            self.problems.append(f"{where}: the answer is not JSON")
            return
        self.check(name, document[key] if key else document, where)

    async def _websocket(self, scope: Any, receive: Any, send: Any) -> None:
        async def watch(message: Any) -> None:
            if message["type"] == "websocket.send" and message.get("text") is not None:
                where = f"WebSocket {scope['path']}"
                try:
                    document = json.loads(message["text"])
                except ValueError:
                    self.problems.append(f"{where}: a message that is not JSON")
                else:
                    self.check("ServerMessage", document, where)
                    if isinstance(document, dict) and document.get("type") == "view":
                        self.checked["View"] += 1
            await send(message)

        await self.app(scope, receive, watch)
