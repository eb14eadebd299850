"""Metro in the browser: a 2-player game against a bot, placed by clicking squares."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from browser.helpers import GAME_OVER, create_game, metro_move, shot


def test_metro_against_a_bot_whole_game(page: Page, server: str) -> None:
    create_game(page, server, "metro", "bots", **{"player-count": "2"})
    page.wait_for_selector("svg.board-metro .hit-square")
    expect(page.locator(".edge-station")).to_have_count(32)
    expect(page.locator(".tile-btn")).to_have_count(1)
    # hovering a legal square previews the tile there
    page.locator(".hit-square").first.hover()
    expect(page.locator(".tile.preview")).to_have_count(1)
    shot(page, "metro-start")
    moves = 0
    while not page.locator(GAME_OVER).count():
        assert moves <= 30, "the game did not end"
        if metro_move(page):
            moves += 1
            if moves == 12:
                shot(page, "metro-mid")
        else:
            page.wait_for_selector(f".hit-square, {GAME_OVER}")
    assert moves == 30
    expect(page.locator("svg.board-metro g.tile[data-square]")).to_have_count(60)
    expect(page.locator(".final tbody tr")).to_have_count(2)
    shot(page, "metro-end")
