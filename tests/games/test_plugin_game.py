"""A game registered from the tests alone (``tests/support/line3.py``) is played through the registry:
``simulate``, ``replay``, ``deals``, the random and greedy bots — with no file outside the tests
knowing it, and ``play`` in the terminal with the plain renderer. Scores are recomputed here
from the moves, independently of the game's code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.cli.main import app
from metrogames.cli.render import metro, nextstation, plain, renderer_for
from metrogames.core.errors import OptionError
from metrogames.core.protocol import CHANCE, Game, State
from metrogames.games import game_names, game_type, load_game
from support import line3
from support.records import recount


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    line3.register()
    yield
    line3.unregister()


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


def test_a_game_states_its_bot_tuning_and_the_levels_play_it() -> None:
    """``GameType.bot_levels`` is the game's own tuning: a level it names plays that setting
    (here ``hard`` as the greedy bot, decision for decision), the others the default."""
    from dataclasses import replace

    from metrogames.bots.levels import LEVELS, level_algorithm
    from metrogames.core.protocol import BotSetting
    from metrogames.games import register_game

    register_game(
        replace(line3.LINE3, bot_levels={"hard": BotSetting("greedy")}), line3.Line3Engine()
    )
    assert level_algorithm("hard", "line3").code == "greedy"
    assert level_algorithm("expert", "line3") == LEVELS["expert"]
    for seed in range(5):
        tuned = play_bots(
            load_game("line3").new_game(seed), [make_bot("hard", seed), make_bot("random", 9)]
        )
        greedy = play_bots(
            load_game("line3").new_game(seed), [make_bot("greedy", seed), make_bot("random", 9)]
        )
        assert tuned.history() == greedy.history()


def test_option_flags_come_from_the_games_option_specs(tmp_path: Path) -> None:
    """A game's option with a command-line ``help`` is a flag of ``play`` and ``simulate``
    (with that help), taken as written; another game refuses it, naming its own flags."""
    from dataclasses import replace

    from metrogames.cli.options import game_options
    from metrogames.core.protocol import OptionSpec
    from metrogames.games import register_game

    spec = OptionSpec("row", ("row", "column"), help="Line 3: roll a row (default) or a column.")
    register_game(replace(line3.LINE3, options={"roll": spec}), line3.Line3Engine())
    runner = CliRunner()
    shown = runner.invoke(app, ["play", "line3", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "--roll" in shown.output and "Line 3: roll a row (default) or a column." in shown.output
    assert "--turn-mode" in shown.output  # every game's flags: the command takes them all
    assert game_options("line3", {"roll": "column", "rules": None}) == {"roll": "column"}
    refused = runner.invoke(
        app, ["simulate", "london", "--bots", "random", "--games", "1", "--roll", "row"]
    )
    assert refused.exit_code == 2
    assert "--roll is not an option of london (its flags: --objectives, --powers)" in refused.stderr
    played = runner.invoke(
        app,
        ["simulate", "line3", "--bots", "random,random", "--games", "2", "--roll", "row", "--json"],
    )
    assert played.exit_code == 0, played.output
    assert json.loads(played.output)["games"] == 2


def test_a_game_without_score_sheets_is_told_so(tmp_path: Path) -> None:
    """``score`` needs the engine's ``ScoreSheets`` capability."""
    from metrogames.games import register_game

    register_game(line3.LINE3, line3.BareEngine())
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps({"game": "line3"}))
    result = CliRunner().invoke(app, ["score", str(sheet)])
    assert result.exit_code == 1
    assert "Line 3 has no score sheets" in result.stderr


def test_a_daily_challenge_needs_a_solo_game() -> None:
    from dataclasses import replace

    from metrogames.games import daily_games, register_game

    assert daily_games() == ["london", "paris"]
    with pytest.raises(ValueError, match="line3: a daily challenge is a solo game, 1 player"):
        register_game(replace(line3.LINE3, daily=True), line3.Line3Engine())
    assert daily_games() == ["london", "paris"]
