"""Random Metro games per second on one core (a measurement, not a test; CPU time).

Run: ``.venv/bin/python benchmarks/bench_metro.py [--seconds S]``. Each game is dealt from its
own seed and played by a uniformly random policy through the public fast path
(``legal_actions`` + ``apply_in_place(..., check=False)``); chance draws take the pile's tile.
"""

from __future__ import annotations

import argparse
import time

from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.metro import MetroGame, MetroOptions


def play_random(game: MetroGame, seed: int, rng: Rng) -> list[int]:
    """Play one random game from ``seed``; return the final scores."""
    state = game.new_game(seed)
    while not state.is_over():
        player = state.to_move_player()
        actions = state.legal_actions(player)
        action = actions[0] if player == CHANCE else actions[rng.below(len(actions))]
        state.apply_in_place(player, action, check=False)
    return state.scores()


def measure(players: int, mode: str, seconds: float) -> float:
    """Games per second for ``players`` and ``turn_mode`` over about ``seconds``."""
    game = MetroGame(players, MetroOptions(turn_mode=mode))
    rng = Rng(1, "bench")
    games = 0
    start = time.process_time()
    while True:
        play_random(game, games, rng)
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    for players in (2, 6):
        for mode in ("draw", "hand", "official-hand"):
            rate = measure(players, mode, args.seconds)
            print(f"metro {players} players, {mode:13s}: {rate:8.0f} random games/s")


if __name__ == "__main__":
    main()
