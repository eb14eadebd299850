"""The guided first games (#/learn/{game}) clicked through step by step, wrong clicks
included, to a real game played to its end — each game's every step in each language of the
client (the guide's own words checked as written here; the steps' texts come from
tutorials.{lang}.json when it exists, else English, so a step's hint is checked by the station
it names). The free play after the guide's last step is clicked to the end in English; in
the other languages the guide's room is played to its end through the API (its seat token
read from the page's own request) and the page shows the end in the language. A move held
for Confirm in the guide on a phone; the rules pages (#/rules/{game})."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import (
    GAME_OVER,
    in_viewport,
    metro_move,
    next_station_move,
    play_next_station,
    play_through_api,
    shot,
    step_of,
)

COUNT = "[data-testid=tutorial-count]"
HINT = "[data-testid=tutorial-hint]"
LANGS = ["en", "fr", "nl", "sk"]
# the guide's words per language: its title, the hint of a reading step, the end of the game
GUIDE = {
    "en": ("Guided first game", "press Next", "Game over"),
    "fr": ("Première partie guidée", "appuyez sur Suivant", "Partie terminée"),
    "nl": ("Begeleide eerste partij", "druk dan op Volgende", "Einde van de partij"),
    "sk": ("Prvá hra so sprievodcom", "potom stlačte Ďalej", "Koniec hry"),
}
# "Your {colour} line:" of a scored line (the step's facts)
LINE = {
    "green": {
        "en": "Your green line:",
        "fr": "Votre ligne verte :",
        "nl": "Je lijn in het groen:",
        "sk": "Vaša linka (zelená):",
    },
    "purple": {
        "en": "Your purple line:",
        "fr": "Votre ligne violette :",
        "nl": "Je lijn in het paars:",
        "sk": "Vaša linka (fialová):",
    },
}


def at(page: Page, number: int, total: int) -> None:
    expect(page.locator(COUNT)).to_have_text(f"{number} / {total}")


def click(page: Page, *names: str) -> None:
    """Click the board's hit targets of these stations (or squares), one after the other."""
    for name in names:
        page.locator(f".hit[data-station='{name}'], .hit[data-square='{name}']").first.click()


def refused_click(page: Page, name: str, hint: str) -> None:
    """A click the step does not expect: the guide hints and nothing is sent."""
    step = step_of(page)
    click(page, name)
    expect(page.locator(HINT)).to_contain_text(hint)
    page.wait_for_timeout(300)
    assert step_of(page) == step


@dataclass(frozen=True)
class Guide:
    """The guide's room as the page created it (``POST /api/rooms``): the game, the room's
    code and the seat token of the player (seat 0)."""

    game: str
    room: str
    token: str


def open_guide(page: Page, server: str, game: str, total: int, lang: str = "en") -> Guide:
    page.add_init_script(f"localStorage.setItem('metrogames.lang', '{lang}')")
    with page.expect_response(
        lambda res: res.url == f"{server}/api/rooms" and res.request.method == "POST"
    ) as created:
        page.goto(f"{server}/#/learn/{game}")
    answer = created.value.json()
    guide = Guide(game, answer["room"]["room"], answer["tokens"]["0"])
    page.wait_for_selector("[data-testid=tutorial] h2")
    page.wait_for_selector(".hit")
    at(page, 1, total)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("[data-testid=tutorial] h2")).to_contain_text(GUIDE[lang][0])
    # a reading step: the board's own invitations to click are hidden
    expect(page.locator(".tutorial-table.tutorial-reading")).to_have_count(1)
    expect(page.locator(".start-mark, .target-mark, .legal-mark").first).to_be_hidden()
    expect(page.locator("[data-testid=guided-tag]")).to_be_visible()
    link = page.locator(".room-header [data-testid=rules-link]")
    expect(link).to_have_attribute("href", f"/#/rules/{game}")
    expect(link).to_have_attribute("target", "_blank")
    # an explanation step: the board waits for Next
    first = page.locator(".hit").first
    refused_click(
        page,
        first.get_attribute("data-station") or first.get_attribute("data-square") or "D1",
        GUIDE[lang][1],
    )
    page.click("#tutorial-next")
    at(page, 2, total)
    expect(page.locator(".tutorial-table.tutorial-reading")).to_have_count(0)
    return guide


def finished(page: Page, lang: str) -> None:
    expect(page.locator(GAME_OVER)).to_be_visible()
    expect(page.locator(GAME_OVER)).to_contain_text(GUIDE[lang][2])


def play_on(page: Page, server: str, guide: Guide, lang: str) -> None:
    """After the guide's last step: the game played to its end by clicking in English, through
    the API in the other languages (the page follows over its socket); the end shown in the
    language."""
    if lang == "en":
        if guide.game == "metro":
            for _ in range(80):
                if page.locator(GAME_OVER).count():
                    break
                if not metro_move(page):
                    page.wait_for_selector(f".hit-square, {GAME_OVER}")
        else:
            play_next_station(page, use_powers=False)
    else:
        play_through_api(server, guide.room, guide.token)
    finished(page, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_london_guided_first_game(page: Page, server: str, lang: str) -> None:
    guide = open_guide(page, server, "london", 9, lang)
    expect(page.locator(".hit.tut-mark[data-station=D7]")).to_have_count(1)
    shot(page, f"tutorial-london-section-{lang}")
    refused_click(page, "C4", "D7")  # a legal section, but not this step's
    step = step_of(page)
    page.locator(".hit[data-station=C4]").focus()
    page.keyboard.press("Enter")  # nor by keyboard
    page.wait_for_timeout(300)
    assert step_of(page) == step
    expect(page.locator(".hit-target")).to_have_count(2)  # nothing was drawn
    click(page, "D7")
    at(page, 3, 9)
    click(page, "D3", "C4")
    at(page, 4, 9)
    expect(page.locator("g.station.tut-refused[data-station=E4]")).to_have_count(1)
    expect(page.locator(".hit[data-station=E4]")).to_have_count(0)  # the crossing is refused
    shot(page, f"tutorial-london-crossing-{lang}")
    click(page, "C4", "B5")
    at(page, 5, 9)
    click(page, "B5", "A4")  # the switch turn, to the tourist site
    at(page, 6, 9)
    page.wait_for_selector("#pass-btn")
    while page.locator(COUNT).inner_text().startswith("6 "):
        next_station_move(page, use_powers=False)
    at(page, 7, 9)
    facts = page.locator("[data-testid=tutorial-facts]")
    expect(facts).to_contain_text(LINE["green"][lang])
    expect(facts).to_contain_text(" × ")
    shot(page, f"tutorial-london-scoring-{lang}")
    page.click("#tutorial-next")
    at(page, 8, 9)
    next_station_move(page, use_powers=False)
    at(page, 9, 9)
    if lang == "en":
        expect(page.locator("[data-testid=tutorial-text]")).to_contain_text("finish the game")
    play_on(page, server, guide, lang)
    at(page, 9, 9)


@pytest.mark.parametrize("lang", LANGS)
def test_paris_guided_first_game(page: Page, server: str, lang: str) -> None:
    guide = open_guide(page, server, "paris", 8, lang)
    refused_click(page, "I9", "H6")
    click(page, "H6")
    at(page, 3, 8)
    click(page, "H8", "I8")
    at(page, 4, 8)
    click(page, "I8", "E5")  # across the overhead crossing
    at(page, 5, 8)
    click(page, "E5", "F7")  # free entry to the monument, then its extra section
    expect(page.locator("#done-btn")).to_be_visible()
    page.click("#done-btn")  # finishing without the extra section is not this step
    expect(page.locator(HINT)).to_contain_text("E8")
    click(page, "E8")
    at(page, 6, 8)
    shot(page, f"tutorial-paris-monument-{lang}")
    while page.locator(COUNT).inner_text().startswith("6 "):
        next_station_move(page, use_powers=False)
    at(page, 7, 8)
    expect(page.locator("[data-testid=tutorial-facts]")).to_contain_text(LINE["purple"][lang])
    page.click("#tutorial-next")
    at(page, 8, 8)
    play_on(page, server, guide, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_metro_guided_first_game(page: Page, server: str, lang: str) -> None:
    guide = open_guide(page, server, "metro", 5, lang)
    expect(page.locator(".hit.tut-mark[data-square=D1]")).to_have_count(1)
    # the guide's seat is named "you" in the language: no "(you)" after it
    expect(page.locator(".scores tr.you td").nth(2)).not_to_contain_text("(")
    refused_click(page, "A1", "D1")
    click(page, "D1")
    at(page, 3, 5)
    page.wait_for_selector(".hit[data-square=B2]")  # the bot has placed its tile
    click(page, "B2")
    at(page, 4, 5)
    expect(page.locator("rect.central.tut-mark")).to_have_count(1)  # a mark to look at
    shot(page, f"tutorial-metro-centre-{lang}")
    page.click("#tutorial-next")
    at(page, 5, 5)
    play_on(page, server, guide, lang)


def test_rules_pages(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.click("[data-testid=rules-paris]")
    expect(page.locator("[data-testid=rules-text] h1")).to_contain_text("Next Station: Paris")
    page.click(".rules-tabs [data-game=london]")
    expect(page.locator("[data-testid=rules-text] h1")).to_contain_text("Next Station: London")
    expect(page.locator("[data-testid=rules-text] table").first).to_be_visible()
    shot(page, "rules-london")
    page.click("[data-testid=learn-link]")
    page.wait_for_selector("[data-testid=tutorial]")
    at(page, 1, 9)


def test_the_guide_stays_in_sight_on_a_phone(
    browser: Browser, errors: PageErrors, server: str
) -> None:
    page = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(f"{server}/#/learn/london")
        page.click("#tutorial-next")
        at(page, 2, 9)
        target = page.locator(".hit[data-station=D7]")
        target.scroll_into_view_if_needed()
        assert in_viewport(page, "[data-testid=tutorial-text]")
        # the turn's dock sticks above the pinned guide: the card shows whole, nothing overlaps
        dock = page.locator("[data-testid=turn-dock]").bounding_box()
        guide = page.locator("[data-testid=tutorial]").bounding_box()
        assert dock is not None and guide is not None
        assert dock["y"] + dock["height"] <= guide["y"] + 1, (dock, guide)
        assert in_viewport(page, ".turn-dock .card.current")
        shot(page, "tutorial-london-phone", full_page=False)
        refused_click(page, "C4", "Click D7")
        click(page, "D7")
        at(page, 3, 9)
        page.click("#tutorial-fold")
        expect(page.locator("[data-testid=tutorial-text]")).to_be_hidden()
        page.click("#tutorial-fold")
        expect(page.locator("[data-testid=tutorial-text]")).to_be_visible()
    finally:
        page.context.close()


def test_the_guide_waits_for_confirm_on_a_phone(
    browser: Browser, errors: PageErrors, server: str
) -> None:
    """With "Confirm moves before sending" on, the guide's expected move waits for Confirm
    (the guide says so), Undo takes it back, and Confirm sends it; in a reading step Confirm
    and Undo are not there to press and the board invites no click."""
    page = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.add_init_script("localStorage.setItem('metrogames.confirm-moves', '1')")
        page.add_init_script("localStorage.setItem('metrogames.lang', 'fr')")
        page.goto(f"{server}/#/learn/london")
        at(page, 1, 9)
        expect(page.locator("[data-testid=confirm-moves]").first).to_be_checked()
        page.click("#tutorial-next")
        at(page, 2, 9)
        step = step_of(page)
        click(page, "D7")
        expect(page.locator("[data-testid=pending-move]")).to_be_visible()
        expect(page.locator(HINT)).to_contain_text("Confirmer")
        shot(page, "tutorial-confirm-phone-fr", full_page=False)
        page.click("#tutorial-undo")  # the guide's own Undo: the same step, nothing sent
        expect(page.locator("[data-testid=pending-move]")).to_have_count(0)
        at(page, 2, 9)
        assert step_of(page) == step
        click(page, "D7")
        page.click("#tutorial-confirm")
        at(page, 3, 9)
        assert step_of(page) > step
        click(page, "D3", "C4")
        page.click("#confirm-btn")  # the table's own Confirm works as well
        at(page, 4, 9)
    finally:
        page.context.close()
