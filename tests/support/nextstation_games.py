"""Seeded random Next Station games for the protocol tests: every state along the way."""

from __future__ import annotations

from collections.abc import Iterator

from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.state import NextStationGame, NextStationState

POWERS = {"blue": "circle-station", "pink": "joker", "purple": "switch", "green": "double-section"}

CONFIGS: list[tuple[str, int, dict[str, object]]] = [
    ("london", 1, {}),
    ("london", 1, {"powers": POWERS}),
    ("london", 2, {"powers": "random", "objectives": "random"}),
    ("london", 3, {"powers": POWERS, "objectives": ["thames-6", "all-districts"]}),
    ("london", 4, {"powers": "random"}),
    ("london", 4, {}),
    ("paris", 1, {"objectives": "random"}),
    ("paris", 3, {}),
]
"""(city, players, options JSON): London with and without powers and objectives, 1–4
players, and Paris."""


def make_game(city: str, players: int, options: dict[str, object]) -> NextStationGame:
    return NextStationGame(city, players, Options.from_json(load_city(city), options))


def random_states(game: NextStationGame, seed: int) -> Iterator[NextStationState]:
    """Every state of a game dealt from ``seed`` in which, at each step, one of the players to
    move (picked at random) plays a uniformly random legal action, powers and passes
    included (checked ``apply``: each state is a new object)."""
    rng = Rng(seed, "test-playout")
    state = game.new_game(seed)
    yield state
    while not state.is_over():
        movers = sorted(state.to_move())
        player = movers[rng.below(len(movers))]
        legal = state.legal_actions(player)
        state = state.apply(player, legal[0] if player == CHANCE else rng.choice(legal))
        yield state
