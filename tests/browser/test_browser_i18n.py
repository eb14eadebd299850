"""The browser client in English, French, Dutch and Slovak: the language follows the browser,
the header's switch changes it on any page (kept in localStorage and in the cookie the
server reads), a London turn is played and an engine refusal shown in each language, a
switch in the middle of a game redraws the table without losing it, and nothing is clipped
or wider than a 390x844 phone. The expected words are written here, not read from the
catalogs."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import create_game, finished_london, next_station_move, shot, step_of

# per language: visible words of the home page, the table and the join form
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "daily": "Daily challenge",
        "start": "Start the game",
        "join": "Join a room",
        "round": "Round 1 of 4",
        "pass": "Pass",
        "sheet": "Score sheet",
        "malformed": "is not a room code",
        "unknown": "No room has the code",
        "players": "Players",
        "html": "en",
    },
    "fr": {
        "daily": "Défi du jour",
        "start": "Commencer la partie",
        "join": "Rejoindre une salle",
        "round": "Manche 1 sur 4",
        "pass": "Passer",
        "sheet": "Feuille de score",
        "malformed": "n'est pas un code de salle",
        "unknown": "Aucune salle n'a le code",
        "players": "Joueurs",
        "html": "fr",
    },
    "nl": {
        "daily": "Dagelijkse uitdaging",
        "start": "De partij starten",
        "join": "Naar een kamer",
        "round": "Ronde 1 van 4",
        "pass": "Passen",
        "sheet": "Scoreblad",
        "malformed": "is geen kamercode",
        "unknown": "Geen kamer heeft de code",
        "players": "Spelers",
        "html": "nl",
    },
    "sk": {
        "daily": "Denná výzva",
        "start": "Začať hru",
        "join": "Pripojiť sa do miestnosti",
        "round": "Kolo 1 z 4",
        "pass": "Pasovať",
        "sheet": "Bodovací hárok",
        "malformed": "nie je kód miestnosti",
        "unknown": "Žiadna miestnosť nemá kód",
        "players": "Hráči",
        "html": "sk",
    },
}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

# Elements whose text is cut (wider than their box, overflow hidden) or that stick out of the
# page sideways; the page itself wider than its viewport.
CLIPPED_JS = """() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) out.push(`page ${document.documentElement.scrollWidth} > ${width}`);
  for (const el of document.querySelectorAll("button, .btn, .tab, label, legend, h1, h2, h3, .tag, .help, .note, .status-line, .legend-item, select, .site-nav a")) {
    const r = el.getBoundingClientRect();
    if (!r.width || getComputedStyle(el).visibility === "hidden") continue;
    const style = getComputedStyle(el);
    const cut = style.overflow !== "visible" && el.scrollWidth > el.clientWidth + 1 && el.tagName !== "SELECT";
    if (cut || r.right > width + 1 || r.left < -1) out.push(`${el.tagName}.${el.className}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return out;
}"""


def clipped(page: Page) -> list[str]:
    """What is clipped or out of the viewport sideways on the page."""
    return list(page.evaluate(CLIPPED_JS))


def switch_to(page: Page, lang: str) -> None:
    page.select_option("#lang-switch", lang)
    expect(page.locator("html")).to_have_attribute("lang", WORDS[lang]["html"])


def kept_choice(page: Page) -> tuple[str | None, str]:
    stored = page.evaluate("localStorage.getItem('metrogames.lang')")
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    return stored, cookies.get("lang", "")


def spoil_armed_moves(page: Page, armed: dict[str, Any]) -> None:
    """Once ``armed["on"]`` is set, turn the page's next move into an illegal one on its way
    to the server over the room's WebSocket (a section from a station that is not an end of
    the line), so the engine refuses it; every other message goes through as it is. (Routes
    the sockets the page opens from now on.)"""

    def handle(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message) if isinstance(message, str) else None
            action = data.get("action") if isinstance(data, dict) else None
            if armed.get("on") and isinstance(action, dict) and action.get("sections"):
                armed["on"] = False
                a, b = action["sections"][0]
                action["sections"] = [[b, a], [a, b]]  # not from a line end, and back
                message = json.dumps(data)
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/ws/rooms/*", handle)


@pytest.mark.parametrize("lang", ["en", "fr", "nl", "sk"])
def test_a_london_turn_and_a_refusal_in_each_language(
    browser: Browser, server: str, errors: PageErrors, lang: str
) -> None:
    page = new_page(browser, errors, viewport={"width": 1366, "height": 900})
    try:
        words = WORDS[lang]
        page.goto(f"{server}/")
        page.wait_for_selector("#create-form")
        switch_to(page, lang)
        expect(page.locator("#daily-nav")).to_have_text(words["daily"])
        expect(page.locator("#create-btn")).to_have_text(words["start"])
        expect(page.locator(".fold:has(> .join) > summary h2")).to_have_text(words["join"])
        assert kept_choice(page) == (lang, lang)
        # a malformed room code says why, in the language
        page.fill("#join-code", "abc!")
        page.click("#join-btn")
        expect(page.locator("[data-testid=join-error]")).to_contain_text(words["malformed"])
        page.fill("#join-code", "zzzz9999")  # well formed, but no such room
        page.click("#join-btn")
        expect(page.locator("[data-testid=join-error]")).to_contain_text(words["unknown"])
        expect(page.locator("[data-testid=join-error]")).to_contain_text("zzzz9999")
        shot(page, f"i18n-home-{lang}")

        armed: dict[str, Any] = {}
        spoil_armed_moves(page, armed)
        create_game(page, server, "london", "solo")
        page.wait_for_selector("svg.board-ns .hit")
        expect(page.locator("html")).to_have_attribute("lang", lang)  # kept across pages
        expect(page.locator(".status-line .round")).to_have_text(words["round"])
        expect(page.locator("#pass-btn")).to_have_text(words["pass"])
        expect(page.locator(".sheet h3")).to_contain_text(words["sheet"])
        step = step_of(page)
        assert next_station_move(page, use_powers=False)
        assert step_of(page) > step
        shot(page, f"i18n-table-{lang}")

        armed["on"] = True
        if not page.locator(".hit-target").count():
            page.locator(".hit-start").first.click()
        before = step_of(page)
        page.locator(".hit-target").first.click()
        toast = page.locator(".toast-error").last
        expect(toast).to_be_visible()
        # the server's words, in the page's language (read from the socket's upgrade request):
        # its place prefix, "round 1, turn …" (manche, ronde, kolo)
        assert toast.inner_text().strip().lower().startswith(words["round"].split()[0].lower())
        assert not armed["on"]  # the move was sent, spoiled, and refused
        assert step_of(page) == before  # refused: nothing changed
        shot(page, f"i18n-refusal-{lang}", full_page=False)
    finally:
        page.context.close()


def test_the_language_follows_the_browser_and_a_switch_keeps_the_game(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    page = new_page(browser, errors, locale="nl-BE", viewport={"width": 1366, "height": 900})
    try:
        page.goto(f"{server}/")
        expect(page.locator("html")).to_have_attribute("lang", "nl")  # nl-BE: Dutch
        expect(page.locator("#daily-nav")).to_have_text("Dagelijkse uitdaging")
        expect(page.locator("#lang-switch")).to_have_value("nl")
        room = create_game(page, server, "london", "solo")
        page.wait_for_selector("svg.board-ns .hit")
        next_station_move(page, use_powers=False)
        step = step_of(page)
        sections = page.locator("svg.board-ns line.section").count()
        with page.expect_websocket():  # the room's socket opens again with the new cookie
            switch_to(page, "sk")
        expect(page.locator(".status-line .round")).to_have_text("Kolo 1 z 4")
        expect(page.locator(".players h3")).to_have_text("Hráči")
        assert page.url.rstrip("/").endswith(room) and step_of(page) == step
        expect(page.locator("svg.board-ns line.section")).to_have_count(sections)
        page.reload()
        expect(page.locator("html")).to_have_attribute("lang", "sk")  # the choice is kept
        expect(page.locator(".status-line .round")).to_have_text("Kolo 1 z 4")
        page.goto(f"{server}/#/rules/london")
        expect(page.locator("[data-testid=learn-link]")).to_have_text(
            "Hrať prvú hru so sprievodcom"
        )
        switch_to(page, "fr")  # the switch is on every page
        expect(page.locator("[data-testid=learn-link]")).to_have_text(
            "Jouer la première partie guidée"
        )
        page.goto(f"{server}/#/daily")
        expect(page.locator(".daily-header h2")).to_have_text("Défi du jour")
        page.goto(f"{server}/#/score/london")
        expect(page.locator(".score-page h2")).to_have_text("Compter une partie sur papier")
        # the guided game: a switch keeps its room and its step
        page.goto(f"{server}/#/learn/metro")
        page.click("#tutorial-next")
        expect(page.locator("[data-testid=tutorial-count]")).to_have_text("2 / 5")
        code = page.locator("[data-testid=room-code]").inner_text()
        switch_to(page, "nl")
        expect(page.locator("[data-testid=tutorial] h2")).to_contain_text("Begeleide eerste partij")
        expect(page.locator("[data-testid=tutorial-count]")).to_have_text("2 / 5")
        expect(page.locator("[data-testid=room-code]")).to_have_text(code)
        expect(page.locator(".hit.tut-mark[data-square=D1]")).to_have_count(1)
        # a replay: a switch keeps its step
        page.goto(f"{server}/#/replay/{finished_london(server)}")
        counter = page.locator("[data-testid=replay-counter]")
        page.click("#replay-next")
        expect(counter).to_contain_text("stap 2 van")  # each step drawn before the next click
        page.click("#replay-next")
        expect(counter).to_contain_text("stap 3 van")
        switch_to(page, "sk")
        expect(counter).to_contain_text("krok 3 z")
        expect(page.locator("#replay-play")).to_have_text("▶ Prehrať")
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["fr", "nl", "sk"])
def test_nothing_is_clipped_on_a_phone(
    browser: Browser, server: str, errors: PageErrors, lang: str
) -> None:
    page = new_page(browser, errors, **PHONE)
    try:
        page.add_init_script(f"localStorage.setItem('metrogames.lang', '{lang}')")
        page.goto(f"{server}/")
        page.wait_for_selector("#create-form")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        assert clipped(page) == []
        shot(page, f"i18n-home-phone-{lang}")
        page.check("input[name=mode][value=bots]")
        assert clipped(page) == []
        create_game(page, server, "london", "bots")
        page.wait_for_selector("svg.board-ns .hit")
        assert clipped(page) == []
        shot(page, f"i18n-table-phone-{lang}", full_page=False)
        create_game(page, server, "metro", "bots")
        page.wait_for_selector(".hit-square")
        assert clipped(page) == []
        shot(page, f"i18n-metro-phone-{lang}", full_page=False)
        create_game(page, server, "london", "online", **{"player-count": "3"})
        page.wait_for_selector("[data-testid=lobby-facts]")
        assert clipped(page) == []
        shot(page, f"i18n-lobby-phone-{lang}")
        page.goto(f"{server}/#/score/paris")
        page.wait_for_selector("[data-testid=score-result] h3")
        assert clipped(page) == []
        shot(page, f"i18n-score-phone-{lang}")
        page.goto(f"{server}/#/daily/london")
        page.wait_for_selector(".day-panel")
        assert clipped(page) == []
        shot(page, f"i18n-daily-phone-{lang}")
        page.goto(f"{server}/#/learn/paris")
        page.wait_for_selector("[data-testid=tutorial] h2")
        assert clipped(page) == []
        shot(page, f"i18n-tutorial-phone-{lang}", full_page=False)
    finally:
        page.context.close()


FIT_JS = """async (langs) => {
  const m = await import("/js/i18n.js");
  const faces = ["square", "circle", "triangle", "pentagon", "joker", "switch", "free-entry"];
  const kinds = ["street", "underground", "metro"];
  const out = [];
  const row = document.createElement("div");
  row.className = "card-row";
  document.body.append(row); // outside main: a language switch redraws main
  for (const lang of langs) {
    await m.setLang(lang);
    for (const current of [false, true]) {
      for (const face of faces) {
        for (const kind of kinds) {
          const card = document.createElement("div");
          card.className = `card card-street${current ? " current" : ""}`;
          const k = document.createElement("span");
          k.className = "card-kind";
          k.textContent = m.t(`card.${kind}`);
          const f = document.createElement("span");
          f.className = "card-face";
          f.textContent = m.t(`face.${face}`);
          card.append(k, f);
          row.append(card);
          const box = card.getBoundingClientRect();
          for (const el of current ? [k, f] : [f]) {
            const r = el.getBoundingClientRect();
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.push(`${lang} ${kind} ${face} ${el.textContent}`);
          }
          card.remove();
        }
      }
    }
  }
  row.remove();
  return out;
}"""


def test_every_card_word_fits_its_card(page: Page, server: str) -> None:
    """The card faces and kinds, in every language, stay inside the card (small and current)."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    overflowing = page.evaluate(FIT_JS, list(WORDS))
    assert overflowing == [], "\n".join(overflowing)


BAND_JS = """async ([lang, ratings]) => {
  const i18n = await import("/js/i18n.js");
  await i18n.setLang(lang);
  const { bandRange, bandPhrase } = await import("/js/dom.js");
  return ratings.map((r) => [bandRange(r), bandPhrase(r)]);
}"""
RATINGS = [
    {"low": None, "high": 90, "phrase": ""},
    {"low": 106, "high": 120, "phrase": ""},
    {"low": 151, "high": None, "phrase": "you know the Underground like the back of your hand"},
]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", [["90 ou moins", ""], ["106–120", ""],
                ["151 ou plus", "vous connaissez le métro de Londres comme votre poche"]]),
        ("sk", [["90 alebo menej", ""], ["106–120", ""],
                ["151 alebo viac", "londýnske metro poznáte ako vlastnú dlaň"]]),
    ],
)  # fmt: skip
def test_the_solo_band_is_worded_by_the_client(
    page: Page, server: str, lang: str, words: list[list[str]]
) -> None:
    """The solo rating's band limits come as numbers (``low``/``high``) and the client words
    them, and the top band's phrase, in the reader's language."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    assert page.evaluate(BAND_JS, [lang, RATINGS]) == words


BLUE = ["F8", "F5", "E4", "F4", "G3", "H4", "J2", "J1"]
BREAKS = {
    "en": "This drawing breaks a rule:",
    "fr": "Ce tracé enfreint une règle",
    "nl": "Deze tekening breekt een regel:",
    "sk": "Táto kresba porušuje pravidlo:",
}


@pytest.mark.parametrize("lang", ["en", "fr", "nl", "sk"])
def test_a_refused_paper_sheet_in_each_language(page: Page, server: str, lang: str) -> None:
    """A sheet whose pink line crosses the blue one: the engine's refusal in the reader's
    language (the server's words), and the refused section marked on the map (from the
    refusal's ``item``, not from its words)."""
    sheet = {
        "game": "london",
        "lines": {
            "blue": [list(pair) for pair in pairwise(BLUE)],
            "pink": [["H4", "H6"], ["H6", "E6"]],
        },
    }
    page.add_init_script(
        f"localStorage.setItem('metrogames.lang', '{lang}');"
        f"localStorage.setItem('metrogames.sheet.london', {json.dumps(json.dumps(sheet))});"
    )
    page.goto(f"{server}/#/score/london")
    error = page.locator("[data-testid=score-error]")
    expect(error).to_have_attribute("data-reason", "crosses-section")
    expect(error).to_contain_text(BREAKS[lang])
    expect(error).to_contain_text("H6-E6")
    expect(page.locator(".bad-section[data-bad='H6-E6']")).to_have_count(1)
    shot(page, f"i18n-score-refused-{lang}", full_page=False)


NAMES_JS = """async ([lang, names]) => {
  const i18n = await import("/js/i18n.js");
  await i18n.setLang(lang);
  const { fmtName } = await import("/js/dom.js");
  return names.map(fmtName);
}"""


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["medium bot", "medium bot 2", "Daan", "Bob 2"]),
        ("nl", ["bot (gemiddeld)", "bot (gemiddeld 2)", "Daan", "Bob 2"]),
        ("sk", ["bot (stredný)", "bot (stredný 2)", "Daan", "Bob 2"]),
    ],
)
def test_a_second_bot_of_a_level_is_named_in_the_pages_language(
    page: Page, server: str, lang: str, words: list[str]
) -> None:
    """The server names a room's second medium bot ``bot:medium 2``: the client words it from
    the level and the ordinal (a person's name stays as written)."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    names = ["bot:medium", "bot:medium 2", "Daan", "Bob 2"]
    assert page.evaluate(NAMES_JS, [lang, names]) == words


CARDS_JS = """async ([lang, ids]) => {
  const i18n = await import("/js/i18n.js");
  await i18n.setLang(lang);
  const { cardName, cardKind } = await import("/js/dom.js");
  return [ids.map(cardName), ["street", "underground"].map(cardKind)];
}"""


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "fr",
            [["carte surface\u00a0: rond", "carte métro\u00a0: joker", "B7"], ["surface", "métro"]],
        ),
        ("sk", [["karta (ulica): kruh", "karta (metro): žolík", "B7"], ["ulica", "metro"]]),
    ],
)
def test_card_ids_are_worded_in_the_log_and_the_analysis(
    page: Page, server: str, lang: str, words: list[list[str]]
) -> None:
    """A flipped card's id (the move log's chance moves, the analysis' costliest turn) is
    said in words; a card's kind alone is in the nominative (Slovak "ulica", not "ulice")."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    ids = ["street-circle", "underground-joker", "B7"]
    assert page.evaluate(CARDS_JS, [lang, ids]) == words
