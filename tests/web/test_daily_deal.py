"""The daily deal (docs/web-api.md, "The daily challenge (v1)"): the documented HMAC formula,
golden seeds, colour cycles and round-1 decks for a fixed test secret, and the stored secret."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from metrogames.web.daily.deal import daily_seed, deal_state
from support.daily import SECRET, Clock, daily_client, reopen, started

GOLDEN = [
    (
        "london",
        "2025-01-01",
        3916632065716088823,
        ["blue", "pink", "purple", "green"],
        "street-circle street-square street-triangle street-joker underground-square "
        "street-switch underground-circle underground-pentagon underground-joker "
        "street-pentagon underground-triangle",
    ),
    (
        "london",
        "2026-02-28",
        10844004946334041556,
        ["blue", "green", "pink", "purple"],
        "underground-pentagon underground-triangle street-switch street-pentagon street-square "
        "street-joker underground-circle underground-joker street-circle street-triangle "
        "underground-square",
    ),
    (
        "london",
        "2031-05-04",
        17263695957889692340,
        ["purple", "blue", "pink", "green"],
        "street-switch underground-triangle underground-joker street-triangle street-pentagon "
        "underground-square street-circle underground-circle street-square "
        "underground-pentagon street-joker",
    ),
    (
        "paris",
        "2025-01-01",
        8288445246303805554,
        ["purple", "blue", "orange", "green"],
        "street-square street-pentagon street-circle metro-square metro-circle "
        "street-free-entry street-switch metro-joker metro-triangle metro-pentagon "
        "street-triangle",
    ),
    (
        "paris",
        "2026-02-28",
        8008287297602565232,
        ["orange", "green", "purple", "blue"],
        "street-switch metro-triangle street-square street-free-entry metro-circle metro-joker "
        "metro-square street-pentagon metro-pentagon street-circle street-triangle",
    ),
]


@pytest.mark.parametrize(("game", "day", "seed", "cycle", "deck"), GOLDEN)
def test_golden_deals(game: str, day: str, seed: int, cycle: list[str], deck: str) -> None:
    message = f"metrogames/daily/v1/{game}/{day}".encode()
    by_doc = hmac.new(SECRET.encode(), message, hashlib.sha256).digest()[:8]
    assert int.from_bytes(by_doc, "big") == seed
    assert daily_seed(SECRET.encode(), game, day) == seed
    state = deal_state(game, seed)
    assert state.deal.options_json(state.city)["colour_cycle"] == cycle
    assert list(state.deal.decks[0]) == deck.split()
    assert not state.deal.objectives and state.deal.powers is None


def test_deals_differ_by_game_day_and_secret() -> None:
    seeds = {
        daily_seed(secret, game, day)
        for secret in (b"a", b"b")
        for game in ("london", "paris")
        for day in ("2026-02-28", "2026-03-01")
    }
    assert len(seeds) == 8


def test_the_room_is_dealt_from_the_days_seed(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        r = client.post("/api/players", json={"name": "Ada"})
        token = r.json()["token"]
        room = started(client, token, share=True)["room"]
        table = client.app.state.rooms.tables[room]  # type: ignore[attr-defined]
        assert table.seed == 10844004946334041556 and table.mode == "daily"
    with reopen(db_url, clock) as again:  # the seed above 2**63 survives the database
        fresh = again.app.state.rooms.snapshot(room)  # type: ignore[attr-defined]
        assert fresh.seed == 10844004946334041556


def test_a_random_secret_is_made_once_and_kept(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock, secret=None) as first:
        seed = first.app.state.daily.rules.seed("london", "2026-02-28")  # type: ignore[attr-defined]
        assert seed != daily_seed(SECRET.encode(), "london", "2026-02-28")
    with reopen(db_url, clock, secret=None) as second:
        assert second.app.state.daily.rules.seed("london", "2026-02-28") == seed  # type: ignore[attr-defined]
