"""Every field where a player types a name shows its rule right under it before anything is
refused, in each language: the new-game form's own name and a hot-seat player's, a room's
guest name, the daily challenge's guest name and its rename (the sign-up form's rules:
test_browser_account_security.py). The rule says what the server takes: the field's
``maxlength`` is the length it names, and a name starting "bot:" is refused."""

from __future__ import annotations

import json
import urllib.error

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import call, shot

LANGS = ("en", "fr", "nl", "sk")
REQUIRED = {
    "en": "1 to 24 characters, not starting with “bot:”",
    "fr": "1 à 24 caractères, sans commencer par «\u00a0bot:\u00a0»",
    "nl": "1 tot 24 tekens, niet beginnend met „bot:”",
    "sk": "1 až 24 znakov, nesmie začínať „bot:“",
}
OPTIONAL = {
    "en": "optional: up to 24 characters, not starting with “bot:”",
    "fr": "facultatif\u00a0: jusqu’à 24 caractères, sans commencer par «\u00a0bot:\u00a0»",
    "nl": "optioneel: tot 24 tekens, niet beginnend met „bot:”",
    "sk": "nepovinné: najviac 24 znakov, nesmie začínať „bot:“",
}


PLACED = """([sel, rule]) => {
  const f = document.querySelector(sel);
  const hint = f && document.getElementById(f.getAttribute("aria-describedby"));
  if (!hint) return null;
  const a = f.getBoundingClientRect(), b = hint.getBoundingClientRect();
  return { dx: b.left - a.left, gap: b.top - a.bottom, text: hint.textContent, width: a.width,
           max: f.getAttribute("maxlength") };
}"""
"""Where a field's rule stands against it (read in one task: a room's lobby is drawn again as
its seats change, and a field measured after it was replaced has no box)."""


def rule_beside(page: Page, selector: str, rule: str) -> None:
    """The field ``selector`` is described by a visible hint holding ``rule``, right under
    its left edge, and takes at most the 24 characters the rule names."""
    field = page.locator(selector)
    expect(field).to_be_visible()
    rule_id = field.get_attribute("aria-describedby")
    assert rule_id, "the field names no rule"
    expect(page.locator(f"[id='{rule_id}']")).to_have_text(rule)
    placed = page.evaluate(PLACED, [selector, rule])
    assert placed and placed["width"] > 0, placed
    assert abs(placed["dx"]) <= 2 and 0 <= placed["gap"] <= 8, placed
    assert placed["text"] == rule and placed["max"] == "24", placed


def test_the_server_refuses_what_the_name_rule_forbids(server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        call(server, "POST", "/api/players", {"name": "bot:me"})
    assert refused.value.code == 400 and "bot:" in refused.value.read().decode()
    assert call(server, "POST", "/api/players", {"name": "x" * 24})["name"] == "x" * 24


def test_every_name_field_shows_its_rule_in_each_language(
    browser: Browser, server: str, errors: PageErrors
) -> None:
    body = {"game": "london", "mode": "online", "seats": [{"name": "Ada"}, {}]}
    room = call(server, "POST", "/api/rooms", body)["room"]["room"]
    guest = new_page(browser, errors)
    renamer = new_page(browser, errors)
    player = call(server, "POST", "/api/players", {"name": "Bea Daily"})
    stored = json.dumps(json.dumps(player))
    renamer.add_init_script(f"localStorage.setItem('metrogames.player', {stored})")
    try:
        for lang in LANGS:
            guest.goto(f"{server}/")
            guest.select_option("#lang-switch", lang)
            rule_beside(guest, "#your-name", OPTIONAL[lang])
            guest.check("input[name=mode][value=hotseat]")
            rule_beside(guest, "#create-form input[data-seat='1']", OPTIONAL[lang])

            guest.locator(".daily-card[data-daily-game=london] .daily-play").click()
            expect(guest.locator("dialog.name-dialog")).to_be_visible()
            rule_beside(guest, "#daily-name", REQUIRED[lang])
            expect(guest.locator("dialog.name-dialog .error")).to_have_text("")
            if lang == "sk":
                shot(guest, "name-rule-daily-sk", full_page=False)
            guest.keyboard.press("Escape")

            guest.goto(f"{server}/r/{room}")
            rule_beside(guest, "#join-name", OPTIONAL[lang])
            if lang == "fr":
                shot(guest, "name-rule-room-fr", full_page=False)

            renamer.goto(f"{server}/")
            renamer.select_option("#lang-switch", lang)
            # the page is drawn again in the new language: open the panel after that
            expect(renamer.locator("html")).to_have_attribute("lang", lang)
            renamer.locator("#token-panel summary").click()
            rule_beside(renamer, "#rename", REQUIRED[lang])
    finally:
        guest.context.close()
        renamer.context.close()
