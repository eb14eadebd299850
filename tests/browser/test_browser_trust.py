"""The client under the server's Content-Security-Policy, and long names: every page (home,
the daily challenge, a lobby, Next Station and Metro games, a game's end, a replay, a
leaderboard) runs with only the site's own scripts and styles — the page fixture fails a test
on any refusal reported on the console — and 64-character names without a break point wrap
instead of pushing the page wider than a phone's screen."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Page

from browser.conftest import PageErrors, new_page
from browser.helpers import call, finished_london, play_through_api, shot

LONG = "W" * 64
"""The longest name, wide letters and nowhere to break it."""


def visit(page: Page, url: str, ready: str) -> None:
    """Load ``url`` afresh (served with the security headers) and wait for ``ready``."""
    page.goto("about:blank")
    response = page.goto(url)
    assert response is not None and response.ok
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    page.wait_for_selector(ready)


def fits(page: Page, name: str) -> None:
    """The page is no wider than its screen; screenshot ``name``."""
    width = page.evaluate("document.documentElement.scrollWidth")
    screen = page.evaluate("document.documentElement.clientWidth")
    shot(page, name)
    assert width <= screen, f"{name}: the page is {width}px wide on a {screen}px screen"


def test_every_page_runs_under_the_policy_and_long_names_wrap(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    def room(game: str, mode: str, *seats: dict[str, str]) -> str:
        body = {"game": game, "mode": mode, "seats": list(seats)}
        made: str = call(server, "POST", "/api/rooms", body)["room"]["room"]
        return made

    hotseat = room("london", "hotseat", {"name": LONG}, {"name": "V" * 64})
    lobby = room("metro", "online", {"name": LONG}, {})
    metro = room("metro", "bots", {"name": LONG}, {"bot": "random"})
    finished = finished_london(server, LONG)
    player = call(server, "POST", "/api/players", {"name": LONG})
    today = call(server, "GET", "/api/daily")["date"]
    start = f"/api/daily/london/{today}/start"
    daily = call(server, "POST", start, {"share": True}, player["token"])["room"]
    play_through_api(server, daily, player["token"])
    pages = [
        ("/", "#create-form", "home"),
        ("/#/daily/london", "[data-testid=guests]", "leaderboard"),  # a guest: listed apart
        (f"/r/{lobby}", ".lobby-seat", "lobby"),
        (f"/r/{hotseat}", "svg.board-ns", "london"),
        (f"/r/{metro}", "svg.board-metro", "metro"),
        (f"/r/{finished}", "[data-testid=game-over]", "end"),
        (f"/#/replay/{finished}", "#replay-slider", "replay"),
    ]
    for width, height, screen in ((390, 844, "phone"), (1280, 900, "wide")):
        page = new_page(browser, errors, viewport={"width": width, "height": height})
        for path, ready, name in pages:
            visit(page, f"{server}{path}", ready)
            fits(page, f"long-names-{name}-{screen}")
        page.context.close()


def test_a_player_whose_time_ran_out_is_told_and_the_next_turn_has_its_clock(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    seats = [{"name": "Ada"}, {"name": "Bob"}]
    made = call(
        server,
        "POST",
        "/api/rooms",
        {"game": "london", "mode": "hotseat", "seats": seats, "turn_clock": 10},
    )
    room = made["room"]["room"]
    page = new_page(browser, errors)
    page.goto(f"{server}/")
    key, stored = f"metrogames.room.{room}", json.dumps({"tokens": made["tokens"]})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, stored])
    page.goto(f"{server}/r/{room}")
    page.wait_for_selector("svg.board-ns")
    notice = page.wait_for_selector("[data-testid=timeout-notice]", timeout=20_000)
    assert notice is not None and "Your time ran out: you passed" in notice.inner_text()
    left = page.inner_text("#clock")
    assert left.endswith(" s") and 0 < int(left[:-2]) <= 10, left
    shot(page, "timeout-notice")
    assert errors == []
