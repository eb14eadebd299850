"""Now playing in the browser, two real browser contexts: one person plays a listed online
table (against a bot); a stranger finds the game on the now playing page — reached from the
home page — sees it live, watches it as a spectator and is counted: the player's room says
"1 watching", and so does the list, pushed without a reload. A profile links each of its
finished games to the replay viewer."""

from __future__ import annotations

import secrets

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import call, play_through_api, shot


def listed_game_with_a_bot(page: Page, server: str) -> str:
    """A listed online London table of two, the second seat a bot's, made on the home page and
    started; its room id."""
    page.goto(f"{server}/")
    page.check("input[name=game][value=london]")
    page.check("input[name=mode][value=online]")
    page.fill("#your-name", "Ada")
    page.select_option("#player-count", "2")
    seat = page.locator("select[data-seat='1']")
    bot = seat.locator("option").nth(1).get_attribute("value")
    assert bot and bot != "human"
    seat.select_option(bot)
    page.set_checked("#listed", True)
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    room = page.url.rstrip("/").rsplit("/", 1)[-1]
    page.click("#start-btn")
    page.wait_for_selector("svg")
    return room


def test_a_stranger_finds_a_game_in_now_playing_watches_it_and_is_counted(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    stranger = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    player = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        stranger.goto(f"{server}/")
        stranger.click("[data-testid=watch-link]")
        stranger.wait_for_url("**/#/watch")
        expect(stranger.locator("[data-testid=watch-status]")).to_have_text("live")

        room = listed_game_with_a_bot(player, server)
        entry = stranger.locator(f"[data-testid=watch-recent] .lobby-entry[data-room='{room}']")
        expect(entry).to_be_visible(timeout=15000)  # pushed: the page was not reloaded
        expect(entry).to_contain_text("London")
        expect(entry).to_contain_text("Ada")
        expect(entry).to_contain_text("0 watching")
        expect(stranger.locator(f"[data-testid=watch-top] .lobby-entry[data-room='{room}']")).to_be_visible()
        expect(player.locator("[data-testid=spectators]")).to_be_hidden()

        # the stranger watches in a second tab; the list in the first counts them, live
        tab = stranger.context.new_page()
        tab.goto(f"{server}/#/watch")
        tab.click(f"[data-testid=watch-recent] [data-watch-room='{room}']")
        tab.wait_for_url(f"**/r/{room}")
        tab.wait_for_selector("svg")
        expect(tab.locator("[data-testid=spectators]")).to_have_text("1 watching · you are watching")
        expect(player.locator("[data-testid=spectators]")).to_have_text("1 watching")
        expect(entry).to_contain_text("1 watching", timeout=15000)
        # a spectator sees no seat's moves to make: no legal target on its board
        assert tab.evaluate("document.body.dataset.status") == "playing"
        shot(tab, "watch-spectator")
        shot(player, "watch-player-counted")
        shot(stranger, "watch-now-playing")

        tab.close()
        expect(player.locator("[data-testid=spectators]")).to_be_hidden(timeout=15000)
        expect(entry).to_contain_text("0 watching", timeout=15000)
    finally:
        stranger.context.close()
        player.context.close()


def test_a_profile_links_each_finished_game_to_its_replay(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{server}/")
        name = f"Fin {secrets.token_hex(3)}"
        r = page.request.post(f"{server}/api/accounts", data={"name": name, "password": "a long password"})
        assert r.status == 201, r.text()
        account = r.json()["account"]
        seats = [{"name": name}, {"bot": "random"}]
        made = call(server, "POST", "/api/rooms", {"game": "metro", "mode": "online", "seats": seats})
        room, token = made["room"]["room"], made["tokens"]["0"]
        linked = page.request.post(
            f"{server}/api/rooms/{room}/seats/0/account",
            headers={"Authorization": f"Bearer {token}"},
            data={},
        )
        assert linked.status == 200, linked.text()
        call(server, "POST", f"/api/rooms/{room}/start", {}, made["host_token"])
        play_through_api(server, room, token)

        page.goto(f"{server}/#/u/{account}")
        finished = page.locator("[data-testid=finished-games]")
        expect(finished.locator(f"[data-replay='{room}']")).to_be_visible()
        expect(finished).to_contain_text("Metro")
        shot(page, "watch-profile-finished")
        finished.locator(f"[data-replay='{room}']").click()
        page.wait_for_url(f"**/#/replay/{room}")
        expect(page.locator("[data-testid=replay-counter]")).to_contain_text("step 1 of")
    finally:
        page.context.close()
