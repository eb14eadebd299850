"""The hindsight panel of a finished solo game's end screen: the best score found, both maps,
the costliest turn and the "not a proven optimum" wording."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from browser.helpers import GAME_OVER, finished_london, shot


def test_end_screen_analysis_panel(page: Page, server: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    room = finished_london(server)
    page.goto(f"{server}/r/{room}")
    expect(page.locator(GAME_OVER)).to_be_visible()
    panel = page.locator("[data-testid=analysis]")
    expect(panel).to_be_visible()
    page.click("#analyse-btn")
    best = panel.locator("[data-testid=analysis-best]")
    expect(best).to_have_text(re.compile(r"^Best found: \d+$"), timeout=60_000)
    expect(panel.locator("[data-testid=analysis-note]")).to_contain_text("not a proven optimum")
    expect(panel.locator("[data-testid=analysis-turn]")).to_contain_text("Costliest turn: Round ")
    expect(panel.locator("[data-testid=analysis-bound]")).to_contain_text(
        "the optimum lies between"
    )
    maps = panel.locator(".analysis-map")
    expect(maps).to_have_count(2)
    expect(maps.nth(0)).to_contain_text("Your map")
    expect(maps.nth(1)).to_contain_text("Best found")
    for i in range(2):
        expect(maps.nth(i).locator(".section")).not_to_have_count(0)
    # the best found is at least the player's score
    mine = int(maps.nth(0).locator("figcaption").inner_text().rsplit(" ", 1)[1])
    found = int(best.inner_text().rsplit(" ", 1)[1])
    assert found >= mine
    panel.scroll_into_view_if_needed()
    shot(page, "analysis-panel")
