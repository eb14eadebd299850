"""An open day's deal, recognised by its content (``docs/web-api.md``, "The daily challenge":
no search of the server's on a day's deal while the day is open).

While a day is open its deal is secret, but a player of it sees most of it: the cards flipped.
Rebuilt into a record and uploaded, or replayed, it would have the server search the day's deal
for its best line — to be played in a ranked attempt. So every path to the server's search
(an analysis, a replay of an upload) first asks whether the game's deal is an open day's, by
what the game holds, not by the room it came from: the sequence of its chance outcomes (the
cards flipped, in order) compared with the open day's. A deal is the day's when at least
:data:`MIN_CHANCES` of its chance outcomes are known and at least :data:`AGREEMENT` of them are
the day's outcome at the same place — a random deal agrees at about one place in eleven, and a
record of the day's deal with a few cards moved still agrees at most places (moving half of them
makes another deal, whose best line is of little use on the day's).

Everything here reads games through the registry and the protocol only (``state.history()``,
chance actions as notation JSON), so it holds for any game with a daily challenge.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import CHANCE, Action, State, is_object
from metrogames.games import load_game, replay_record
from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError

MIN_CHANCES = 5
"""The fewest chance outcomes a game must show before its deal can be told (fewer: too little
of any deal to search)."""
AGREEMENT = 0.5
"""The share of a game's chance outcomes, place by place, that makes its deal the day's."""


def chances(state: State[Action]) -> list[str]:
    """The chance outcomes of ``state``'s history, in order, as notation JSON texts."""
    return [
        json.dumps(state.action_to_json(CHANCE, action), sort_keys=True)
        for player, action in state.history()
        if player == CHANCE
    ]


def deal_chances(game: str, seed: int) -> list[str]:
    """The chance outcomes of the solo deal of ``seed`` (``load_game(game, players=1)``
    without options, as the daily challenge deals it), in order: the deal played to its end
    by a player who passes when it may (else takes its first legal action) — in a solo game
    whose chance draws from a deck dealt at the start, every game of the deal flips the same
    outcomes in the same order."""
    state = load_game(game, players=1).new_game(seed)
    pass_action = state.game.pass_action
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        for player in sorted(movers):
            legal = state.legal_actions(player)
            action = pass_action if pass_action in legal else legal[0]
            state.apply_in_place(player, action, check=False)
    return chances(state)


def agreement(seen: Sequence[str], day: Sequence[str]) -> float:
    """The share of the outcomes ``seen`` that equal the day's at the same place (0 to 1; an
    outcome past the day's last counts as different)."""
    if not seen:
        return 0.0
    same = sum(1 for i, outcome in enumerate(seen) if i < len(day) and day[i] == outcome)
    return same / len(seen)


def is_days_deal(seen: Sequence[str], day: Sequence[str]) -> bool:
    """Whether a game whose chance outcomes are ``seen`` is on the deal whose outcomes are
    ``day`` (see the module docstring)."""
    return len(seen) >= MIN_CHANCES and agreement(seen, day) >= AGREEMENT


OpenDeals = dict[str, list[str]]
"""The open days' deals a search must not touch: game name -> the deal's chance outcomes
(:func:`deal_chances`)."""


def refuse_open_deal(record: object, open_deals: OpenDeals) -> None:
    """Refuse a record whose game is on an open day's deal (in a job's worker, before the
    analysis or replay it asks for: telling needs the record replayed).

    Raises:
        RoomError: 409 ``day-open`` naming the rule; nothing else (a record the engine refuses
            is for the job itself to refuse, with its reason).
    """
    game = record.get("game") if is_object(record) else None
    day = open_deals.get(game) if isinstance(game, str) else None
    if day is None:
        return
    try:
        seen = chances(replay_record(record))
    except (MetrogamesError, ValueError, TypeError, KeyError):
        return
    if is_days_deal(seen, day):
        raise RoomError(
            409,
            "day-open",
            msg(
                N_(
                    "this record is on the deal of a daily challenge still open: the server "
                    "analyses and replays it once the day has closed"
                )
            ),
        )
