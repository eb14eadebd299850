"""The heuristic bots (bots/heuristic.py, bots/lookahead.py) and Metro's levels built on them.

Games are played on the checked path (``apply``, see ``test_bots.play_checked``), so an illegal
choice fails. Strength checks are small seeded samples with bounds a broken bot fails; the real
figures come from ``benchmarks/bots.py`` (``docs/performance.md``, "Bots").
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_bots import first_decision, play_checked

from metrogames.bots import make_bot
from metrogames.bots.base import Bot
from metrogames.bots.heuristic import HeuristicBot, margin
from metrogames.bots.levels import LEVELS, level_algorithm
from metrogames.bots.lookahead import LookaheadBot
from metrogames.bots.play import play_bots
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import load_game
from metrogames.games.metro import DRAW
from support import line3

MODES = ("draw", "hand", "official-hand")


def level_bot(level: str, seed: int) -> Bot:
    """The Metro level's bot; ``hard`` and ``expert`` with a test-sized number of
    determinizations (the same algorithm and code path, a fraction of the time)."""
    algorithm = level_algorithm(level, "metro")
    if algorithm.code == "lookahead":
        algorithm = replace(algorithm, budget=2)
    return algorithm.make(seed)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("level", list(LEVELS))
def test_every_level_plays_every_turn_mode_legally_to_the_end(level: str, mode: str) -> None:
    """2 players in ``draw``, 3 in ``hand`` (stations 16 and 17 unused), 4 in
    ``official-hand`` with one-tile routes forbidden; the level in seat 1, random bots
    elsewhere."""
    players = {"draw": 2, "hand": 3, "official-hand": 4}[mode]
    options = {"turn_mode": mode}
    if mode == "official-hand":
        options["one_tile_routes"] = "forbidden"
    state = load_game("metro", players=players, **options).new_game(21)
    bots = [make_bot("random", 30 + p) for p in range(players)]
    bots[1] = level_bot(level, 5)
    end = play_checked(state, bots)
    assert end.is_over()
    assert end.scores()[1] > 0


def wins(make: type[Bot] | object, opponent: str, games: int, mode: str = "draw") -> float:
    """Shared wins of ``make(seed)`` in 2-player games against ``opponent``, seats
    alternating, deal ``400 + i``."""
    total = 0.0
    for i in range(games):
        game = load_game("metro", players=2, turn_mode=mode)
        bots = [make_bot(opponent, 100 + i), make_bot(opponent, 200 + i)]
        bots[i % 2] = make(i)  # type: ignore[operator]
        winners = play_bots(game.new_game(400 + i), bots).winners()
        total += (i % 2 in winners) / len(winners)
    return total


def test_the_one_ply_heuristic_beats_random_in_every_turn_mode() -> None:
    """Metro's medium wins all 12 games (it wins nearly every one; the greedy player, which
    closes its own routes as soon as they score, loses nearly all)."""
    for mode in MODES:
        assert wins(lambda seed: make_bot("medium", seed), "random", 4, mode) == 4


def test_the_hard_level_holds_its_own_against_medium() -> None:
    """Metro's hard level (a lookahead on 8 determinizations) wins at least 3 of 6 games
    against medium (4 of these 6; about 70 % in the benchmark); a search that picked its
    worst candidate would win none. Six games, not ten: the later deals' games are the long
    ones, and these six already hold the bound a broken search fails."""
    assert wins(lambda seed: make_bot("hard", seed), "medium", 6) >= 3


def test_rank_gives_every_action_best_first() -> None:
    """The coach's data: one estimate per legal action, the best first, the candidates
    (at least ``keep``) judged on every determinization, the others on one."""
    state = first_decision("metro", 2, turn_mode="official-hand")
    seat = state.to_move_player()
    legal = state.legal_actions(seat)
    assert DRAW in legal
    bot = LookaheadBot(3, samples=4, width=3, rounds=1)
    ranked = bot.rank(state.view(seat), seat, legal, keep=5)
    assert sorted(map(str, (e.action for e in ranked))) == sorted(map(str, legal))
    assert [e.playouts for e in ranked[:5]] == [4] * 5
    assert {e.playouts for e in ranked[5:]} == {1}
    values = [e.value for e in ranked[:5]]
    assert values == sorted(values, reverse=True)
    assert all(0.0 <= e.win <= 1.0 for e in ranked)
    one_ply = HeuristicBot(3).rank(state.view(seat), seat, legal)
    assert len(one_ply) == len(legal)
    assert [e.value for e in one_ply] == sorted((e.value for e in one_ply), reverse=True)


def test_margin_is_the_lead_over_the_best_other() -> None:
    assert margin([10.0, 14.5, 3.0], 0) == -4.5
    assert margin([10.0, 14.5, 3.0], 1) == 4.5
    assert margin([7.0], 0) == 7.0


def test_bad_settings_and_games_without_a_heuristic_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 sample"):
        HeuristicBot(samples=0)
    with pytest.raises(ValueError, match="width >= 1"):
        LookaheadBot(width=0)
    with pytest.raises(ValueError, match="rounds >= 0"):
        LookaheadBot(rounds=-1)
    line3.register()  # a game without the heuristic hook (the tests' plug-in game)
    try:
        state = load_game("line3", players=2).new_game(1)
        while CHANCE in state.to_move():
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
        player = min(state.to_move())
        legal = state.legal_actions(player)
        for bot in (HeuristicBot(1), LookaheadBot(1)):
            with pytest.raises(ValueError, match="'line3' has no heuristic"):
                bot.decide(state, player, legal)
    finally:
        line3.unregister()


def test_the_same_seed_gives_the_same_game() -> None:
    def game() -> list[tuple[int, Action]]:
        state: State[Action] = load_game("metro", players=2, turn_mode="hand").new_game(8)
        bots: list[Bot] = [LookaheadBot(1, samples=2, width=2, rounds=1), HeuristicBot(2)]
        return play_bots(state, bots).history()

    assert game() == game()
    assert Rng(1, "bot:lookahead").next64() == LookaheadBot(1).rng.next64()


def test_win_chance_reads_a_lead_by_a_logistic_curve() -> None:
    from metrogames.bots.heuristic import win_chance

    assert win_chance(0) == 0.5
    assert abs(win_chance(15) - 1 / (1 + 2.718281828459045**-1)) < 1e-9  # ≈ 0.731
    assert abs(win_chance(-15) + win_chance(15) - 1) < 1e-12
    assert 0.5 < win_chance(5) < 0.62  # a small lead early is far from a sure win
    assert win_chance(1e9) == 1.0 and win_chance(-1e9) < 1e-200
