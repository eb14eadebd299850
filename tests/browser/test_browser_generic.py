"""A game no screen of the client knows — the test-only plug-in ``line3`` (``tests/support/line3.py``),
served by naming it at the server's start — played in Chromium through the generic screen: a
grid drawn from its board data, each move a click on a highlighted cell, two seats at one
browser (hot-seat: the page's socket speaks for the seat to move). The scores shown at the end
are checked against the room's record, recounted here; the replay shows the same grid."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from browser.helpers import GAME_OVER, call, create_game, shot, step_of, wait_step_after

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def recount(moves: list[list[object]]) -> list[int]:
    """Lines of three per seat, from a record's moves alone (the rules of ``tests/support/line3.py``)."""
    board = [-1] * 9
    for player, cell in moves:
        if player != -1:
            text = str(cell)
            board[(int(text[1]) - 1) * 3 + "ABC".index(text[0])] = int(str(player))
    return [sum(all(board[c] == p for c in line) for line in LINES) for p in (0, 1)]


def marks(page: Page) -> dict[str, int]:
    """The cells the board shows marked, with the seat of each."""
    found = page.eval_on_selector_all(
        "svg.board-generic .cell",
        "cells => cells.filter(c => c.querySelector('.cell-mark'))"
        ".map(c => [c.dataset.cell, Number(c.querySelector('.cell-mark').dataset.seat)])",
    )
    return {cell: seat for cell, seat in found}


def test_line3_hotseat_to_the_end_on_the_generic_screen(page: Page, plugin_server: str) -> None:
    page.goto(f"{plugin_server}/")
    page.wait_for_selector("#create-form")
    expect(
        page.locator("label.game-choice", has_text="Line 3")
    ).to_be_visible()  # the server's title
    room = create_game(page, plugin_server, "line3", "hotseat", name="Ada")
    page.wait_for_selector("svg.board-generic .hit-cell")
    expect(page.locator("svg.board-generic .cell")).to_have_count(9)
    names = page.eval_on_selector_all(
        "svg.board-generic .cell", "cs => cs.map(c => c.dataset.cell)"
    )
    assert sorted(names) == sorted(f"{c}{r}" for c in "ABC" for r in "123")
    shot(page, "generic-line3-start")

    played: list[tuple[int, str]] = []
    while not page.locator(GAME_OVER).count():
        assert len(played) < 9, "the game did not end after nine moves"
        hits = page.locator("svg.board-generic .hit-cell")
        expect(hits.first).to_be_visible()
        cell = hits.first.get_attribute("data-cell")
        assert cell is not None
        # every cell offered is free and in the row the die named (all free ones when it is full)
        offered = page.eval_on_selector_all(
            "svg.board-generic .hit-cell", "hs => hs.map(h => h.dataset.cell)"
        )
        assert not set(offered) & set(marks(page))
        step = step_of(page)
        hits.first.click()
        wait_step_after(page, step)
        expect(page.locator(f"svg.board-generic .cell[data-cell={cell}] .cell-mark")).to_have_count(
            1
        )
        played.append((marks(page)[cell], cell))
    assert [who for who, _ in played] == [0, 1, 0, 1, 0, 1, 0, 1, 0]  # Ada first, then in turn
    assert marks(page) == {cell: who for who, cell in played}

    record = call(plugin_server, "GET", f"/api/rooms/{room}/record")
    assert [(p, c) for p, c in record["moves"] if p != -1] == played
    truth = recount(record["moves"])
    end = page.locator(".panel.end")
    for seat, points in enumerate(truth):
        expect(end.locator(f"tr[data-seat='{seat}'] td.num")).to_have_text(str(points))
    best = max(truth)
    winners = [seat for seat in (0, 1) if truth[seat] == best]
    for seat in (0, 1):
        row = end.locator(f"tr[data-seat='{seat}']")
        assert ("★" in row.inner_text()) == (seat in winners)
    shot(page, "generic-line3-end")

    page.click("#replay-btn")
    page.wait_for_selector("[data-testid=replay-counter]")
    page.click("#replay-last")
    expect(page.locator("svg.board-generic .cell-mark")).to_have_count(9)
    expect(page.locator("svg.board-generic .hit-cell")).to_have_count(0)  # a replay plays nothing
    shot(page, "generic-line3-replay")


# dom.js COLOUR_HEX of yellow blue orange green purple black, as the browser reports them
METRO_FILLS = [
    "rgb(232, 184, 0)",
    "rgb(31, 111, 209)",
    "rgb(239, 125, 0)",
    "rgb(21, 146, 74)",
    "rgb(132, 70, 214)",
    "rgb(22, 24, 29)",
]


def test_plug_in_seats_take_metro_s_seat_colours(page: Page, plugin_server: str) -> None:
    """A plug-in game's seats 1 to 6 are coloured as Metro's (yellow, blue, orange, green,
    purple, black: Metro's own board data says so), each with its letter Y B O G P L, never
    red or violet; seats 7 to 12 take the colours again with a 2 after the letter and the
    name, so no two of twelve seats read alike; on line3's board the two seats' marks are
    yellow Y and blue B."""
    assert call(plugin_server, "GET", "/api/games/metro/board")["colours"] == [
        "yellow", "blue", "orange", "green", "purple", "black"
    ]  # fmt: skip
    page.goto(f"{plugin_server}/")
    page.wait_for_selector("#create-form")
    chips = page.evaluate(
        """async () => { const { seatMark } = await import("/js/play-generic.js");
          const box = document.body.appendChild(document.createElement("div"));
          return [...Array(12).keys()].map((seat) => { const chip = box.appendChild(seatMark(seat));
            const swatch = chip.querySelector(".chip-swatch");
            return [getComputedStyle(swatch).backgroundColor, swatch.textContent,
                    chip.querySelector(".chip-name").textContent]; }); }"""
    )
    assert [c[0] for c in chips[:6]] == METRO_FILLS, chips
    assert "".join(c[1] for c in chips[:6]) == "YBOGPL"
    assert [c[2] for c in chips[:6]] == ["yellow", "blue", "orange", "green", "purple", "black"]
    names = ["yellow", "blue", "orange", "green", "purple", "black"]
    assert chips[6:] == [[fill, f"{letter}2", f"{name} 2"] for fill, letter, name in zip(
        METRO_FILLS, "YBOGPL", names, strict=True
    )]  # fmt: skip
    assert len({(c[1], c[2]) for c in chips}) == 12  # twelve seats, twelve marks

    create_game(page, plugin_server, "line3", "hotseat", name="Ada")
    for seat in (0, 1):
        hit = page.locator("svg.board-generic .hit-cell").first
        cell = hit.get_attribute("data-cell")
        step = step_of(page)
        hit.click()
        wait_step_after(page, step)
        mark = page.locator(f"svg.board-generic .cell[data-cell={cell}]")
        expect(mark.locator(".cell-mark")).to_have_attribute("fill", ["#e8b800", "#1f6fd1"][seat])
        expect(mark.locator(".cell-mark-text")).to_have_text("YB"[seat])
    shot(page, "generic-line3-seat-colours")
