"""The test-only game ``line3`` (``tests/line3.py``) in a web room, over the HTTP API, with no
file outside the tests knowing it: boards, a room against a bot played by a seeded random
policy, the record, the replay. Scores are recomputed from the record's moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from webutil import act, create, record, view

import line3
from metrogames.core.rng import Rng
from test_plugin_game import recount


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    line3.register()
    yield
    line3.unregister()


def test_games_list_and_board(client: TestClient) -> None:
    games = {g["game"]: g for g in client.get("/api/games").json()}
    assert games["line3"]["players"] == [2, 2]
    assert games["line3"]["options"] == {}
    board = client.get("/api/games/line3/board").json()
    assert board["grid"] == {"columns": 3, "rows": 3}


def test_a_room_against_a_bot(client: TestClient) -> None:
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
    assert v["status"] == "finished" and "scores" not in v  # the scores are the game's part
    truth = recount(record(client, room))
    assert v["winners"] == [p for p in (0, 1) if truth[p] == max(truth)]
