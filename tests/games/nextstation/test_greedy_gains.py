"""The greedy rule's gains (``GreedyGains``) and the lean ``scores``: the values the engine's own
full route gives — every legal action applied (checked) to a copy of the state and each
player's sheet rebuilt by ``breakdown`` — at every decision of seeded random games of London
(with and without the advanced modules) and Paris (with objectives), 1 to 4 players."""

from __future__ import annotations

import pytest

from metrogames.core.capabilities import GreedyGains
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.nextstation.actions import TurnAction
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.state import NextStationGame, NextStationState

GAMES = [
    ("london", Options()),
    ("london", Options("random", "random")),
    ("paris", Options(objectives="random")),
]


def sheet_totals(state: NextStationState) -> list[int]:
    return [state.breakdown(p).total for p in range(state.num_players)]


def applied_gains(state: NextStationState, player: int, actions: list[TurnAction]) -> list[int]:
    """Per action: the player's total after it minus before, less the best other player's
    gain, through ``apply`` and ``breakdown`` (no greedy code)."""
    before = sheet_totals(state)
    out = []
    for action in actions:
        after = sheet_totals(state.apply(player, action))
        others = [after[p] - before[p] for p in range(len(after)) if p != player]
        out.append(after[player] - before[player] - max(others, default=0))
    return out


@pytest.mark.parametrize(("city", "options"), GAMES, ids=["london", "london-modules", "paris"])
def test_gains_and_scores_equal_the_full_route_at_every_decision(city: str, options: Options):
    decisions = nonzero = 0
    for seed in range(12):
        players = 1 + seed % 4
        state = NextStationGame(city, players, options).new_game(seed)
        assert isinstance(state, GreedyGains)
        rng = Rng(seed, "gains")
        while not state.is_over():
            assert state.scores() == sheet_totals(state)
            movers = state.to_move()
            if CHANCE in movers:
                state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            for p in sorted(movers):
                legal = [a for a in state.legal_actions(p) if isinstance(a, TurnAction)]
                gains = state.greedy_gains(p, legal)
                assert gains == applied_gains(state, p, legal)
                decisions += 1
                nonzero += any(gains)
                state.apply_in_place(p, rng.choice(legal))
        assert state.scores() == sheet_totals(state)
    assert decisions > 500 and nonzero > decisions // 2  # the gains were not all zero
