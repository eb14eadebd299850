"""Helpers of the web tests: create rooms, play them out by the first legal action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.web.config import Settings


def make_settings(db_url: str, **kw: Any) -> Settings:
    """Test settings: bots play at once, a turn-clock second lasts 10 ms."""
    return Settings(db=db_url, bot_delay=kw.pop("bot_delay", 0), clock_unit=0.01, **kw)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def view(client: TestClient, room: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}/view", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def act(client: TestClient, room: str, token: str, action: Any, step: int) -> Any:
    return client.post(
        f"/api/rooms/{room}/actions", headers=auth(token), json={"action": action, "step": step}
    )


def play_out(client: TestClient, room: str, tokens: dict[str, str], limit: int = 2000) -> None:
    """Play every human seat by its first legal action until the game ends."""
    for _ in range(limit):
        moved = False
        for seat, token in tokens.items():
            v = view(client, room, token)
            if v["status"] == "finished":
                return
            if int(seat) in v["to_move"]:
                assert v["legal"], v
                r = act(client, room, token, v["legal"][0], v["step"])
                assert r.status_code == 200, r.text
                moved = True
        assert moved, "no human could move"
    raise AssertionError("the game did not end")


def record(client: TestClient, room: str) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}/record")
    assert r.status_code == 200, r.text
    return r.json()


def cli_replay(rec: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """``metrogames replay --json`` of a record."""
    path = tmp / "record.json"
    path.write_text(json.dumps(rec))
    result = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)
