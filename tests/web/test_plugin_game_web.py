"""The test-only game ``line3`` (``tests/support/line3.py``) in a web room, over the HTTP API, with no
file outside the tests knowing it: boards, a room against a bot played by a seeded random
policy, the record, the replay; served by naming it in the settings (``METROGAMES_GAMES``).
Scores are recomputed from the record's moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from metrogames.core.errors import PluginError
from metrogames.core.rng import Rng
from metrogames.web.app import create_app
from support import line3
from support.records import recount
from support.web import act, create, make_settings, record, view


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    line3.register()
    yield
    line3.unregister()


def test_games_list_and_board(client: TestClient) -> None:
    games = {g["game"]: g for g in client.get("/api/games").json()}
    assert games["line3"]["players"] == [2, 2]
    assert games["line3"]["options"] == {}
    # the family a client picks screens by: line3 states none, so its own name, as in its views
    assert games["line3"]["family"] == "line3"
    assert {name: games[name]["family"] for name in ("london", "paris", "metro")} == {
        "london": "nextstation",
        "paris": "nextstation",
        "metro": "metro",
    }
    board = client.get("/api/games/line3/board").json()
    assert board["grid"] == {"columns": 3, "rows": 3}
    # the generic screen's drawing data: every cell named where it sits (column letter, row)
    cells = {(c["col"], c["row"]): c["name"] for c in board["cells"]}
    assert cells == {(col, row): "ABC"[col] + str(row + 1) for col in range(3) for row in range(3)}


@pytest.fixture
def served(db_url: str) -> Iterator[TestClient]:
    """An app serving line3 as the settings name it: its job processes (the replay) know it."""
    line3.unregister()
    with TestClient(create_app(make_settings(db_url, games="support.line3:GAME"))) as client:
        yield client


def test_a_room_against_a_bot(served: TestClient) -> None:
    client = served
    made = create(client, game="line3", mode="bots", seats=[{"name": "Ada"}, {"bot": "greedy"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    policy = Rng(7, "test-policy")
    sent = []
    for _ in range(20):
        v = view(client, room, token)
        if v["status"] == "finished":
            break
        assert v["to_move"] == [0]
        action = policy.choice(v["legal"])
        sent.append(action)
        r = act(client, room, token, action, v["step"])
        assert r.status_code == 200, r.text
    final = view(client, room, token)
    assert final["status"] == "finished"
    rec = record(client, room)
    truth = recount(rec)
    assert final["scores"] == truth
    best = max(truth)
    assert final["winners"] == [p for p in (0, 1) if truth[p] == best]
    assert [m[1] for m in rec["moves"] if m[0] == 0] == sent
    frames = client.get(f"/api/rooms/{room}/replay").json()["frames"]
    assert len(frames) == len(rec["moves"]) + 1
    assert frames[-1]["scores"] == truth


def test_a_game_without_the_optional_capabilities(client: TestClient) -> None:
    """Without ``Boards`` the board is the game's name and title; without ``ScoreSheets`` a
    sheet is a 400; without ``Presented`` a view has the generic keys only — and the game is
    still played."""
    from metrogames.games import register_game

    register_game(line3.LINE3, line3.BareEngine())
    assert client.get("/api/games/line3/board").json() == {"game": "line3", "title": "Line 3"}
    r = client.post("/api/score", json={"game": "line3"})
    assert r.status_code == 400 and r.json()["reason"] == "bad-request"
    assert "Line 3 has no score sheets" in r.json()["error"]
    made = create(client, game="line3", mode="bots", seats=[{"name": "Ada"}, {"bot": "greedy"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    assert "marks" not in v and "board" not in v
    assert {"room", "game", "status", "step", "seats", "to_move", "legal"} <= set(v)
    for _ in range(20):
        if v["status"] == "finished":
            break
        assert act(client, room, token, v["legal"][0], v["step"]).status_code == 200
        v = view(client, room, token)
    assert v["status"] == "finished"
    assert v["scores"] == recount(record(client, room))  # the protocol's scores, always there
    truth = recount(record(client, room))
    assert v["winners"] == [p for p in (0, 1) if truth[p] == max(truth)]


def test_served_when_named_in_the_settings(db_url: str) -> None:
    """``METROGAMES_GAMES=support.line3:GAME``: the app registers the game at start; its views carry
    its family (its name: it names none) and its marks, the cells each seat took."""
    line3.unregister()
    with TestClient(create_app(make_settings(db_url, games="support.line3:GAME"))) as client:
        assert [g["game"] for g in client.get("/api/games").json()][-1] == "line3"
        seats = [{"name": "Ada"}, {"name": "Bob"}]
        made = create(client, game="line3", mode="hotseat", seats=seats)
        room, tokens = made["room"]["room"], made["tokens"]
        first = view(client, room, tokens["0"])
        assert (first["family"], first["marks"], first["to_move"]) == ("line3", {}, [0])
        assert first["row"] in (1, 2, 3)
        assert all(cell[1] == str(first["row"]) for cell in first["legal"])  # the rolled row
        cell = first["legal"][0]
        assert act(client, room, tokens["0"], cell, first["step"]).status_code == 200
        second = view(client, room, tokens["1"])
        assert second["marks"] == {cell: 0} and second["to_move"] == [1]


def test_a_bad_games_setting_stops_the_app(db_url: str) -> None:
    with pytest.raises(
        PluginError, match=r"plug-in game 'support\.line3:NOPE': support\.line3 has no attribute"
    ):
        create_app(make_settings(db_url, games="support.line3:NOPE"))
