"""Metro in the browser: a 2-player game against a bot, placed by clicking squares."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from browser.helpers import GAME_OVER, contrast, create_game, metro_move, shot


def test_metro_against_a_bot_whole_game(page: Page, server: str) -> None:
    create_game(page, server, "metro", "bots", **{"player-count": "2"})
    page.wait_for_selector("svg.board-metro .hit-square")
    expect(page.locator(".edge-station")).to_have_count(32)
    expect(page.locator(".tile-btn")).to_have_count(1)
    expect(page.locator(".tile-code")).to_have_text("drawn tile")  # words, not a tile code
    assert contrast(page, ".status-line .your-turn") >= 4.5  # WCAG AA for its text
    # hovering a legal square previews the tile there
    page.locator(".hit-square").first.hover()
    expect(page.locator(".tile.preview")).to_have_count(1)
    shot(page, "metro-start")
    moves = 0
    while not page.locator(GAME_OVER).count():
        assert moves <= 30, "the game did not end"
        if metro_move(page):
            moves += 1
            if moves == 12:  # 24 tiles down: trains are on their way, said in words
                expect(page.locator(".train-line").first).to_contain_text("so far, waiting at")
                page.locator("[data-testid=moves] summary").click()  # the move log
                expect(page.locator(".move-log li").nth(3)).to_be_visible()
                expect(page.locator(".move-log")).to_contain_text("Ada: ")
                shot(page, "metro-mid")
        else:
            page.wait_for_selector(f".hit-square, {GAME_OVER}")
    assert moves == 30
    expect(page.locator("svg.board-metro g.tile[data-square]")).to_have_count(60)
    expect(page.locator(".final tbody tr")).to_have_count(2)
    expect(page.locator(".panel.trains")).to_be_hidden()  # nothing "on its way" once over
    expect(page.locator(".panel.last")).to_be_hidden()  # nor the last tile: the end scores all
    shot(page, "metro-end")


def test_metro_rules_presets_on_the_form_and_the_room(page: Page, server: str) -> None:
    """The form offers the seed's and the publisher's rules by name; choosing one sets the
    options, which stay adjustable ("custom" once changed); the room says which was used."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    page.check("input[name=game][value=metro]")
    page.check("input[name=mode][value=bots]")
    expect(page.locator("#opt-preset")).to_have_value("seed")  # the default options
    expect(page.locator("#opt-preset option[value=seed]")).to_have_text("Original rules")
    # a language switch words the bots' menu again (the games list is asked per language)
    page.select_option("#lang-switch", "nl")
    expect(page.locator("#opt-preset option[value=seed]")).to_have_text("Oorspronkelijke regels")
    expect(page.locator("select[data-bot] option[value=medium]").first).to_contain_text("trekking")
    page.select_option("#lang-switch", "en")
    expect(page.locator("select[data-bot] option[value=medium]").first).to_contain_text(
        "determinization"
    )
    page.select_option("#opt-preset", "box")
    expect(page.locator("#opt-turn_mode")).to_have_value('"official-hand"')
    expect(page.locator("#opt-one_tile_routes")).to_have_value('"forbidden"')
    expect(page.locator("[data-testid=preset-note]")).to_contain_text("hold one tile")
    page.select_option("#opt-turn_mode", '"hand"')
    expect(page.locator("#opt-preset")).to_have_value("")  # custom
    page.select_option("#opt-turn_mode", '"official-hand"')
    expect(page.locator("#opt-preset")).to_have_value("box")
    shot(page, "metro-presets-form")
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    expect(page.locator("[data-testid=preset]")).to_have_text("Publisher's box rules")
    room = page.url.rstrip("/").rsplit("/", 1)[-1]
    summary = page.request.get(f"{server}/api/rooms/{room}").json()
    assert summary["options"] == {"turn_mode": "official-hand", "one_tile_routes": "forbidden"}
    assert summary["preset"] == {"name": "box", "title": "Publisher's box rules"}
    page.wait_for_selector("svg.board-metro .hit-square")
    shot(page, "metro-presets-room")


def test_metro_six_seats_wear_the_printed_colours_with_their_letters(
    page: Page, server: str
) -> None:
    """Metro's seats are yellow, blue, orange, green, purple and black (the publisher's
    rulebook of this board): the players' chips, the edge stations and the trains show those
    colours, each with its own letter; the black seat's tracks and trains get a light outline
    on the dark tiles."""
    create_game(page, server, "metro", "bots", **{"player-count": "6"})
    page.wait_for_selector("svg.board-metro .hit-square")
    chips = page.locator("[data-testid=seat-legend] .chip-swatch")
    expect(chips).to_have_count(6)
    fills = [c.evaluate("(e) => getComputedStyle(e).backgroundColor") for c in chips.all()]
    # dom.js COLOUR_HEX of yellow blue orange green purple black, as the browser reports them
    assert fills == [
        "rgb(232, 184, 0)",
        "rgb(31, 111, 209)",
        "rgb(239, 125, 0)",
        "rgb(21, 146, 74)",
        "rgb(132, 70, 214)",
        "rgb(22, 24, 29)",
    ], fills
    assert [c.inner_text() for c in chips.all()] == list("YBOGPL")
    names = page.locator("[data-testid=seat-legend] .chip-name")
    assert [n.inner_text() for n in names.all()] == [
        "yellow", "blue", "orange", "green", "purple", "black"
    ]
    seats = page.locator(".panel.scores .chip-swatch")  # the players' table: the same chips
    assert [c.inner_text() for c in seats.all()] == list("YBOGPL")
    # the edge stations carry the same letters: every seat's, none other
    letters = {t.text_content() for t in page.locator(".edge-letter").all()}
    assert letters == set("YBOGPL"), letters
    # play on until the black seat has a track travelled (its train left its station)
    for _ in range(10):
        page.wait_for_selector(".hit-square")  # the bots have moved: the board stays as it is
        if page.locator(".track-casing.light").count():
            break
        metro_move(page)
    # the black seat's train and travelled tracks, found and measured in one go
    strokes = page.evaluate(
        """() => [...document.querySelectorAll('.train.light circle, .track-casing.light')]
             .map((e) => getComputedStyle(e).stroke)"""
    )
    assert strokes and set(strokes) == {"rgb(208, 212, 220)"}, strokes
    shot(page, "metro-six-colours")
