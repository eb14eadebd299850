"""Confirm-or-undo before a move is sent: with the table's setting on, a move built on the
board (Next Station: a section; Metro: a tile on a square) waits as pending — the server's
game does not move — until Confirm sends it; Undo forgets it. The setting is on by default on
a phone (390x844, touch), off on a desktop, and remembered."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_context, watch
from browser.helpers import call, create_game, shot, step_of, wait_step_after

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def fresh_page(browser: Browser, errors: PageErrors, **kwargs: object) -> Page:
    """A page in a fresh context whose confirm setting is its default (not preset)."""
    context = new_context(browser, **kwargs)
    context.add_init_script("try { localStorage.setItem('metrogames.pace', '0'); } catch (e) {}")
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch(page, errors)
    return page


def server_step(base: str, room: str) -> int:
    """The room's step as the server has it (a spectator's view)."""
    step: int = call(base, "GET", f"/api/rooms/{room}/view")["step"]
    return step


def draw_a_section(page: Page) -> None:
    """Click a line end when none is chosen, then a target station."""
    if not page.locator(".hit-target").count():
        page.locator(".hit-start").first.click()
    page.locator(".hit-target").first.click()


def test_on_a_phone_a_section_waits_for_confirm_and_undo_restores(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = fresh_page(browser, errors, **PHONE)
    room = create_game(page, server, "london", "solo")
    page.wait_for_selector("svg.board-ns .hit")
    expect(page.locator("[data-testid=confirm-moves]")).to_be_checked()  # a phone: on
    step = step_of(page)
    draw_a_section(page)
    expect(page.locator("[data-testid=pending-move]")).to_be_visible()
    expect(page.locator("#confirm-btn")).to_be_visible()
    expect(page.locator("svg.board-ns line.pending")).not_to_have_count(0)  # drawn, pending
    expect(page.locator(".hit-target")).to_have_count(0)  # the board waits for the answer
    shot(page, "confirm-pending-phone")
    assert step_of(page) == step and server_step(server, room) == step  # nothing sent
    page.click("#undo-btn")
    expect(page.locator("[data-testid=pending-move]")).to_have_count(0)
    expect(page.locator("svg.board-ns line.pending")).to_have_count(0)
    expect(page.locator(".hit-target, .hit-start").first).to_be_visible()  # choose again
    assert server_step(server, room) == step
    draw_a_section(page)
    page.click("#confirm-btn")
    wait_step_after(page, step)
    assert server_step(server, room) > step
    page.context.close()


def test_on_a_phone_a_metro_tile_waits_on_its_square(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = fresh_page(browser, errors, **PHONE)
    room = create_game(page, server, "metro", "bots", **{"player-count": "2"})
    page.wait_for_selector(".hit-square")
    step = step_of(page)
    square = page.locator(".hit-square").first
    name = square.get_attribute("data-square")
    placed = page.locator(f"svg [data-square='{name}']:not(.hit-square)")
    before = placed.count()
    square.click()
    expect(page.locator("[data-testid=pending-move]")).to_contain_text(f"on {name}")
    expect(placed).to_have_count(before + 1)  # the tile is drawn on its square, pending
    expect(page.locator(f"svg .tile-pending[data-square='{name}']")).to_have_count(1)
    expect(page.locator(".hit-square")).to_have_count(0)
    shot(page, "confirm-pending-metro-phone")
    assert server_step(server, room) == step
    page.click("#undo-btn")
    expect(placed).to_have_count(before)
    expect(page.locator(".hit-square").first).to_be_visible()
    page.locator(".hit-square").first.click()
    page.click("#confirm-btn")
    wait_step_after(page, step)
    assert server_step(server, room) > step
    page.context.close()


def test_on_a_desktop_moves_go_at_once_until_the_setting_is_on(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = fresh_page(browser, errors, **DESKTOP)
    room = create_game(page, server, "london", "solo")
    page.wait_for_selector("svg.board-ns .hit")
    box = page.locator("[data-testid=confirm-moves]")
    expect(box).not_to_be_checked()  # a desktop: off
    step = step_of(page)
    draw_a_section(page)
    wait_step_after(page, step)  # sent at once
    step = step_of(page)
    assert server_step(server, room) == step
    page.locator("[data-testid=confirm-moves]").check()
    page.reload()  # remembered
    page.wait_for_selector("svg.board-ns .hit")
    expect(page.locator("[data-testid=confirm-moves]")).to_be_checked()
    step = step_of(page)
    draw_a_section(page)
    expect(page.locator("[data-testid=pending-move]")).to_be_visible()
    shot(page, "confirm-pending-desktop")
    assert server_step(server, room) == step
    page.locator("[data-testid=confirm-moves]").uncheck()  # off: the pending move goes
    wait_step_after(page, step)
    assert server_step(server, room) > step
    page.context.close()
