"""Playing the daily challenge (docs/web-api.md, "The daily challenge (v1)"): players, the one
ranked attempt, practice of past days, and every refusal — each leaves nothing stored."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from metrogames.web.infra.models import DailyAttemptRow, PlayerRow, RoomRow
from support.daily import (
    DAY,
    Clock,
    daily_client,
    get,
    new_player,
    play,
    player,
    refused,
    reopen,
    start,
    started,
)
from support.web import act, auth, record, view


def counts(client: TestClient) -> tuple[int, int, int]:
    """Players, attempts and rooms stored."""
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return tuple(  # type: ignore[return-value]
            session.scalar(select(func.count()).select_from(t)) or 0
            for t in (PlayerRow, DailyAttemptRow, RoomRow)
        )


def test_players(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        pid, token = new_player(client, "Ada")
        assert get(client, "/api/players/me", token) == {
            "player": pid,
            "name": "Ada",
            "streak": 0,
            "best": {"london": None, "paris": None},
        }
        r = client.patch("/api/players/me", headers=auth(token), json={"name": "Ada L."})
        assert r.status_code == 200 and r.json()["name"] == "Ada L."
        before = counts(client)
        for body in ({}, {"name": ""}, {"name": "x" * 65}, {"name": 3}, {"name": "A", "x": 1}):
            refused(client.post("/api/players", json=body), 400, "bad-request")
            r = client.patch("/api/players/me", headers=auth(token), json=body)
            refused(r, 400, "bad-request")
        refused(client.get("/api/players/me"), 401, "bad-token")
        refused(client.get("/api/players/me", headers=auth("forged")), 403, "bad-token")
        refused(client.patch("/api/players/me", json={"name": "Eve"}), 401, "bad-token")
        assert counts(client) == before
        assert get(client, "/api/players/me", token)["name"] == "Ada L."


def test_the_ranked_attempt_is_played_on_the_server(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, token = new_player(client, "Ada")
        overview = get(client, "/api/daily", token)
        assert overview["date"] == DAY and overview["closes_at"] == clock() + 12 * 3600
        assert all(not g["played"] and g["room"] is None for g in overview["games"])
        made = started(client, token, share=True)
        assert made["ranked"] is True
        room = made["room"]
        summary = get(client, f"/api/rooms/{room}")
        assert summary["mode"] == "daily" and summary["status"] == "playing"
        assert summary["seats"][0]["name"] == "Ada"
        assert summary["day_open"] is True  # the client offers no hint and no analysis
        v = view(client, room, token)
        assert v["you"] == 0 and v["round"] == 1 and v["card"]
        # the client never receives an unflipped card; the record has no seed or deck
        deck = client.app.state.rooms.tables[room].progress.state.deal.decks[0]  # type: ignore[attr-defined]
        unflipped = [c for c in deck if c not in v["flipped"]]
        assert unflipped and not any(c in str(v) for c in unflipped)
        rec = record(client, room, token)
        assert "seed" not in rec and "deck" not in str(rec)
        # nobody else sees the game while the day is open: its flipped cards are the deal
        for path in ("view", "record", "replay"):
            refused(client.get(f"/api/rooms/{room}/{path}"), 409, "day-open")
        games = {g["game"]: g for g in get(client, "/api/daily", token)["games"]}
        assert games["london"] == {"game": "london", "played": True, "room": room}
        assert games["paris"]["played"] is False
        final = play(client, room, token)
        # finished, yet today's seed and decks stay hidden until the day closes, and the
        # game (whose flipped cards are most of the deal) is its player's alone
        rec = record(client, room, token)
        assert "seed" not in rec and "deck" not in str(rec)
        for path in ("view", "record", "replay"):
            refused(client.get(f"/api/rooms/{room}/{path}"), 409, "day-open")
        assert client.get(f"/api/rooms/{room}/replay", headers=auth(token)).status_code == 200
        result = get(client, f"/api/daily/london/{DAY}/result", token)
        assert result["score"] == final["scores"][0]
        assert result["rank"] == 1 and result["of"] == 1 and result["percentile"] == 50.0
        assert set(result["rating"]) == {"band", "range", "low", "high", "phrase"}
        assert result["bot"]["name"] == "medium" and result["bot"]["score"] > 0
        assert result["expert"] is None  # no daily expert in these tests
        # the bot's score is computed once and kept
        again = get(client, f"/api/daily/london/{DAY}/result", token)
        assert again["bot"] == result["bot"]


def test_refusals_store_nothing(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, token = new_player(client, "Ada")
        _, other = new_player(client, "Bob")
        before = counts(client)
        # a missing or forged token
        refused(client.post(f"/api/daily/london/{DAY}/start", json={}), 401, "bad-token")
        refused(start(client, "forged-token"), 403, "bad-token")
        refused(client.get("/api/daily", headers=auth("forged")), 403, "bad-token")
        refused(client.get(f"/api/daily/london/{DAY}/result"), 401, "bad-token")
        # a day that has not started, an unknown game or day, a bad body
        refused(start(client, token, day="2026-03-01"), 409, "day-not-open")
        refused(start(client, token, game="metro"), 404, "not-found")
        refused(start(client, token, day="2026-02-30"), 404, "not-found")
        refused(start(client, token, day="tomorrow"), 404, "not-found")
        refused(start(client, token, share="yes"), 400, "bad-request")
        refused(start(client, token, extra=1), 400, "bad-request")
        refused(
            client.get(f"/api/daily/london/{DAY}/result", headers=auth(token)), 404, "not-found"
        )
        assert counts(client) == before
        # the game: a stranger's token, replayed and out-of-order messages
        room = started(client, token, share=True)["room"]
        me = player(room, token, 2)
        stored = counts(client)
        v = view(client, room, token)
        refused(act(client, room, other, "pass", v["step"]), 403, "bad-token")
        refused(act(client, room, "forged", "pass", v["step"]), 403, "bad-token")
        refused(act(client, room, token, "pass", v["step"] + 1), 409, "stale-step")
        refused(
            client.get(f"/api/daily/london/{DAY}/result", headers=auth(token)), 409, "not-finished"
        )
        assert act(client, room, token, "pass", v["step"]).status_code == 200
        me.sent[0].append("pass")  # sent by hand: the record holds it too
        refused(act(client, room, token, "pass", v["step"]), 409, "stale-step")
        after = record(client, room, token)
        now = view(client, room, token)["step"]
        bad = act(client, room, token, {"sections": [["A1", "J10"]]}, now)
        assert bad.status_code == 400 and bad.json()["reason"] not in ("bad-request", "")
        refused(act(client, room, token, {"sections": [["Q9", "A1"]]}, now), 400, "bad-notation")
        assert record(client, room, token) == after and counts(client) == stored
        play(client, room, token, me)
        # a second attempt, ranked or not, once today's game has ended
        refused(start(client, token, share=False), 409, "attempt-used")
        refused(start(client, token), 409, "attempt-used")
        assert counts(client) == stored
        # the deal of a day still open
        refused(client.get(f"/api/daily/london/{DAY}/deal"), 409, "day-open")
        refused(client.get("/api/daily/london/2026-03-01/deal"), 409, "day-not-open")
        refused(client.get("/api/daily/london/2026-03-01/leaderboard"), 409, "day-not-open")


def test_reload_and_restart_continue_the_same_game(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, token = new_player(client, "Ada")
        room = started(client, token, share=True)["room"]
        me = player(room, token, 4)
        for _ in range(5):
            assert me.act(client) is not None
        before = view(client, room, token)
        # a reload (or another device with the same token): the same room, share fixed
        assert started(client, token, share=False) == {"room": room, "ranked": True, "token": None}
        assert view(client, room, token) == before
    with reopen(db_url, clock) as again:  # a server restart
        assert started(again, token) == {"room": room, "ranked": True, "token": None}
        assert view(again, room, token) == before
        final = play(again, room, token, me)
        board = get(again, f"/api/daily/london/{DAY}/guests")
        assert [e["score"] for e in board["entries"]] == [final["scores"][0]]


def test_websocket_plays_with_the_player_token(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        _, token = new_player(client, "Ada")
        room = started(client, token, share=True)["room"]
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            v: dict[str, Any] = ws.receive_json()["view"]
            assert v["you"] == 0
            ws.send_json({"type": "action", "action": "pass", "step": v["step"]})
            nxt = ws.receive_json()["view"]
            assert nxt["step"] > v["step"]
            ws.send_json({"type": "action", "action": "pass", "step": v["step"]})
            assert ws.receive_json()["reason"] == "stale-step"


def test_past_days_are_unranked_practice(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        pid, token = new_player(client, "Ada")
        first = started(client, token, day="2026-02-27", share=True)
        second = started(client, token, day="2026-02-27", share=True)
        assert first["ranked"] is False and second["ranked"] is False
        assert first["room"] != second["room"]
        final = play(client, first["room"], token)
        result = get(client, "/api/daily/london/2026-02-27/result", token)
        assert result["score"] == final["scores"][0] and result["rank"] is None
        assert result["of"] == 0 and result["percentile"] == 50.0
        board = get(client, "/api/daily/london/2026-02-27/leaderboard")
        assert board["entries"] == [] and board["total"] == 0 and board["open"] is False
        history = get(client, f"/api/players/{pid}/history")
        assert {(d["date"], d["ranked"], d["rank"]) for d in history["days"]} == {
            ("2026-02-27", False, None)
        }
        assert history["streak"] == 0
        # the practice room's record is public with its seed (the day has closed)
        assert "seed" in record(client, first["room"])
        assert get(client, f"/api/rooms/{first['room']}")["day_open"] is False
