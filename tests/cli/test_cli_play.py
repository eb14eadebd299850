"""``metrogames play london|paris``: the terminal game loop (``cli/play.py``) with the Next
Station renderer (``cli/render/nextstation.py``), driven by scripted input."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from metrogames.cli.play import play_game, resume_game
from metrogames.cli.render.nextstation_map import MapView, colour_letters, render_map
from metrogames.core.errors import OptionError, RecordError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.citymap import SYMBOLS, load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.record import parse_record, replay
from metrogames.games.nextstation.scoring import solo_rating
from metrogames.games.nextstation.state import NextStationGame

SEED = 20261129


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=120, color_system=None), buf


def _final_scores(text: str) -> list[int]:
    """The totals of the ``Final scores: Player 1: 118 · bot:greedy: 97`` line."""
    line = next(ln for ln in text.splitlines() if ln.startswith("Final scores:"))
    return [int(x) for x in re.findall(r": (\d+)", line)]


def _first_move_player(buf: io.StringIO, extra: list[str]) -> Callable[[str], str]:
    """An input function that types ``extra`` first, then on every prompt asks for
    ``moves`` and plays the first section listed (``pass`` when there is none)."""
    pending = list(extra)
    asked = {"moves": False, "mark": 0}

    def answer(prompt: str) -> str:
        if pending:
            return pending.pop(0)
        if not asked["moves"]:
            asked["moves"] = True
            asked["mark"] = len(buf.getvalue())
            return "moves"
        asked["moves"] = False
        listed = buf.getvalue()[asked["mark"] :].split()
        sections = [t for t in listed if "-" in t and not t.startswith("+")]
        return sections[0] if sections else "pass"

    return answer


def _wrong_symbol_move(seed: int) -> str:
    """A section from the first departure station to a neighbour of another symbol than the
    first card's: illegal with reason ``wrong-symbol``."""
    city = load_city("london")
    options = Options.from_json(city, {"objectives": "random", "powers": "random"})
    state = NextStationGame("london", 1, options).new_game(seed)
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    face = city.card_by_id[state.card or ""].face
    assert face in SYMBOLS, "pick a seed whose first card shows a symbol"
    dep = city.departures[state.colour(0)]
    target = next(t for _, t in city.adjacency[dep] if city.stations[t].symbol not in (face, "any"))
    return f"{city.stations[dep].name}-{city.stations[target].name}"


def test_solo_game_rejects_bad_moves_and_record_replays_to_printed_scores(
    tmp_path: Path,
) -> None:
    console, buf = _console()
    out = tmp_path / "solo.json"
    bad = ["Z9-A1", _wrong_symbol_move(SEED), "D3 G3 G4", "help"]
    options = {"objectives": "random", "powers": "random"}
    record = play_game("london", 1, [], options, SEED, out, console, _first_move_player(buf, bad))
    text = buf.getvalue()
    assert "unknown station 'Z9'" in text
    assert "(wrong-symbol)" in text
    assert "cannot read 'D3'" in text
    assert "Type your move in the notation" in text  # help
    # the game went on after the errors and ended
    assert "game over" in text
    assert "End of round 4: line scores" in text
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved == record
    assert saved["players"] == ["Player 1"]
    assert saved["seed"] == SEED
    state = replay(parse_record(saved))
    assert state.is_over()
    printed = _final_scores(text)
    assert printed == state.scores()
    assert printed[0] > 0  # sections were drawn, not only passes
    # solo rating: 2 modules in play, 10 points each
    rating = solo_rating(state.city, printed[0], 2)
    assert rating is not None
    assert f"band {rating[1]}" in text
    assert f"= {printed[0] - 20}" in text


def test_bots_only_game_finishes_and_replays(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "bots.json"

    def no_input(prompt: str) -> str:
        raise AssertionError(f"a bots-only game asked for input: {prompt}")

    record = play_game("london", 2, ["greedy", "random"], None, 5, out, console, no_input)
    text = buf.getvalue()
    state = replay(parse_record(json.loads(out.read_text(encoding="utf-8"))))
    assert state.is_over()
    assert record["players"] == ["bot:greedy", "bot:random"]
    assert _final_scores(text) == state.scores()
    winners = state.winners()
    assert f"{record['players'][winners[0]]} " in text
    assert all(len(r["deck"]) == 11 for r in record["rounds"])  # a finished game shows its decks


def test_paris_bots_only_game(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "paris.json"
    record = play_game(
        "paris", 1, ["greedy"], {"objectives": "random"}, 3, out, console, lambda p: "pass"
    )
    state = replay(parse_record(record))
    assert state.is_over()
    assert _final_scores(buf.getvalue()) == state.scores()
    assert "Solo rating" not in buf.getvalue()  # Paris has no solo table


def test_eof_saves_a_partial_record_that_replays(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "partial.json"
    answers = iter(["pass", "pass", "pass"])

    def typed(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    record = play_game("london", 2, ["greedy"], None, 9, out, console, typed)
    assert "Record so far saved" in buf.getvalue()
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved == record
    state = replay(parse_record(saved))
    assert not state.is_over()
    assert state.round == 0
    # three turns passed by the human (plus the greedy bot's moves); the fourth is open
    turns = saved["rounds"][0]["turns"]
    assert [t[0] for t in turns[:3]] == ["pass", "pass", "pass"]
    assert state.turn >= 4


def test_quit_in_hot_seat_keeps_the_other_players_turn(tmp_path: Path) -> None:
    console, buf = _console()
    out = tmp_path / "hot.json"
    answers = iter(["pass", "quit"])
    record = play_game("london", 2, [], None, 4, out, console, lambda p: next(answers))
    text = buf.getvalue()
    assert "Player 1: your turn" in text
    assert "Player 2: your turn" in text
    assert record["rounds"][0]["turns"][-1] == ["pass", None]
    state = replay(parse_record(record))
    assert state.to_move() == frozenset({1})


def test_bad_options_are_refused() -> None:
    console, _ = _console()
    with pytest.raises(ValueError, match="bots"):
        play_game("london", 1, ["greedy", "greedy"], None, 1, None, console, input)
    with pytest.raises(OptionError, match="unknown objective"):
        play_game("london", 1, [], {"objectives": ["nope", "thames-6"]}, 1, None, console, input)


def test_solo_rating_bands() -> None:
    city = load_city("london")
    assert solo_rating(city, 90, 0) == (90, 1, "90 or less", "")
    assert solo_rating(city, 128, 1) == (118, 3, "106–120", "")
    top = solo_rating(city, 171, 2)
    assert top is not None
    assert top[:3] == (151, 6, "151 or more")
    assert "back of your hand" in top[3]


def test_map_shows_symbols_lines_and_targets_without_colour() -> None:
    city = load_city("london")
    state = NextStationGame("london", 1, Options()).new_game(SEED)
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    action = next(a for a in state.legal_actions(0) if a.sections)
    state = state.apply(0, action)
    console, buf = _console()
    colour = state.colour(0)
    console.print(render_map(city, state.maps[0], MapView(current=colour)))
    text = buf.getvalue()
    letter = colour_letters(city)[city.colours[colour]]
    assert len(set(colour_letters(city).values())) == 4
    rows = text.splitlines()
    assert rows[0].split() == list("ABCDEFGHIJ")
    # both ends of the section carry the line's letter after their (filled) glyph
    (s, t) = action.sections[0]
    for station in (s, t):
        st = city.stations[station]
        row = rows[1 + int(st.row) * 2]
        x = 3 + int(st.col) * 8 + 2
        assert row[x] in "■●▲⬟?"
        assert row[x + 1] == letter
    assert "≈" in text  # the Thames


def test_a_stopped_game_resumes_where_it_stopped(tmp_path: Path) -> None:
    """``play --resume``: a game saved on quit continues from the same position and deal, and
    the finished record keeps every action of the first sitting."""
    out = tmp_path / "game.json"
    answers = iter(["pass"] * 7)

    def first_sitting(prompt: str) -> str:
        return next(answers)  # StopIteration after 7 turns: treated below as end of input

    def stop_after_seven(prompt: str) -> str:
        try:
            return first_sitting(prompt)
        except StopIteration:
            raise EOFError from None

    console, buf = _console()
    partial = play_game("london", 1, [], None, 11, out, console, stop_after_seven)
    assert "--resume" in buf.getvalue()
    before = replay(parse_record(partial))
    assert not before.is_over()
    console2, buf2 = _console()
    final = resume_game(out, console2, lambda prompt: "pass")
    assert "Resumed at round" in buf2.getvalue()
    done = replay(parse_record(final))
    assert done.is_over() and done.scores() == [0]
    for old, new in zip(partial["rounds"], final["rounds"], strict=False):
        assert new["cards"][: len(old["cards"])] == old["cards"]
        for turn_old, turn_new in zip(old["turns"], new["turns"], strict=False):
            assert all(a is None or a == b for a, b in zip(turn_old, turn_new, strict=True))
    assert json.loads(out.read_text(encoding="utf-8")) == final
    with pytest.raises(RecordError, match="finished game"):
        resume_game(out, console2, lambda prompt: "pass")


def test_solo_london_ends_with_its_rating_band_and_percentile(tmp_path: Path) -> None:
    """A solo game (here the greedy bot alone, no modules) ends with the rating band of the
    rules' table and the percentile, and nobody "wins"."""
    console, buf = _console()

    def no_input(prompt: str) -> str:
        raise AssertionError(f"a bots-only game asked for input: {prompt}")

    record = play_game("london", 1, ["greedy"], None, 2, tmp_path / "s.json", console, no_input)
    text = buf.getvalue()
    state = replay(parse_record(record))
    score = state.scores()[0]
    rating = solo_rating(state.city, score, 0)
    assert rating is not None
    assert f"Solo rating: {score} → band {rating[1]} ({rating[2]})" in text
    assert re.search(r"Percentile: [\d.]+ — better than [\d.]+% of \d+ solo games", text)
    assert " wins " not in text and "victory" not in text


def test_hint_shows_the_coachs_best_three_moves_and_rates_the_move_typed(tmp_path: Path) -> None:
    from metrogames.bots.coach import hints
    from metrogames.games import load_game

    console, buf = _console()
    typed = iter(["hint", "hint pass", "hint Z9-A1", "hint D3", "quit"])
    play_game("london", 1, [], None, 5, tmp_path / "h.json", console, lambda p: next(typed))
    text = buf.getvalue()
    state = load_game("london", players=1).new_game(5)
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    view = state.view(0)
    expected = hints(view, 0, seed=5 + len(view.history()), about=view.game.pass_action)
    assert text.count("Coach (the expert's estimates, expected final score):") == 2
    for i, h in enumerate(expected.best, 1):
        assert f"{i}. {h.text}  {h.score:.1f} points  · {h.playouts} playouts" in text
    about = expected.about
    assert about is not None
    assert f"Your move pass: {about.score:.1f} points" in text
    assert "✘ no hint for that move: unknown station 'Z9'" in text
    assert "✘ no hint for that move: cannot read 'D3'" in text
    assert "hint [MOVE]" not in text  # help was not asked
    # the server's JSON of the same answer reads back to the same lines
    from metrogames.cli.hints import hints_from_json, hints_text

    data = expected.to_json(view, 0)
    console2, buf2 = _console()
    console2.print(hints_text(hints_from_json(data), 1))
    assert buf2.getvalue().strip() in text
    assert "Game stopped." in text
