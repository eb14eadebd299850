"""The move log (``GET /api/rooms/{room}/moves``, docs/web-api.md "Playing"): every step as the
asking seat may know it — its own tile draws, never another seat's, and the placements of all;
a finished game hides nothing and its log holds every recorded action."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from support.web import Player, auth, create, record


def moves(client: TestClient, room: str, token: str | None = None) -> list[dict[str, Any]]:
    r = client.get(f"/api/rooms/{room}/moves", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return list(r.json()["moves"])


def test_metro_hand_mode_log_hides_the_other_seats_draws(client: TestClient) -> None:
    made = create(
        client, game="metro", mode="hotseat", options={"turn_mode": "hand"},
        seats=[{"name": "Ada"}, {"name": "Bob"}],
    )  # fmt: skip
    room, tokens = made["room"]["room"], made["tokens"]
    player = Player(room, tokens, seed=3)
    for _ in range(4):
        for seat in tokens:
            player.act(client, seat)
    logs = {seat: moves(client, room, tokens[seat]) for seat in ("0", "1")}
    spectator = moves(client, room)
    assert [m["step"] for m in spectator] == list(range(1, len(spectator) + 1))
    # placements are public and are exactly what each seat sent, in the game's notation
    for seat, sent in player.sent.items():
        placed = [m["move"] for m in spectator if m["player"] == seat]
        assert placed == [f"{a['tile']} {a['square']}" for a in sent]
    for log in logs.values():
        assert [m for m in log if m["player"] is not None] == [
            m for m in spectator if m["player"] is not None
        ]
    # draws: the spectator sees none; each seat sees its own (the tiles it placed come from
    # them), and the other seat's draws are hidden from it
    draws = [i for i, m in enumerate(spectator) if m["player"] is None]
    assert all(spectator[i]["move"] == "?" for i in draws)
    own = {
        seat: [logs[seat][i]["move"] for i in draws if logs[seat][i]["move"] != "?"]
        for seat in logs
    }
    assert own["0"] and own["1"]
    assert len(own["0"]) + len(own["1"]) == len(draws)  # each draw is seen by one seat only
    for seat, sent in player.sent.items():
        assert {a["tile"] for a in sent} <= set(own[str(seat)])


def test_a_finished_game_logs_every_action(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, tokens = made["room"]["room"], made["tokens"]
    player = Player(room, tokens, seed=1)
    player.play_out(client)
    log = moves(client, room)
    assert "?" not in {m["move"] for m in log}
    rec = record(client, room)
    cards = [turn_card for rnd in rec["rounds"] for turn_card in rnd["cards"]]
    assert [m["move"] for m in log if m["player"] is None] == cards  # the flipped cards
    assert len([m for m in log if m["player"] == 0]) == len(player.sent[0])


def test_unknown_room_and_bad_token(client: TestClient) -> None:
    assert client.get("/api/rooms/zzzzzzzz/moves").status_code == 404
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    r = client.get(f"/api/rooms/{made['room']['room']}/moves", headers=auth("nope"))
    assert r.status_code == 403 and r.json()["reason"] == "bad-token"
