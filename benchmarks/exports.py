"""Open data at scale (docs/performance.md, "Exports"): fill a fresh SQLite database with N
stored finished games (London, 2 seats: an account and a random bot, played by random legal
moves through the registry and protocol, stored as the server stores them), then time
``metrogames export`` of their month and ``metrogames replay`` of the export, with each one's
peak memory (``/usr/bin/time -v``).

    nice -n 19 python benchmarks/exports.py --games 10000 --dir /tmp/exports-bench
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import insert

from metrogames.core.protocol import CHANCE
from metrogames.games import load_game
from metrogames.web.infra.db import migrate, open_database
from metrogames.web.infra.models import AccountRow, ActionRow, PlayerRow, RoomRow, SeatRow

MONTH_START = 1_793_491_200.0  # 2026-11-01T00:00:00Z


def fill(url: str, games: int) -> None:
    """Store ``games`` finished London games, all finished in November 2026."""
    engine = open_database(url)
    migrate(engine)
    rng = random.Random(0)
    game = load_game("london", players=2)
    with engine.begin() as c:
        c.execute(insert(PlayerRow), [{"id": "player0001", "name": "Ada", "token_hash": "0" * 64, "created": 0.0}])
        c.execute(insert(AccountRow), [{"id": "account001", "name": "Ada", "name_key": "ada", "password_hash": "x", "player_id": "player0001", "created": 0.0}])
    for start in range(0, games, 500):
        rooms, seats, actions = [], [], []
        for i in range(start, min(games, start + 500)):
            room = f"b{i:07d}"
            state = game.new_game(i)
            step = 0
            while not state.is_over():
                for player in sorted(state.to_move()):
                    action = rng.choice(state.legal_actions(player))
                    text = json.dumps(state.action_to_json(player, action))
                    state.apply_in_place(player, action, check=False)
                    actions.append({"room_id": room, "step": step, "player": player, "action": text, "clock_step": None})
                    step += 1
                    if player == CHANCE or state.is_over():
                        break
            rooms.append({"id": room, "game": "london", "mode": "online", "options": "{}", "seed": i, "status": "finished", "turn_clock": None, "host_hash": "0" * 64, "created": MONTH_START, "finished": MONTH_START + i * 60.0})
            seats.append({"room_id": room, "seat": 0, "name": "Ada", "human": True, "bot": None, "token_hash": "1" * 64, "account_id": "account001"})
            seats.append({"room_id": room, "seat": 1, "name": "bot:random", "human": False, "bot": "random", "token_hash": None, "account_id": None})
        with engine.begin() as c:
            c.execute(insert(RoomRow), rooms)
            c.execute(insert(SeatRow), seats)
            c.execute(insert(ActionRow), actions)
    engine.dispose()


def timed(args: list[str]) -> tuple[float, int, str]:
    """Run ``metrogames ARGS`` under ``/usr/bin/time -v``: (seconds, peak KiB, stdout)."""
    began = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", "from metrogames.cli.main import app; app()", *args], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"metrogames {' '.join(args)} failed: {done.stderr[-2000:]}")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))  # type: ignore[union-attr]
    return seconds, peak, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/exports-bench"))
    a = parser.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    db = a.dir / "games.db"
    db.unlink(missing_ok=True)
    url = f"sqlite:///{db}"
    began = time.perf_counter()
    fill(url, a.games)
    print(f"stored {a.games} games in {time.perf_counter() - began:.1f} s")
    out = a.dir / "2026-11.jsonl.zst"
    s, kib, text = timed(["export", "--month", "2026-11", "--out", str(out), "--db", url, "--json"])
    print(f"export: {s:.1f} s, peak {kib / 1024:.0f} MiB: {text.strip()}")
    s, kib, text = timed(["replay", "--json", str(out)])
    results = [json.loads(line) for line in text.splitlines()]
    valid = sum(r["valid"] for r in results)
    print(f"replay: {s:.1f} s, peak {kib / 1024:.0f} MiB: {valid} of {len(results)} records valid")


if __name__ == "__main__":
    main()
