"""What a new player trips over: Metro's tiles read as pictures and its square names over the
legal squares' stripes; nothing drawn that is not the game's state or the current choice (a
hit's tap area, a finger's left-behind hover); the guide's mark on every station shape; on a
phone the current card whole, the magnifier only where two targets compete for the tap, and
the four ways to play in the home page's first screen. Set-up goes through the API."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_context, new_page, watch
from browser.helpers import ARTIFACTS, call, shot
from browser.test_browser_phone import FINGER, PHONE, ZOOM, measure, nearest

HINT_MS = 60_000  # a hint is a job in another process (a cold one first)
ORANGE = "rgb(255, 140, 0)"  # the guide's mark
CODE = re.compile(r"\b[a-d]{4}\b")  # a Metro tile code (docs/notation.md)


def open_room(page: Page, server: str, room: str, token: str) -> None:
    stored = json.dumps(json.dumps({"tokens": {"0": token}}))  # as the page keeps them
    page.add_init_script(f"localStorage.setItem('metrogames.room.{room}', {stored})")
    page.goto(f"{server}/r/{room}")


def metro_room(server: str, moves: int) -> tuple[str, str]:
    """A Metro room (Ada and an easy bot) where Ada has placed ``moves`` tiles (API)."""
    body = {"game": "metro", "mode": "bots", "seats": [{"name": "Ada"}, {"bot": "easy"}]}
    made = call(server, "POST", "/api/rooms", body)
    room, token = made["room"]["room"], made["tokens"]["0"]
    placed = 0
    for _ in range(2000):  # the bot's turns in between
        if placed == moves:
            break
        view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
        if view["you"] in view["to_move"] and view["legal"]:
            body = {"action": view["legal"][0], "step": view["step"]}
            call(server, "POST", f"/api/rooms/{room}/actions", body, token)
            placed += 1
        else:
            time.sleep(0.02)
    assert placed == moves, placed
    return room, token


# The WCAG contrast of an element's fill against each stripe colour of the legal squares'
# pattern (read from the page's own pattern).
STRIPES_JS = """(sel) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ink = lum(rgb(getComputedStyle(document.querySelector(sel)).fill));
  return [...document.querySelectorAll("#legal-hatch rect")].map((r) => {
    const [a, b] = [ink, lum(hex(r.getAttribute("fill")))].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  });
}"""


SIDES = ("top", "right", "bottom", "left")


def tile_words(code: str) -> str:
    """A tile's words for screen readers, from its code alone (``metro.json``'s ``tile_code``:
    a letter per side N, E, S, W for the track leaving it: a straight across, b to the next side
    clockwise, c anticlockwise, d a U-turn), not from the tracks the client draws."""
    words = []
    for i, letter in enumerate(code):
        here = SIDES[i]
        words.append(
            {
                "a": f"straight {here}–{SIDES[(i + 2) % 4]}",
                "b": f"curve {here}–{SIDES[(i + 1) % 4]}",
                "c": f"curve {here}–{SIDES[(i + 3) % 4]}",
                "d": f"U-turn on the {here}",
            }[letter]
        )
    return "tile: " + ", ".join(words)


def test_metro_tiles_read_as_pictures_and_square_names_over_the_stripes(
    page: Page, server: str
) -> None:
    room, token = metro_room(server, 2)
    tracks = {
        t["code"]: len(t["tracks"]) for t in call(server, "GET", "/api/games/metro/board")["tiles"]
    }
    open_room(page, server, room, token)
    page.wait_for_selector("svg.board-metro .hit-square")
    # the hand: the tile button says its tracks in words, not its code
    button = page.locator(".panel.hand .tile-btn").first
    code = button.get_attribute("data-tile") or ""
    label = button.get_attribute("aria-label") or ""
    assert code in tracks and tile_words(code).removeprefix("tile: ") in label, label
    assert code not in label, label
    # the move log: each move's tile as its picture (tracks drawn from the tile data), the
    # square as written; no tile code left in the words
    page.click("[data-testid=moves] summary")
    moves = call(server, "GET", f"/api/rooms/{room}/moves", token=token)["moves"]
    log = page.locator(".move-log li")
    expect(log).to_have_count(len(moves))
    for i, m in enumerate(moves):
        item = log.nth(i)
        code, _, square = m["move"].partition(" ")
        pic = item.locator("svg.tile-inline")
        expect(pic).to_have_count(1)
        expect(pic).to_have_attribute("data-tile", code)
        expect(pic.locator("path.track")).to_have_count(tracks[code])
        expect(pic).to_have_attribute("aria-label", tile_words(code))
        assert item.inner_text().strip().endswith(square), (item.inner_text(), m)
        assert not CODE.search(item.inner_text()), item.inner_text()
    # the coach: the same, best three moves
    page.click("#hint-btn")
    hints = page.locator("[data-testid=hint-list] .hint-move")
    expect(hints).to_have_count(3, timeout=HINT_MS)
    for i in range(3):
        text = hints.nth(i).locator(".hint-text")
        code = text.locator("svg.tile-inline").get_attribute("data-tile")
        assert code in tracks
        assert re.fullmatch(r"[A-H][1-8]", text.inner_text().strip()), text.inner_text()
        assert not CODE.search(hints.nth(i).inner_text())
    # the last move's panel shows the bot's tile too
    last = page.locator(".panel.last svg.tile-inline")
    expect(last).to_have_count(1)
    # square names: drawn above the stripes, dark on a light halo, hidden under placed tiles
    square = page.locator(".layer-hits .hit-square").first.get_attribute("data-square")
    name = f"text.square-name[data-square={square}]"
    expect(page.locator(name)).to_be_visible()
    above = page.evaluate(
        """(sel) => {
          const mark = document.querySelector(".layer-marks .legal-mark");
          return !!(mark.compareDocumentPosition(document.querySelector(sel)) & Node.DOCUMENT_POSITION_FOLLOWING);
        }""",
        name,
    )
    assert above, "the square names are under the legal marks"
    ratios = page.evaluate(STRIPES_JS, name)
    assert len(ratios) == 2 and min(ratios) >= 4.5, ratios
    view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
    for p in view["board"]:
        expect(page.locator(f"text.square-name[data-square={p['square']}]")).to_be_hidden()
    shot(page, "newcomer-metro-pictures")


def cell_px(page: Page, a: str, b: str) -> float:
    """The distance on screen between two stations' drawings (CSS px)."""
    boxes = [page.locator(f"g.station[data-station={n}]").bounding_box() for n in (a, b)]
    assert boxes[0] is not None and boxes[1] is not None
    (p, q) = [(x["x"] + x["width"] / 2, x["y"] + x["height"] / 2) for x in boxes]  # type: ignore[index]
    return float(((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5)


# Every hit element's drawn shapes: its tap area's (polygon) stroke and its ring's, with the
# ring's box on screen and the board's.
DRAWN_JS = """() => [...document.querySelectorAll("svg.board-ns .layer-hits .hit")].map((hit) => {
  const poly = hit.querySelector("polygon");
  const ring = hit.querySelector(".hit-ring");
  const rs = getComputedStyle(ring);
  const r = ring.getBoundingClientRect();
  const b = hit.ownerSVGElement.getBoundingClientRect();
  return {
    name: hit.dataset.station, area: getComputedStyle(poly).stroke, areaWidth: poly.getBoundingClientRect().width,
    ring: rs.stroke, ringWidth: r.width, inside: r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom,
  };
})"""


def drawn(page: Page) -> list[dict[str, Any]]:
    return list(page.evaluate(DRAWN_JS))


def test_nothing_stray_on_the_board_and_the_guide_marks_every_shape(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    # motion on: the guide's pulse is part of what is checked
    context = new_context(
        browser, reduced_motion="no-preference", viewport={"width": 1366, "height": 900}
    )
    context.add_init_script(
        "try { localStorage.setItem('metrogames.confirm-moves', '0'); } catch (e) {}"
    )
    page = context.new_page()
    watch(page, errors)
    try:
        page.goto(f"{server}/#/learn/london")
        page.click("#tutorial-next")
        # step 2: D7 is a pentagon (the board data), marked on its outline and its ring, pulsing
        d7 = call(server, "GET", "/api/games/london/board")
        assert next(s for s in d7["stations"] if s["name"] == "D7")["symbol"] == "pentagon"
        outline = page.locator(
            "g.station.tut-mark[data-station=D7] polygon, g.station.tut-mark[data-station=D7] path"
        )
        expect(outline.first).to_be_visible()
        ring = page.locator(".layer-hits .hit.tut-mark[data-station=D7] > .hit-ring")
        for loc in (outline.first, ring):
            style = loc.evaluate(
                "(e) => [getComputedStyle(e).stroke, getComputedStyle(e).animationName]"
            )
            assert style == [ORANGE, "tut-pulse"], style
        for station in ("D7", "D3", "C4", "C4"):
            page.locator(f"svg.board-ns .layer-hits .hit[data-station={station}]").click()
            page.wait_for_timeout(150)
        # step 4, C4 chosen and the pointer still on it: no tap area is drawn; the only ring
        # drawn is the pointed-at target's, the size of a station, inside the board
        expect(page.locator(".layer-hits .hit[data-station=B5]")).to_have_count(1)
        cell = cell_px(page, "C4", "C5")
        shapes = drawn(page)
        assert shapes and all(s["area"] == "none" for s in shapes), shapes
        assert max(s["areaWidth"] for s in shapes) > cell  # the tap areas are larger than a station
        shown = [s for s in shapes if s["ring"] not in ("none", "rgba(0, 0, 0, 0)", ORANGE)]
        assert [s["name"] for s in shown] == ["C4"], shown
        assert shown[0]["ringWidth"] < cell and shown[0]["inside"], (shown, cell)
        page.mouse.move(2, 2)  # the pointer leaves: nothing of the hits stays drawn
        shapes = drawn(page)
        assert all(s["ring"] in ("none", "rgba(0, 0, 0, 0)", ORANGE) for s in shapes), shapes
        page.locator("svg.board-ns").screenshot(path=_artifact("newcomer-london-step4"))
        # the keyboard's focus shows the target's ring, not its tap area
        page.locator(".layer-hits .hit[data-station=D7]").focus()  # not marked by the guide
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.dataset.station || ''")
        shapes = {s["name"]: s for s in drawn(page)}
        assert focused == "D7" and shapes[focused]["ring"] == "rgb(11, 87, 208)", (focused, shapes)
        assert shapes[focused]["area"] == "none"
    finally:
        context.close()


def _artifact(name: str) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    return str(ARTIFACTS / f"{name}.png")


def paris_after_passes(server: str, flipped: int) -> tuple[str, str]:
    """A solo Paris room where Ada passed until ``flipped`` cards or more show (API)."""
    made = call(
        server, "POST", "/api/rooms", {"game": "paris", "mode": "solo", "seats": [{"name": "Ada"}]}
    )
    room, token = made["room"]["room"], made["tokens"]["0"]
    for _ in range(40):
        view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
        if len(view.get("flipped") or []) >= flipped and view.get("card"):
            break
        call(
            server,
            "POST",
            f"/api/rooms/{room}/actions",
            {"action": "pass", "step": view["step"]},
            token,
        )
    return room, token


def test_on_a_phone_the_current_card_shows_whole_at_the_strip_s_start(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    room, token = paris_after_passes(server, 4)
    page = new_page(browser, errors, **PHONE)
    try:
        open_room(page, server, room, token)
        page.wait_for_selector("svg.board-ns .layer-hits .hit")
        strip = page.locator(".turn-dock .card-row")
        strip.scroll_into_view_if_needed()
        row = strip.bounding_box()
        card = page.locator(".turn-dock .card.current").bounding_box()
        assert row is not None and card is not None
        assert (
            card["x"] - 3 >= row["x"] and card["x"] + card["width"] + 3 <= row["x"] + row["width"]
        ), (card, row)
        lefts = page.locator(".turn-dock .card-row .card").evaluate_all(
            "(es) => es.map((e) => e.getBoundingClientRect().left)"
        )
        assert len(lefts) >= 4 and min(lefts) == card["x"], lefts  # the current card first
        shot(page, "newcomer-paris-cards-phone", full_page=False)
    finally:
        page.context.close()


def test_on_a_phone_the_magnifier_opens_only_where_two_targets_compete(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    room, token = metro_room(server, 0)  # the first tile: every edge square, side by side
    page = new_page(browser, errors, **PHONE)
    try:
        open_room(page, server, room, token)
        svg = "svg.board-metro"
        page.wait_for_selector(f"{svg} .layer-hits .hit")
        page.locator(svg).evaluate("(e) => e.scrollIntoView({block: 'start'})")
        found = measure(page, svg)
        pairs = [(nearest(m, found), m) for m in found]
        # a tap halfway between two legal squares under a finger apart: both compete for it
        close = [(m, o) for (d, o), m in pairs if o is not None and d < FINGER - 2]
        assert close, found
        m, o = close[len(close) // 2]
        page.touchscreen.tap((m["cx"] + o["cx"]) / 2, (m["cy"] + o["cy"]) / 2)
        expect(page.locator(ZOOM)).to_be_visible()
        shot(page, "newcomer-metro-zoom-phone", full_page=False)
        page.locator(f"{ZOOM} .zoom-close").tap()
        expect(page.locator(ZOOM)).to_have_count(0)
        # a tap on a square's own centre, no other legal centre within half a finger: the
        # move is made at once, under a finger's size or not
        alone = [m for (d, _), m in pairs if d > FINGER / 2 + 4]
        assert alone, found
        small = [m for m in alone if m["side"] < FINGER]
        chosen = (small or alone)[0]
        step = page.evaluate("document.body.dataset.step")
        page.touchscreen.tap(chosen["cx"], chosen["cy"])
        expect(page.locator(ZOOM)).to_have_count(0)
        page.wait_for_function("(step) => document.body.dataset.step !== step", arg=step)
        view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
        assert any(p["square"] == chosen["name"] and p["by"] == 0 for p in view["board"]), (
            chosen,
            view["board"],
        )
        # a finger's tap leaves no hover ring behind
        rings = page.locator(f"{svg} .layer-hits .hit-ring").evaluate_all(
            "(es) => es.map((e) => getComputedStyle(e).stroke)"
        )
        assert all(r in ("none", "rgba(0, 0, 0, 0)") for r in rings), rings
    finally:
        page.context.close()


def sign_up_in_the_page(page: Page, name: str) -> None:
    """Make an account from the home page's folded account panel; the page reloaded, signed in
    (a returning player)."""
    page.locator(".home details.fold:has(#account-name) > summary").tap()
    page.fill("#account-name", name)
    page.fill("#account-password", "a long enough password")
    page.locator("#sign-up").tap()
    # the password is hashed by a job process, a cold one first (as a hint: HINT_MS)
    expect(page.locator("[data-testid=signed-in]")).to_be_attached(timeout=HINT_MS)
    page.reload()
    page.wait_for_selector("#create-form")


@pytest.mark.parametrize(
    ("lang", "returning"),
    [("en", False), ("fr", False), ("nl", False), ("sk", False), ("en", True), ("nl", True)],
)
def test_the_home_page_shows_the_four_ways_to_play_in_its_first_screen_on_a_phone(
    browser: Browser, server: str, errors: PageErrors, lang: str, returning: bool
) -> None:
    """In every language, for a first visit and a returning signed-in player, the four ways to
    play are whole in the first 390×844 screen, in that language, each a finger high."""
    page = new_page(browser, errors, **PHONE)
    page.context.add_init_script(f"localStorage.setItem('metrogames.lang', '{lang}')")
    catalog = call(server, "GET", f"/i18n/{lang}.json")
    try:
        page.goto(f"{server}/")
        page.wait_for_selector("#create-form")
        if returning:
            sign_up_in_the_page(page, f"Ways {lang}")
        ways = page.locator("[data-testid=home-ways] .way")
        expect(ways).to_have_count(4)
        order = ["solo", "online", "play-now", "daily"]
        assert [w.get_attribute("data-way") for w in ways.all()] == order
        titles = [catalog[f"home.way.{way}"] for way in order]
        expect(ways.locator(".way-title")).to_have_text(titles)
        for w in ways.all():
            box = w.bounding_box()
            assert box is not None and box["y"] + box["height"] <= PHONE["viewport"]["height"], box  # type: ignore[index]
            assert box["height"] >= FINGER, box
        shot(page, f"newcomer-home-phone-{lang}{'-returning' if returning else ''}", full_page=False)
        page.locator("[data-way=online]").tap()
        expect(page.locator("input[name=mode][value=online]")).to_be_checked()
        page.wait_for_function(
            "() => { const r = document.querySelector('#create-form').getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; }"
        )
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("[data-way=daily]").tap()
        page.wait_for_function(
            "() => { const r = document.querySelector('#daily').getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; }"
        )
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("[data-way=solo]").tap()
        expect(page.locator("input[name=mode][value=solo]")).to_be_checked()
    finally:
        page.context.close()


def test_the_home_page_is_under_2000_px_on_a_phone_and_keeps_every_way_to_play(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    """At 390×844 the home page was about 3,550 px tall; now under 2,000: the secondary panels
    are folded behind their titles (a tap opens each, its content there: the account's
    sign-in, the guided games and rules, joining by code, a record file, the paper-sheet
    scorer), the daily challenge's ranking notes too, and the ways to play — the three
    doors, the two daily cards, the whole new-game form — stay open on the page."""
    page = new_page(browser, errors, **PHONE)
    try:
        page.goto(f"{server}/")
        page.wait_for_selector("#create-form")
        expect(page.locator(".daily-card .daily-play")).to_have_count(2)
        height = page.evaluate("document.documentElement.scrollHeight")
        shot(page, "newcomer-home-phone-whole")
        assert height < 2000, height
        for selector in ("#create-btn", "#your-name", "input[name=mode][value=online]"):
            expect(page.locator(selector)).to_be_visible()
        folds = page.locator(".home details.fold")
        expect(folds).to_have_count(5)
        inside = ["#account-name", "[data-testid=learn-london]", "#join-code", "#record-file"]
        inside.append("#score-panel a[data-game=london]")
        for i, selector in enumerate(inside):
            fold = folds.nth(i)
            assert fold.get_attribute("open") is None  # folded on a phone
            expect(page.locator(selector)).to_be_hidden()
            fold.locator("summary").tap()
            expect(page.locator(selector)).to_be_visible()
        notes = page.locator("details.daily-notes")
        expect(page.locator("[data-testid=midnight-rule]")).to_be_hidden()
        notes.locator("summary").tap()
        expect(page.locator("[data-testid=midnight-rule]")).to_be_visible()
        grown = page.evaluate("document.documentElement.scrollHeight")
        assert grown > height + 1000, (grown, height)  # what was folded is all there
    finally:
        page.context.close()


def test_on_a_wide_screen_the_home_page_s_panels_stay_open(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    for fold in page.locator(".home details.fold, details.daily-notes").all():
        assert fold.get_attribute("open") is not None
    expect(page.locator("#account-name")).to_be_visible()
    expect(page.locator("[data-testid=midnight-rule]")).to_be_visible()


# Each legend chip's name whose text runs over more than one line (a Range's line boxes).
CUT_NAMES_JS = """() => [...document.querySelectorAll('.legend .chip-name')].filter((e) => {
  const range = document.createRange(); range.selectNodeContents(e);
  return range.getClientRects().length > 1; }).map((e) => e.textContent)"""


@pytest.mark.parametrize("lang", ["sk", "nl"])
def test_on_a_phone_a_legend_s_colour_names_stay_whole(
    browser: Browser, server: str, errors: PageErrors, lang: str
) -> None:
    """At 390 px the board legends' colour chips wrap as wholes: no colour's name is cut inside
    (Slovak 'fialová', 'oranžová' were broken letter by letter under Metro's board)."""
    metro, metro_token = metro_room(server, 0)
    made = call(
        server, "POST", "/api/rooms", {"game": "london", "mode": "solo", "seats": [{"name": "Ada"}]}
    )
    page = new_page(browser, errors, **PHONE)
    page.context.add_init_script(f"localStorage.setItem('metrogames.lang', '{lang}')")
    try:
        for room, token in ((metro, metro_token), (made["room"]["room"], made["tokens"]["0"])):
            open_room(page, server, room, token)
            chips = page.locator(".legend .chip-name")
            expect(chips.first).to_be_visible()
            assert chips.count() >= 4
            assert page.evaluate(CUT_NAMES_JS) == [], lang
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator(".legend").first.screenshot(path=_artifact(f"newcomer-legend-phone-{lang}"))
    finally:
        page.context.close()
