"""The environments' place in the layers: an adapter over the registry and the protocol, and
an engine that stays free of the heavy libraries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ENVS = Path(__file__).resolve().parents[2] / "src" / "metrogames" / "envs"
ALLOWED = ("metrogames.core", "metrogames.envs")


def _imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_envs_use_only_the_registry_and_the_protocol() -> None:
    files = sorted(ENVS.rglob("*.py"))
    assert len(files) >= 7
    for path in files:
        for name in _imports(path):
            if not name.startswith("metrogames"):
                continue
            ok = name == "metrogames.games" or name.startswith(ALLOWED)
            assert ok, f"{path.relative_to(ENVS)} imports {name}"


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_the_engine_imports_nothing_heavy() -> None:
    loaded = _modules_after(
        "import metrogames.games\n"
        "from metrogames.games import load_game\n"
        "from metrogames.core.rng import Rng\n"
        "for name in ('london', 'paris', 'metro'):\n"
        "    load_game(name).new_game(1).random_playout([Rng(1), Rng(2)][:load_game(name).num_players])"
    )
    assert "metrogames.games.metro" in loaded
    assert not set(HEAVY) & loaded


HEAVY = ("numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel", "ray", "matplotlib")
"""The laboratory's libraries: the engine, the simulator and the command line load none of them
until a command asks for one."""


def test_the_simulator_and_the_command_line_import_nothing_heavy() -> None:
    loaded = _modules_after(
        "import metrogames.sim.runner, metrogames.cli.main, metrogames.cli.report\n"
        "from metrogames.sim.runner import Task, run_many\n"
        "list(run_many([Task('london', ('random',), 1)]))"
    )
    assert "metrogames.sim.runner" in loaded
    assert not set(HEAVY) & loaded


def test_openspiel_is_imported_only_when_asked_for() -> None:
    loaded = _modules_after("import metrogames.envs\nmetrogames.envs.metro_env()")
    assert "pyspiel" not in loaded
    loaded = _modules_after("import metrogames.envs.openspiel")
    assert {"pyspiel", "metrogames.envs.openspiel"} <= loaded


def test_pettingzoo_is_imported_only_when_asked_for() -> None:
    loaded = _modules_after("import metrogames.envs")
    assert {"gymnasium", "numpy"} <= loaded and "pettingzoo" not in loaded
    assert "pettingzoo" in _modules_after("import metrogames.envs\nmetrogames.envs.metro_env()")


def test_encoders_read_the_games_observation_facts_not_snapshots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The encoders get what a view shows through ``view.observe`` (game knowledge stays in
    ``games/``): with every snapshot refused, each game still encodes every seat's view."""
    from metrogames.core.capabilities import Observable
    from metrogames.core.protocol import CHANCE
    from metrogames.envs.encoders import MetroEncoder, NextStationEncoder
    from metrogames.games import load_game

    for name, players in (("london", 2), ("paris", 1), ("metro", 3)):
        game = load_game(name, players)
        state = game.new_game(5)
        cls = type(state)

        def refused(self: object) -> str:
            raise AssertionError("an encoder read a snapshot")

        monkeypatch.setattr(cls, "snapshot", refused)
        encoder = (MetroEncoder if name == "metro" else NextStationEncoder)(game)
        assert isinstance(state, Observable)
        for _ in range(6):
            for seat in range(players):
                obs = encoder.encode(state.view(seat), seat)
                assert encoder.space.contains(obs)
            movers = state.to_move()
            for p in sorted(movers):
                if p == CHANCE:
                    state.apply_in_place(CHANCE, state.chance_outcomes()[0][0])
                else:
                    state.apply_in_place(p, state.legal_actions(p)[0])
        monkeypatch.undo()
    source = "".join(p.read_text() for p in (ENVS / "encoders").glob("*.py"))
    assert "snapshot" not in source
