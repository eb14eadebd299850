"""Whole games through the API, played with a seeded random legal policy (real sections, powers
and placements, not the first legal action, which is ``pass`` in Next Station), each checked
against an engine replay of its record, ``metrogames replay`` and, for Next Station, ``metrogames
score`` of the drawn lines (docs/web-api.md, "Rooms" and "Playing"), on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from support.web import JSON, Player, cli_replay, create, play_out, record, view


def finish_and_check(
    client: TestClient, room: str, tokens: dict[str, str], tmp: Path, seed: int = 0
) -> dict[str, Any]:
    player = Player(room, tokens, seed)
    player.play_out(client)
    final = player.check(client)
    assert all(player.sent.values())
    rec = record(client, room)
    assert "seed" in rec
    result = cli_replay(rec, tmp)
    assert result["valid"] and result["finished"]
    assert result["scores"] == final["scores"]
    assert result["winners"] == final["winners"]
    replay = client.get(f"/api/rooms/{room}/replay").json()
    assert replay["frames"][-1]["scores"] == final["scores"]
    assert len(replay["frames"]) == final["step"] + 1
    uploaded = client.post("/api/replays", json=rec)
    assert uploaded.status_code == 200 and uploaded.json()["frames"] == replay["frames"]
    refused = client.post("/api/replays", json={**rec, "players": []})
    assert refused.status_code == 400 and refused.json()["reason"] == "bad-request"
    return {"final": final, "sent": player.sent}


def test_london_solo(client: TestClient, tmp_path: Path) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    assert made["room"]["status"] == "playing"
    played = finish_and_check(client, made["room"]["room"], made["tokens"], tmp_path)
    drawn = [a for a in played["sent"][0] if a != "pass"]
    assert len(drawn) >= 10  # a real game: most turns draw a section
    score = played["final"]["scores"][0]
    assert score > 0
    solo = played["final"]["solo"]  # the rulebook's rating of a solo game without modules
    assert solo["score"] == score and solo["modules"] == 0
    # docs/engine-rules-london.md, "Solo": bands ≤ 90, 91–105, 106–120, 121–135, 136–150, > 150
    band = 1 + sum(score > edge for edge in (90, 105, 120, 135, 150))
    assert solo["rating"]["band"] == band and solo["rating"]["adjusted"] == score
    assert 0 <= solo["percentile"] <= 100


def test_london_hotseat_with_powers_and_objectives(client: TestClient, tmp_path: Path) -> None:
    made = create(
        client,
        game="london",
        mode="hotseat",
        options={"powers": "random", "objectives": "random"},
        seats=[{"name": "Ada"}, {"name": "Bob"}],
    )
    assert set(made["tokens"]) == {"0", "1"}
    room = made["room"]["room"]
    first = view(client, room, made["tokens"]["0"])
    assert len(first["objectives"]) == 2 and first["players"][0]["power"] is not None
    played = finish_and_check(client, room, made["tokens"], tmp_path, seed=2)
    used = {
        a.get("power") or ("circle-station" if "circle" in a else None)
        for actions in played["sent"].values()
        for a in actions
        if a != "pass"
    }
    assert used - {None}, "no pencil power was used"


def test_paris_against_a_bot(client: TestClient, tmp_path: Path) -> None:
    made = create(client, game="paris", mode="bots", seats=[{"name": "Ada"}, {"bot": "greedy"}])
    played = finish_and_check(client, made["room"]["room"], made["tokens"], tmp_path)
    assert "solo" not in played["final"]  # two players: no solo rating


def test_metro_hand_mode_against_a_bot(client: TestClient, tmp_path: Path) -> None:
    made = create(
        client,
        game="metro",
        mode="bots",
        options={"turn_mode": "hand"},
        seats=[{"name": "Ada"}, {"bot": "greedy"}],
    )
    room = made["room"]["room"]
    v = view(client, room, made["tokens"]["0"])
    assert len(v["hand"]) == 2 and v["to_move"] == [0]
    finish_and_check(client, room, made["tokens"], tmp_path)


def test_an_uploaded_record_with_an_illegal_action_is_refused(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room = made["room"]["room"]
    play_out(client, room, made["tokens"], seed=1)
    rec = record(client, room)
    first_turns = rec["rounds"][0]["turns"]
    first_turns[0] = [{"sections": [["A1", "J10"]]}]
    r = client.post("/api/replays", json=rec)
    assert r.status_code == 400 and r.json()["reason"] not in ("bad-request", "")
    big = b'{"format": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    assert client.post("/api/replays", content=big, headers=JSON).json()["reason"] == "too-large"
