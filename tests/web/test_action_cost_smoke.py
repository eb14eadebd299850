"""The action cost benchmark (benchmarks/action_cost.py), small: four rooms, one of each kind,
played to their ends in process; every part is accounted for and the timers are removed."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import starlette.websockets

from metrogames.web.rooms import views

ACTION_COST = Path(__file__).resolve().parents[2] / "benchmarks" / "action_cost.py"


def load_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("action_cost", ACTION_COST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["action_cost"] = module
    spec.loader.exec_module(module)
    return module


def test_four_rooms_play_out_and_every_part_is_timed(tmp_path: Path) -> None:
    ac = load_module()
    build, send = views.build_view, starlette.websockets.WebSocket.send
    # a thread of its own: the browser tests' Playwright keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        run = ac.run(4, 1, f"sqlite:///{tmp_path / 'cost.db'}")
        result = pool.submit(asyncio.run, run).result()
    assert result["errors"] == 0
    assert result["actions"] > 100  # four whole games: London twice, Metro twice
    parts = result["parts"]
    assert set(parts) == {*ac.PARTS, "other"}
    assert parts["views"] > 0 and parts["db write"] > 0 and parts["encode"] > 0
    assert abs(sum(parts.values()) - result["cpu"]) < 1e-9
    assert views.build_view is build and starlette.websockets.WebSocket.send is send
