"""Accounts in the browser: signing up on the home page (an HttpOnly SameSite cookie the page
cannot read), the midnight rule shown before the start, today's ranked London game played by
clicking, the account on the day's leaderboard, its profile, and an online room's lobby
showing the account's rating (and a second account's, who joins signed in)."""

from __future__ import annotations

import re
import sqlite3

from playwright.sync_api import Browser, Page, expect

from browser.conftest import DATABASES, PageErrors, new_page
from browser.helpers import GAME_OVER, create_game, play_next_station, shot

CARD = ".daily-card[data-daily-game=london]"
MIDNIGHT = "ends before midnight UTC (24:00) of that day"


def made_yesterday(server: str, name: str) -> None:
    """Date the account ``name`` of the test server a day back (its database, directly)."""
    with sqlite3.connect(DATABASES[server]) as db:
        db.execute("UPDATE accounts SET created = created - 86400 WHERE name = ?", (name,))


def test_sign_up_play_a_ranked_daily_game_and_find_the_account_on_the_board(
    page: Page, server: str, browser: Browser, errors: PageErrors
) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("#account-name")
    expect(page.locator("[data-testid=guest-note]")).to_contain_text("guests are listed apart")
    page.fill("#account-name", "Ann Account")
    page.fill("#account-password", "short")
    page.click("#sign-up")
    expect(page.locator("[data-testid=account-error]")).to_contain_text("at least 8 characters")
    shot(page, "account-sign-in-form")
    page.fill("#account-password", "a long enough password")
    page.click("#sign-up")
    expect(page.locator("[data-testid=signed-in]")).to_contain_text("Ann Account")
    # the session is an HttpOnly, SameSite=Lax cookie: the page's scripts never see it
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["metrogames_session"]
    assert session["httpOnly"] is True and session["sameSite"] == "Lax"
    assert "metrogames_session" not in page.evaluate("document.cookie")
    # the midnight rule is shown before the start; signed in, no guest note, no name prompt
    expect(page.locator("[data-testid=midnight-rule]")).to_contain_text(MIDNIGHT)
    expect(page.locator("[data-testid=account-rule]")).to_contain_text(
        "ranks accounts made before today's deal opened"
    )
    expect(page.locator("[data-testid=guest-note]")).to_have_count(0)
    # an account made today ranks from tomorrow's deal: this one is dated the day before
    made_yesterday(server, "Ann Account")
    card = page.locator(CARD)
    expect(card).to_have_attribute("data-status", "new")
    card.locator(".daily-share").check()
    shot(page, "account-home-signed-in")

    card.locator(".daily-play").click()
    page.wait_for_url(re.compile(r"#/daily/london/\d{4}-\d{2}-\d{2}/r/[a-z0-9]+$"))
    expect(page.locator("dialog.name-dialog")).to_have_count(0)
    page.wait_for_selector("svg.board-ns .hit")
    # a reload continues the game with the seat token the start gave this browser
    page.reload()
    page.wait_for_selector("svg.board-ns .hit")
    play_next_station(page, use_powers=False)
    expect(page.locator(GAME_OVER)).to_be_visible()
    expect(page.locator("[data-testid=result-rank]")).to_have_text(
        re.compile(r"^1 of \d+ on the accounts' leaderboard$")
    )
    shot(page, "account-daily-result")

    page.click("#leaderboard-link")
    mine = page.locator("[data-testid=leaderboard] tr.mine")
    expect(mine).to_contain_text("Ann Account")
    expect(page.locator(".best-list")).to_contain_text("Ann Account")
    shot(page, "account-on-the-leaderboard")
    # the name on the board leads to the account's profile
    mine.locator("a.profile-link").click()
    expect(page.locator("[data-testid=profile-name]")).to_have_text("Ann Account")

    # the profile, also from the home page: no rating yet, today's daily game with its rank
    page.goto(f"{server}/")
    expect(page.locator(CARD)).to_have_attribute("data-status", "played")
    page.click("#profile-link")
    expect(page.locator("[data-testid=profile-name]")).to_have_text("Ann Account")
    expect(page.locator("[data-testid=profile-daily] tbody tr")).to_have_count(1)
    expect(page.locator("main")).to_contain_text("No rated game yet")
    shot(page, "account-profile")

    # an online room's lobby ties the host's seat to the account and shows its rating
    # signed in, the new-game form asks no name: the host plays as the account
    page.goto(f"{server}/")
    page.check("input[name=mode][value=online]")
    expect(page.locator("[data-testid=playing-as]")).to_have_text("Playing as Ann Account.")
    expect(page.locator("#your-name")).to_have_count(0)
    create_game(page, server, "london", "online", name="")
    expect(page.locator(".lobby-seat[data-seat='0'] .pname")).to_have_text("Ann Account")
    ratings = page.locator("[data-testid=lobby-ratings]")
    expect(ratings).to_contain_text("Ann Account")
    expect(ratings.locator("li[data-seat='0']")).to_contain_text("Ann Account — not rated yet")
    expect(ratings.locator("li[data-seat='1']")).to_have_text("Seat 2: open seat")  # no "— —"
    # a player who joins signed in shows in the host's lobby with the account, not as a guest
    guest = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        guest.goto(f"{server}/")
        r = guest.request.post(
            f"{server}/api/accounts", data={"name": "Bea Account", "password": "a long password"}
        )
        assert r.status == 201, r.text()
        guest.goto(page.url)
        expect(guest.locator("[data-testid=playing-as]")).to_have_text("Playing as Bea Account.")
        expect(guest.locator("#join-name")).to_have_count(0)
        guest.click("[data-join='1']")
        expect(guest.locator(".lobby-seat[data-seat='1'] .pname")).to_have_text("Bea Account")
        expect(guest.locator(".lobby-seat[data-seat='1']")).to_contain_text("you")
        expect(ratings.locator("li[data-seat='1']")).to_contain_text("Bea Account — not rated yet")
    finally:
        guest.context.close()
    shot(page, "account-lobby-ratings")

    page.goto(f"{server}/")
    page.click("#sign-out")
    expect(page.locator("#account-name")).to_be_visible()
    assert "metrogames_session" not in {c["name"] for c in page.context.cookies()}
