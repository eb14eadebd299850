"""Play now in the browser, two real browser contexts: two strangers (two accounts: play now
knows a guest by its address, and both browsers here share one) ask for a two-player London
game from the home page, wait, are seated at the same table and finish the game; a player
alone is offered the table with bots, takes it, and can cancel a request."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page, serving
from browser.helpers import GAME_OVER, next_station_move, play_through_api, seat_tokens, shot


def signed_up(page: Page, server: str) -> None:
    """The page's browser signed in to a new account (the context keeps the cookie)."""
    name = "Stranger " + secrets.token_hex(3)
    r = page.context.request.post(
        f"{server}/api/accounts", data={"name": name, "password": "long enough"}
    )
    assert r.status == 201, r.text()


def ask(
    page: Page, server: str, game: str, players: str, clock: str = "live", wait: bool = True
) -> None:
    """From the home page's "Play now" door: ask for a table; see the waiting screen
    (``wait``; else the table may already be there)."""
    page.goto(f"{server}/")
    page.locator("[data-way=play-now]").click()
    page.wait_for_url("**/#/play-now")
    page.select_option("#quick-game", game)
    page.select_option("#quick-players", players)
    page.check(f"input[name=quick-clock][value={clock}]")
    page.click("#quick-go")
    if wait:
        expect(page.locator("[data-testid=quick-waiting]")).to_be_visible()


def room_of(page: Page) -> str:
    page.wait_for_url("**/r/*", timeout=20_000)
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def test_two_strangers_meet_through_play_now_and_finish_a_game(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    ann = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    bob = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        for page in (ann, bob):
            signed_up(page, server)
        ann.goto(f"{server}/")
        expect(ann.locator("[data-way=play-now]")).to_be_visible()
        shot(ann, "quick-home")
        ask(ann, server, "london", "2")
        expect(ann.locator("[data-testid=quick-waiting]")).to_contain_text("London")
        expect(ann.locator("[data-testid=quick-offer]")).to_have_count(0)  # 30 s away
        shot(ann, "quick-waiting")
        ask(bob, server, "london", "2", wait=False)  # Ann waits: Bob is seated at once
        room = room_of(ann)
        assert room_of(bob) == room
        for page in (ann, bob):
            page.wait_for_selector("svg.board-ns")
        tokens = {**seat_tokens(ann, room), **seat_tokens(bob, room)}
        assert sorted(tokens) == ["0", "1"], tokens  # one seat each, its token in the page
        for _ in range(2):  # a couple of turns by clicking, together
            next_station_move(ann, use_powers=False)
            next_station_move(bob, use_powers=False)
        shot(bob, "quick-table")
        play_through_api(server, room, tokens["0"], tokens["1"])
        for page in (ann, bob):
            expect(page.locator(GAME_OVER)).to_be_visible()
    finally:
        ann.context.close()
        bob.context.close()


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server offering the bots after two seconds of waiting."""
    with serving(tmp_path_factory, METROGAMES_QUICKMATCH_BOTS_AFTER="2") as base:
        yield base


@pytest.mark.parametrize("lang", ["en", "fr", "nl", "sk"])
def test_a_lonely_player_is_offered_bots_and_may_cancel(
    browser: Browser, quick_server: str, errors: PageErrors, lang: str
) -> None:
    server = quick_server
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    page.context.add_init_script(f"localStorage.setItem('metrogames.lang', '{lang}')")
    catalog = page.context.request.get(f"{server}/i18n/{lang}.json").json()
    try:
        signed_up(page, server)
        ask(page, server, "paris", "3")
        page.click("#quick-cancel")
        expect(page.locator("[data-testid=quick-form]")).to_be_visible()
        page.click("#quick-go")  # asked again: the same choices are kept
        offer = page.locator("[data-testid=quick-offer]")
        expect(offer).to_be_visible(timeout=10_000)
        expect(offer).to_contain_text(catalog["quick.offer"])
        expect(page.locator("#quick-cancel")).to_have_text(catalog["quick.cancel"])
        shot(page, f"quick-offer-{lang}")
        page.click("#quick-bots")
        room = room_of(page)
        page.wait_for_selector("svg.board-ns")
        seats = page.context.request.get(f"{server}/api/rooms/{room}").json()["seats"]
        assert [s["kind"] for s in seats] == ["human", "bot", "bot"]
        assert list(seat_tokens(page, room)) == ["0"]
    finally:
        page.context.close()
