"""London records for the notation, record, sheet and command-line tests: seeded games played
by bots, records written card by card, and the spec's score sheet example
(``docs/notation.md``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.games.nextstation.actions import action_to_json, parse_action
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.record import FORMAT, to_record
from metrogames.games.nextstation.state import NextStationGame, NextStationState

LONDON = load_city("london")

Turn = tuple[str, Sequence[str | None] | None]
"""A card and the players' actions as typed (``None``: not acted yet); ``None`` for a switch."""


def play_london_state(
    seed: int, bots: Sequence[str] = ("greedy", "random"), options: Any = None
) -> NextStationState:
    """A London game dealt from ``seed``, played to the end by ``bots`` (bot i seeded seed+i)."""
    game = NextStationGame("london", len(bots), Options.from_json(LONDON, options or {}))
    state = game.new_game(seed)
    play_bots(state, [make_bot(code, seed + i) for i, code in enumerate(bots)])
    return state


@cache
def _played(seed: int, bots: tuple[str, ...], options_key: str | None) -> dict[str, Any]:
    options = json.loads(options_key) if options_key else None
    state = play_london_state(seed, bots, options)
    names = [f"bot:{b}" for b in bots]
    return to_record(state, names, seed=seed, reveal_decks=True)


def play_london(
    seed: int, bots: Sequence[str] = ("greedy", "random"), options: Any = None
) -> dict[str, Any]:
    """The record (with seed and decks) of a finished seeded London game; a fresh copy each call."""
    key = json.dumps(options, sort_keys=True) if options else None
    return copy.deepcopy(_played(seed, tuple(bots), key))


def hand_record(
    rounds: Sequence[Sequence[Turn]],
    players: int = 2,
    cycle: Sequence[str] = ("pink", "green", "blue", "purple"),
    powers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A London record without seed or decks, written card by card.

    With the default cycle, player 0 draws pink in round 1 and green in round 2; with two
    players, player 1 draws blue then purple.
    """
    out_rounds = []
    for rnd in rounds:
        cards: list[str] = []
        turns: list[list[Any]] = []
        for card, actions in rnd:
            cards.append(card)
            if actions is None:
                continue
            turns.append(
                [
                    None if a is None else action_to_json(LONDON, parse_action(LONDON, a))
                    for a in actions
                ]
            )
        out_rounds.append({"cards": cards, "turns": turns})
    return {
        "format": FORMAT,
        "game": "london",
        "players": [f"p{i}" for i in range(players)],
        "options": {"objectives": [], "powers": powers, "colour_cycle": list(cycle)},
        "rounds": out_rounds,
        "meta": {},
    }


def _passes(*cards: str) -> list[Turn]:
    return [(c, ["pass", "pass"]) for c in cards]


ROUND_1_PINK: list[Turn] = [
    ("street-square", ["H4-G3", "pass"]),
    ("street-pentagon", ["G3-G2", "pass"]),
    ("underground-triangle", ["G2-E4", "pass"]),
    *_passes("underground-square", "underground-circle", "underground-pentagon"),
    ("underground-joker", ["pass", "pass"]),  # the 5th underground card: the round ends
]
"""Player 0 draws the pink line H4-G3-G2-E4 (so the pink section E4-G2 is on the map)."""

ROUND_2_CROSSING: list[Turn] = [
    *_passes("street-circle", "street-triangle", "street-pentagon"),
    ("street-square", ["D3-G3", "pass"]),  # green D3-G3 crosses the pink E4-G2
]
"""Round 2, turn 4: player 0's green D3-G3 crosses the pink section E4-G2 (the spec's example)."""

SPEC_SHEET: dict[str, Any] = {
    "game": "london",
    "lines": {
        "blue": [
            ["F8", "F5"],
            ["F5", "E4"],
            ["E4", "F4"],
            ["F4", "G3"],
            ["G3", "H4"],
            ["H4", "J2"],
            ["J2", "J1"],
        ],
        "pink": [],
        "purple": [],
        "green": [],
    },
    "circled": {"blue": "E4"},
    "objectives": ["thames-6"],
}

EMPTY_LINE = {"districts": 0, "max_in_district": 0, "thames": 0, "score": 0}
SPEC_SCORE: dict[str, Any] = {
    "lines": {
        "blue": {"districts": 6, "max_in_district": 4, "thames": 1, "circled": "E4", "score": 26},
        "pink": EMPTY_LINE,
        "purple": EMPTY_LINE,
        "green": EMPTY_LINE,
    },
    "tourist": {"boxes": 1, "points": 1},
    "interchanges": {"2": 0, "3": 0, "4": 0, "points": 0},
    "objectives": {"thames-6": False, "points": 0},
    "total": 27,
}
"""The spec's score sheet example and its ``score --json`` output."""


CROSSING_MESSAGE = (
    "round 2, turn 4, player 0: section D3-G3 crosses the pink section E4-G2 (crosses-section)"
)
