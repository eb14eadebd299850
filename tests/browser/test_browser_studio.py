"""The map studio in the browser (``#/studio``, issue 25 item 4): a small map drawn from scratch
by mouse — stations placed, one moved, symbols set, links dragged between stations, the district
painted, a river drawn —, the checker's message seen and fixed, the map exported (``metrogames
map check`` finds it valid, crossings and river sections as the drawing has them), a solo game
tried on it and played to the end, and its record downloaded, which ``metrogames replay``
accepts with the exported map. On a phone, a station placed and linked by touch. Screenshots in
``test-artifacts/``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from browser.conftest import PageErrors, new_page
from browser.helpers import GAME_OVER, play_next_station, shot

STATIONS = [("A1", "square"), ("C1", "circle"), ("B2", "any"), ("A3", "triangle")]
LINKS = [("A1", "C1"), ("A1", "A3"), ("C1", "C3"), ("A3", "C3"),
         ("A1", "B2"), ("B2", "C3"), ("C1", "B2"), ("B2", "A3")]  # fmt: skip
PROBLEMS = "[data-testid=studio-problems]"
VALID = "[data-testid=studio-valid]"
SETTLED = "#studio-report:not([data-pending])"


def command(*args: str) -> dict[str, Any]:
    """``metrogames ARGS --json``, run as a command; its decoded output."""
    ran = subprocess.run(
        [sys.executable, "-c", "from metrogames.cli.main import app; app()", *args, "--json"],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.stdout, ran.stderr
    out: dict[str, Any] = json.loads(ran.stdout)
    return out


def point(page: Page, x: float, y: float) -> tuple[float, float]:
    """The page position of map point (x, y) (cell coordinates: a cell's centre is (col, row))
    on the studio's board, read off its SVG's screen transform."""
    pos: list[float] = page.evaluate(
        """([x, y]) => { const svg = document.getElementById('studio-board');
          const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
          return [p.x, p.y]; }""",
        [x, y],
    )
    return pos[0], pos[1]


def cell(page: Page, name: str) -> tuple[float, float]:
    return point(page, "ABCDEFGH".index(name[0]), int(name[1:]) - 1)


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=3)
    page.mouse.move(*end, steps=3)
    page.mouse.up()


def tool(page: Page, name: str) -> None:
    page.click(f"#tool-{name}")
    expect(page.locator(f"#tool-{name}")).to_have_attribute("aria-pressed", "true")


def draw_map(page: Page) -> None:
    """The 4×4 map of the module docstring, green's departure left out."""
    page.fill("#studio-columns", "4")
    page.press("#studio-columns", "Tab")
    page.fill("#studio-rows", "4")
    page.press("#studio-rows", "Tab")
    expect(page.locator("#studio-board .cell")).to_have_count(16)
    page.fill("#studio-title", "Tiny Town")
    page.press("#studio-title", "Tab")
    tool(page, "station")
    for name, symbol in STATIONS:
        page.mouse.click(*cell(page, name))
        page.select_option("#studio-symbol", symbol)
        expect(page.locator(f"[data-station={name}]")).to_have_count(1)
    page.mouse.click(*cell(page, "D4"))  # placed, then moved: a pentagon at C3
    page.select_option("#studio-symbol", "pentagon")
    drag(page, cell(page, "D4"), cell(page, "C3"))
    expect(page.locator("[data-station=C3]")).to_have_count(1)
    expect(page.locator("[data-station=D4]")).to_have_count(0)
    tool(page, "link")
    for a, b in LINKS:
        drag(page, cell(page, a), cell(page, b))
    expect(page.locator("#studio-board .link")).to_have_count(len(LINKS))
    tool(page, "district")
    for row in range(4):
        drag(page, point(page, 0, row), point(page, 3, row))
    expect(page.locator("#studio-board .cell[fill='#fff']")).to_have_count(0)
    tool(page, "river")  # along the half row between rows 2 and 3
    page.mouse.click(*point(page, -0.3, 1.7))
    page.mouse.click(*point(page, 3.3, 1.7))
    expect(page.locator("#studio-board .river")).to_have_count(1)
    tool(page, "station")
    for name, colour in (("A1", "blue"), ("C1", "pink"), ("A3", "purple")):
        page.mouse.click(*cell(page, name))
        page.select_option("#studio-departure", colour)


def test_a_map_drawn_by_mouse_is_checked_fixed_exported_and_played(
    page: Page, server: str, tmp_path: Path
) -> None:
    page.goto(f"{server}/#/studio")
    page.wait_for_selector("#studio-board")
    draw_map(page)
    expect(page.locator(SETTLED + " " + PROBLEMS)).to_have_text(
        "departures: colour green has no departure", timeout=30_000
    )
    expect(page.locator("#studio-try")).to_be_disabled()
    shot(page, "studio-problem")
    # an undone mistake: a link erased, then brought back
    tool(page, "erase")
    page.mouse.click(*point(page, 1, 0))  # the middle of A1-C1
    expect(page.locator("#studio-board .link")).to_have_count(len(LINKS) - 1)
    page.click("#studio-undo")
    expect(page.locator("#studio-board .link")).to_have_count(len(LINKS))
    tool(page, "station")
    page.mouse.click(*cell(page, "C3"))
    page.select_option("#studio-departure", "green")
    expect(page.locator(VALID)).to_be_visible(timeout=30_000)  # the check: a job (a loaded machine)
    expect(page.locator("[data-testid=studio-counts]")).to_have_text(
        "5 stations, 8 links, 0 crossing pairs, 1 districts"
    )
    shot(page, "studio-valid")
    with page.expect_download() as info:
        page.click("#studio-export")
    city = tmp_path / "tiny.json"
    info.value.save_as(city)
    drawn = json.loads(city.read_text(encoding="utf-8"))
    assert drawn["format"] == "metrogames/city/1" and drawn["city"] == "tiny-town"
    assert drawn["departures"] == {"blue": "A1", "pink": "C1", "purple": "A3", "green": "C3"}
    # the river's sections, worked out by hand: the links from row 1 or 2 to row 3
    assert sorted(map(sorted, drawn["river"]["sections"])) == [
        ["A1", "A3"], ["A3", "B2"], ["B2", "C3"], ["C1", "C3"],
    ]  # fmt: skip
    checked = command("map", "check", str(city))
    assert checked["valid"], checked["problems"]
    assert checked["counts"]["river_sections"] == 4 and checked["counts"]["links"] == 8
    page.click("#studio-try")
    page.wait_for_url("**/r/*")
    page.wait_for_selector("svg.board-ns")
    expect(page.locator(".room-header h2")).to_have_text("Tiny Town")  # the map's title
    shot(page, "studio-try")
    play_next_station(page, use_powers=False)
    expect(page.locator(GAME_OVER)).to_be_visible()
    shot(page, "studio-end")
    with page.expect_download() as info:
        page.click("#download-btn")
    record = tmp_path / "record.json"
    info.value.save_as(record)
    assert json.loads(record.read_text())["game"] == "nextstation"
    replayed = command("replay", str(record), "--map", str(city))
    assert replayed["valid"] and replayed["finished"], replayed
    total = page.locator(".final-sheet [data-testid=sheet-total]").first.inner_text()
    assert replayed["scores"] == [int(total)]
    page.click("#replay-btn")  # the room's replay, drawn from the room's board
    expect(page.locator("[data-testid=replay-counter]")).to_be_visible()
    expect(page.locator("svg.board-ns g.station")).to_have_count(5)
    shot(page, "studio-replay")


def test_a_station_is_placed_and_linked_by_touch_on_a_phone(
    browser: Browser, errors: PageErrors, server: str
) -> None:
    phone = new_page(
        browser, errors, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        phone.goto(f"{server}/#/studio")
        phone.wait_for_selector("#studio-board")
        phone.tap("#tool-station")
        phone.touchscreen.tap(*cell(phone, "B2"))
        phone.touchscreen.tap(*cell(phone, "D2"))
        expect(phone.locator("[data-station=B2]")).to_have_count(1)
        expect(phone.locator("[data-station=D2]")).to_have_count(1)
        phone.tap("#tool-link")
        start, end = cell(phone, "B2"), cell(phone, "D2")
        touch = phone.context.new_cdp_session(phone)  # a real finger's drag: touch events
        for kind, at in (("touchStart", start), ("touchMove", end), ("touchEnd", None)):
            points = [] if at is None else [{"x": at[0], "y": at[1]}]
            touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
        expect(phone.locator("[data-link=B2-D2]")).to_have_count(1)
        expect(phone.locator(SETTLED + " " + PROBLEMS)).to_contain_text(
            "stations[1].district: String should match pattern", timeout=30_000
        )  # the second station's cell unpainted: the answer on this drawing, not the empty one's
        shot(phone, "studio-phone")
    finally:
        phone.context.close()


TINYTOWN = Path(__file__).parents[1] / "games" / "nextstation" / "maps" / "tinytown.json"


def test_an_account_saves_an_imported_map_and_opens_an_online_room_on_it(
    page: Page, server: str, tmp_path: Path
) -> None:
    page.goto(f"{server}/#/")
    status = page.evaluate(
        """async () => (await fetch('/api/accounts', { method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Cartographer', password: 'correct horse 42' }) })).status"""
    )
    assert status == 201
    data = json.loads(TINYTOWN.read_text(encoding="utf-8"))
    data["title"] = "<i>Tiny</i> & town"  # shown as text, never as markup
    path = tmp_path / "tinytown.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page.goto(f"{server}/#/studio")
    page.reload()  # signed in: the studio offers saving
    page.wait_for_selector("#studio-save")
    page.set_input_files("#studio-import", str(path))
    expect(page.locator("#studio-title")).to_have_value("<i>Tiny</i> & town")
    expect(page.locator(VALID)).to_be_visible(timeout=30_000)
    expect(page.locator("[data-testid=studio-counts]")).to_have_text(
        "18 stations, 49 links, 8 crossing pairs, 4 districts"
    )  # the imported drawing's crossings and river sections read off again, as the file has them
    page.click("#studio-save")
    saved = page.locator("[data-testid=saved-maps] .saved-title")
    expect(saved).to_have_text(["<i>Tiny</i> & town"])
    expect(page.locator("[data-testid=saved-maps] i")).to_have_count(0)
    shot(page, "studio-saved")
    page.locator("[data-online]").first.click()
    page.wait_for_url("**/r/*")
    expect(page.locator(".room-header h2")).to_have_text("<i>Tiny</i> & town")
    expect(page.locator("[data-testid=lobby-facts]")).to_contain_text("Map: <i>Tiny</i> & town")
    expect(page.locator("[data-testid=lobby-facts]")).not_to_contain_text("crossings")
    shot(page, "studio-online-room")


def test_the_report_panel_shows_how_a_map_plays(page: Page, server: str) -> None:
    """The report of an imported map (bots play it solo on the server's two deals, beside
    London and Paris): its figures equal ``map report``'s rows on the same deals, played here
    by the command's own code; the heat map rings exactly the stations the bots' lines used."""
    from metrogames.bots.solo import drawn_links
    from metrogames.cli.map_report import play_row
    from metrogames.sim.runner import Task, run_task

    data = json.loads(TINYTOWN.read_text(encoding="utf-8"))
    page.goto(f"{server}/#/studio")
    page.wait_for_selector("#studio-board")
    page.set_input_files("#studio-import", str(TINYTOWN))
    expect(page.locator(VALID)).to_be_visible(timeout=30_000)
    page.click("#studio-report-run")
    figures = page.locator("[data-testid=studio-figures]")
    expect(figures).to_be_visible(timeout=400_000)  # the first report also plays London and Paris
    deals = range(1, 3)
    levels = ("medium", "hard")
    expected = [play_row("this", "nextstation", {"map": data}, lvl, deals, 1) for lvl in levels]
    expected += [play_row(city, city, {}, "medium", deals, 1) for city in ("london", "paris")]
    for row in expected:
        shown = figures.locator(f"tr[data-map={row.map}][data-level={row.level}]")
        s = row.scores
        expect(shown.locator("[data-figure=mean]")).to_have_text(f"{s.mean:.1f}")
        expect(shown.locator("[data-figure=spread]")).to_have_text(
            f"± {s.std:.1f} ({s.min:.0f}–{s.max:.0f})"
        )
        for name, points in row.components.items():
            if name != "total":
                share = math.floor(100 * points / row.components["total"] + 0.5)  # as Intl
                expect(shown.locator(f"[data-share={name}]")).to_have_text(f"{share} %")
    expect(figures.locator("tr[data-level=hard]")).to_have_count(3)
    used: set[str] = set()
    for level in levels:
        for seed in deals:
            record = run_task(Task("nextstation", (level,), seed, {"map": data}, None, True)).record
            used |= {name for link in drawn_links(record) for name in link}
    heat = page.locator("#studio-board .heat-station")
    assert sorted(heat.evaluate_all("els => els.map(e => e.dataset.heat)")) == sorted(used)
    shot(page, "studio-report")


def test_paris_imported_into_the_studio_exports_as_its_file(
    page: Page, server: str, tmp_path: Path
) -> None:
    """The package's Paris (its central platform a station over four cells, its link geometry,
    bridges and aliases) drawn by the studio and exported again: the same map as its file, and
    valid; a station over cells off the grid is refused with a message."""
    paris = Path(__file__).parents[2] / "src" / "metrogames" / "data" / "paris.json"
    page.goto(f"{server}/#/studio")
    page.wait_for_selector("#studio-board")
    page.set_input_files("#studio-import", str(paris))
    expect(page.locator("#studio-title")).to_have_value("Next Station: Paris")
    expect(page.locator(VALID)).to_be_visible(timeout=30_000)
    expect(page.locator("[data-testid=studio-counts]")).to_have_text(
        "53 stations, 152 links, 77 crossing pairs, 13 districts"
    )
    expect(page.locator("[data-station=E5]")).to_have_count(1)  # the platform, by its name
    with page.expect_download() as info:
        page.click("#studio-export")
    out = tmp_path / "paris.json"
    info.value.save_as(out)
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(paris.read_text("utf-8"))
    shot(page, "studio-paris")
    broken = json.loads(paris.read_text("utf-8"))
    platform = next(s for s in broken["stations"] if "cells" in s)
    platform["cells"][0] = [10, 4]  # off the 10×10 grid
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken), encoding="utf-8")
    page.set_input_files("#studio-import", str(bad))
    expect(page.locator(".toast").last).to_contain_text(
        "station E5: cells are 2 to 9 [col, row] pairs on the grid"
    )
    page.select_option("#lang-switch", "fr")  # the refusal in the page's language
    again = tmp_path / "bad-again.json"  # another file: the input's change fires again
    again.write_text(json.dumps(broken), encoding="utf-8")
    page.set_input_files("#studio-import", str(again))
    french = "station E5 : cells sont de 2 à 9 paires [col, row] dans la grille"
    expect(page.locator(".toast", has_text=french)).to_have_count(1)
    page.select_option("#lang-switch", "en")


def test_an_uploaded_record_of_a_custom_map_draws_its_map(
    page: Page, server: str, tmp_path: Path
) -> None:
    """A record of a game on the test map (played by ``simulate``'s code: it carries its map
    and ``map_hash``), uploaded on the home page: the replay draws the record's own map — its
    18 stations and 49 links."""
    from metrogames.sim.runner import Task, run_task

    data = json.loads(TINYTOWN.read_text(encoding="utf-8"))
    played = run_task(Task("nextstation", ("medium",), 4, {"map": data}, None, True))
    assert played.record is not None and played.record["map"] == data
    path = tmp_path / "tinytown-record.json"
    path.write_text(json.dumps(played.record), encoding="utf-8")
    page.goto(f"{server}/")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay-slider")
    expect(page.locator("svg.board-ns g.station")).to_have_count(18)
    expect(page.locator("svg.board-ns [data-station=A1]")).to_have_count(1)  # tinytown's cells
    expect(page.locator("svg.board-ns .link")).to_have_count(49)
    page.keyboard.press("End")
    expect(page.locator("[data-testid=replay-counter]")).to_be_visible()
    shot(page, "studio-record-replay")
