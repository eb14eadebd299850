"""An open day's deal is recognised by its content: the chance outcomes a game shows, place by
place, against the day's (``web/daily/open_deals.py``; issue "Hardened", fault 3)."""

from __future__ import annotations

from typing import Any

import pytest

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.games import load_game, replay_record
from metrogames.web.daily import deal as dd
from metrogames.web.daily.open_deals import AGREEMENT, chances, deal_chances, is_days_deal
from support.daily import DAY, Clock, daily_client, new_player, play, refused, started
from support.web import auth

SEED = 2026_03_01


@pytest.mark.parametrize("game", ["london", "paris"])
def test_every_game_of_a_deal_flips_the_deals_outcomes(game: str) -> None:
    """The day's outcomes do not depend on how the deal is played: a greedy game of the deal
    (another policy than the passing one the outcomes are computed with) flips the same."""
    day = deal_chances(game, SEED)
    state = load_game(game, players=1).new_game(SEED)
    played = play_bots(state, [make_bot("greedy", seed=3)])
    assert chances(played) == day
    assert len(day) >= 40  # four rounds of cards


@pytest.mark.parametrize("game", ["london", "paris"])
def test_a_record_of_the_days_deal_is_the_days_deal(game: str) -> None:
    day = deal_chances(game, SEED)
    kind = load_game(game, players=1)
    played = play_bots(kind.new_game(SEED), [make_bot("random", seed=1)])
    record = dict(kind.to_record(played, ["Ada"]))  # no seed, no decks: cards as flipped
    assert "seed" not in record
    assert is_days_deal(chances(replay_record(record)), day)


def test_a_few_cards_moved_still_tell_the_deal_and_another_deal_does_not() -> None:
    day = deal_chances("london", SEED)
    moved = list(day)
    for i in range(0, len(moved) - 1, 6):  # a card in six swapped with its neighbour
        moved[i], moved[i + 1] = moved[i + 1], moved[i]
    assert is_days_deal(moved, day)
    other = deal_chances("london", SEED + 1)
    assert not is_days_deal(other, day)
    reversed_day = day[::-1]
    assert not is_days_deal(reversed_day, day)
    # the first few cards alone are too little to tell (and to search)
    assert not is_days_deal(day[:4], day)
    assert is_days_deal(day[:5], day)
    # half of the places changed: another deal
    half = [o if i % 2 else "x" for i, o in enumerate(day)]
    assert (sum(a == b for a, b in zip(half, day, strict=True)) / len(day) < AGREEMENT) == (
        not is_days_deal(half, day)
    )


def _with_decks(record: dict[str, Any], deal: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the deal's decks written in, as an attacker rebuilds them from the
    cards flipped (the strongest attacker: the true decks; a record with a few flipped cards
    moved is told apart by the outcomes' agreement above)."""
    rounds = [
        {**mine, "deck": list(dealt["deck"])}
        for mine, dealt in zip(record["rounds"], deal["rounds"], strict=True)
    ]
    return {**record, "rounds": rounds}


@pytest.mark.parametrize("game", ["london", "paris"])
def test_the_open_days_deal_is_never_searched(db_url: str, game: str) -> None:
    """Fault 3's input: today's deal played as a guest, its record given the decks, uploaded
    for analysis (the server found its best line) — refused while the day is open, however
    the record came; replays of it too; once the day has closed, analysed."""
    clock = Clock()
    with daily_client(db_url, clock, analysis_budget="rough") as client:
        _, token = new_player(client, "Gus")
        room = started(client, token, game)["room"]
        play(client, room, token)
        mine = client.get(f"/api/rooms/{room}/record", headers=auth(token)).json()
        assert "seed" not in mine  # the day is open: no seed, no decks
        seed = client.app.state.daily.rules.seed(game, DAY)  # type: ignore[attr-defined]
        deal = dd.deal_record(game, seed, DAY)
        rebuilt = _with_decks(mine, deal)
        for path in ("/api/analyses", "/api/replays"):
            refused(client.post(path, json=rebuilt), 409, "day-open")
        refused(client.post("/api/replays", json=mine), 409, "day-open")  # no decks either
        other = started(client, token, game, "2026-02-20")["room"]  # a past day: not refused
        play(client, other, token)
        past = client.get(f"/api/rooms/{other}/record").json()
        assert client.post("/api/replays", json=past).status_code == 200
        clock.set("2026-03-01T00:00:01")  # the day has closed: its deal is public
        r = client.post("/api/analyses", json=_with_decks(mine, deal))
        assert r.status_code == 200, r.text
