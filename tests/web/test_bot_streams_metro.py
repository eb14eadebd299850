"""A bot's game stream on Metro shows exactly what its seat may know (docs/web-api.md, "Bot
accounts"; docs/notation.md, "Position snapshot: Metro"): in the hand mode the other seat's held
tiles, the pile's order and the deal's seed are hidden from both the view and the position it
searches, while the true state holds them — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from metrogames.games.metro.tiles import load_metro
from metrogames.web.rooms.service import RoomService
from support.bot_accounts import bot_account, bot_headers
from support.web import auth, create, run_async, view

PILE, HANDS, SEED, VIEWER = 4, 5, 12, 13
"""Fields of a Metro snapshot (docs/notation.md): the pile, the hands, the seed, the viewer."""


def seated_metro(client: TestClient, token: str) -> tuple[str, dict[str, Any]]:
    """A two-seat online Metro room in the hand mode, a human host at seat 0 and the bot
    invited to seat 1, seated and started: (room, creation answer)."""
    room = create(
        client,
        game="metro",
        mode="online",
        seats=[{"name": "Ada"}, {}],
        options={"turn_mode": "hand"},
    )
    code = room["room"]["room"]
    account = client.get("/api/bot/account", headers=auth(token)).json()["account"]
    host = bot_headers(room["host_token"])
    r = client.post(
        f"/api/rooms/{code}/invitations", headers=host, json={"seat": 1, "account": account}
    )
    assert r.status_code == 201, r.text
    r = client.post(
        f"/api/bot/invitations/{r.json()['id']}/accept", headers=bot_headers(token), json={}
    )
    assert r.status_code == 200, r.text
    assert client.post(f"/api/rooms/{code}/start", headers=host, json={}).status_code == 200
    return code, room


def first_event(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The first event of the bot's game stream for ``code`` (the stream is then closed)."""
    with client.stream("GET", f"/api/bot/games/{code}/stream", headers=auth(token)) as r:
        assert r.status_code == 200, r.read()
        for text in r.iter_lines():
            if text.strip():
                event: dict[str, Any] = json.loads(text)
                return event
    raise AssertionError("the game stream ended without an event")


def true_snapshot(client: TestClient, code: str) -> list[str]:
    """The room's full state's snapshot, read from the server's own table, split in fields."""
    rooms: RoomService = client.app.state.rooms  # type: ignore[attr-defined]

    async def read() -> str:
        table = await rooms.table(code)
        return table.progress.state.snapshot()

    text: str = run_async(read())
    return text.split(" ")


def test_a_metro_bots_stream_hides_the_other_seats_tiles_the_pile_and_the_seed(
    client: TestClient,
) -> None:
    _, token = bot_account(client, ["metro"])
    code, room = seated_metro(client, token)
    truth = true_snapshot(client, code)
    human_tile = truth[HANDS].split("/")[0]
    assert human_tile.isalpha(), truth  # seat 0 (to move) holds its tiles, face down
    assert truth[PILE] not in ("?", "-"), truth  # the server knows the pile's order

    event = first_event(client, code, token)
    assert event["type"] == "view" and event["seat"] == 1 and event["room"] == code
    position = event["position"]
    assert position["seat"] == 1 and position["game"] == "metro"
    seen = position["snapshot"].split(" ")
    assert seen[VIEWER] == "1", seen
    assert seen[SEED] == "-", seen  # no seed: the pile cannot be dealt again from it
    assert seen[PILE] in ("?", "-"), seen  # the pile's order is not shown
    hands = seen[HANDS].split("/")
    assert hands[0] == "?" * len(human_tile), hands  # seat 0's tiles: each hidden
    assert hands[1] == truth[HANDS].split("/")[1], hands  # its own tile, as held
    # the view beside it is the seat's own, as a person at that seat would be shown it
    shown = event["view"]
    assert shown["you"] == 1
    assert shown["hand"] == position_hand(truth, 1)
    # and a person at seat 0 is shown the tile the bot is not
    assert view(client, code, room["tokens"]["0"])["hand"] == position_hand(truth, 0)


def position_hand(fields: list[str], seat: int) -> list[str]:
    """The tile codes ``seat`` holds in a snapshot's fields (a letter is a tile type's index in
    the data's order, docs/notation.md)."""
    letters = fields[HANDS].split("/")[seat]
    codes = load_metro().tile_codes
    return [] if letters == "-" else [codes[ord(c) - ord("A")] for c in letters]
