"""The coach in the browser: the Hint button lists the server's best three moves."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import create_game, metro_move, shot

HINT_MS = 30_000
"""A hint is a job in another process (a cold one first): under a parallel test run it has
taken more than the default 5 s to come back."""


def test_hint_lists_three_moves_with_their_figures(page: Page, server: str) -> None:
    create_game(page, server, "metro", "bots", **{"player-count": "2"})
    page.wait_for_selector("svg.board-metro .hit-square")
    expect(page.locator("[data-testid=hint-list]")).to_have_count(0)
    page.click("#hint-btn")
    moves = page.locator("[data-testid=hint-list] .hint-move")
    expect(moves).to_have_count(3, timeout=HINT_MS)
    # each move: its tile as a picture (named by its code), then the square
    tiles = moves.locator(".hint-text svg.tile-inline").evaluate_all("(es) => es.map((e) => e.dataset.tile)")
    squares_said = [t.strip() for t in moves.locator(".hint-text").all_inner_texts()]
    texts = [f"{c} {q}" for c, q in zip(tiles, squares_said, strict=True)]
    assert len(set(texts)) == 3 and all(re.fullmatch(r"[a-d]{4} [A-H][1-8]", t) for t in texts)
    for line in moves.all_inner_texts():  # Metro: the win probability first, then points
        assert re.search(r"\d+% to win \(\d+\.\d points\)$", line), line
    # and numbered on the board, on the squares the moves name
    badges = page.locator(".hint-badge")
    expect(badges).to_have_count(3)
    squares = [t.split()[1] for t in texts]
    assert [badges.nth(i).get_attribute("data-hint-square") for i in range(3)] == squares
    assert [b.text_content() for b in badges.all()] == ["1", "2", "3"]
    shot(page, "coach-metro")
    # the answer is for this turn only: after a move the panel offers the button again
    assert metro_move(page)
    page.wait_for_selector("svg.board-metro .hit-square")
    expect(page.locator("#hint-btn")).to_be_visible()
    expect(page.locator("[data-testid=hint-list]")).to_have_count(0)


def test_hint_in_london_solo_shows_expected_scores(page: Page, server: str) -> None:
    create_game(page, server, "london", "solo")
    page.wait_for_selector("#hint-btn")
    page.click("#hint-btn")
    moves = page.locator("[data-testid=hint-list] .hint-move")
    expect(moves).to_have_count(3, timeout=HINT_MS)
    lines = moves.all_inner_texts()
    for line in lines:  # solo: points only
        assert re.search(r"^(\S+) \d+\.\d points$", line), line
    # the sections of the moves that draw one are dashed and numbered on the map
    drawn = [
        (i + 1, line.split()[0]) for i, line in enumerate(lines) if line.split()[0] != "Pass"
    ]  # "pass" in words
    badges = page.locator(".hint-badge")
    expect(badges).to_have_count(len(drawn))
    got = [(int(b.text_content() or 0), b.get_attribute("data-hint-section")) for b in badges.all()]
    assert got == drawn
    shot(page, "coach-london")


def test_on_a_phone_the_best_hint_is_scrolled_into_view(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = new_page(
        browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        create_game(page, server, "metro", "bots", **{"player-count": "2"})
        page.wait_for_selector("svg.board-metro .hit-square")
        page.locator("#hint-btn").scroll_into_view_if_needed()  # below the board and the dock
        page.locator("#hint-btn").tap()
        expect(page.locator(".hint-badge")).to_have_count(3, timeout=HINT_MS)
        # the page scrolls once the badges are drawn: wait for it (or time out and report)
        page.wait_for_function(
            """() => {
              const b = document.querySelector(".hint-badge")?.getBoundingClientRect();
              const d = document.querySelector("[data-testid=turn-dock]")?.getBoundingClientRect();
              return b && d && b.top >= 0 && b.bottom <= d.top;
            }""",
            timeout=10_000,
        )
        best = page.locator(".hint-badge").first.bounding_box()
        dock = page.locator("[data-testid=turn-dock]").bounding_box()
        assert best is not None and dock is not None
        assert best["y"] >= 0 and best["y"] + best["height"] <= dock["y"], (best, dock)
    finally:
        page.context.close()
