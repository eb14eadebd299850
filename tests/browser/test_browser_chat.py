"""The table chat in the browser: two players of an online room chat, each sees the other's
message live, markup shows as text (never run), and the chat is there again after a reload."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import create_game, shot


def test_two_players_chat_at_an_online_table(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    host = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    guest = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True)
    room = create_game(host, server, "london", "online", **{"player-count": "2"})
    guest.goto(f"{server}/r/{room}")
    expect(guest.locator("[data-testid=chat-readonly]")).to_be_visible()  # not seated yet
    expect(guest.locator("[data-testid=chat-input]")).to_be_hidden()
    guest.fill("#join-name", "Bob")
    guest.click("[data-join='1']")
    expect(guest.locator(".lobby-seat[data-seat='1']")).to_contain_text("you")
    expect(guest.locator("[data-testid=chat-input]")).to_be_visible()
    # in the lobby already: the host says hello, the guest sees it live
    host.fill("[data-testid=chat-input]", "Hello Bob, ready?")
    host.click("[data-testid=chat-send]")
    guest_log = guest.locator("[data-testid=chat-log] li")
    expect(guest_log).to_have_count(1)
    expect(guest_log.first).to_contain_text("Ada: Hello Bob, ready?")
    host.click("#start-btn")
    guest.wait_for_selector("svg.board-ns .hit")
    # markup is text: shown as written, no element made, nothing run
    attack = "<img src=x onerror=alert(1)><b>bold?</b>"
    guest.fill("[data-testid=chat-input]", attack)
    guest.press("[data-testid=chat-input]", "Enter")
    host_log = host.locator("[data-testid=chat-log] li")
    expect(host_log).to_have_count(2)
    expect(host_log.nth(1).locator(".chat-text")).to_have_text(attack)
    assert host.locator("[data-testid=chat-log] img, [data-testid=chat-log] b").count() == 0
    expect(guest.locator("[data-testid=chat-input]")).to_have_value("")
    # a refused message says why and sends nothing
    host.fill("[data-testid=chat-input]", "left to right")
    host.evaluate("document.querySelector('[data-testid=chat-input]').value += '\\u202e'")
    host.click("[data-testid=chat-send]")
    expect(host.locator(".toast").last).to_contain_text("bidi control")
    expect(guest_log).to_have_count(2)
    shot(host, "chat-host")
    shot(guest, "chat-guest-phone")
    guest.reload()
    expect(guest.locator("[data-testid=chat-log] li")).to_have_count(2)
    expect(guest.locator("[data-testid=chat-log] li").first).to_contain_text("Hello Bob")
    host.context.close()
    guest.context.close()
