"""The daily load client (benchmarks/load_daily.py), in process and small: 3 players through
today's ranked games while a reader polls the leaderboard, on a uvicorn server bound to
127.0.0.1; every result matches its game and the leaderboard counts every shared game."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import websockets  # noqa: F401  (load_web.py, whose helpers load_daily.py uses, needs it)

from support.benchmarks import load


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


def test_the_history_benchmark_on_a_small_history(tmp_path: Path) -> None:
    lw, lh = load("load_web"), load("load_history")
    db = f"sqlite:///{tmp_path / 'history.db'}"
    facts = lh.seed_database(db, 40, 10)
    assert facts["games"] == 40 and facts["actions"] > 40 * 30

    async def run() -> list[dict[str, object]]:
        async with lw.server_in_process(db, daily_secret=lh.SECRET) as url:
            results: list[dict[str, object]] = await asyncio.wait_for(lh.run(url, facts), 120)
            return results

    with ThreadPoolExecutor(1) as pool:
        results = pool.submit(asyncio.run, run()).result()
    assert all(r["status"] in ([], [200]) for r in results), results
    assert facts["checked"] == {
        "deal_total": 27,  # the crowd's 30 games, each tenth not shared
        "deal_total_ok": True,
        "replayed": 27,
        "replayed_ok": True,
    }
    assert all(r["probe_failures"] == 0 for r in results if "probes" in r), results
