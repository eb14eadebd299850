"""The illustrated rules pages (#/rules/{game}, made by scripts/build_rules.py from docs/): every
option a page names is on the new-game form, in every language, and the diagrams load."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser.helpers import shot

ROOT = Path(__file__).resolve().parents[2]
STEMS = {"london": "next-station-london", "paris": "next-station-paris", "metro": "metro"}
LANGS = ("en", "fr", "nl", "sk")
OPTIONS_HEADING = {"en": "Options", "fr": "Options", "nl": "Opties", "sk": "Možnosti"}
"""The heading of each page's section listing the new-game form's options, per language."""
DEV_NOTE = re.compile(r"\[\[dev: .*?\]\]|^## [^\n]*\[\[dev\]\][^\n]*\n.*?(?=^## |\Z)", re.S | re.M)


def page_text(game: str, lang: str) -> str:
    """The rules document players read (developers' notes left out, as the build does)."""
    suffix = "" if lang == "en" else f".{lang}"
    text = (ROOT / "docs" / f"{STEMS[game]}{suffix}.md").read_text(encoding="utf-8")
    return DEV_NOTE.sub("", text)


def options_table(text: str, lang: str) -> dict[str, str]:
    """The rows of the page's options table: option label → the cell naming its choices."""
    _, found, rest = text.partition(f"\n## {OPTIONS_HEADING[lang]}\n")
    assert found, f"no section '## {OPTIONS_HEADING[lang]}'"
    section = rest.split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("|")]
    return {cells[0].strip(): cells[1].strip() for cells in rows[2:]}  # past header and rule


def catalogue(lang: str) -> dict[str, str]:
    path = ROOT / "src" / "metrogames" / "web" / "static" / "i18n" / f"{lang}.json"
    texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return texts


def option_labels(lang: str) -> set[str]:
    """Every option's label on the new-game form of any game (the client's catalogue)."""
    catalogue = globals()["catalogue"](lang)
    return {v for k, v in catalogue.items() if re.fullmatch(r"option\.[a-z_]+", k)} - {
        catalogue["option.none"]
    }


NAMED = ('"{}"', "“{}”", "„{}“", "« {} »", "«{}»", "**{}**", "| {} |")
"""How a page names an option: quoted (in any of the four languages' quotes), in bold, or in a
table's cell. (Prose such as "Paris has no pencil powers" names no option.)"""


def named_options(text: str, labels: set[str]) -> set[str]:
    """The option labels ``text`` names (see ``NAMED``; in any case)."""
    low = " ".join(text.split()).lower()  # a name may run over a line break
    return {
        label for label in labels
        if any(form.format(label.lower()) in low for form in NAMED)
    }  # fmt: skip


def test_the_check_finds_an_option_named_in_the_text() -> None:
    labels = option_labels("en")
    text = (
        'Decision: the new-game option "Colour order" sets the order, with **shared objectives**'
        " but without pencil powers.\n\n| Turn mode | draw and place |\n"
    )
    assert named_options(text, labels) == {"Colour order", "Shared objectives", "Turn mode"}
    assert options_table(
        "x\n## Options\nOn the form:\n\n| option | choices |\n|---|---|\n"
        "| Turn mode | a, or b |\n\n## Next\n",
        "en",
    ) == {"Turn mode": "a, or b"}


def form_options(page: Page, game: str, lang: str) -> dict[str, list[str]]:
    """The new-game form's options for ``game`` in ``lang``: label → its choices' texts."""
    page.select_option("#lang-switch", lang)
    page.check(f"input[name=game][value={game}]")
    worded = sorted(option_labels(lang) | {catalogue(lang)["home.rules"]})
    page.wait_for_function(  # the form is drawn again in the new language
        """(worded) => { const rows = [...document.querySelectorAll("fieldset.options label.row")];
          return rows.length > 0 && rows.every((l) => worded.includes(l.firstChild.textContent.trim())); }""",
        arg=worded,
    )
    found: dict[str, list[str]] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("fieldset.options label.row")]
          .map((l) => [l.firstChild.textContent.trim(),
                       [...l.querySelectorAll("option")].map((o) => o.textContent.trim())]))"""
    )
    return found


@pytest.mark.parametrize("game", list(STEMS))
def test_every_option_a_rules_page_names_is_on_the_new_game_form(
    page: Page, server: str, game: str
) -> None:
    """In each language the page's "Options" table lists exactly the form's options, names each
    one's choices as the form words them, and no other option of any game is named anywhere
    on the page (the London page once described a "Colour order" the form does not have)."""
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form")
    for lang in LANGS:
        form = form_options(page, game, lang)
        assert form, (game, lang)
        text = page_text(game, lang)
        table = options_table(text, lang)
        assert set(table) == set(form), (game, lang, table, form)
        for label, choices in form.items():
            missing = [c for c in choices if c.lower() not in table[label].lower()]
            assert not missing, (game, lang, label, missing)
        extra = named_options(text, option_labels(lang)) - set(form)
        assert not extra, (game, lang, f"options not on the form: {extra}")


@pytest.mark.parametrize(("game", "title", "word", "pictures"), [
    ("london", "Next Station: London", "päťuholník", 3),
    ("paris", "Next Station: Paris", "štvorec", 5),
    ("metro", "Metro (Dirk Henn)", "koľaje", 3),
])  # fmt: skip
def test_a_rules_page_shows_its_diagrams(
    page: Page, server: str, game: str, title: str, word: str, pictures: int
) -> None:
    """The pictures of each illustrated page, loaded from the server, with their words in
    the reader's language (Slovak here)."""
    page.goto(f"{server}/#/rules/{game}")
    images = page.locator("[data-testid=rules-text] img")
    expect(images).to_have_count(pictures)
    for i in range(pictures):
        image = images.nth(i)
        image.scroll_into_view_if_needed()
        expect(image).to_be_visible()
        width = image.evaluate(
            "(img) => img.complete ? img.naturalWidth : new Promise((done) => {"
            " img.addEventListener('load', () => done(img.naturalWidth), {once: true});"
            " img.addEventListener('error', () => done(0), {once: true}); })"
        )
        assert width > 150, (game, i, width)
        assert image.get_attribute("alt")
    shot(page, f"rules-{game}-illustrated")
    page.select_option("#lang-switch", "sk")
    expect(page.locator("[data-testid=rules-text] h1")).to_have_text(title)
    expect(page.locator("[data-testid=rules-text] img").first).to_have_attribute(
        "alt", re.compile(word)
    )
    shot(page, f"rules-{game}-illustrated-sk")
