"""Every game's end screen says nothing where there is nothing: no separator before or after a
missing figure, no label without its value (Paris prints no solo rating table)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from browser.helpers import GAME_OVER, create_game, play_through_api, seat_tokens, shot


def _solo_end(page: Page, server: str, game: str, mode: str = "solo", **choices: str) -> str:
    """A game of ``game`` (``mode``) made on the home page and its seat played to the end
    through the API, shown on its room page; the end panel's text."""
    room = create_game(page, server, game, mode, **choices)
    page.wait_for_selector("svg .hit")
    play_through_api(server, room, seat_tokens(page, room)["0"])
    expect(page.locator(GAME_OVER)).to_be_visible(timeout=20_000)
    return page.locator(".panel.end").inner_text()


def test_paris_solo_end_shows_the_percentile_alone(page: Page, server: str) -> None:
    _solo_end(page, server, "paris")
    result = page.locator("[data-testid=solo-result]")
    expect(result).to_be_visible()
    text = (result.text_content() or "").strip()
    # no band (the rules print none for Paris), so no separator either: the percentile alone
    assert re.fullmatch(r"better than \d+ % of the greedy bot's games", text), text
    assert "·" not in text and "Solo rating" not in text and "band" not in text
    shot(page, "paris-solo-end")


def test_london_solo_end_separates_its_two_figures_once(page: Page, server: str) -> None:
    _solo_end(page, server, "london")
    text = (page.locator("[data-testid=solo-result]").text_content() or "").strip()
    assert text.startswith("Solo rating: band "), text
    assert text.count(" · ") == 1 and not text.endswith("·"), text
    assert re.search(r" · better than \d+ % of the greedy bot's games$", text), text


def test_metro_end_has_no_empty_figure(page: Page, server: str) -> None:
    panel = _solo_end(page, server, "metro", "bots", **{"player-count": "2"})
    # Metro has no solo rating: no solo line at all, and no stray separator anywhere
    expect(page.locator("[data-testid=solo-result]")).to_have_count(0)
    assert not re.search(r"(^|\n)\s*·|·\s*($|\n)", panel), panel
    shot(page, "metro-end")
    # its replay's status line, step by step (tiles drawn by chance, turns of either seat):
    # the figures there, separated once, none dangling
    room = page.url.rsplit("/", 1)[-1]
    page.goto(f"{server}/#/replay/{room}")
    counter = page.locator("[data-testid=replay-counter]")
    status = page.locator(".status-line")
    seen = set()
    for step in range(2, 9):
        page.click("#replay-next")
        expect(counter).to_contain_text(f"step {step} of")
        text = " ".join((status.text_content() or "").split())
        assert re.fullmatch(r"Placement \d+ of 60 · \d+ in the pile( · .+\S)?", text), (step, text)
        seen.add(" · " in text.split("pile", 1)[1])
    assert seen == {True, False}, seen  # steps with a seat to move and steps drawing a tile
