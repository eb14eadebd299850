"""A player's name of 64 characters in one word (the most the API accepts) wraps on a
390x844 phone: the lobby, the table (seat tabs, turn line), the chat and the end screen
(headline, scores, sheets) stay as wide as the screen and nothing is clipped."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import call, play_through_api, shot
from browser.test_browser_i18n import PHONE, clipped

NAME = "W" * 64


def test_a_64_character_name_wraps_on_a_phone(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    seats = [{"name": NAME}, {"bot": "easy"}, {"bot": "easy"}]
    made = call(server, "POST", "/api/rooms", {"game": "london", "mode": "online", "seats": seats})
    room, token, host = made["room"]["room"], made["tokens"]["0"], made["host_token"]
    page = new_page(browser, errors, **PHONE)
    try:
        stored = {"tokens": {"0": token}, "host": host, "name": NAME}
        text = json.dumps(json.dumps(stored))  # the seat tokens, as the page keeps them
        page.add_init_script(f"localStorage.setItem('metrogames.room.{room}', {text})")
        page.goto(f"{server}/r/{room}")
        expect(page.locator("[data-testid=lobby-facts]")).to_be_visible()
        assert clipped(page) == []
        call(server, "POST", f"/api/rooms/{room}/chat", {"text": "X" * 200}, token)
        call(server, "POST", f"/api/rooms/{room}/start", {}, host)
        page.wait_for_selector(
            "svg.board-ns .hit", timeout=30_000
        )  # the start, pushed (slow under a loaded CI)
        expect(page.locator(".seat-tabs .tab").first).to_contain_text(NAME, timeout=30_000)
        assert clipped(page) == []
        play_through_api(server, room, token)
        expect(page.locator("[data-testid=game-over]")).to_be_visible()
        expect(page.locator("h3", has_text=NAME).first).to_be_visible()  # a final sheet
        assert clipped(page) == []
        shot(page, "long-name-end-phone")
    finally:
        page.context.close()
