"""Daily leaderboards, results, history, streaks and the published deal (docs/web-api.md,
"The daily challenge (v1)"), on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from metrogames.games import game_engine, replay_record
from metrogames.web.daily.deal import competition_ranks
from support.daily import (
    DAY,
    Clock,
    daily_client,
    get,
    new_account,
    new_player,
    play,
    play_day,
    player,
    refused,
    started,
)
from support.web import auth, record

NEXT = "2026-03-01"


def view_of(client: TestClient, room: str, token: str) -> Any:
    return client.get(f"/api/rooms/{room}/view", headers=auth(token))


def test_competition_ranks() -> None:
    assert competition_ranks([90, 80, 80, 70], 0, 1) == [1, 2, 2, 4]
    assert competition_ranks([80, 80, 70, 70, 60], 2, 2) == [2, 2, 5, 5, 7]
    assert competition_ranks([], 0, 1) == []


def test_ranking_with_ties_and_the_opt_out(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        # seeds of the random legal policy (the same seed plays the same game on the same deal):
        # seed 3 scores 117 on this deal, seed 1 scores 80, passing every turn 0
        policies = {"Ada": 3, "Bob": 1, "Cy": 1, "Di": "pass", "Eve": 3}
        ids, accounts, browsers, scores = {}, {}, {}, {}
        for name, policy in policies.items():
            browsers[name], made = new_account(client, name)
            ids[name], accounts[name] = made["player"], made["account"]
            clock.tick(60)
            final = play_day(browsers[name], None, policy=policy, share=name != "Eve")
            scores[name] = final["scores"][0]
        assert scores["Bob"] == scores["Cy"] and scores["Ada"] == scores["Eve"]
        assert scores["Ada"] > scores["Bob"] > scores["Di"] == 0
        board = get(client, f"/api/daily/london/{DAY}/leaderboard")
        assert board["date"] == DAY and board["game"] == "london" and board["open"] is True
        assert board["total"] == 4
        entries = board["entries"]
        names = [e["name"] for e in entries]
        assert "Eve" not in names  # played without sharing
        shown = [e["score"] for e in entries]
        assert shown == sorted(shown, reverse=True)
        assert [e["rank"] for e in entries] == competition_ranks(shown, 0, 1)
        assert [e["rank"] for e in entries] == [1, 2, 2, 4]  # Bob and Cy tie and share a rank
        bob, cy = names.index("Bob"), names.index("Cy")
        assert bob < cy and entries[bob]["rank"] == entries[cy]["rank"]  # earlier finish first
        assert entries[bob]["finished_at"] < entries[cy]["finished_at"]
        assert {e["player"] for e in entries} == {ids[n] for n in ("Ada", "Bob", "Cy", "Di")}
        assert all(e["account"] == accounts[e["name"]] for e in entries)
        # pages keep the ranks of the whole board
        for offset in range(4):
            page = get(client, f"/api/daily/london/{DAY}/leaderboard?limit=1&offset={offset}")
            assert page["entries"] == entries[offset : offset + 1] and page["total"] == 4
        refused(client.get(f"/api/daily/london/{DAY}/leaderboard?limit=-1"), 400, "bad-request")
        refused(client.get(f"/api/daily/london/{DAY}/leaderboard?limit=x"), 400, "bad-request")
        # results: rank and percentile among the same games, the board's (and Eve's own,
        # counted for her though it is not on the board)
        for name in policies:
            result = get(browsers[name], f"/api/daily/london/{DAY}/result")
            assert result["score"] == scores[name] and result["of"] == 4
            assert result["board"] == "accounts"
            mine = [e["rank"] for e in entries if e["name"] == name]
            assert result["rank"] == (mine[0] if mine else None)
            among = shown + ([scores[name]] if name == "Eve" else [])
            below = sum(s < scores[name] for s in among)
            equal = sum(s == scores[name] for s in among)
            assert result["percentile"] == round(100 * (below + equal / 2) / len(among), 1)
        # the opted-out player sees their own history, but no rank; nobody else sees that game
        eve = get(browsers["Eve"], f"/api/players/{ids['Eve']}/history")
        assert eve["days"] == [
            {"date": DAY, "game": "london", "score": scores["Eve"], "rank": None, "ranked": True}
        ]
        assert get(client, f"/api/players/{ids['Eve']}/history")["days"] == []
        assert get(browsers["Ada"], f"/api/players/{ids['Eve']}/history")["days"] == []
        # the guests list is apart, and empty
        assert get(client, f"/api/daily/london/{DAY}/guests")["total"] == 0
        best = get(client, "/api/daily/london/best")
        assert [b["name"] for b in best] == names and all(b["date"] == DAY for b in best)
        assert get(client, "/api/daily/paris/best") == []
        refused(client.get("/api/daily/metro/best"), 404, "not-found")


def test_rollover_at_utc_midnight_and_the_published_deal(db_url: str) -> None:
    clock = Clock(f"{DAY}T23:58:00")
    with daily_client(db_url, clock) as client:
        ada_b, _ = new_account(client, "Ada")
        bob_b, _ = new_account(client, "Bob")
        cy_b, _ = new_account(client, "Cy")
        bob_score = play_day(bob_b, None, policy=5)["scores"][0]
        play_day(cy_b, None, policy=6, share=False)
        _, gus = new_player(client, "Gus")
        gus_score = play_day(client, gus, policy=8)["scores"][0]
        made = started(ada_b, None, share=True)
        room = made["room"]
        ada_player = player(room, made["token"], 7)
        for _ in range(4):
            assert ada_player.act(ada_b) is not None
        clock.set(f"{NEXT}T00:00:30")  # midnight UTC passes during Ada's game
        assert get(ada_b, "/api/daily")["date"] == NEXT
        # a reload after midnight continues the game of its day, with a new seat token ...
        again = started(ada_b, None)
        assert again["room"] == room and again["ranked"] is True
        refused(view_of(ada_b, room, made["token"]), 403, "bad-token")
        ada_player.tokens["0"] = again["token"]
        play(ada_b, room, again["token"], ada_player)
        # ... but the day's deal went public at midnight: a game ending later is not ranked
        board = get(client, f"/api/daily/london/{DAY}/leaderboard")
        assert board["open"] is False
        assert [e["score"] for e in board["entries"]] == [bob_score]
        late = get(ada_b, f"/api/daily/london/{DAY}/result")
        assert late["rank"] is None
        # the new day has a new deal
        new_room = started(ada_b, None, day=NEXT, share=True)
        assert new_room["ranked"] is True
        tables = client.app.state.rooms.tables  # type: ignore[attr-defined]
        assert tables[new_room["room"]].seed != tables[room].seed
        refused(client.get(f"/api/daily/london/{NEXT}/deal"), 409, "day-open")
        # the closed day's deal is public and replays every ranked, shared game to its score
        deal = get(client, f"/api/daily/london/{DAY}/deal")
        assert deal["seed"] == 10844004946334041556 == tables[room].seed
        assert deal["deal"]["game"] == "london" and len(deal["deal"]["rounds"]) == 4
        assert deal["deal"]["options"]["colour_cycle"] == ["blue", "green", "pink", "purple"]
        first = game_engine("london").from_deal(deal["deal"], 1)
        assert first.deal.decks == tables[room].progress.state.deal.decks
        assert len(deal["games"]) == len(board["entries"]) == 1
        for rec, entry in zip(deal["games"], board["entries"], strict=True):
            assert rec["players"] == [entry["name"]] and rec["seed"] == deal["seed"]
            assert replay_record(rec).scores()[0] == entry["score"] == rec["meta"]["score"]
        # the guests' games are published apart, in the same format
        guests = get(client, f"/api/daily/london/{DAY}/deal?board=guests")
        assert guests["total"] == 1 and guests["deal"] == deal["deal"]
        (gus_record,) = guests["games"]
        assert gus_record["players"] == ["Gus"] and gus_record["seed"] == deal["seed"]
        assert replay_record(gus_record).scores()[0] == gus_score == gus_record["meta"]["score"]
        refused(client.get(f"/api/daily/london/{DAY}/deal?board=all"), 400, "bad-request")
        # and the finished rooms of the closed day now show their seed
        assert record(client, room)["seed"] == deal["seed"]
        refused(client.get("/api/daily/london/2026-03-02/deal"), 409, "day-not-open")


def test_streaks_across_missed_days(db_url: str) -> None:
    clock = Clock("2026-03-01T10:00:00")
    with daily_client(db_url, clock) as client:
        pid, token = new_player(client, "Ada")

        def on(day: str, game: str = "london") -> None:
            clock.set(f"{day}T10:00:00")
            play_day(client, token, game=game, day=day, policy=int(day[-2:]))

        def streak(game: str | None = None) -> int:
            query = f"?game={game}" if game else ""
            return int(get(client, f"/api/players/{pid}/history{query}")["streak"])

        on("2026-03-01")
        on("2026-03-02")
        on("2026-03-04")  # 03-03 missed
        assert streak() == 1
        on("2026-03-05", "paris")
        assert streak() == 2 and streak("london") == 1 and streak("paris") == 1
        clock.set("2026-03-06T23:00:00")  # today not yet played: yesterday still counts
        assert streak() == 2 and streak("london") == 0
        me = get(client, "/api/players/me", token)
        assert me["streak"] == 2 and set(me["best"]) == {"london", "paris"}
        # practice of a past day keeps no streak
        room = started(client, token, day="2026-03-03")["room"]
        play(client, room, token, 8)
        assert streak() == 2
        clock.set("2026-03-07T00:00:01")
        assert streak() == 0
        history = get(client, f"/api/players/{pid}/history?game=london")
        assert [(d["date"], d["ranked"]) for d in history["days"]] == [
            ("2026-03-04", True),
            ("2026-03-03", False),
            ("2026-03-02", True),
            ("2026-03-01", True),
        ]
        assert all(d["rank"] == 1 for d in history["days"] if d["ranked"])
        refused(client.get("/api/players/nobody1234/history"), 404, "not-found")
        refused(client.get(f"/api/players/{pid}/history?game=metro"), 404, "not-found")
