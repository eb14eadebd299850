"""Playing by clicking: what a person does with the highlighted stations and squares."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

GAME_OVER = "[data-testid=game-over]"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot to ``test-artifacts/{name}.png``."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """An API request to the server at ``base``; the decoded answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"{base}{path}", data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.load(res)


def play_through_api(base: str, room: str, *tokens: str, timeout: float = 60.0) -> None:
    """Play the seats of ``tokens`` in a started room to the game's end through the API: the
    last legal action on each of their turns (a Next Station section whenever one can be
    drawn, else Pass), waiting for the other seats (bots) in between; a move refused because
    another seat moved the room on meanwhile (409) is made again from the new view.
    ``timeout``: seconds until the game must be over (an ``AssertionError`` otherwise)."""
    deadline = time.monotonic() + timeout
    while True:
        acted = False
        for token in tokens:
            view = call(base, "GET", f"/api/rooms/{room}/view", token=token)
            if view["status"] == "finished":
                return
            assert time.monotonic() < deadline, f"room {room} not over at step {view['step']}"
            if view["you"] in view["to_move"]:
                action = view["legal"][-1] if view["legal"] else "pass"
                body = {"action": action, "step": view["step"]}
                try:
                    call(base, "POST", f"/api/rooms/{room}/actions", body, token)
                except urllib.error.HTTPError as exc:
                    if exc.code != 409:
                        raise
                acted = True
        if not acted:
            time.sleep(0.05)  # the bots' turn: ask again (no event to wait on over HTTP)


def seat_tokens(page: Page, room: str) -> dict[str, str]:
    """The seat tokens the page keeps for ``room`` (its localStorage), by seat."""
    stored = page.evaluate(f"localStorage.getItem('metrogames.room.{room}')")
    tokens: dict[str, str] = json.loads(stored)["tokens"]
    return tokens


def finished_london(base: str, name: str = "Ada") -> str:
    """A solo London game of ``name`` played through the API; its room."""
    seats = [{"name": name}]
    res = call(base, "POST", "/api/rooms", {"game": "london", "mode": "solo", "seats": seats})
    room: str = res["room"]["room"]
    play_through_api(base, room, res["tokens"]["0"])
    return room


def step_of(page: Page) -> int:
    value = page.evaluate("document.body.dataset.step || '-1'")
    return int(value)


def wait_step_after(page: Page, step: int, timeout: float = 15.0) -> None:
    """Wait until the page shows a later step (or the end of the game)."""
    page.wait_for_function(
        "(s) => Number(document.body.dataset.step || -1) > s"
        " || document.body.dataset.status === 'finished'",
        arg=step,
        timeout=timeout * 1000,
    )


def create_game(page: Page, base: str, game: str, mode: str, **choices: str) -> str:
    """Fill the home page's form and start; returns the room id. A signed-in player's form has
    no name to fill (it plays as the account): pass ``name=""`` for it."""
    page.goto(f"{base}/")
    page.wait_for_selector("#create-form")
    page.check(f"input[name=game][value={game}]")
    page.check(f"input[name=mode][value={mode}]")
    name = choices.pop("name", "Ada")
    if name:
        page.fill("#your-name", name)
    for selector, value in choices.items():
        page.select_option(f"#{selector}", value)
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def try_click(page: Page, selector: str) -> bool:
    """Click the first match unless the page re-rendered it away meanwhile."""
    try:
        page.locator(selector).first.click(timeout=1500)
    except PlaywrightTimeoutError:
        return False
    return True


def next_station_move(page: Page, *, use_powers: bool = True) -> bool:
    """Make one Next Station turn by clicking, if it is this page's turn; True if it acted.

    The choice is always among what the page highlights: a target station (after clicking a
    start when needed), a station to circle, the power buttons, or Pass.
    """
    if page.locator(GAME_OVER).count():
        return False
    if page.locator(".round-result button").count():
        try_click(page, ".round-result button")
    if not page.locator("#pass-btn").count():
        return False
    step = step_of(page)
    if use_powers:
        power = "button.power[aria-pressed=false]"
        if page.locator(power).count() and step % 3 == 0:
            try_click(page, power)
    for _ in range(8):
        if step_of(page) > step or page.locator("#pass-btn[disabled]").count():
            break  # done, or sending: wait for the next view
        for selector in (
            ".hit-circle",
            ".hit-target",
            ".hit-start",
            "#circle-now-btn",
            "#pass-btn",
        ):
            if page.locator(selector).count():
                try_click(page, selector)
                break
        else:
            break
    wait_step_after(page, step)
    return True


def play_next_station(page: Page, *, max_turns: int = 80, use_powers: bool = True) -> int:
    """Play a whole Next Station game alone; returns the number of turns played."""
    turns = 0
    while not page.locator(GAME_OVER).count():
        assert turns < max_turns, "the game did not end"
        if next_station_move(page, use_powers=use_powers):
            turns += 1
        else:
            page.wait_for_selector(f"#pass-btn, {GAME_OVER}")
    return turns


def metro_move(page: Page) -> bool:
    """Place the tile on the first highlighted square, if it is this page's turn."""
    if page.locator(GAME_OVER).count():
        return False
    squares = page.locator(".hit-square")
    if not squares.count():
        return False
    step = step_of(page)
    squares.first.click()
    wait_step_after(page, step)
    return True


OVERLAPS_JS = """() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => {
    const r = e.getBoundingClientRect();
    const what = (e.closest("[data-section]") || e.closest(".line-letter") || e).outerHTML.slice(0, 120);
    return { sel, what, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
  });
  const marks = boxes("svg.board-ns .line-letter circle");
  const labels = [...boxes("svg.board-ns .departure-letter"), ...boxes("svg.board-ns .river-name")];
  const hit = (a, b) => a.x0 < b.x1 - 1 && b.x0 < a.x1 - 1 && a.y0 < b.y1 - 1 && b.y0 < a.y1 - 1;
  const out = [];
  marks.forEach((a, i) => marks.slice(i + 1).forEach((b) => { if (hit(a, b)) out.push([a, b]); }));
  labels.forEach((a) => marks.forEach((b) => { if (hit(a, b)) out.push([a, b]); }));
  return out.map(([a, b]) => `${a.what} @${Math.round(a.x0)},${Math.round(a.y0)} / ${b.what} @${Math.round(b.x0)},${Math.round(b.y0)}`);
}"""
"""Lists pairs of line markers that overlap, and of labels (departure letters, the river's
name) that a line marker covers, on the Next Station board of the page."""


def overlaps(page: Page) -> list[str]:
    """The marker/marker and label/marker pairs that overlap on the page's Next Station map
    (each described by its elements and positions)."""
    return list(page.evaluate(OVERLAPS_JS))


def in_viewport(page: Page, selector: str) -> bool:
    """Whether the first match of ``selector`` lies wholly inside the page's viewport."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None, selector
    return (
        box["y"] >= 0
        and box["y"] + box["height"] <= size["height"] + 0.5
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
    )


CONTRAST_JS = """(sel) => {
  const el = document.querySelector(sel);
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  let back = el;
  while (back && rgb(getComputedStyle(back).backgroundColor)[3] === 0) back = back.parentElement;
  const bg = back ? rgb(getComputedStyle(back).backgroundColor) : [255, 255, 255];
  const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def contrast(page: Page, selector: str) -> float:
    """The WCAG contrast ratio of the first match of ``selector``: its text colour against
    the background of its nearest ancestor (or itself) that has one."""
    return float(page.evaluate(CONTRAST_JS, selector))
