"""Bots: the level codes, the Monte Carlo bot, bad requests, honesty and small strength checks.

Games here are played on the checked path (``apply``), so a bot that chose an illegal action
fails the test. Strength checks use small seeded samples with bounds a broken bot fails; the
full measurements are ``benchmarks/bots.py`` (``docs/performance.md``, "Bots").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from metrogames.bots import make_bot
from metrogames.bots.base import Bot, bot_codes
from metrogames.bots.levels import LEVELS, Algorithm, LevelBot, level_algorithm
from metrogames.bots.montecarlo import MonteCarloBot, greedy_turns, outcome_value
from metrogames.bots.play import play_bots
from metrogames.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import load_game

ALGORITHMS = ("greedy", "heuristic", "lookahead", "montecarlo", "random")
MODES = ("draw", "hand", "official-hand")


def play_checked(state: State[Action], bots: Sequence[Bot]) -> State[Action]:
    """Play to the end like ``play_bots``, but every action through the checked ``apply``."""
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
            continue
        for p in sorted(movers):
            legal = state.legal_actions(p)
            seen = state.view(p) if bots[p].sees_state else state
            state = state.apply(p, bots[p].decide(seen, p, legal))
    return state


def first_decision(game: str, players: int = 2, **options: object) -> State[Action]:
    """A state at the first player decision of ``game`` (chance steps taken)."""
    state = load_game(game, players=players, **options).new_game(7)  # type: ignore[arg-type]
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    return state


# -- codes and levels ------------------------------------------------------------------------
def test_bot_codes_list_the_levels_in_order_then_the_algorithms() -> None:
    assert bot_codes() == ["easy", "medium", "hard", "expert", *ALGORITHMS]
    for code in bot_codes():
        assert make_bot(code, 3).name == code


def test_an_unknown_code_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown bot 'grandmaster' .*easy, medium, hard, expert"):
        make_bot("grandmaster")
    with pytest.raises(ValueError, match="unknown level"):
        LevelBot("grandmaster")
    with pytest.raises(ValueError, match="at least 1 playout"):
        MonteCarloBot(budget=0)
    with pytest.raises(ValueError, match="cannot be negative"):
        MonteCarloBot(greedy_turns=-1)


TUNED = {
    "easy": {"*": Algorithm("random")},
    "medium": {"metro": Algorithm("heuristic", 1), "*": Algorithm("greedy")},
    "hard": {
        "metro": Algorithm("lookahead", 8, width=4, rounds=1),
        "london": Algorithm("montecarlo", 500, use_heuristic=True),
        "paris": Algorithm("montecarlo", 250, use_heuristic=True),
        "*": Algorithm("montecarlo", 1000),
    },
    "expert": {
        "metro": Algorithm("lookahead", 32, width=6, rounds=2),
        "london": Algorithm("montecarlo", 800, use_heuristic=True, deep=True),
        "paris": Algorithm("montecarlo", 1000, use_heuristic=True),
        "*": Algorithm("montecarlo", 4000),
    },
}
"""The measured level table (README, "Bots"), level -> game (``*``: any other) -> algorithm."""


def test_every_level_has_an_entry_for_any_game() -> None:
    """Each game states its own tuning (``GameType.bot_levels``); a level it does not name,
    and every level of a game the registry does not know, plays the default of ``LEVELS``."""
    assert list(LEVELS) == list(TUNED)
    for level, table in TUNED.items():
        assert LEVELS[level] == table["*"]
        for game in ("london", "paris", "metro", "no-such-game"):
            assert level_algorithm(level, game) == table.get(game, table["*"]), (level, game)
    # Metro's greedy loses to random (it closes its own routes at once): medium weighs routes
    assert level_algorithm("medium", "metro").code == "heuristic"
    assert level_algorithm("medium", "london").code == "greedy"
    for level in ("hard", "expert"):  # Next Station's levels search with the game's estimate
        assert level_algorithm(level, "london").use_heuristic
        assert level_algorithm(level, "paris").use_heuristic
        assert not level_algorithm(level, "metro").use_heuristic


def test_medium_plays_london_exactly_as_greedy_with_the_same_seed() -> None:
    """A level delegates to a bot seeded like itself: the daily comparison's ``greedy`` score
    is ``medium``'s."""
    for seed in (1, 2):
        game = load_game("london", players=1)
        a = play_bots(game.new_game(seed), [make_bot("medium", seed)])
        b = play_bots(game.new_game(seed), [make_bot("greedy", seed)])
        assert a.history() == b.history()


@pytest.mark.parametrize("game", ["london", "paris", "metro"])
def test_levels_play_whole_games_legally(game: str) -> None:
    """easy and medium against each other, every action checked (2 players: simultaneous
    turns in Next Station, hidden hands in Metro's hand mode)."""
    options = {"turn_mode": "hand"} if game == "metro" else {}
    state = load_game(game, players=2, **options).new_game(11)  # type: ignore[arg-type]
    end = play_checked(state, [make_bot("easy", 1), make_bot("medium", 2)])
    assert end.is_over() and len(end.winners()) >= 1


# -- the Monte Carlo bot ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("london", 2, {"powers": "random", "objectives": "random"}),
        ("paris", 1, {}),
        ("metro", 3, {"turn_mode": "official-hand"}),
        ("metro", 2, {"turn_mode": "hand", "one_tile_routes": "forbidden"}),
    ],
)
def test_monte_carlo_plays_legally_to_the_end(game: str, players: int, options: dict) -> None:
    state = load_game(game, players=players, **options).new_game(5)
    bots: list[Bot] = [MonteCarloBot(p, budget=8) for p in range(players)]
    if game == "paris":  # greedy playouts are for Next Station (Metro's are far slower)
        bots[-1] = MonteCarloBot(9, budget=8, greedy_turns=4)
    end = play_checked(state, bots)
    assert end.is_over()


def test_monte_carlo_is_reproducible() -> None:
    def game() -> list[tuple[int, Action]]:
        state = load_game("metro", players=2).new_game(3)
        bots = [MonteCarloBot(1, budget=10), MonteCarloBot(2, budget=10)]
        return play_bots(state, bots).history()

    assert game() == game()


@pytest.mark.parametrize("code", ["medium", "montecarlo", "greedy", "expert"])
def test_bots_decide_on_what_they_may_know(code: str) -> None:
    """Two full states that one seat cannot tell apart (the same view: other pile orders and
    other hands in Metro, other deck orders in London) get the same decision from equally
    seeded bots: the bot never reads the true hidden state."""
    cases = [
        ("metro", 2, {"turn_mode": "hand"}),
        ("metro", 3, {"turn_mode": "official-hand"}),
        ("london", 1, {}),
    ]
    for game, players, options in cases:
        state = first_decision(game, players, **options)
        seat = min(state.to_move())
        seen = state.view(seat)
        first, second = seen.resample(seat, Rng(1)), seen.resample(seat, Rng(2))
        assert first.snapshot() != second.snapshot() or game == "london"
        legal = seen.legal_actions(seat)
        if code == "expert":  # the same algorithm, a test-sized budget
            algorithm = level_algorithm(code, game)
            budget = 4 if algorithm.code == "lookahead" else 40
            bots = [replace(algorithm, budget=budget).make(4) for _ in range(3)]
        elif code == "montecarlo":
            bots = [MonteCarloBot(4, budget=40) for _ in range(3)]
        else:
            bots = [make_bot(code, 4) for _ in range(3)]
        chosen = {
            bots[0].decide(first, seat, first.legal_actions(seat)),
            bots[1].decide(second, seat, second.legal_actions(seat)),
            bots[2].decide(seen, seat, legal),
        }
        assert len(chosen) == 1, (game, code)


def test_outcome_value_is_the_margin_over_the_best_other() -> None:
    assert outcome_value([10, 14, 3], 0) == -4
    assert outcome_value([10, 14, 3], 1) == 4
    assert outcome_value([120], 0) == 120


def test_greedy_turns_play_as_many_turns_as_asked() -> None:
    """Two players of London: a turn is both players' sections (chance steps are free)."""
    state = first_decision("london", 2).view(0).resample(0, Rng(3))
    before = sum(1 for p, _ in state.history() if p != CHANCE)
    greedy_turns(state, 3, Rng(4))
    assert sum(1 for p, _ in state.history() if p != CHANCE) - before == 6
    greedy_turns(state, 1000, Rng(4))
    assert state.is_over()


# -- bad requests ----------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["easy", "medium", "hard", "expert", *ALGORITHMS])
@pytest.mark.parametrize("game", ["london", "metro"])
def test_a_bot_refuses_to_move_out_of_turn_after_the_end_or_with_no_action(
    code: str, game: str
) -> None:
    bot = make_bot(code, 1)
    state = first_decision(game, 2)
    mover = min(state.to_move())
    if game == "metro":  # the other seat is not to move
        other, seen = 1 - mover, state.view(1 - mover)
    else:  # a seat that has played its simultaneous turn is not to move again
        other, seen = 0, state.apply(0, state.legal_actions(0)[0]).view(0)
    with pytest.raises(NotYourTurnError, match=f"player {other}: the {code} bot was asked"):
        bot.decide(seen, other, state.legal_actions(mover))
    with pytest.raises(IllegalActionError, match="no-legal-action"):
        bot.decide(state.view(mover), mover, [])
    chance = load_game(game, players=2).new_game(2)
    with pytest.raises(NotYourTurnError, match="chance to move"):
        bot.decide(chance, 0, ["anything"])
    over = play_bots(load_game(game, players=2).new_game(2), [make_bot("random", 1)] * 2)
    with pytest.raises(GameOverError, match="game-over"):
        bot.decide(over.view(0), 0, ["anything"])


# -- strength (small seeded samples; the benchmark measures the real figures) -------------------
def test_metro_medium_beats_random() -> None:
    """Metro's medium level wins at least 8 of 10 seeded 2-player games against random,
    in every turn mode, seats alternating (it wins nearly all of them)."""
    wins = 0.0
    for i in range(10):
        game = load_game("metro", players=2, turn_mode=MODES[i % 3])
        bots = [make_bot("random", 100 + i), make_bot("random", 200 + i)]
        bots[i % 2] = make_bot("medium", i)
        end = play_bots(game.new_game(300 + i), bots)
        winners = end.winners()
        wins += (i % 2 in winners) / len(winners)
    assert wins >= 8


def test_montecarlo_beats_greedy_in_london_solo() -> None:
    """On the same six deals, a small Monte Carlo search with random playouts (what the
    levels play in a game without an estimate of its own) scores more than greedy in total."""
    game = load_game("london", players=1)
    mc = greedy = 0
    for seed in range(40, 46):
        mc += play_bots(game.new_game(seed), [MonteCarloBot(seed, budget=120)]).scores()[0]
        greedy += play_bots(game.new_game(seed), [make_bot("greedy", seed)]).scores()[0]
    assert mc > greedy + 30
