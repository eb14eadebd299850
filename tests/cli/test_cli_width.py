"""The terminal at 80 columns: every map is drawn for the terminal's width (a row cut at the
edge, never wrapped onto the next, under a line saying how many columns the whole map needs)
and ``--help`` texts flow at any width (no line break inside a sentence)."""

from __future__ import annotations

import inspect
import io
import re

import pytest
from rich.console import Console
from typer.testing import CliRunner

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS
from metrogames.bots.analysis import analyse as analyse_record
from metrogames.bots.hindsight import Budget
from metrogames.bots.play import play_bots
from metrogames.cli.analyse import print_analysis
from metrogames.cli.main import app, console_for
from metrogames.cli.render import Seats, renderer_for
from metrogames.games import game_type, load_game
from support.records import solo_record


def _printed(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None, soft_wrap=True)
    console.print(renderable)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return [line.rstrip() for line in text.splitlines()]


def _finished(game: str, players: int) -> object:
    g = load_game(game, players=players)
    return play_bots(g.new_game(7), [make_bot("random", 7 + p) for p in range(players)])


@pytest.mark.parametrize("game", ["london", "paris"])
def test_a_next_station_map_is_drawn_for_the_terminal_width(game: str) -> None:
    """At 80 columns the map (river row included) fits whole, or each row is cut at the edge
    under a line saying how many columns it needs; at 60 columns the rows are cut, never
    wrapped onto the next row."""
    renderer = renderer_for(game_type(game))
    state = _finished(game, 1)
    wide = _printed(renderer.final_map(state, 0, "Ada"), 200)  # type: ignore[arg-type]
    need = max(len(line) for line in wide)
    for width in (80, 60):
        narrow = _printed(renderer.final_map(state, 0, "Ada"), width)  # type: ignore[arg-type]
        if need <= width:
            assert narrow == wide
            continue
        assert narrow[0] == (
            f"(this map needs {need} columns and has {width}: widen the terminal to see it "
            "whole)"
        )
        # the same rows, each the wide row's first columns: no row continues on the next
        assert narrow[1:] == [line[:width].rstrip() for line in wide]
    if game == "london":
        assert any("≈" in line for line in wide)  # the Thames's rows are among them


def test_every_turn_and_end_screen_fits_80_columns() -> None:
    """The screens a game prints (a turn, the round end, the game over) keep their map rows
    within 80 columns, for every built-in game."""
    for game, players in (("london", 1), ("paris", 2), ("metro", 2)):
        renderer = renderer_for(game_type(game))
        state = _finished(game, players)
        seats = Seats(names=[f"P{p}" for p in range(players)], humans=list(range(players)))
        for renderable in (renderer.game_over(state, seats), renderer.final_map(state, 0, "t")):  # type: ignore[arg-type]
            rows = _printed(renderable, 80)
            drawn = [r for r in rows if re.search(r"[│╱╲≈]", r)]  # map rows, not prose
            assert drawn and all(len(r) <= 80 for r in drawn), (game, max(map(len, drawn)))


def test_the_metro_board_fits_80_columns_whole() -> None:
    renderer = renderer_for(game_type("metro"))
    rows = _printed(renderer.final_map(_finished("metro", 2), 0, "t"), 80)  # type: ignore[arg-type]
    assert not any(r.startswith("(this map needs") for r in rows)


def test_help_texts_flow_without_breaks_inside_sentences() -> None:
    """Each command's description, at 200 columns, is one line per paragraph (no line break
    of the source left inside a sentence), in the commands' list and on its own page; at 80
    columns no help line is wider than the terminal."""
    runner = CliRunner()
    top = runner.invoke(app, ["--help"], env={"COLUMNS": "200", "TERM": "dumb"}).stdout
    for command in app.registered_commands:
        assert command.callback is not None
        source = inspect.cleandoc(command.callback.__doc__ or "")
        first = " ".join(source.split("\n\n")[0].split())
        if len(first) > 180 or "[" in first:
            continue  # wider than the wide panel's column, or Rich markup
        name = command.name or command.callback.__name__.replace("_", "-")
        listed = [line for line in top.splitlines() if re.match(rf"│ {name}\s", line)]
        assert listed and first in listed[0], (name, listed)
        page = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200", "TERM": "dumb"})
        assert any(first in line for line in page.stdout.splitlines()), (name, page.stdout)
        narrow = runner.invoke(app, [name, "--help"], env={"COLUMNS": "80", "TERM": "dumb"})
        assert all(len(line) <= 80 for line in narrow.stdout.splitlines()), name


def test_a_terminal_wraps_sentences_between_words_and_a_pipe_keeps_each_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``analyse``'s sentences at 80 columns: in a terminal every line fits and no word is cut
    (the same words as a pipe gets); into a pipe each sentence stays whole on one line."""
    monkeypatch.setitem(BUDGETS, "quick", Budget(width=2, playouts=2, coach=60))
    result = analyse_record(solo_record(32, "greedy", "london"), "quick", 3)
    printed = {}
    for terminal in (True, False):
        console = console_for(
            file=io.StringIO(), force_terminal=terminal, width=80, color_system=None
        )
        assert console.is_terminal is terminal
        print_analysis(console, result)
        printed[terminal] = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    term, pipe = printed[True], printed[False]
    assert all(len(line) <= 80 for line in term), max(term, key=len)
    assert " ".join(term).split() == " ".join(pipe).split()  # no word cut in two
    note = "That is the best score found by a search with the whole deck known, not a proven optimum."
    assert note in pipe and note not in term  # 89 characters: one line in a pipe only
