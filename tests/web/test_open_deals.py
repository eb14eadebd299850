"""An open day's deal is recognised by its content: the chance outcomes a game shows, place by
place, against the day's (``web/open_deals.py``; issue "Hardened", fault 3)."""

from __future__ import annotations

import pytest

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.games import load_game, replay_record
from metrogames.web.open_deals import AGREEMENT, chances, deal_chances, is_days_deal

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
