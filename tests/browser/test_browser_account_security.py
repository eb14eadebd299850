"""The account panel's password and sessions in the browser: the sign-up form shows the name's
and the password's rules beside their fields before any refusal (in each language), a password change signs out the
account's other browser, and "sign out my other sessions" asks first, then signs them out."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import shot

RULES = {
    "en": "8 to 256 characters",
    "fr": "8 à 256 caractères",
    "nl": "8 tot 256 tekens",
    "sk": "8 až 256 znakov",
}
NAME_RULES = {
    "en": "1 to 64 characters: letters, digits, ASCII punctuation, single spaces",
    "fr": "1 à 64 caractères\u00a0: lettres, chiffres, ponctuation ASCII, espaces simples",
    "nl": "1 tot 64 tekens: letters, cijfers, ASCII-leestekens, enkele spaties",
    "sk": "1 až 64 znakov: písmená, číslice, interpunkcia ASCII, jednoduché medzery",
}
PASSWORD = "the first long password"
NEW = "the second long password"


def test_the_sign_up_rules_are_shown_beside_their_fields_in_each_language(
    page: Page, server: str
) -> None:
    for lang, password_rule in RULES.items():
        page.goto(f"{server}/")
        page.select_option("#lang-switch", lang)
        for field_id, rule_id, rule in (
            ("account-name", "name-rule", NAME_RULES[lang]),
            ("account-password", "password-rule", password_rule),
        ):
            field = page.locator(f"#{field_id}")
            expect(field).to_be_visible()
            hint = page.locator(f"[data-testid={rule_id}]")
            expect(hint).to_have_text(rule)
            assert field.get_attribute("aria-describedby") == rule_id
            # beside the field: right under it, at its left edge
            box, at = field.bounding_box(), hint.bounding_box()
            assert box and at and abs(at["x"] - box["x"]) <= 2, (box, at)
            assert 0 <= at["y"] - (box["y"] + box["height"]) <= 8, (box, at)
        expect(page.locator("[data-testid=account-error]")).to_have_text("")  # nothing refused yet
        if lang == "fr":
            shot(page, "account-password-rule-fr", full_page=False)
    page.select_option("#lang-switch", "en")


def signed_in(page: Page) -> None:
    expect(page.locator("[data-testid=signed-in]")).to_contain_text("Cleo Account")


def sign_in(page: Page, server: str, password: str) -> None:
    page.goto(f"{server}/")
    page.fill("#account-name", "Cleo Account")
    page.fill("#account-password", password)
    page.click("#sign-in")
    signed_in(page)


def test_a_password_change_and_signing_out_the_other_browsers(
    page: Page, server: str, browser: Browser, errors: PageErrors
) -> None:
    page.goto(f"{server}/")
    page.fill("#account-name", "Cleo Account")
    page.fill("#account-password", PASSWORD)
    page.click("#sign-up")
    signed_in(page)
    other = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    try:
        sign_in(other, server, PASSWORD)
        # a wrong current password: the server's refusal, nothing changed
        page.fill("#current-password", "not my password at all")
        page.fill("#new-password", NEW)
        page.click("#change-password")
        expect(page.locator("[data-testid=security-error]")).to_contain_text(
            "not the account's password"
        )
        page.fill("#new-password", "short")
        page.click("#change-password")
        expect(page.locator("[data-testid=security-error]")).to_contain_text("8 to 256 characters")
        page.fill("#current-password", PASSWORD)
        page.fill("#new-password", NEW)
        page.click("#change-password")
        expect(page.locator("[data-testid=security-status]")).to_have_text(
            "Password changed. 1 other session was signed out."
        )
        expect(page.locator("#current-password")).to_have_value("")
        shot(page, "account-password-changed")
        other.reload()
        expect(other.locator("#account-name")).to_be_visible()  # signed out there
        page.reload()
        signed_in(page)  # not here
        sign_in(other, server, NEW)

        # signing out the other sessions asks first; dismissed, nothing happens
        asked: list[str] = []
        page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        page.click("#sign-out-others")
        assert asked and "This one stays signed in" in asked[0]
        other.reload()
        signed_in(other)
        page.once("dialog", lambda d: d.accept())
        page.click("#sign-out-others")
        expect(page.locator("[data-testid=security-status]")).to_have_text(
            "1 other session was signed out."
        )
        other.reload()
        expect(other.locator("#account-name")).to_be_visible()
        page.reload()
        signed_in(page)
        shot(page, "account-others-signed-out")
    finally:
        other.context.close()
    assert not errors, errors
