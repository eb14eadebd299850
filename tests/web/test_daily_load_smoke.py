"""The daily load client (benchmarks/load_daily.py), in process and small: 3 players through
today's ranked games while a reader polls the leaderboard, on a uvicorn server bound to
127.0.0.1; every result matches its game and the leaderboard counts every shared game."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import websockets  # noqa: F401  (load_web.py, whose helpers load_daily.py uses, needs it)

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_three_players_and_a_reader(tmp_path: Path) -> None:
    lw, ld = load("load_web"), load("load_daily")

    async def run() -> dict[str, object]:
        async with lw.server_in_process(f"sqlite:///{tmp_path / 'daily.db'}") as url:
            assert url.startswith("http://127.0.0.1:")
            result: dict[str, object] = await asyncio.wait_for(
                ld.run_daily(url, "london", 3, 1, 60.0, max_games=3), 90
            )
            return result

    # a thread of its own: an earlier test (the browser's sync API) may leave a loop running
    with ThreadPoolExecutor(1) as pool:
        res = pool.submit(asyncio.run, run()).result()
    assert res["games_completed"] >= 3, res
    assert res["board_ok"] is True and res["score_mismatches"] == 0, res
    assert res["errors"] == {}, res
    latency = res["latency_ms"]
    assert isinstance(latency, dict) and latency["leaderboard"]["n"] >= 1


def test_board_check() -> None:
    ld = load("load_daily")
    entry = lambda rank, score: {"rank": rank, "score": score}  # noqa: E731
    assert ld.check_board({"entries": [entry(1, 9), entry(2, 8), entry(2, 8), entry(4, 7)]})
    assert not ld.check_board({"entries": [entry(1, 9), entry(2, 8), entry(3, 8)]})
    assert not ld.check_board({"entries": [entry(1, 8), entry(2, 9)]})
