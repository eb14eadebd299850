"""Next Station in the browser: whole games played by clicking the highlighted stations; the
departure blinks, unless the reader prefers reduced motion."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import (
    GAME_OVER,
    create_game,
    next_station_move,
    overlaps,
    play_next_station,
    shot,
    step_of,
    wait_step_after,
)


def test_london_solo_whole_game_by_clicking(page: Page, server: str) -> None:
    create_game(
        page, server, "london", "solo", **{"opt-objectives": '"random"', "opt-powers": '"random"'}
    )
    page.wait_for_selector("svg.board-ns .hit")
    expect(page.locator(".blink")).to_have_count(1)  # the departure blinks at the round start
    expect(page.locator("[data-testid=round-end-count]")).to_contain_text("/5")
    shot(page, "london-start")
    # keyboard: Tab reaches the highlighted stations, Enter chooses. At a round's start the
    # departure is the only start, so the client preselects it: it is a .hit-selected (neither
    # a start nor a target), first in page order whenever every target lies after it (rows
    # top to bottom, then columns). Tab on past it, as a keyboard user does.
    step = step_of(page)
    expect(page.locator(".hit-selected")).to_have_count(1)
    expect(page.locator(".hit-start")).to_have_count(0)
    page.locator(".hit").first.focus()
    for _ in range(page.locator(".hit").count()):
        if page.locator(".hit-target:focus").count():
            break
        page.keyboard.press("Tab")
    expect(page.locator(".hit-target:focus")).to_have_count(1)
    page.keyboard.press("Enter")
    wait_step_after(page, step)
    for _ in range(3):
        next_station_move(page)
    shot(page, "london-mid")
    turns = 4
    while not page.locator("[data-testid=round-result]").count():
        next_station_move(page, use_powers=False)
        turns += 1
    shot(page, "london-round-result")
    turns += play_next_station(page)
    assert 20 <= turns <= 40
    expect(page.locator(GAME_OVER)).to_be_visible()
    expect(page.locator(".final-sheet")).to_have_count(1)
    total = page.locator(".final-sheet [data-testid=sheet-total]").first.inner_text()
    assert int(total) > 0
    # one player: the score and the solo rating, never "wins"
    expect(page.locator(GAME_OVER)).to_have_text(f"Game over — {total} points")
    expect(page.locator("[data-testid=solo-result]")).to_contain_text("Solo rating: band ")
    for who in (".pname", ".final-sheet h3"):  # no winner's star with one player
        expect(page.locator(who).first).not_to_contain_text("★")
    expect(page.locator(".power-line")).not_to_contain_text("available")  # nothing "current"
    expect(page.locator(".legend")).to_be_visible()  # the legend, without what a move may do
    move_items = page.locator(".legend-item", has_text="you may draw")
    expect(move_items).to_have_count(2)
    for item in move_items.all():
        expect(item).to_be_hidden()
    assert not overlaps(page), overlaps(
        page
    )  # no marker covers another, a departure letter or "Thames"
    # interchanges are marked: as many rings as the sheet's interchange boxes count
    counts = page.locator(".final-sheet tr", has_text="Interchanges").first.inner_text()
    boxes = sum(int(n) for n in re.findall(r"(\d+)×\d", counts))
    expect(page.locator("svg.board-ns .interchange")).to_have_count(boxes)
    shot(page, "london-end")


def test_paris_hotseat_whole_game(page: Page, server: str) -> None:
    create_game(
        page, server, "paris", "hotseat", **{"player-count": "2", "opt-objectives": '"random"'}
    )
    page.wait_for_selector("svg.board-paris .hit")
    expect(page.locator(".station[data-station=E5] .platform")).to_have_count(1)
    expect(page.locator(".bridge")).to_have_count(8)
    shot(page, "paris-start")
    turns = play_next_station(page, max_turns=120)
    assert turns >= 20
    expect(page.locator(".final-sheet")).to_have_count(2)
    expect(page.locator(".notice.handover")).to_have_count(0)  # nothing "current" once over
    assert not overlaps(page), overlaps(page)
    shot(page, "paris-end")


ANIMATIONS_JS = """(sel) => [...document.querySelectorAll(sel)]
  .flatMap((e) => e.getAnimations().map((a) => `${a.animationName}:${a.playState}`))"""


def test_the_departure_blinks_unless_reduced_motion(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    """The departure blinks at a round's start with motion on; with reduced motion preferred
    (the other browser tests' setting) it stays still."""
    for motion, blink in (("no-preference", ["blink:running"]), ("reduce", [])):
        page = new_page(
            browser, errors, reduced_motion=motion, viewport={"width": 1366, "height": 900}
        )
        try:
            create_game(page, server, "london", "solo")
            page.wait_for_selector("svg.board-ns .hit")
            expect(page.locator(".blink")).to_have_count(1)
            assert page.evaluate(ANIMATIONS_JS, ".blink") == blink, motion
        finally:
            page.context.close()
