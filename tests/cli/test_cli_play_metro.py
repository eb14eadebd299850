"""``metrogames play metro``: the terminal game loop (``cli/play.py``) with the Metro renderer
(``cli/render/metro.py``) driven by scripted input, and its pictures
(``cli/render/metro_board.py``)."""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from metrogames.cli.play import play_game, resume_game
from metrogames.cli.render.metro_board import (
    CELL_H,
    CELL_W,
    ENDPOINT_CELL,
    TILE_PATHS,
    render_board,
    route_text,
    tile_strokes,
)
from metrogames.core.errors import OptionError
from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    MetroAction,
    MetroGame,
    MetroOptions,
    MetroState,
    format_metro_action,
    load_metro,
    parse_square,
    replay_metro_record,
)

SEED = 20261129
_MOVE_LINE = re.compile(r"^\s+([a-d]{4}): ([A-H][1-8])", re.MULTILINE)


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=120, color_system=None), buf


def play_metro(
    players: int,
    bots: list[str],
    turn_mode: str,
    one_tile_routes: str,
    seed: int,
    out: Path,
    console: Console,
    input_fn: Callable[[str], str],
) -> dict[str, Any]:
    """``metrogames play metro`` with these options."""
    options = {"turn_mode": turn_mode, "one_tile_routes": one_tile_routes}
    return play_game("metro", players, bots, options, seed, out, console, input_fn)


def _final_scores(text: str) -> list[int]:
    """The totals of the ``Final scores: Player 1: 37 · bot:random: 40`` line."""
    line = next(ln for ln in text.splitlines() if ln.startswith("Final scores:"))
    return [int(x) for x in re.findall(r": (\d+)", line)]


def _first_move_player(
    buf: io.StringIO, extra: list[str], *, with_tile: bool = False
) -> Callable[[str], str]:
    """An input function that types ``extra`` first, then on every move prompt asks for
    ``moves`` and plays the first legal move listed (``cbaa C5``, or ``C5`` alone unless
    ``with_tile``). After its first move it types that square again (square-occupied)."""
    pending = list(extra)
    seen = {"moves": False, "mark": 0, "first": ""}

    def answer(prompt: str) -> str:
        if "press Enter" in prompt:
            return ""
        if pending:
            return pending.pop(0)
        if not seen["moves"]:
            seen["moves"] = True
            seen["mark"] = len(buf.getvalue())
            return "moves"
        seen["moves"] = False
        match = _MOVE_LINE.search(buf.getvalue()[int(seen["mark"]) :])
        assert match, "moves printed no legal move"
        code, square = match.groups()
        if not seen["first"]:
            seen["first"] = square
            pending.append(square)  # typed again on the next turn: square-occupied
        return f"{code} {square}" if with_tile else square

    return answer


def test_human_against_random_bot_to_the_end(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "game.json"
    bad = ["Z9", "C3", "D4", "cbaa", "help", "map", "routes", ""]
    record = play_metro(
        2, ["random"], "draw", "allowed", SEED, out, console, _first_move_player(buf, bad)
    )
    text = buf.getvalue()
    assert "unknown square 'Z9'" in text
    assert "(not-adjacent)" in text
    assert "(central-square)" in text
    assert "(square-occupied)" in text
    assert "Type your move in the notation" in text  # help
    assert "Open routes:" in text and "waiting at" in text  # routes
    assert "Player 1 · yellow (Y): your turn · placement 1 of 60" in text
    assert "bot:random places " in text
    # routes are printed as they score
    assert re.search(r"✔ (yellow \(Y\)|blue \(B\)): station \d+, \d+ tiles? .*= \d+", text)
    assert "Metro: game over" in text
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved == record
    assert saved["players"] == ["Player 1", "bot:random"]
    assert saved["seed"] == SEED
    assert len(saved["tiles"]) == 60 and len(saved["turns"]) == 60
    state = replay_metro_record(saved)
    assert state.is_over()
    assert _final_scores(text) == state.scores()
    winners = state.winners()
    assert f"{saved['players'][winners[0]]} " in text.split("Final scores:")[1]
    assert "Longest routes: " in text


def test_bots_only_six_players(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "bots.json"

    def no_input(prompt: str) -> str:
        raise AssertionError(f"a bots-only game asked for input: {prompt}")

    bots = ["greedy", "random", "random", "greedy", "random", "random"]
    record = play_metro(6, bots, "hand", "forbidden", 7, out, console, no_input)
    text = buf.getvalue()
    state = replay_metro_record(json.loads(out.read_text(encoding="utf-8")))
    assert state.is_over()
    assert record["players"] == [f"bot:{b}" for b in bots]
    assert record["options"] == {"turn_mode": "hand", "one_tile_routes": "forbidden"}
    assert _final_scores(text) == state.scores()
    assert text.count(" places ") == 60
    assert "unused stations: 16 17" in text


def test_hand_mode_hot_seat_shows_only_your_own_tiles(tmp_path: Path) -> None:
    """Two humans in hand mode: the output shown to a player (from the hand-over prompt to
    their move) never names the other player's held tiles (unless the same type is in the
    player's own hand or on the board)."""
    console, buf = _console()
    out = tmp_path / "hot.json"
    mirror = MetroGame(2, MetroOptions("hand")).new_game(SEED)

    def drain(state: MetroState) -> None:
        while state.to_move_player() == CHANCE:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])

    drain(mirror)
    marks = {"from": 0, "handoffs": 0, "checked": 0}

    def answer(prompt: str) -> str:
        if "press Enter" in prompt:
            marks["from"] = len(buf.getvalue())
            marks["handoffs"] += 1
            return ""
        p = mirror.to_move_player()
        assert prompt.startswith(f"Player {p + 1} ")
        shown = buf.getvalue()[marks["from"] :]
        own = set(mirror.hand(p))
        public = {mirror.board.tile_at(sq) for sq in range(64)}
        for code in own:
            assert code in shown
        secret = set(mirror.hand(1 - p)) - own - public
        for code in secret:
            assert code not in shown, f"player {p + 1} saw {code} of the other hand"
            marks["checked"] += 1
        action = mirror.legal_actions(p)[0]
        mirror.apply_in_place(p, action)
        drain(mirror)
        return format_metro_action(action)

    record = play_metro(2, [], "hand", "allowed", SEED, out, console, answer)
    assert marks["handoffs"] == 60  # the players alternate: one hand-over per placement
    assert marks["checked"] > 20
    state = replay_metro_record(record)
    assert state.is_over()
    assert state.scores() == mirror.scores()
    assert _final_scores(buf.getvalue()) == mirror.scores()


def test_official_hand_draw_against_a_bot(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "official.json"
    record = play_metro(
        2,
        ["greedy"],
        "official-hand",
        "allowed",
        3,
        out,
        console,
        _first_move_player(buf, ["draw"], with_tile=True),
    )
    text = buf.getvalue()
    assert "Player 1 draws a new tile to place" in text
    state = replay_metro_record(record)
    assert state.is_over()
    assert _final_scores(text) == state.scores()


def test_draw_refused_in_draw_mode_and_eof_saves_a_partial_record(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "partial.json"
    inner = _first_move_player(buf, ["draw"])
    placed = {"n": 0}

    def typed(prompt: str) -> str:
        answer = inner(prompt)
        if re.fullmatch(r"[A-H][1-8]", answer):
            placed["n"] += 1
            if placed["n"] > 4:  # 3 placements and the refused repeat of the first square
                raise EOFError
        return answer

    record = play_metro(2, ["random"], "draw", "allowed", 9, out, console, typed)
    text = buf.getvalue()
    assert "(no-draw)" in text
    assert "Record so far saved" in text
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved == record
    assert saved["seed"] == 9  # named, so that the game can be resumed
    assert len(saved["turns"]) == 6  # 3 placements each; the 4th human turn was open
    state = replay_metro_record(saved)
    assert not state.is_over()
    assert state.board.placed == 6
    # resumed: the same pile goes on, and the finished record keeps the first sitting's turns
    console2, buf2 = _console()
    final = resume_game(out, console2, _first_move_player(buf2, []))
    assert "Resumed at placement 7 of 60" in buf2.getvalue()
    assert final["turns"][:6] == saved["turns"]
    assert final["tiles"] == MetroGame(2).pile_for(9)
    done = replay_metro_record(final)
    assert done.is_over()
    assert _final_scores(buf2.getvalue()) == done.scores()


def test_quit_at_the_hand_over(tmp_path: Path) -> None:
    console, buf = _console()
    answers = iter(["", "quit"])
    record = play_metro(
        3,
        ["random"],
        "official-hand",
        "allowed",
        4,
        tmp_path / "q.json",
        console,
        lambda p: next(answers),
    )
    assert record["turns"] == []
    assert "Game stopped" in buf.getvalue()


def test_bad_options_are_refused(tmp_path: Path) -> None:
    console, _ = _console()
    with pytest.raises(ValueError, match="bots"):
        play_metro(2, ["random"] * 3, "draw", "allowed", 1, tmp_path / "x", console, input)
    with pytest.raises(ValueError, match="players"):
        play_metro(7, [], "draw", "allowed", 1, tmp_path / "x", console, input)
    with pytest.raises(OptionError, match="turn_mode"):
        play_metro(2, [], "sometimes", "allowed", 1, tmp_path / "x", console, input)
    with pytest.raises(ValueError, match="unknown bot"):
        play_metro(2, ["clever"], "draw", "allowed", 1, tmp_path / "x", console, input)


# -- pictures --------------------------------------------------------------------------------
def test_tile_pictures_follow_the_tile_data() -> None:
    """Every stored track runs cell by cell from its endpoint to its partner's, and two tracks
    share a cell only where they cross straight."""
    data = load_metro()
    assert set(TILE_PATHS) == set(data.tile_codes)
    for code, conn in zip(data.tile_codes, data.conn, strict=True):
        used: dict[tuple[int, int], int] = {}
        for i, e in enumerate((0, 2, 4, 6)):
            cells = [
                divmod("0123456789abcdefghijklmnopqrstuvwxyz".index(ch), CELL_W)
                for ch in TILE_PATHS[code][i]
            ]
            assert cells[0] == ENDPOINT_CELL[e][:2], code
            assert cells[-1] == ENDPOINT_CELL[conn[e]][:2], code
            for (r1, c1), (r2, c2) in itertools.pairwise(cells):
                assert abs(r1 - r2) + abs(c1 - c2) == 1, code
            for r, c in cells:
                assert 0 <= r < CELL_H and 0 <= c < CELL_W
                used[(r, c)] = used.get((r, c), 0) + 1
        strokes = tile_strokes(code)
        for cell, n in used.items():
            assert n == len(strokes[cell].tracks)
            assert n == 1 or strokes[cell].glyph == "┼", (code, cell)


def test_board_shows_tracks_stations_legal_squares_and_routes() -> None:
    """The rules' check value: baac A1, aaaa B1, cbaa C1 bring station 6 (blue) into station 9
    after 3 tiles."""
    state = MetroGame(2).from_pile(["baac", "aaaa", "cbaa", "aaaa"])
    for sq in ("A1", "B1", "C1"):
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
        state.apply_in_place(state.to_move_player(), MetroAction(parse_square(sq)))
    assert state.scores() == [0, 3]
    console, buf = _console()
    console.print(route_text(state, state.routes()[0]))
    assert "blue (B): station 6, 3 tiles = 3" in buf.getvalue()
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    console, buf = _console()
    console.print(render_board(state, legal=state.legal_squares("aaaa")))
    rows = buf.getvalue().splitlines()
    assert rows[0].split() == list("ABCDEFGH")
    assert rows[1].split() == ["8·B", "7·Y", "6·B", "5·Y", "4·B", "3·Y", "2·B", "1·Y"]
    assert rows[-2].split() == ["17·Y", "18·B", "19·Y", "20·B", "21·Y", "22·B", "23·Y", "24·B"]
    assert "9·Y" in rows[2 + 2] and "32·B" in rows[2 + 1]
    assert "CENTRAL" in buf.getvalue()
    # A1 and B1 carry a straight west-east track along their cells' row 1
    assert set(rows[2 + 1][6 : 6 + 2 * CELL_W]) == {"─", "┼"}
    # legal squares are named on the board, the others are not
    assert "D1" in rows[2 + 1] and "A2" in rows[2 + 4 + 1] and "C3" not in buf.getvalue()


def test_the_seats_wear_the_printed_colours_each_with_its_letter() -> None:
    """The terminal names and draws Metro's seats in the publisher's rulebook's colours
    (docs/metro.md): yellow, blue, orange, green, purple, black, letters Y B O G P L; the black
    seat, which a dark terminal would hide, is drawn black on a light cell, and a tile's dark
    background does not cover that cell."""
    from metrogames.cli.render.metro_board import (
        SEAT_COLOURS,
        SEAT_LETTERS,
        _Canvas,
        seat_colour,
        seat_style,
        seat_text,
    )

    data = load_metro()
    assert data.seat_colours == SEAT_COLOURS
    assert [seat_colour(s) for s in range(6)] == [
        "yellow", "blue", "orange", "green", "purple", "black"
    ]  # fmt: skip
    assert SEAT_LETTERS == "YBOGPL" and len(set(SEAT_LETTERS)) == 6
    assert [seat_text(s).plain for s in (4, 5)] == ["purple (P)", "black (L)"]
    black, yellow = seat_style(5), seat_style(0)
    assert black.color is not None and black.color.triplet is not None
    assert black.color.triplet.hex == "#000000" and black.bgcolor is not None
    assert yellow.bgcolor is None  # a colour a dark terminal shows keeps its background
    canvas = _Canvas(2, 1)
    canvas.fill_bg(0, 0, 2, 1, "#1f232b")
    canvas.put(0, 0, "LY", None)
    canvas.style[0][0], canvas.style[0][1] = black, yellow
    assert canvas.cell_style(0, 0).bgcolor == black.bgcolor
    assert str(canvas.cell_style(1, 0).bgcolor.triplet.hex) == "#1f232b"  # type: ignore[union-attr]
