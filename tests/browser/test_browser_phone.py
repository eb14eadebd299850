"""Tap targets on a phone (390x844, touch): whole London, Paris and Metro games played by
tapping, measuring on every turn every legal target's hit area as the browser resolves taps.

The measure is the page's own hit-testing (``document.elementFromPoint`` on a 2 px grid round
each target), not the client's geometry: for each legal target, the side of the largest
axis-aligned square around its drawn centre whose every grid point lands on that target's hit
element. Where a target is under 44 CSS px, a tap between it and a legal neighbour whose
centres both lie within half a finger (22 px) of the tap opens the magnifier, where the same
measure gives at least 44 px and a tap there makes the move; a tap on a target's centre with no
other legal centre within 22 px makes the move at once (no extra tap); a target of 50 px or
more is made in one tap. The
labels round the board (row "10", column letters, Metro's station numbers) lie inside it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import GAME_OVER, create_game, in_viewport, shot, step_of, wait_step_after
from browser.test_browser_i18n import clipped

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
FINGER = 44
ZOOM = "[data-testid=tap-zoom]"
SLACK = 6  # px: how far above a finger's size the measure looks (CAP)

# For every legal target (a .hit in the board's hit layer), or only the one named ``only``: its
# name, its drawn centre on screen (the station's or square's own drawing, not the hit shape)
# and the largest square of grid points round that centre, up to CAP px, that all resolve to
# its hit element. Such a square is 4-connected to the centre, so only the target's own grid
# points connected to its centre (a flood from the centre, within CAP px) and their
# neighbours are sampled, each point once; hit-testing is the measure's whole cost.
MEASURE_JS = """([svgSel, step, cap, only]) => {
  const svg = document.querySelector(svgSel);
  const box = svg.getBoundingClientRect();
  const x0 = Math.max(0, box.left), y0 = Math.max(0, box.top);
  const x1 = Math.min(innerWidth - 1, box.right), y1 = Math.min(innerHeight - 1, box.bottom);
  const nx = Math.floor((x1 - x0) / step) + 1, ny = Math.floor((y1 - y0) / step) + 1;
  const hits = [...svg.querySelectorAll(".layer-hits .hit")];
  const index = new Map(hits.map((e, i) => [e, i]));
  const grid = new Int16Array(nx * ny).fill(-2);  // -2: not sampled yet
  const at = (i, j) => {
    const k = j * nx + i;
    if (grid[k] === -2) {
      const el = document.elementFromPoint(x0 + i * step, y0 + j * step);
      const hit = el && el.closest(".hit");
      grid[k] = hit && index.has(hit) ? index.get(hit) : -1;
    }
    return grid[k];
  };
  const ctm = svg.getScreenCTM();
  const centre = (hit) => {
    const name = hit.dataset.station || hit.dataset.square;
    let x, y;
    if (hit.dataset.station) {
      const g = svg.querySelector(`g.station[data-station="${name}"]`);
      const m = g.transform.baseVal.consolidate().matrix;
      [x, y] = [m.e, m.f];
    } else {
      const r = svg.querySelector(`rect.square[data-square="${name}"]`);
      [x, y] = [r.x.baseVal.value + r.width.baseVal.value / 2, r.y.baseVal.value + r.height.baseVal.value / 2];
    }
    return [name, ctm.a * x + ctm.c * y + ctm.e, ctm.b * x + ctm.d * y + ctm.f];
  };
  const reach = Math.floor(cap / step);  // a square of reach + 1 points is cap px wide
  const side = (k, ci, cj) => {
    const ia = Math.max(0, ci - reach), ja = Math.max(0, cj - reach);
    const w = Math.min(nx - 1, ci + reach) - ia + 1, h = Math.min(ny - 1, cj + reach) - ja + 1;
    const li = ci - ia, lj = cj - ja;
    if (at(ci, cj) !== k) return 0;
    const mine = new Uint8Array(w * h);  // 1: the target's, connected to the centre; 2: sampled, not
    const todo = [lj * w + li];
    mine[lj * w + li] = 1;
    while (todo.length) {
      const q = todo.pop(), i = q % w, j = (q - i) / w;
      for (const [a, b] of [[i + 1, j], [i - 1, j], [i, j + 1], [i, j - 1]]) {
        if (a < 0 || b < 0 || a >= w || b >= h || mine[b * w + a]) continue;
        mine[b * w + a] = at(ia + a, ja + b) === k ? 1 : 2;
        if (mine[b * w + a] === 1) todo.push(b * w + a);
      }
    }
    const sum = new Int32Array((w + 1) * (h + 1));
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) {
      sum[(j + 1) * (w + 1) + i + 1] = (mine[j * w + i] === 1 ? 1 : 0) + sum[j * (w + 1) + i + 1] + sum[(j + 1) * (w + 1) + i] - sum[j * (w + 1) + i];
    }
    const all = (a, b, n) => sum[(b + n) * (w + 1) + a + n] - sum[b * (w + 1) + a + n] - sum[(b + n) * (w + 1) + a] + sum[b * (w + 1) + a] === n * n;
    for (let n = Math.min(w, h, reach + 1); n >= 1; n--) {
      for (let a = Math.max(0, li - n + 1); a <= li && a + n <= w; a++) {
        for (let b = Math.max(0, lj - n + 1); b <= lj && b + n <= h; b++) {
          if (all(a, b, n)) return (n - 1) * step;
        }
      }
    }
    return 0;
  };
  return hits.flatMap((hit, k) => {
    const [name, cx, cy] = centre(hit);
    if (only !== null && name !== only) return [];
    const ci = Math.round((cx - x0) / step), cj = Math.round((cy - y0) / step);
    const inside = ci >= 0 && cj >= 0 && ci < nx && cj < ny;
    return [{ name, cx, cy, side: inside ? side(k, ci, cj) : 0 }];
  });
}"""
CAP = FINGER + SLACK
"""px: a hit square is measured up to this side: a finger needs 44, one tap is due from 50
(FINGER + SLACK), and no check asks more (a larger cap only costs hit tests)."""


# The board's labels (grid letters and numbers, Metro's station numbers) lying partly outside
# the board's box or the viewport's width.
LABELS_JS = """(svgSel) => {
  const svg = document.querySelector(svgSel);
  const box = svg.getBoundingClientRect();
  const out = [];
  for (const el of svg.querySelectorAll(".grid-label, .edge-num, .edge-letter, .departure-letter")) {
    const r = el.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5 || r.left < 0 || r.right > innerWidth) {
      out.push(`${el.textContent} @${Math.round(r.left)},${Math.round(r.top)}`);
    }
  }
  return out;
}"""


class Sizes:
    """The hit squares measured over a game: the smallest seen, how many under a finger's
    size (each checked to open the magnifier), and the smallest inside the magnifier."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.smallest = 1e9
        self.direct = 1e9  # the smallest square of a target a tap makes directly
        self.crowded = 0
        self.targets = 0
        self.zoomed = 1e9
        self.one_tap = 0  # targets under a finger's size chosen in one tap (nothing competed)

    def __repr__(self) -> str:
        return (
            f"targets={self.targets} smallest={self.smallest:.0f}px "
            f"direct={self.direct:.0f}px crowded={self.crowded} zoomed={self.zoomed:.0f}px "
            f"one_tap={self.one_tap}"
        )


def measure(page: Page, svg: str, only: str | None = None) -> list[dict[str, Any]]:
    """Every legal target's hit square in ``svg`` (or only ``only``'s): ``name``, its drawn
    centre ``cx``, ``cy`` and the square's ``side`` (CSS px, on a 2 px grid, up to CAP)."""
    return list(page.evaluate(MEASURE_JS, [svg, 2, CAP, only]))


# Whether the whole board is on screen and uncovered (its corners and bottom edge are its own).
UNCOVERED_JS = """(svgSel) => {
  const svg = document.querySelector(svgSel);
  const r = svg.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return false;
  const pts = [[r.left + 2, r.top + 2], [r.right - 2, r.top + 2], [r.left + 2, r.bottom - 2],
               [r.right - 2, r.bottom - 2], [(r.left + r.right) / 2, r.bottom - 2]];
  return pts.every(([x, y]) => svg.contains(document.elementFromPoint(x, y)));
}"""


DOCK_MAX = {"metro": 190, "nextstation": 270}
"""The tallest the pinned turn dock may be on a 390x844 phone (px) at a game's start: the
card or tile beside the instruction, the buttons in a row, so the board's bottom rows show
above it (Metro's was 289 px; Next Station's also lists the round's cards)."""


def dock_height(page: Page) -> float:
    box = page.locator("[data-testid=turn-dock]").bounding_box()
    assert box is not None
    return float(box["height"])


def board_in_view(page: Page, svg: str) -> None:
    """Scroll the board to the top of the screen; it must be whole and uncovered there, with
    the turn's instruction and buttons on screen too (no scrolling per turn)."""
    page.locator(svg).evaluate("(e) => e.scrollIntoView({block: 'start'})")
    assert page.evaluate(UNCOVERED_JS, svg), "the board is cut or covered"
    dock = ".turn-dock .card.current, .turn-dock .tile-btn"  # the current card or tile
    for what in (dock, "[data-testid=turn-help]", "#pass-btn, .turn-dock .tile-btn"):
        assert in_viewport(page, what), f"{what} is off screen with the board in view"


def tap_in_zoom(page: Page, name: str, sizes: Sizes) -> None:
    """In the open magnifier: measure ``name``'s hit square there, then tap its centre."""
    found = {m["name"]: m for m in measure(page, f"{ZOOM} svg", only=name)}
    assert name in found, (name, sorted(found))
    assert found[name]["side"] >= FINGER, found[name]
    if sizes.zoomed > 1e8:
        shot(page, f"phone-{sizes.game}-zoom", full_page=False)
    sizes.zoomed = min(sizes.zoomed, found[name]["side"])
    page.touchscreen.tap(found[name]["cx"], found[name]["cy"])
    expect(page.locator(ZOOM)).to_have_count(0)


def nearest(m: dict[str, Any], found: list[dict[str, Any]]) -> tuple[float, dict[str, Any] | None]:
    """The legal target of ``found`` nearest ``m`` (other than it) and its distance (CSS px)."""
    best: tuple[float, dict[str, Any] | None] = (1e9, None)
    for o in found:
        if o["name"] != m["name"]:
            d = ((o["cx"] - m["cx"]) ** 2 + (o["cy"] - m["cy"]) ** 2) ** 0.5
            best = min(best, (d, o), key=lambda x: x[0])
    return best


def check_targets(
    page: Page, svg: str, sizes: Sizes, choose: str, turn: int, tries: int = 4
) -> None:
    """Measure every legal target; ``tries`` of those under 44 px whose nearest legal
    neighbour is under 40 px away, spread over the board and shifted with ``turn``, open the
    magnifier when tapped halfway to that neighbour (both compete for the tap), closed again;
    then tap ``choose``'s centre: the magnifier opens only if another legal centre lies within
    half a finger of it (through the magnifier then), else the tap makes the move."""
    board_in_view(page, svg)
    found = measure(page, svg)
    crowded = [m for m in found if m["side"] < FINGER and nearest(m, found)[0] < FINGER - 4]
    crowded = [m for m in crowded if m["name"] != choose]
    stride = max(1, -(-len(crowded) // tries))
    tried = {m["name"] for m in crowded[turn % stride :: stride]}
    chosen = None
    for m in found:
        sizes.targets += 1
        sizes.smallest = min(sizes.smallest, m["side"])
        if m["name"] == choose:
            chosen = m
        if m["side"] >= FINGER:
            sizes.direct = min(sizes.direct, m["side"])
            continue
        sizes.crowded += 1
        if m["name"] not in tried:
            continue
        other = nearest(m, found)[1]
        assert other is not None
        page.touchscreen.tap((m["cx"] + other["cx"]) / 2, (m["cy"] + other["cy"]) / 2)
        expect(page.locator(ZOOM)).to_be_visible()
        assert in_viewport(page, ZOOM)
        page.locator(f"{ZOOM} .zoom-close").tap()
        expect(page.locator(ZOOM)).to_have_count(0)
    assert chosen is not None, (choose, [m["name"] for m in found])
    page.touchscreen.tap(chosen["cx"], chosen["cy"])
    apart = nearest(chosen, found)[0]
    if apart < FINGER / 2 - 2:
        expect(page.locator(ZOOM)).to_be_visible()
    elif apart > FINGER / 2 + 2:
        sizes.one_tap += chosen["side"] < FINGER
        expect(page.locator(ZOOM)).to_have_count(0)  # no extra tap where nothing competes
    if page.locator(ZOOM).count():
        tap_in_zoom(page, choose, sizes)


def next_station_turn(page: Page, sizes: Sizes, turn: int) -> None:
    """One Next Station turn by tapping: a station to circle, else a target (after a start
    when none is chosen), else circle-now or Pass."""
    svg = "svg.board-ns"
    step = step_of(page)
    for _ in range(8):
        if step_of(page) > step or page.locator(f"#pass-btn[disabled], {GAME_OVER}").count():
            break
        hits = page.locator(f"{svg} .layer-hits .hit").evaluate_all(
            "(es) => es.map((e) => [e.dataset.station || '', e.dataset.kind])"
        )
        for kind in ("circle", "target", "start"):
            of_kind = [n for n, k in hits if k == kind]
            if of_kind:
                check_targets(page, svg, sizes, of_kind[turn % len(of_kind)], turn)
                break
        else:
            button = "#circle-now-btn" if page.locator("#circle-now-btn").count() else "#pass-btn"
            page.locator(button).tap()
    wait_step_after(page, step)


def play_next_station_by_tapping(page: Page, server: str, game: str) -> Sizes:
    sizes = Sizes(game)
    create_game(page, server, game, "solo")
    page.wait_for_selector("svg.board-ns .hit")
    expect(page.locator("#pass-btn")).to_be_visible()
    assert in_viewport(page, "#pass-btn"), "Pass is off screen"
    box = page.locator("#pass-btn").bounding_box()
    assert box is not None and box["height"] >= FINGER
    assert not page.evaluate(LABELS_JS, "svg.board-ns")
    assert not clipped(page), clipped(page)
    assert dock_height(page) <= DOCK_MAX["nextstation"], dock_height(page)
    turn = 0
    while not page.locator(GAME_OVER).count():
        assert turn < 80, "the game did not end"
        if page.locator(".round-result button").count():
            page.locator(".round-result button").first.tap()
        if page.locator("#pass-btn:not([disabled])").count():
            if turn == 6:
                shot(page, f"phone-{game}-mid", full_page=False)
            next_station_turn(page, sizes, turn)
            turn += 1
        else:
            page.wait_for_selector(f"#pass-btn:not([disabled]), .round-result button, {GAME_OVER}")
    assert turn >= 20
    shot(page, f"phone-{game}-end")
    return sizes


def test_london_and_paris_by_tapping_on_a_phone(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    for game in ("london", "paris"):
        page = new_page(browser, errors, **PHONE)
        try:
            sizes = play_next_station_by_tapping(page, server, game)
            print(game, sizes)
            assert sizes.crowded < sizes.targets / 2, sizes  # most targets take one tap
            assert sizes.direct >= FINGER and sizes.zoomed >= FINGER, sizes
        finally:
            page.context.close()


def test_metro_by_tapping_on_a_phone(browser: Browser, server: str, errors: PageErrors) -> None:
    page = new_page(browser, errors, **PHONE)
    try:
        sizes = Sizes("metro")
        create_game(page, server, "metro", "bots", **{"player-count": "2"})
        svg = "svg.board-metro"
        page.wait_for_selector(f"{svg} .hit-square")
        assert not page.evaluate(LABELS_JS, svg)
        assert not clipped(page), clipped(page)
        assert dock_height(page) <= DOCK_MAX["metro"], dock_height(page)
        moves = 0
        while not page.locator(GAME_OVER).count():
            assert moves <= 30, "the game did not end"
            squares = page.locator(f"{svg} .hit-square")
            if not squares.count():
                page.wait_for_selector(f"{svg} .hit-square, {GAME_OVER}")
                continue
            step = step_of(page)
            names = squares.evaluate_all("(es) => es.map((e) => e.dataset.square || '')")
            check_targets(page, svg, sizes, names[moves * 7 % len(names)], moves)
            if moves == 1:
                shot(page, "phone-metro-early", full_page=False)
            wait_step_after(page, step)
            moves += 1
        assert moves == 30
        print("metro", sizes)
        assert sizes.direct >= FINGER and sizes.zoomed >= FINGER, sizes
        shot(page, "phone-metro-end")
    finally:
        page.context.close()
