"""Plug-in games (``metrogames.games.plugins``): modules named at start (``load_plugins``,
the web table's ``METROGAMES_GAMES``) and installed packages' entry points (the group
``metrogames.games``, loaded by the registry when first asked for the games), with a clear
refusal naming the target for each way a plug-in can be wrong."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from metrogames.cli.main import app
from metrogames.core.errors import OptionError, PluginError
from metrogames.games import game_names, game_type, load_plugins, unregister_game
from support import line3

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"


@pytest.fixture(autouse=True)
def forget_line3() -> Iterator[None]:
    unregister_game("line3")
    yield
    unregister_game("line3")


def test_a_game_type_named_by_its_attribute() -> None:
    with pytest.raises(OptionError):
        game_type("line3")
    assert load_plugins([" support.line3:GAME ", ""]) == ["line3"]
    assert game_type("line3") is line3.LINE3
    assert game_names()[-1] == "line3"


def test_a_callable_that_registers_or_returns_games() -> None:
    assert load_plugins(["support.line3:register"]) == []  # it registered the game itself
    assert game_type("line3") is line3.LINE3
    unregister_game("line3")
    sys.modules["line3_pair"] = type(sys)("line3_pair")
    sys.modules["line3_pair"].games = lambda: [line3.GAME]  # type: ignore[attr-defined]
    try:
        assert load_plugins(["line3_pair:games"]) == ["line3"]
    finally:
        del sys.modules["line3_pair"]


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("no_such_module_xyz", "cannot import module 'no_such_module_xyz'"),
        ("support.line3:NO_SUCH", "support.line3 has no attribute 'NO_SUCH'"),
        ("support.line3:NAME", "gives a str, not a game"),
        ("support.line3:cell_name", "calling it failed"),  # takes an argument
        ("support.line3:ROWS", "gives a tuple, not a game"),
    ],
)
def test_a_bad_target_is_refused_by_name(target: str, words: str) -> None:
    with pytest.raises(PluginError) as refused:
        load_plugins([target])
    assert f"plug-in game {target!r}" in str(refused.value)
    assert words in str(refused.value)
    with pytest.raises(OptionError):
        game_type("line3")  # nothing registered


def fake_package(root: Path, entry: str) -> dict[str, str]:
    """An installed package on ``root`` whose entry point of ``metrogames.games`` is
    ``entry``; the environment of a process that sees it (and line3 on the path)."""
    info = root / "line3_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: line3-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[metrogames.games]\nline3 = {entry}\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(TESTS), str(SRC)])
    return env


def run(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_an_installed_package_s_entry_point_adds_its_game(tmp_path: Path) -> None:
    env = fake_package(tmp_path, "support.line3:GAME")
    done = run(env, """
        from metrogames.games import game_names, load_game
        print(game_names())
        state = load_game("line3").new_game(1)
        print(sorted(state.to_move()))
    """)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['london', 'paris', 'metro', 'line3']", "[-1]"]


def test_a_broken_entry_point_is_named(tmp_path: Path) -> None:
    env = fake_package(tmp_path, "line3_missing_module:GAME")
    done = run(env, "from metrogames.games import game_names; game_names()")
    assert done.returncode != 0
    assert "PluginError: entry point 'line3' (line3_missing_module:GAME) of metrogames.games" in (
        done.stderr
    )


def test_serve_refuses_a_bad_games_setting(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    db = f"sqlite:///{tmp_path / 'never.db'}"
    result = CliRunner().invoke(
        app, ["serve", "--port", port, "--db", db], env={"METROGAMES_GAMES": "no_such_module_xyz"}
    )
    assert result.exit_code == 1, result.output
    assert "bad setting METROGAMES_GAMES: plug-in game 'no_such_module_xyz'" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "never.db").exists()  # refused before touching the database
