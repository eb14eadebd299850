"""Friends and invitations in the browser, two real browser contexts: a host in an online room's
lobby invites a signed-in player by name; the invitation shows on the player's home page at once
(pushed, no reload); the first is declined and leaves the page, the second accepted and seats
the player at the host's table. The player follows the host and sees the host online."""

from __future__ import annotations

import json
import re
import secrets

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import call, create_game, seat_tokens, shot


def signed_up(page: Page, server: str, stem: str) -> str:
    """The page's browser signed in to a new account (the context keeps the cookie); its name."""
    name = stem + secrets.token_hex(3)
    r = page.context.request.post(
        f"{server}/api/accounts", data={"name": name, "password": "long enough"}
    )
    assert r.status == 201, r.text()
    return name


def host_token(page: Page, room: str) -> str:
    stored = page.evaluate(f"localStorage.getItem('metrogames.room.{room}')")
    token: str = json.loads(stored)["host"]
    return token


def invite(page: Page, name: str) -> None:
    page.fill("#invite-name", name)
    page.click("#invite-btn")
    expect(page.locator(".toast").last).to_contain_text(name)


def test_an_invitation_declined_then_one_accepted_seats_the_player(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    host = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    guest = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        host_name = signed_up(host, server, "Host")
        guest_name = signed_up(guest, server, "Guest")
        room = create_game(host, server, "london", "online", name="")
        expect(host.locator("[data-testid=invite]")).to_be_visible()
        shot(host, "friends-invite-box")
        guest.goto(f"{server}/")
        invitations = guest.locator("[data-testid=invitations]")
        expect(invitations).to_contain_text("No invitation waiting")
        # the guest follows the host, who holds seat 1 with the room's socket open: online
        guest.fill("#follow-name", host_name)
        guest.click("#follow-btn")
        expect(guest.locator(f"[data-friend='{host_name}']")).to_contain_text("online")

        invite(host, guest_name)
        row = invitations.locator("li.invitation")
        expect(row).to_have_count(1)  # pushed to the open page: no reload
        expect(row).to_contain_text(host_name)
        expect(row).to_contain_text("London")
        shot(guest, "friends-invited")
        row.locator("[data-decline]").click()
        expect(row).to_have_count(0)
        expect(invitations).to_contain_text("No invitation waiting")
        statuses = [
            i["status"]
            for i in call(
                server, "GET", f"/api/rooms/{room}/invitations", token=host_token(host, room)
            )
        ]
        assert statuses == ["declined"], statuses

        invite(host, guest_name)
        expect(row).to_have_count(1)
        row.locator("[data-accept]").click()
        guest.wait_for_url(f"**/r/{room}")
        assert sorted(seat_tokens(guest, room)) == ["1"]
        expect(guest.locator(".lobby-seat[data-seat='1']")).to_contain_text(re.compile("you", re.IGNORECASE))
        expect(host.locator(".lobby-seat[data-seat='1']")).to_contain_text(guest_name)
        statuses = [
            i["status"]
            for i in call(
                server, "GET", f"/api/rooms/{room}/invitations", token=host_token(host, room)
            )
        ]
        assert statuses == ["declined", "accepted"], statuses
        shot(host, "friends-host-lobby")
        shot(guest, "friends-guest-seated")
    finally:
        host.context.close()
        guest.context.close()
