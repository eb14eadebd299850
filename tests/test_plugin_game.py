"""A game registered from the tests alone (``tests/line3.py``) is played through the registry:
``simulate``, ``replay``, ``deals``, the random and greedy bots — with no file outside the tests
knowing it, and ``play`` in the terminal with the plain renderer. Scores are recomputed here
from the moves, independently of the game's code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import line3
from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.cli.main import app
from metrogames.cli.render import metro, nextstation, plain, renderer_for
from metrogames.core.errors import OptionError
from metrogames.core.protocol import CHANCE, Game, State
from metrogames.games import game_names, game_type, load_game


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    line3.register()
    yield
    line3.unregister()


def recount(record: dict[str, object]) -> list[int]:
    """Lines of three per player, from the record's moves alone."""
    board = [-1] * 9
    for player, text in record["moves"]:  # type: ignore[attr-defined]
        if player != CHANCE:
            board[(int(text[1]) - 1) * 3 + "ABC".index(text[0])] = player
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    return [sum(all(board[c] == p for c in line) for line in lines) for p in (0, 1)]


def test_registry_knows_the_new_game() -> None:
    assert game_names()[-1] == "line3"
    game: Game[line3.Move] = line3.Line3Game()
    assert load_game("line3").name == game.name
    with pytest.raises(OptionError, match="line3 takes 2 to 2 players, not 3"):
        load_game("line3", players=3)
    with pytest.raises(OptionError, match="unknown option"):
        load_game("line3", size=4)


def test_simulate_and_replay_through_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "games.jsonl"
    result = runner.invoke(
        app,
        ["simulate", "line3", "--bots", "random,greedy", "--games", "40", "--seed", "5",
         "--out", str(out), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == summary["games"] == 40
    truth = [recount(r) for r in records]
    for seat in (0, 1):
        mean = sum(t[seat] for t in truth) / len(truth)
        assert summary["seats"][seat]["mean"] == pytest.approx(mean)
    assert all(len([m for m in r["moves"] if m[0] != CHANCE]) == 9 for r in records)
    replayed = runner.invoke(app, ["replay", str(out), "--json"])
    assert replayed.exit_code == 0, replayed.output
    results = [json.loads(line) for line in replayed.output.splitlines()]
    assert [r["scores"] for r in results] == truth
    assert all(r["valid"] and r["finished"] for r in results)


def test_replay_refuses_an_illegal_move(tmp_path: Path) -> None:
    record = {"format": "metrogames/1", "game": "line3", "players": ["a", "b"], "seed": 3,
              "moves": [[-1, "row2"], [0, "A1"]]}  # fmt: skip
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["reason"] in {"not-legal", "bad-record"}


def test_greedy_completes_the_line_the_roll_allows() -> None:
    for seed in range(10):
        # X O . / X O . / . . . with row 3 rolled for X: A3 completes X's column
        state: State[line3.Move] = load_game("line3").from_snapshot("line3/1 01-01---- 2 0")
        legal = state.legal_actions(0)
        assert legal == [6, 7, 8]
        bot = make_bot("greedy", seed)
        state.apply_in_place(0, bot.decide(state.view(0), 0, legal))
        assert state.scores() == [1, 0]


def test_random_and_greedy_bots_play_to_the_end() -> None:
    for seed in range(20):
        state = load_game("line3").new_game(seed)
        play_bots(state, [make_bot("random", seed), make_bot("greedy", seed + 1)])
        assert state.is_over()
        record = state.game.to_record(state, ["a", "b"], seed=seed)
        assert state.scores() == recount(record)


def test_played_in_the_terminal_with_the_plain_renderer(tmp_path: Path) -> None:
    """``metrogames play line3 --bots random``: no renderer knows Line 3, so the plain one
    shows it; the human types every cell in turn (the taken ones and those off the rolled row
    are refused), stops after one sitting, and ``--resume`` finishes the game."""
    runner = CliRunner()
    out = tmp_path / "line3.json"
    cells = "".join(f"{c}{r}\n" for r in "123" for c in "ABC")
    first = runner.invoke(
        app, ["play", "line3", "--bots", "random", "--seed", "4", "--out", str(out)], input=cells
    )
    assert first.exit_code == 0, first.output
    text = first.output
    assert "Line 3 · seed 4 · Player 1, bot:random" in text
    assert "Player 1: your turn" in text and "Position: line3/1 " in text
    assert "Legal moves: " in text and "Player 1 plays " in text
    assert "Game stopped" in text
    partial = json.loads(out.read_text())
    assert partial["seed"] == 4 and partial["players"] == ["Player 1", "bot:random"]
    moved = [m for m in partial["moves"] if m[0] == 0]
    assert moved  # the first sitting played at least one move
    assert all(roll in line3.ROWS for p, roll in partial["moves"] if p == CHANCE)

    again = runner.invoke(app, ["play", "--resume", str(out)], input=cells * 9)
    assert again.exit_code == 0, again.output
    assert "Resumed at action " in again.output
    assert "(not-legal)" in again.output  # a taken cell or one off the rolled row
    final = json.loads(out.read_text())
    assert final["moves"][: len(partial["moves"])] == partial["moves"]
    scores = recount(final)
    assert f"Final scores: Player 1: {scores[0]} · bot:random: {scores[1]}" in again.output
    assert ("wins with" in again.output) != ("share the victory" in again.output)
    assert len([m for m in final["moves"] if m[0] != CHANCE]) == 9

    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps({"game": "line3"}))
    shown = runner.invoke(app, ["score", str(sheet)])
    assert shown.exit_code == 0, shown.output
    assert "Line 3: score sheet" in shown.output and "total" in shown.output


def test_renderers_are_picked_by_family() -> None:
    assert renderer_for(game_type("paris")) is nextstation.RENDERER
    assert renderer_for(game_type("metro")) is metro.RENDERER
    assert renderer_for(game_type("line3")) is plain.RENDERER
