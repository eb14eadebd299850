"""The web load client (benchmarks/load_web.py), in process and small: 5 WebSocket players
through complete games on a uvicorn server bound to 127.0.0.1, nothing lost or duplicated."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import websockets  # noqa: F401  (load_web.py needs it: a missing package fails here)

from support.benchmarks import load


def load_module() -> ModuleType:
    return load("load_web")


def test_five_players_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    lw = load_module()
    cfg = lw.LoadConfig(
        players=5,
        duration=8.0,  # 4 s ended before any game did under a loaded parallel run
        max_games=12,
        grace=5.0,
        idle_timeout=10.0,
        ramp=0.2,
        policy="random",
        think=0.1,  # half the socket rate (20 a second, bursts of 40): a person's pace, never refused
    )

    async def run() -> object:
        async with lw.server_in_process(f"sqlite:///{tmp_path / 'load.db'}") as url:
            assert url.startswith("http://127.0.0.1:")
            return await asyncio.wait_for(lw.run_load(url, cfg, "sqlite"), 30)

    # a thread of its own: the browser tests' sync Playwright keeps a loop running here
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(asyncio.run, run()).result()
    assert result.players_held == 5, result
    assert result.games_completed >= 1, result
    assert result.actions > 20, result
    assert result.lost == 0 and result.duplicated == 0, result
    assert result.score_mismatches == 0 and result.errors == {}, result
    assert result.out_of_order_views == 0, result


def test_groups_cover_the_players() -> None:
    lw = load_module()
    kinds = lw.groups_for(5, lw.DEFAULT_MIX)
    humans = sum(sum(1 for s in lw.TEMPLATES[k]["seats"] if "bot" not in s) for k in kinds)
    assert humans == 5 and kinds == ["london-solo", "london-online", "metro-online"]
    assert lw.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert lw.percentile([], 99) == 0.0
