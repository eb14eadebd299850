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


MARKERS_OF_CROSSINGS_JS = """async (game) => {
  const { NextStationBoard } = await import("/js/board-nextstation.js");
  const board = await (await fetch(`/api/games/${game}/board`)).json();
  const map = new NextStationBoard(board);
  document.body.append(map.svg || map.el || map.root);
  const colour = board.colours[0];
  // every two links that cross at a point inside both (grid units: the links' ends)
  const ends = (l) => [l.from || [map.station(l.a).col, map.station(l.a).row],
                       l.to || [map.station(l.b).col, map.station(l.b).row]];
  const side = (p, q, r) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const crossings = [];
  board.links.forEach((k, i) => board.links.slice(i + 1).forEach((l) => {
    const [p, q] = ends(k), [r, t] = ends(l);
    if (side(p, q, r) * side(p, q, t) < 0 && side(r, t, p) * side(r, t, q) < 0) {
      crossings.push([[k.a, k.b], [l.a, l.b]]);
    }
  }));
  const near = [];
  for (const [one, two] of crossings) {
    map.drawLines({ [colour]: { sections: [one, two] } }, [], colour);
    const at = [...map.layers.lines.querySelectorAll(".line-letter")].map((g) =>
      g.getAttribute("transform").match(/[-\\d.]+/g).map(Number));
    const gap = Math.hypot(at[0][0] - at[1][0], at[0][1] - at[1][1]);
    if (gap < 14) near.push(`${one.join("-")} x ${two.join("-")}: ${gap.toFixed(1)}`);
  }
  return { pairs: crossings.length, near };
}"""


def test_two_sections_of_a_line_crossing_never_share_a_marker_spot(page: Page, server: str) -> None:
    """Every pair of links the map lets cross (Paris's overhead crossings, London's none),
    drawn as two sections of one line: their markers lie at least a marker's width apart (at
    a crossing, two links' midpoints can be one point: the Paris whole game found two
    markers on one spot)."""
    page.goto(f"{server}/")
    for game in ("paris", "london"):
        found = page.evaluate(MARKERS_OF_CROSSINGS_JS, game)
        assert found["near"] == [], (game, found)
        if game == "paris":
            assert found["pairs"] > 10, found  # the board lists its crossings
