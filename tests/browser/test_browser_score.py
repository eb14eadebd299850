"""Scoring a paper game in the browser (``#/score/{game}``): a person redraws their sheet by
clicking stations (or squares), sees the breakdown after each change, sees the reason a crossing
is refused, removes the section, and downloads a sheet that ``metrogames score`` (run here)
scores the same; the downloaded sheet uploads again. Screenshots at desktop and phone size."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from browser.helpers import shot

SETTLED = "[data-testid=score-result]:not([data-pending])"
BLUE = ["F8", "F5", "E4", "F4", "G3", "H4", "J2", "J1"]
"""The blue line of ``docs/notation.md``'s example sheet (27 points with E4 circled)."""


def cli_score(path: Path) -> dict[str, Any]:
    """``metrogames score PATH --json``, run as a command."""
    command = [sys.executable, "-c", "from metrogames.cli.main import app; app()"]
    ran = subprocess.run(
        [*command, "score", str(path), "--json"],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result: dict[str, Any] = json.loads(ran.stdout)
    return result


def click_station(page: Page, name: str) -> None:
    page.click(f".layer-hits .hit[data-station={name}]")


def settle(page: Page) -> None:
    page.wait_for_selector(SETTLED)


def draw(page: Page, stations: list[str]) -> None:
    """Click a line's stations in order: each click after the first draws a section."""
    for name in stations:
        click_station(page, name)
        settle(page)


def total(page: Page) -> str:
    return page.inner_text("[data-testid=score-total]")


def download(page: Page, path: Path) -> dict[str, Any]:
    with page.expect_download() as info:
        page.click("#sheet-download")
    info.value.save_as(path)
    sheet: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return sheet


def test_a_london_sheet_drawn_by_clicking(server: str, page: Page, tmp_path: Path) -> None:
    page.goto(f"{server}/")
    page.click("#score-panel a[data-game=london]")
    page.wait_for_url("**/#/score/london")
    settle(page)
    assert total(page) == "0"
    draw(page, BLUE)
    assert page.locator(".layer-lines [data-colour=blue] .section").count() == 7
    page.click("#mode-circle")
    click_station(page, "E4")
    settle(page)
    page.check("input[type=checkbox][value=thames-6]")
    settle(page)
    assert total(page) == "27"  # the documented example
    assert "circled E4" in page.inner_text(".sheet-table")

    # a pink line that crosses the blue one is refused, naming the section and the rule
    page.click("#mode-draw")
    page.check("input[name=colour][value=pink]")
    draw(page, ["H4", "H6"])
    pink_ok = total(page)
    assert int(pink_ok) > 27
    click_station(page, "E6")
    settle(page)
    error = page.locator("[data-testid=score-error]")
    assert error.get_attribute("data-reason") == "crosses-section"
    assert (
        "pink line, section 2: section H6-E6 crosses the blue section F5-F8 (crosses-section)"
        in error.inner_text()
    )
    assert page.locator(".bad-section[data-bad='H6-E6']").count() == 1
    shot(page, "score-london-refused")

    # clicking the refused section removes it
    page.click(".hit-section[data-section='pink:H6-E6']")
    settle(page)
    assert page.locator("[data-testid=score-error]").count() == 0
    assert total(page) == pink_ok
    shot(page, "score-london")

    # the downloaded sheet is the score format: the command scores it the same
    path = tmp_path / "london-sheet.json"
    sheet = download(page, path)
    assert sheet["lines"]["blue"] == [list(p) for p in itertools.pairwise(BLUE)]
    assert sheet["lines"]["pink"] == [["H4", "H6"]]
    assert sheet["circled"] == {"blue": "E4"} and sheet["objectives"] == ["thames-6"]
    assert cli_score(path)["total"] == int(pink_ok)

    # cleared, then uploaded again: the same sheet and score
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#clear-sheet")
    settle(page)
    assert total(page) == "0"
    page.set_input_files("#sheet-upload", str(path))
    page.wait_for_function(
        "() => document.querySelector('[data-testid=score-total]')?.textContent !== '0'"
    )
    settle(page)
    assert total(page) == pink_ok

    # the same page at phone size after a reload: the sheet is kept (this browser's storage)
    # and nothing is wider than the screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("[data-testid=score-total]")
    settle(page)
    assert total(page) == pink_ok
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide
    shot(page, "score-london-phone")


def test_a_metro_board_laid_tile_by_tile(server: str, page: Page, tmp_path: Path) -> None:
    page.goto(f"{server}/#/score/metro")
    settle(page)
    # the help names the tile to lay as its picture, in the sentence's words around it
    help_line = page.locator("[data-testid=score-help]")
    assert help_line.inner_text().startswith("Click an empty square to lay")
    assert "[object" not in help_line.inner_text()
    assert help_line.locator("svg.tile-inline").count() == 1
    for tile, square in [("baac", "A1"), ("aaaa", "B1"), ("cbaa", "C1")]:
        page.click(f".tile-btn[data-tile={tile}]")
        page.click(f".hit-square[data-square={square}]")
        settle(page)
    assert total(page) == "0 · 3"  # docs/notation.md: station 6's route scores 3 for seat 1
    assert "station 6 (blue): 3 tiles = 3" in page.inner_text("[data-testid=score-result]")
    page.click(".tile-btn[data-tile=cccc]")
    page.click(".hit-square[data-square=C3]")
    settle(page)
    error = page.locator("[data-testid=score-error]")
    assert error.get_attribute("data-reason") == "not-adjacent"
    assert "turn 4: cccc on C3" in error.inner_text()
    assert page.locator(".bad-square[data-bad=C3]").count() == 1
    shot(page, "score-metro-refused")
    page.click(".hit-square[data-square=C3]")  # takes it off again
    settle(page)
    path = tmp_path / "metro-sheet.json"
    sheet = download(page, path)
    assert sheet == {
        "game": "metro",
        "player_count": 2,
        "placements": [
            {"square": "A1", "tile": "baac"},
            {"square": "B1", "tile": "aaaa"},
            {"square": "C1", "tile": "cbaa"},
        ],
    }
    assert cli_score(path)["scores"] == [0, 3]
    # four copies of aaaa exist: after the fourth its button is disabled at ×0, never ×-1
    page.click(".tile-btn[data-tile=aaaa]")
    for square in ("D1", "E1", "F1"):
        page.click(f".hit-square[data-square={square}]")
        settle(page)
    button = page.locator(".tile-btn[data-tile=aaaa]")
    assert button.inner_text().strip() == "×0" and button.is_disabled()
    page.click(".hit-square[data-square=G1]")  # nothing left to lay there
    settle(page)
    label = page.get_attribute(".hit-square[data-square=G1]", "aria-label") or ""
    assert label.startswith("lay the tile"), label  # not "take the tile aaaa off G1"
    assert page.locator(".tile-btn[data-tile=aaaa]").inner_text().strip() == "×0"
