"""The lobby of open tables in the browser, two real browser contexts: a stranger watching
the lobby page sees a host's listed table appear live (no reload), joins it from there and
takes a seat; the table leaves the lobby once full; an unlisted table never shows."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import shot


def online_room(
    page: Page, server: str, game: str, name: str, listed: bool, seats: str = "2", clock: str = ""
) -> str:
    """An online room made on the home page, listed in the lobby or not; its id."""
    page.goto(f"{server}/")
    page.check(f"input[name=game][value={game}]")
    page.check("input[name=mode][value=online]")
    page.fill("#your-name", name)
    page.select_option("#player-count", seats)
    page.select_option("#turn-clock", clock)
    page.set_checked("#listed", listed)
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def join_from_lobby(
    page: Page, server: str, room: str, name: str, seat: int, reload: bool = True
) -> None:
    """Join ``room`` from the lobby page (opened first unless ``reload`` is false) at ``seat``."""
    if reload:
        page.goto(f"{server}/#/lobby")
    page.click(f"[data-join-room='{room}']")
    page.wait_for_url(f"**/r/{room}")
    page.fill("#join-name", name)
    page.click(f"[data-join='{seat}']")
    expect(page.locator(f".lobby-seat[data-seat='{seat}']")).to_contain_text("you")


def test_a_host_lists_a_table_and_a_stranger_joins_it_from_the_lobby(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    stranger = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    host = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        stranger.goto(f"{server}/")
        stranger.click("[data-testid=lobby-link]")
        stranger.wait_for_url("**/#/lobby")
        expect(stranger.locator("[data-testid=lobby-status]")).to_have_text("live")
        expect(stranger.locator("[data-testid=lobby-empty]")).to_be_visible()

        online_room(host, server, "london", "Hidden", listed=False)  # link only
        room = online_room(host, server, "metro", "Ada", listed=True, seats="3", clock="60")

        entry = stranger.locator(f".lobby-entry[data-room='{room}']")
        expect(entry).to_be_visible()  # pushed: the page was not reloaded
        expect(stranger.locator(".lobby-entry")).to_have_count(1)  # not the unlisted one
        expect(entry).to_contain_text("Metro")
        expect(entry).to_contain_text("2 seats free of 3")
        expect(entry).to_contain_text("host: Ada")
        expect(entry).to_contain_text("60 s per turn")  # as the room page says it
        stranger.select_option("#lobby-game", "london")  # filtered out
        expect(stranger.locator("[data-testid=lobby-empty]")).to_be_visible()
        stranger.select_option("#lobby-game", "metro")
        expect(entry).to_be_visible()
        shot(stranger, "lobby-open-table")

        watcher = host.context.new_page()  # the host's own second tab watches the lobby
        watcher.goto(f"{server}/#/lobby")
        watched = watcher.locator(f".lobby-entry[data-room='{room}']")
        expect(watched).to_contain_text("2 seats free of 3")

        join_from_lobby(stranger, server, room, "Bob", 1, reload=False)
        expect(host.locator(".lobby-seat[data-seat='1']")).to_contain_text("Bob")
        expect(watched).to_contain_text("1 seat free of 3")

        third = new_page(browser, errors, viewport={"width": 1280, "height": 900})
        try:
            join_from_lobby(third, server, room, "Cy", 2)
        finally:
            third.context.close()
        expect(watched).to_have_count(0)  # full: gone at once
        expect(watcher.locator("[data-testid=lobby-empty]")).to_be_visible()
        host.click("#start-btn")
        host.wait_for_selector("svg")
    finally:
        stranger.context.close()
        host.context.close()
