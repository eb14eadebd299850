"""Who ranks on the daily board (docs/web-api.md, "The daily challenge"): accounts only, one
ranked attempt per account, game and day; guests on their own list with a per-address cap on
ranked guest games; the midnight rule stated once and sent to the page — on SQLite and
PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from metrogames.web.daily.service import ACCOUNT_RULE, MIDNIGHT_RULE
from metrogames.web.infra.models import DailyAttemptRow, RoomRow
from support.daily import (
    DAY,
    Clock,
    daily_client,
    get,
    new_account,
    new_player,
    play,
    play_day,
    refused,
    start,
    started,
)
from support.web import auth

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web-api.md"


def stored(client: TestClient) -> tuple[int, int]:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return (
            int(session.scalar(select(func.count()).select_from(DailyAttemptRow)) or 0),
            int(session.scalar(select(func.count()).select_from(RoomRow)) or 0),
        )


def names(client: TestClient, board: str) -> list[tuple[str, Any]]:
    found = get(client, f"/api/daily/london/{DAY}/{board}")
    return [(e["name"], e["rank"]) for e in found["entries"]]


def test_accounts_rank_once_and_guests_are_listed_apart(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        ada, made = new_account(client, "Ada")
        first = started(ada, None, share=True)
        assert first["ranked"] is True and first["token"]
        # a second start (a reload, another device) is the same room with a new seat token
        second = started(ada, None, share=True)
        assert second["room"] == first["room"] and second["token"] != first["token"]
        old = client.get(f"/api/rooms/{first['room']}/view", headers=auth(first["token"]))
        refused(old, 403, "bad-token")
        final = play(ada, first["room"], second["token"], 3)
        refused(start(ada, None), 409, "attempt-used")
        # neither a sign-in nor a player token: refused
        refused(start(client, None), 401, "bad-token")
        _, guest = new_player(client, "Gus")
        clock.tick(60)
        play_day(client, guest, policy=1)
        assert names(client, "leaderboard") == [("Ada", 1)]
        assert names(client, "guests") == [("Gus", 1)]
        guests = get(client, f"/api/daily/london/{DAY}/guests")["entries"]
        assert guests[0]["account"] is None
        board = get(client, f"/api/daily/london/{DAY}/leaderboard")["entries"]
        assert board[0]["account"] == made["account"] and board[0]["player"] == made["player"]
        assert [b["name"] for b in get(client, "/api/daily/london/best")] == ["Ada"]
        mine = get(ada, f"/api/daily/london/{DAY}/result")
        assert mine["board"] == "accounts" and (mine["rank"], mine["of"]) == (1, 1)
        assert mine["score"] == final["scores"][0]
        gus = get(client, f"/api/daily/london/{DAY}/result", guest)
        assert gus["board"] == "guests" and (gus["rank"], gus["of"]) == (1, 1)
        # the percentile counts the games of the list the rank is on: each alone on its list
        assert (mine["percentile"], gus["percentile"]) == (50.0, 50.0)
        overview = get(ada, "/api/daily")
        assert overview["games"][0] == {"game": "london", "played": True, "room": first["room"]}
        assert get(ada, f"/api/players/{made['player']}/history")["days"][0]["rank"] == 1


def test_ranked_guest_games_are_capped_per_address_and_day(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock, daily_guest_ranked=2) as client:
        tokens = [new_player(client, name)[1] for name in ("A", "B", "C")]
        rooms = [started(client, t)["room"] for t in tokens[:2]]
        before = stored(client)
        r = start(client, tokens[2])
        refused(r, 409, "guest-limit")
        assert "2 ranked guest games of Next Station: London today" in r.json()["error"]
        assert stored(client) == before
        # the guests already playing go on; the cap is per game and per day
        assert started(client, tokens[0])["room"] == rooms[0]
        assert started(client, tokens[2], game="paris")["ranked"] is True
        assert started(client, tokens[2], day="2026-02-27")["ranked"] is False  # practice
        # another address has its own count; an account is never capped
        elsewhere = TestClient(client.app, client=("203.0.113.7", 4000))
        assert started(elsewhere, tokens[2])["ranked"] is True
        browser, _ = new_account(client, "Ada")
        assert started(browser, None)["ranked"] is True
        clock.set("2026-03-01T09:00:00")  # a new day: a new count
        assert started(client, tokens[1], day="2026-03-01")["ranked"] is True
        # the stored address is a keyed hash, not the address
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            kept = set(session.scalars(select(DailyAttemptRow.address)))
        assert None in kept and not any(k and "203.0.113.7" in k for k in kept)
        assert len({k for k in kept if k}) == 2


def test_no_ranked_guest_games_with_a_cap_of_zero(db_url: str) -> None:
    with daily_client(db_url, Clock(), daily_guest_ranked=0) as client:
        _, token = new_player(client, "Gus")
        refused(start(client, token), 409, "guest-limit")
        assert started(client, token, day="2026-02-27")["ranked"] is False


def test_a_guest_unshared_ranked_game_shows_to_its_owner_only(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        pid, token = new_player(client, "Gus")
        play_day(client, token, policy=2, share=False)
        play_day(client, token, day="2026-02-27", policy=2, share=False)  # practice
        mine = get(client, f"/api/players/{pid}/history", token)["days"]
        theirs = get(client, f"/api/players/{pid}/history")["days"]
        assert [(d["date"], d["ranked"]) for d in mine] == [(DAY, True), ("2026-02-27", False)]
        assert [(d["date"], d["ranked"]) for d in theirs] == [("2026-02-27", False)]
        _, other = new_player(client, "Eve")
        assert get(client, f"/api/players/{pid}/history", other)["days"] == theirs


def test_an_account_unshared_ranked_game_is_private_on_every_list(db_url: str) -> None:
    """Sharing off keeps a ranked game off every public list (the day's board, all-time best,
    others' view of the history) and on the owner's own history (shown there as not shared), while
    its owner's percentile is still given among the list's games."""
    with daily_client(db_url, Clock()) as client:
        ada, made = new_account(client, "Ada")
        final = play_day(ada, None, policy=3, share=False)
        score = final["scores"][0]
        bob, _ = new_account(client, "Bob")
        play_day(bob, None, policy=1, share=True)
        assert names(client, "leaderboard") == [("Bob", 1)]
        assert [b["name"] for b in get(client, "/api/daily/london/best")] == ["Bob"]
        mine = get(ada, f"/api/players/{made['player']}/history")["days"]
        assert [(d["date"], d["score"], d["ranked"], d["rank"]) for d in mine] == [
            (DAY, score, True, None)
        ]
        assert get(bob, f"/api/players/{made['player']}/history")["days"] == []
        result = get(ada, f"/api/daily/london/{DAY}/result")
        assert result["score"] == score and result["rank"] is None
        # the percentile is among Bob's listed game and this one (added, though unlisted)
        bobs = get(bob, f"/api/daily/london/{DAY}/result")["score"]
        expected = 100 * ((bobs < score) + ((bobs == score) + 1) / 2) / 2
        assert result["of"] == 1 and result["percentile"] == expected


def test_the_midnight_rule_is_stated_once_and_sent_before_a_start(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        overview = get(client, "/api/daily")
        assert overview["midnight_rule"] == MIDNIGHT_RULE
        assert overview["guest_ranked"] == 100  # the tests' setting
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert text.count(MIDNIGHT_RULE) == 1


def test_an_account_made_after_the_deal_opened_cannot_rank_it(db_url: str) -> None:
    """Fault 3: play today's deal as a guest, then sign up and take the ranked attempt with
    the line found. A ranked attempt needs an account made before the day's deal opened (the
    rule is stated once, in the docs and in the page before a start); the same account ranks
    tomorrow's deal, and practises today's once the day has closed."""
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, rehearsal = new_player(client, "Gus")
        play_day(client, rehearsal, policy=1)
        fresh, _ = new_account(client, "Fresh", made=None)  # made now, at noon of DAY
        r = start(fresh, None, share=True)
        refused(r, 409, "account-too-new")
        assert r.json()["error"] == ACCOUNT_RULE
        assert names(client, "leaderboard") == []
        assert stored(client) == (1, 1)  # the guest's game only: nothing stored on a refusal
        old, _ = new_account(client, "Old")  # made the day before: ranks
        assert started(old, None, share=True)["ranked"] is True
        overview = get(fresh, "/api/daily")
        assert overview["account_rule"] == ACCOUNT_RULE
        clock.set("2026-03-01T09:00:00")  # the next day: today's deal opened after it was made
        assert started(fresh, None, "london", "2026-03-01", share=True)["ranked"] is True
        practice = started(fresh, None, "london", DAY)
        assert practice["ranked"] is False
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert text.count(ACCOUNT_RULE) == 1


def test_a_claimed_guests_token_stops_playing_its_daily_room(db_url: str) -> None:
    """Fault 10: a claimed guest's token still played its daily room over REST (the docs say
    it stops). Claimed, the token no longer acts there, by REST or on a socket."""
    with daily_client(db_url, Clock()) as client:
        _, token = new_player(client, "Gus")
        room = started(client, token)["room"]
        seen = get(client, f"/api/rooms/{room}/view", token)
        ben, _ = new_account(client, "Ben")
        assert ben.post("/api/accounts/me/claim", headers=auth(token), json={}).status_code == 200
        move = next(a for a in seen["legal"] if a != "pass")
        r = client.post(
            f"/api/rooms/{room}/actions",
            headers=auth(token),
            json={"action": move, "step": seen["step"]},
        )
        refused(r, 403, "bad-token")
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["reason"] == "bad-token"


def test_a_claimed_guests_ranked_game_uses_the_accounts_attempt(db_url: str) -> None:
    """A guest who played today's deal cannot be claimed into a second, ranked look at it: the
    account's start is refused (the guest's game stays on the guests list); another game, or
    a claim of a guest who has not played today, leaves the account's attempt free."""
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, seen = new_player(client, "Gus")
        play_day(client, seen, policy=1)
        _, fresh = new_player(client, "Hal")
        ben, _ = new_account(client, "Ben")
        assert ben.post("/api/accounts/me/claim", headers=auth(fresh), json={}).status_code == 200
        assert ben.post("/api/accounts/me/claim", headers=auth(seen), json={}).status_code == 200
        r = start(ben, None, share=True)
        refused(r, 409, "attempt-used")
        assert "a guest player this account claimed" in r.json()["error"]
        assert names(client, "leaderboard") == []
        assert names(client, "guests") == [("Gus", 1)]
        assert started(ben, None, "paris", share=True)["ranked"] is True  # another game
        cy, _ = new_account(client, "Cy")
        _, other = new_player(client, "Ida")
        assert cy.post("/api/accounts/me/claim", headers=auth(other), json={}).status_code == 200
        play_day(cy, None, policy=2)  # a claimed guest with no game today: the attempt is free
        assert names(client, "leaderboard") == [("Cy", 1)]
