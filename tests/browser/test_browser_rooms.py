"""Online rooms in the browser: two players in two browser contexts, a departure handed to a
bot by the host, the seat taken back with the stored token; a lobby answer arriving after the
start leaves the table; replays of finished games."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import APIResponse, Browser, Page, Route, expect

from browser.conftest import PageErrors, new_page, watch
from browser.helpers import (
    GAME_OVER,
    call,
    create_game,
    finished_london,
    in_viewport,
    next_station_move,
    play_through_api,
    seat_tokens,
    shot,
)


def test_online_room_two_players(browser: Browser, server: str, errors: PageErrors) -> None:
    host = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    guest = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True)
    room = create_game(
        host, server, "london", "online", **{"player-count": "2", "turn-clock": "120"}
    )
    link = host.locator("#share-link").input_value()
    assert link.endswith(f"/r/{room}")
    expect(host.locator("#start-btn")).to_be_disabled()
    facts = host.locator("[data-testid=lobby-facts]")
    expect(facts).to_contain_text("2 min per turn")  # the lobby shows the clock and options
    expect(facts).to_contain_text("Shared objectives: none")
    shot(host, "room-lobby-host")

    guest.goto(link)
    guest.fill("#join-name", "Bob")
    guest.click("[data-join='1']")
    expect(guest.locator(".lobby-seat[data-seat='1']")).to_contain_text("you")
    expect(host.locator("#start-btn")).to_be_enabled()
    # a third browser finds the room full: no seat to take, it watches
    late = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    late.goto(link)
    expect(late.locator("[data-testid=room-full]")).to_contain_text("you are watching")
    expect(late.locator("[data-join]")).to_have_count(0)
    host.click("#start-btn")
    late.wait_for_selector("svg.board-ns")  # the spectator sees the game start
    late.context.close()
    guest.wait_for_selector("svg.board-ns .hit")
    host.wait_for_selector("svg.board-ns .hit")
    expect(host.locator("#clock")).to_contain_text("s")
    # the table opens scrolled to the board: the whole map and the turn's dock on screen
    for part in ("svg.board-ns", ".turn-dock .card", "#pass-btn"):
        assert in_viewport(guest, part), part
    shot(guest, "room-guest-phone")
    # on the phone, with the top of the board in view, the card, the instruction and Pass
    # stay on screen (no scrolling per turn), and buttons are finger-sized
    guest.locator("svg.board-ns").scroll_into_view_if_needed()
    guest.evaluate("document.querySelector('svg.board-ns').scrollIntoView({block: 'start'})")
    for part in (
        ".turn-dock .card.current, .turn-dock .card",
        ".turn-dock .panel.turn p, .turn-dock .panel.turn h3",
        "#pass-btn",
    ):
        assert in_viewport(guest, part), part
    pass_box = guest.locator("#pass-btn").bounding_box()
    assert pass_box is not None and pass_box["height"] >= 44
    shot(guest, "room-guest-phone-viewport", full_page=False)
    guest.evaluate("window.scrollTo(0, 0)")  # the page's top: the dock sticks to the bottom
    for part in (".turn-dock .card", "#pass-btn"):
        assert in_viewport(guest, part), part
    shot(guest, "room-guest-phone-top", full_page=False)

    for _ in range(4):  # a few turns together
        next_station_move(host, use_powers=False)
        next_station_move(guest, use_powers=False)
    expect(host.locator(".player[data-seat='1']")).to_contain_text("Bob")

    # the guest leaves: the host hands the seat to a bot, the game goes on
    guest_context = guest.context
    guest.close()
    host.locator("[data-bot-seat='1']").click()
    expect(host.locator(".player[data-seat='1'] .tag")).to_contain_text("bot")
    next_station_move(host, use_powers=False)
    next_station_move(host, use_powers=False)
    shot(host, "room-host-with-bot")

    # the guest comes back with the stored token and takes the seat back
    guest = guest_context.new_page()
    watch(guest, errors)
    guest.goto(link)
    guest.wait_for_selector("svg.board-ns")
    expect(host.locator(".player[data-seat='1'] .tag")).to_have_count(0)

    # a turn together by clicking again, then the rest of the game through the API with the
    # tokens the two pages keep: both pages follow it to the end
    next_station_move(host, use_powers=False)  # unless the host waits for the guest
    guest.wait_for_selector("#pass-btn:not([disabled])")
    assert next_station_move(guest, use_powers=False)
    tokens = {**seat_tokens(host, room), **seat_tokens(guest, room)}
    assert sorted(tokens) == ["0", "1"], tokens
    play_through_api(server, room, tokens["0"], tokens["1"])
    for page in (host, guest):
        expect(page.locator(GAME_OVER)).to_be_visible()
        expect(page.locator(".final-sheet")).to_have_count(2)
    shot(host, "room-end-host")
    shot(guest, "room-end-guest-phone")
    guest_context.close()
    host.context.close()


def test_replay_and_record_upload(page: Page, server: str, tmp_path: Path) -> None:
    room = finished_london(server)
    page.goto(f"{server}/r/{room}")
    expect(page.locator(GAME_OVER)).to_be_visible()
    page.click("#replay-btn")
    page.wait_for_selector("#replay-slider")
    counter = page.locator("[data-testid=replay-counter]")
    expect(counter).to_contain_text("step 1 of")
    total = int(counter.inner_text().split(" of ")[1])
    assert total > 20
    page.click("#replay-next")
    expect(counter).to_contain_text("step 2 of")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(counter).to_contain_text("step 4 of")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_contain_text("step 3 of")
    page.keyboard.press("End")
    expect(counter).to_contain_text(f"step {total} of {total}")
    expect(page.locator("svg.board-ns .section")).not_to_have_count(0)
    page.click("#replay-first")
    page.click("#replay-play")
    expect(counter).not_to_contain_text("step 1 of", timeout=5000)
    page.click("#replay-play")
    page.keyboard.press("End")
    shot(page, "replay-london")

    with page.expect_download() as info:
        page.click("#replay-download")
    path = tmp_path / "record.json"
    info.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["game"] == "london"
    assert record["format"] == "metrogames/1"

    page.goto(f"{server}/")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay-slider")
    expect(page.locator("[data-testid=replay-counter]")).to_contain_text(f"of {total}")
    page.keyboard.press("End")
    shot(page, "replay-uploaded")


def test_a_turn_based_game_lists_whose_turn_it_is(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    """A day per move: the clock shows hours, the home page lists the game as the player's
    turn, then as theirs once the player has moved."""
    host = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    guest = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    room = create_game(
        host, server, "london", "online", **{"player-count": "2", "turn-clock": "86400"}
    )
    expect(host.locator("[data-testid=lobby-facts]")).to_contain_text("1 d per turn (turn-based)")
    guest.goto(host.locator("#share-link").input_value())
    guest.fill("#join-name", "Bob")
    guest.click("[data-join='1']")
    host.click("#start-btn")
    host.wait_for_selector("svg.board-ns .hit")
    expect(host.locator("#clock")).to_contain_text(" h ")  # 23 h 59 min, not 86399 s
    expect(host).to_have_title(re.compile("^● Your turn"))
    host.goto(f"{server}/")
    row = host.locator(f"[data-testid=your-games] li[data-room='{room}']")
    expect(row).to_contain_text("your turn")
    row.locator("a").click()
    host.wait_for_selector("svg.board-ns .hit")
    next_station_move(host, use_powers=False)  # the guest has not moved: their turn now
    expect(host).not_to_have_title(re.compile("Your turn"))
    host.goto(f"{server}/")
    expect(row).to_contain_text("their turn")
    shot(host, "turn-based-home")
    host.context.close()
    guest.context.close()


def test_a_metro_replay_is_seen_as_a_spectator(page: Page, server: str) -> None:
    """A replay shows the tile of the seat to move by name, never "Your tile" (also while a
    tile is being drawn and no seat is to move) nor "waiting for the other players"; the header words the bots' names (a second bot of a level too)."""
    seats = [{"name": "Ada"}, {"bot": "random"}, {"bot": "random"}]
    made = call(server, "POST", "/api/rooms", {"game": "metro", "mode": "bots", "seats": seats})
    room, token = made["room"]["room"], made["tokens"]["0"]
    view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
    while view["status"] != "finished":
        if view["legal"]:
            body = {"action": view["legal"][0], "step": view["step"]}
            view = call(server, "POST", f"/api/rooms/{room}/actions", body, token)
        else:
            view = call(server, "GET", f"/api/rooms/{room}/view", token=token)
    page.goto(f"{server}/r/{room}")
    expect(page.locator(GAME_OVER)).to_be_visible()
    page.click("#replay-btn")
    page.wait_for_selector("#replay-slider")
    expect(page.locator(".room-header .muted")).to_have_text("Ada, random bot, random bot 2")
    named = 0
    for _ in range(6):  # a tile being drawn between two placements included
        page.click("#replay-next")
        hand = page.locator(".panel.hand")
        if hand.is_visible() and hand.locator(".tile-btn").count():
            expect(hand.locator("h3")).to_have_text(re.compile(r"^(Ada|random bot( 2)?)'s tile$"))
            named += 1
        expect(page.locator(".panel.hand .waiting")).to_have_count(0)
        expect(page.locator(".panel.hand h3", has_text=re.compile("^Your tiles?"))).to_have_count(0)
    assert named >= 2


def test_a_late_room_summary_leaves_the_started_table(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    """The lobby asks for the room's summary whenever a waiting view comes (and every 4 s): an
    answer from before the start that arrives after the started view must not bring the lobby
    back over the table. (Under a loaded run this race hid the board of a started room.) The
    summaries the lobby asks for are answered by the server at once but held from the page
    until the table is drawn."""
    seats = [{"name": "Ada"}, {"bot": "easy"}]
    made = call(server, "POST", "/api/rooms", {"game": "london", "mode": "online", "seats": seats})
    room, token, host = made["room"]["room"], made["tokens"]["0"], made["host_token"]
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        stored = json.dumps(json.dumps({"tokens": {"0": token}, "host": host, "name": "Ada"}))
        page.add_init_script(f"localStorage.setItem('metrogames.room.{room}', {stored})")
        held: list[tuple[Route, APIResponse]] = []
        asked = {"n": 0}

        def hold_after_the_first(route: Route) -> None:
            asked["n"] += 1
            if asked["n"] == 1:
                route.continue_()  # the page's opening summary
            else:
                held.append((route, route.fetch()))  # answered now, delivered later

        page.route(f"**/api/rooms/{room}", hold_after_the_first)
        page.goto(f"{server}/r/{room}")
        expect(page.locator("[data-testid=lobby-facts]")).to_be_visible()
        for _ in range(300):  # the waiting view's own request, within 30 s
            if held:
                break
            page.wait_for_timeout(100)
        assert held, "the waiting view asked for no summary"
        call(server, "POST", f"/api/rooms/{room}/start", {}, host)
        page.wait_for_selector("svg.board-ns .hit")
        with page.expect_response(f"**/api/rooms/{room}"):
            for route, answer in held:
                route.fulfill(response=answer)  # the stale "waiting" summaries arrive now
        page.unroute(f"**/api/rooms/{room}")
        page.wait_for_function("() => new Promise((done) => requestAnimationFrame(done))")
        expect(page.locator("[data-testid=lobby-facts]")).to_have_count(0)
        expect(page.locator("svg.board-ns .hit").first).to_be_attached()
        assert next_station_move(page, use_powers=False)  # the table still plays
    finally:
        page.context.close()
