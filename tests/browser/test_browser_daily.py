"""The daily challenge in the browser: today's London game played by clicking, the result panel,
the player on the day's leaderboard, one ranked attempt, and a closed day replayed as practice
on a phone-sized screen."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import GAME_OVER, next_station_move, play_next_station, shot, step_of

CARD = ".daily-card[data-daily-game={}]"


def _fetch(page: Page, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """A request from the page with the stored player token: ``{"status", "body"}``."""
    result: dict[str, Any] = page.evaluate(
        """async ([method, path, body]) => {
            const me = JSON.parse(localStorage.getItem("metrogames.player"));
            const res = await fetch(path, {method, headers: {"Content-Type": "application/json",
                Authorization: `Bearer ${me.token}`}, body: body === null ? undefined : JSON.stringify(body)});
            return {status: res.status, body: await res.json()};
        }""",
        [method, path, body],
    )
    return result


def test_daily_london_by_clicking_then_on_the_leaderboard(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    card = page.locator(CARD.format("london"))
    expect(card).to_have_attribute("data-status", "new")
    expect(card.locator(".daily-share")).not_to_be_checked()  # sharing is opt-in
    card.locator(".daily-share").check()
    expect(page.locator(CARD.format("paris"))).to_contain_text("Not played yet")
    date = page.locator("[data-testid=daily-date]").get_attribute("datetime") or ""
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)
    expect(page.locator(".daily .countdown")).to_contain_text(re.compile(r"\d+ (h|min)"))
    shot(page, "daily-home")

    card.locator(".daily-play").click()
    expect(page.locator("dialog.name-dialog")).to_be_visible()
    page.fill("#daily-name", "Ada Daily")
    shot(page, "daily-name-prompt", full_page=False)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"#/daily/london/{date}/r/[a-z0-9]+$"))
    room = page.url.rsplit("/", 1)[-1]
    page.wait_for_selector("svg.board-ns .hit")
    expect(page.locator(".room-header .daily-link")).to_be_visible()
    expect(page.locator(".room-header .mode")).to_have_text("Daily challenge")  # not "daily"
    # a ranked game: no Hint button (the server would refuse it), the panel says why
    expect(page.locator("[data-testid=hints-off]")).to_contain_text("No hints in a ranked")
    expect(page.locator("#hint-btn")).to_have_count(0)
    shot(page, "daily-game")
    for _ in range(3):
        next_station_move(page, use_powers=False)
    step = step_of(page)

    # a reload continues the same game; a second start returns the same room
    page.reload()
    page.wait_for_selector("svg.board-ns .hit")
    page.wait_for_function("(s) => Number(document.body.dataset.step || -1) >= s", arg=step)
    assert page.url.endswith(f"/r/{room}")
    again = _fetch(page, "POST", f"/api/daily/london/{date}/start", {"share": False})
    assert again == {"status": 200, "body": {"room": room, "ranked": True, "token": None}}

    play_next_station(page, use_powers=False)
    expect(page.locator(GAME_OVER)).to_be_visible()
    # nor an analysis before the day closes: the end screen says when it comes
    expect(page.locator("[data-testid=analysis-later]")).to_contain_text("once its day has closed")
    expect(page.locator("#analyse-btn")).to_have_count(0)
    result = page.locator("[data-testid=daily-result] .facts")
    expect(result).to_be_visible()
    truth = _fetch(page, "GET", f"/api/daily/london/{date}/result")["body"]
    expect(page.locator("[data-testid=result-score]")).to_have_text(str(truth["score"]))
    total = page.locator(".final-sheet [data-testid=sheet-total]").inner_text()
    assert int(total) == truth["score"]
    # rank and percentile are of one population, the guests' list, and each names it
    assert truth["board"] == "guests"
    expect(page.locator("[data-testid=result-rank]")).to_have_text(
        f"{truth['rank']} of {truth['of']} on the guests' list"
    )
    pct = truth["percentile"]
    expect(page.locator("[data-testid=result-percentile]")).to_have_text(
        f"{pct:.0f} — ahead of {pct:.0f}% of the games on the guests' list"
        " (yours counted, ties count half)"
    )
    expect(result).to_contain_text(f"band {truth['rating']['band']}")
    expect(result).to_contain_text(truth["rating"]["range"])
    expect(result).to_contain_text(f"{truth['bot']['score']} on the same deal")
    shot(page, "daily-result")

    # nobody else sees today's game (its flipped cards are the deal); its player replays it
    spectator = page.evaluate(
        "async (room) => (await fetch(`/api/rooms/${room}/replay`)).status", room
    )
    assert spectator == 409
    page.click("#replay-btn")
    expect(page.locator("[data-testid=replay-counter]")).to_contain_text("step 1 of")
    page.go_back()
    expect(result).to_be_visible()

    # the attempt is used: a new start is refused
    used = _fetch(page, "POST", f"/api/daily/london/{date}/start", {"share": True})
    assert used["status"] == 409 and used["body"]["reason"] == "attempt-used"

    # a guest is ranked on the guests list, apart from the accounts' leaderboard
    assert truth["board"] == "guests"
    page.click("#leaderboard-link")
    page.wait_for_url(f"**#/daily/london/{date}")
    mine = page.locator("[data-testid=guests] tr.mine")
    expect(mine).to_contain_text("Ada Daily")
    expect(mine.locator("td").nth(2)).to_have_text(str(truth["score"]))
    expect(mine.locator("td.rank")).to_have_text(str(truth["rank"]))
    expect(page.locator("[data-testid=leaderboard] tr.mine")).to_have_count(0)
    expect(page.locator("[data-testid=streak]")).to_have_text("1 day")
    expect(page.locator(".best")).not_to_contain_text("Ada Daily")
    expect(page.locator("#my-game-link")).to_be_visible()
    shot(page, "daily-leaderboard")

    # keyboard: the previous day is one Tab stop and Enter away
    page.locator("#prev-day").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**#/daily/london/*")
    expect(page.locator(".day-panel")).to_contain_text("closed")
    page.locator("#today-link").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**#/daily/london/{date}")

    page.goto(f"{server}/")
    expect(page.locator(CARD.format("london"))).to_have_attribute("data-status", "played")
    expect(page.locator(CARD.format("london"))).to_contain_text(f"{truth['score']} points")
    page.locator("#token-panel summary").click()
    token = page.evaluate("JSON.parse(localStorage.getItem('metrogames.player')).token")
    expect(page.locator("#my-token")).to_have_value(token)
    shot(page, "daily-home-played")


def test_daily_closed_day_practice_and_token_on_a_phone(
    browser: Browser, errors: PageErrors, server: str
) -> None:
    page = new_page(browser, errors, viewport={"width": 390, "height": 844}, accept_downloads=True)
    try:
        page.goto(f"{server}/#/daily/paris")
        page.wait_for_selector(".day-panel")
        today = page.locator(".date-now time").get_attribute("datetime") or ""
        expect(page.locator(".day-panel")).to_contain_text("closes in")
        # tomorrow is not reachable; yesterday is closed, with its deal published
        expect(page.locator("#next-day")).to_have_attribute("aria-disabled", "true")
        page.click("#prev-day")
        expect(page.locator(".day-panel")).to_contain_text("closed")
        expect(page.locator("[data-testid=deal-seed]")).to_have_text(re.compile(r"^\d+$"))
        yesterday = page.url.rsplit("/", 1)[-1]
        assert yesterday < today
        shot(page, "daily-closed-day-phone")
        with page.expect_download() as download:
            page.click("#deal-download")
        deal = json.loads(download.value.path().read_text(encoding="utf-8"))
        assert deal["game"] == "paris" and len(deal["rounds"]) == 4
        assert (
            str(deal.get("seed", deal["meta"]["seed"]))
            == page.locator("[data-testid=deal-seed]").inner_text()
        )

        # practice: a new player (name asked), a new unranked room each time
        page.click("#practice-btn")
        page.fill("#daily-name", "Bea")
        page.click("#daily-name-ok")
        page.wait_for_url(re.compile(rf"#/daily/paris/{yesterday}/r/[a-z0-9]+$"))
        page.wait_for_selector("svg.board-paris .hit")
        next_station_move(page, use_powers=False)
        shot(page, "daily-practice-phone")
        second = _fetch(page, "POST", f"/api/daily/paris/{yesterday}/start", {"share": True})
        assert second["status"] == 200 and second["body"]["ranked"] is False
        assert not page.url.endswith(second["body"]["room"])

        # the token panel: a pasted token of another player is used after the server checks it
        page.goto(f"{server}/")
        page.locator("#token-panel summary").click()
        page.fill("#paste-token", "not-a-real-token")
        page.click("#use-token")
        expect(page.locator("#toasts")).to_contain_text("not known to this server")
        created = page.evaluate(
            """async () => (await (await fetch("/api/players", {method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({name: "Cy"})})).json())"""
        )
        page.fill("#paste-token", created["token"])
        page.click("#use-token")
        expect(page.locator(".daily")).to_contain_text("Playing as Cy")
        shot(page, "daily-home-phone")
    finally:
        page.context.close()
