"""Next Station game records and deal records: writing them.

Format: ``docs/notation.md``, "Game record". Reading (strictly) and replaying them:
:mod:`.record`. This module knows the state only by its type, so the state's own
``to_record`` and ``deal_record`` use it directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrogames.core.errors import RecordError
from metrogames.core.protocol import CHANCE, JsonObject, JsonValue
from metrogames.games.nextstation.actions import TurnAction, action_to_json
from metrogames.games.nextstation.citymap import CUSTOM_GAME, is_custom

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState

FORMAT = "metrogames/1"


def to_record(
    state: NextStationState,
    players: list[str],
    *,
    seed: int | None = None,
    reveal_decks: bool = False,
    meta: JsonObject | None = None,
) -> JsonObject:
    """The record of ``state``'s game so far, as a JSON-ready dict.

    Args:
        players: display names, one per player.
        seed: the game's seed, when the record may name it (never for a game in progress).
        reveal_decks: add each played round's whole ``deck`` (a finished game, a public deal).
        meta: free-form data to carry along.

    In a :meth:`~NextStationState.view`, the actions the viewer cannot see (``HIDDEN`` in its
    history) are written as not yet played: ``null`` in the last turn.

    Raises:
        RecordError: a state read from a snapshot (its history does not start at the deal).
    """
    if not state.history_from_deal:
        raise RecordError("a state read from a snapshot has no history to record")
    city = state.city
    n = state.game.players
    rounds: list[JsonObject] = []
    cards: list[str] = []
    turns: list[list[JsonValue]] = []
    ends = 0
    acted = 0
    for player, action in state.history():
        if player == CHANCE:
            assert isinstance(action, str)
            cards.append(action)
            card = city.card_by_id[action]
            if card.face != "switch":
                turns.append([None] * n)
                acted = 0
                ends += card.ends_round
            continue
        if not isinstance(action, TurnAction):  # HIDDEN in a view: not played yet
            continue
        turns[-1][player] = action_to_json(city, action)
        acted += 1
        if acted == n and ends >= city.round_end_count:
            rounds.append({"cards": cards, "turns": turns})
            cards, turns, ends = [], [], 0
    if cards:
        rounds.append({"cards": cards, "turns": turns})
    if reveal_decks:
        for i, rnd in enumerate(rounds):
            deck = state.deal.decks[i]
            if deck is not None:
                rnd["deck"] = list(deck)
    out: JsonObject = {"format": FORMAT, **game_fields(state), "players": list(players)}
    if seed is not None:
        out["seed"] = seed
    out["options"] = state.deal.options_json(city)
    out["rounds"] = rounds
    out["meta"] = dict(meta or {})
    return out


def deal_record(
    state: NextStationState, players: list[str], meta: JsonObject | None = None
) -> JsonObject:
    """A *deal record* of ``state``'s deal: every round's ``deck`` and the resolved options,
    no cards and no turns (``docs/notation.md``, ``simulate --deals``).

    Raises:
        RecordError: a deal whose decks are not all known.
    """
    if any(d is None for d in state.deal.decks):
        raise RecordError("a deal record needs every round's deck")
    return {
        "format": FORMAT,
        **game_fields(state),
        "players": list(players),
        "options": state.deal.options_json(state.city),
        "rounds": [{"deck": list(d or ())} for d in state.deal.decks],
        "meta": dict(meta or {}),
    }


def game_fields(state: NextStationState) -> JsonObject:
    """A record's ``game`` and, on a custom map, its ``map`` and ``map_hash``
    (``docs/notation.md``, "Game record"; ``docs/maps.md``)."""
    city = state.city
    if not is_custom(city.key):
        return {"game": city.city}
    return {"game": CUSTOM_GAME, "map": city.raw, "map_hash": city.hash}
