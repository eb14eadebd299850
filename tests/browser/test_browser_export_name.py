"""The account panel's "Show my name in the monthly open-data exports" (docs/exports.md, "Who
is shown"): off by default, ticked and kept by the server (a reload shows it), in each
language."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from browser.helpers import shot

LABELS = {
    "en": "Show my name in the monthly open-data exports",
    "fr": "Afficher mon nom dans les exports mensuels de données ouvertes",
    "nl": "Mijn naam tonen in de maandelijkse open-data-exports",
    "sk": "Zobraziť moje meno v mesačných exportoch otvorených dát",
}


def test_the_export_name_setting_is_kept_and_translated(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.fill("#account-name", "Dora Exports")
    page.fill("#account-password", "a long enough password")
    page.click("#sign-up")
    expect(page.locator("[data-testid=signed-in]")).to_contain_text(
        "Dora Exports", timeout=60_000
    )  # the password is hashed in a job process
    box = page.locator("#export-name")
    expect(box).not_to_be_checked()  # the default: a pseudonym
    box.check()
    expect(page.locator(".toast").last).to_contain_text("Saved: the next export uses it.")
    page.reload()
    expect(page.locator("#export-name")).to_be_checked()
    for lang, label in LABELS.items():
        page.select_option("#lang-switch", lang)
        expect(page.locator("label:has(#export-name)")).to_contain_text(label)
        if lang == "sk":
            shot(page.locator("#account").page, "account-export-name-sk", full_page=False)
    page.select_option("#lang-switch", "en")
    page.locator("#export-name").uncheck()
    page.reload()
    expect(page.locator("#export-name")).not_to_be_checked()
