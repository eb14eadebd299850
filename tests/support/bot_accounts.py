"""Bot accounts for the web tests (docs/web-api.md, "Bot accounts"): a new bot account with a
read+play token, and the headers its requests carry."""

from __future__ import annotations

import secrets

from fastapi.testclient import TestClient

from support.web import JSON, auth

PASSWORD = "correct horse battery"


def bot_account(client: TestClient, games: list[str] | None = None) -> tuple[str, str]:
    """A new bot account signed in on ``client`` (its cookie) and a read+play token: (account
    id, token)."""
    name = "Bot" + secrets.token_hex(4)
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    account = r.json()["account"]
    r = client.put("/api/accounts/me/bot", json={"games": games or ["london"]})
    assert r.status_code == 200 and r.json()["bot"] is True, r.text
    r = client.post("/api/accounts/me/bot/tokens", json={"name": "ci", "scopes": ["read", "play"]})
    assert r.status_code == 201, r.text
    return account, r.json()["token"]


def bot_headers(token: str) -> dict[str, str]:
    return {**JSON, **auth(token)}
