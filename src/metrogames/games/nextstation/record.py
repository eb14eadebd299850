"""Next Station game records: read (strictly) and replay (writing them: :mod:`.record_write`).

Format: ``docs/notation.md``, "Game record". A record lists every chance outcome (the cards
flipped) and every action, so replaying it rebuilds the game exactly; with a ``seed`` the cards
must be the seed's. Reading is strict: unknown keys (outside ``"meta"``), wrong types and
oversized lists are refused with :class:`~metrogames.core.errors.RecordError`; an illegal action
raises :class:`~metrogames.core.errors.IllegalActionError` naming round, turn and player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metrogames.core.errors import DataError, IllegalActionError, NotationError, RecordError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import action_from_json
from metrogames.games.nextstation.citymap import (
    CITY_FILES,
    CUSTOM_GAME,
    CityMap,
    load_city,
    map_hash,
)
from metrogames.games.nextstation.deal import MAX_PLAYERS, ROUNDS, Deal, Options, resolve
from metrogames.games.nextstation.mapcheck import custom_city
from metrogames.games.nextstation.record_write import FORMAT, deal_record, to_record
from metrogames.games.nextstation.state import NextStationGame, NextStationState

__all__ = ["FORMAT", "Record", "deal_record", "parse_record", "replay", "to_record"]
"""``FORMAT``, :func:`to_record` and :func:`deal_record` (:mod:`.record_write`) are read
from here too."""

RECORD_KEYS = {"format", "game", "map", "map_hash", "players", "seed", "options", "rounds", "meta"}
ROUND_KEYS = {"cards", "turns", "deck"}
MAX_NAME = 64


@dataclass
class Record:
    """A parsed Next Station record.

    Attributes:
        game: the game's name (``"london"``, ``"paris"``, ``"nextstation"``: a custom map).
        key: the name :func:`~.citymap.load_city` knows its map by (the city, or the custom
            map's content hash).
        players: display names (``"bot:greedy"`` for a bot), 1–4 of them.
        seed: the deal's seed, or ``None``.
        options: the options as read.
        rounds: per round, ``{"cards": [...], "turns": [[action-or-None, ...], ...],
            "deck": [...] | None}`` with actions still in JSON form.
        meta: free-form.
    """

    game: str
    key: str
    players: list[str]
    seed: int | None
    options: Options
    rounds: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def city(self) -> CityMap:
        return load_city(self.key)

    @property
    def is_deal(self) -> bool:
        """True for a deal record: all 4 rounds have a deck, no round has cards or turns."""
        return len(self.rounds) == ROUNDS and all(
            r["deck"] is not None and not r["cards"] and not r["turns"] for r in self.rounds
        )

    def deal(self) -> Deal:
        """The deal this record describes (from its seed, or its options and decks).

        Raises:
            RecordError: a deck that contradicts the seed, or options that need a seed.
        """
        decks = {i: tuple(r["deck"]) for i, r in enumerate(self.rounds) if r["deck"] is not None}
        try:
            deal = resolve(self.city, self.options, self.seed, decks)
        except NotationError as exc:
            raise RecordError(str(exc)) from None
        for i, deck in decks.items():
            if deal.decks[i] != deck:
                raise RecordError(f"round {i + 1}: deck is not the seed's deck")
        return deal

    def new_state(self) -> NextStationState:
        """The game's first state."""
        game = NextStationGame(self.key, len(self.players), self.options)
        return game.from_deal(self.deal())


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise RecordError(message)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _short(value: object) -> str:
    """``repr(value)`` cut to 40 characters: hostile input may hold huge strings."""
    return _clip(repr(value))


def _keys(keys: set[object]) -> str:
    """Unknown keys for a message, each cut short."""
    return ", ".join(sorted(_clip(str(k)) for k in keys))


def parse_record(data: Any) -> Record:
    """Validate the structure of a record (already decoded from JSON).

    Raises:
        RecordError: wrong format tag, unknown keys, wrong types, too many players or rounds.
    """
    _require(isinstance(data, dict), "a record must be a JSON object")
    unknown = set(data) - RECORD_KEYS
    _require(not unknown, f"unknown key(s) in record: {_keys(unknown)}")
    _require(data.get("format") == FORMAT, f"record format must be {FORMAT!r}")
    game = data.get("game")
    _require(
        isinstance(game, str) and (game in CITY_FILES or game == CUSTOM_GAME),
        f"unknown game {_short(game)} (expected one of {', '.join(CITY_FILES)}, {CUSTOM_GAME})",
    )
    key = _map_key(game, data)
    players = data.get("players")
    _require(
        isinstance(players, list) and 1 <= len(players) <= MAX_PLAYERS,
        f"players must be a list of 1 to {MAX_PLAYERS} names",
    )
    for p in players:
        _require(
            isinstance(p, str) and 0 < len(p) <= MAX_NAME,
            f"bad player name {_short(p)} (1 to {MAX_NAME} characters)",
        )
    seed = data.get("seed")
    _require(
        seed is None
        or (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64),
        "seed must be an integer from 0 to 2**64-1",
    )
    city = load_city(key)
    try:
        options = Options.from_json(city, data.get("options", {}))
    except NotationError as exc:
        raise RecordError(f"options: {exc}") from None
    meta = data.get("meta", {})
    _require(isinstance(meta, dict), "meta must be an object")
    rounds_raw = data.get("rounds", [])
    _require(isinstance(rounds_raw, list) and len(rounds_raw) <= ROUNDS, "rounds: at most 4")
    card_ids = set(city.card_by_id)
    rounds = []
    for i, r in enumerate(rounds_raw, 1):
        _require(isinstance(r, dict), f"round {i} must be an object")
        unknown = set(r) - ROUND_KEYS
        _require(not unknown, f"round {i}: unknown key(s) {_keys(unknown)}")
        cards = r.get("cards", [])
        turns = r.get("turns", [])
        deck = r.get("deck")
        _require(isinstance(cards, list) and len(cards) <= len(city.deck), f"round {i}: bad cards")
        for c in cards:
            _require(isinstance(c, str) and c in card_ids, f"round {i}: unknown card {_short(c)}")
        twice = sorted({c for c in cards if cards.count(c) > 1})
        _require(not twice, f"round {i}: card {', '.join(twice)} is flipped twice")
        if deck is not None:
            _require(
                isinstance(deck, list) and sorted(map(str, deck)) == sorted(card_ids),
                f"round {i}: deck must list the 11 cards once each",
            )
            _require(
                deck[: len(cards)] == cards, f"round {i}: cards are not the deck's first cards"
            )
        _require(isinstance(turns, list) and len(turns) <= len(city.deck), f"round {i}: bad turns")
        for t, entry in enumerate(turns, 1):
            _require(
                isinstance(entry, list) and len(entry) == len(players),
                f"round {i}, turn {t}: one action per player expected",
            )
        rounds.append({"cards": cards, "turns": turns, "deck": deck})
    return Record(game, key, list(players), seed, options, rounds, dict(meta))


def _map_key(game: str, data: dict[str, Any]) -> str:
    """The city key of a record's map: its city, or (``nextstation``) its ``map`` checked
    against its ``map_hash`` and by the checker (``docs/maps.md``, "Records").

    Raises:
        RecordError: a city's record with a map, a custom map's record without one, a hash
            that is not the map's, or an invalid map.
    """
    if game != CUSTOM_GAME:
        _require(
            "map" not in data and "map_hash" not in data,
            f"a {game} record carries no map (map and map_hash are for {CUSTOM_GAME})",
        )
        return game
    said, raw = data.get("map_hash"), data.get("map")
    if not isinstance(said, str) or not isinstance(raw, dict):
        raise RecordError(f"a {CUSTOM_GAME} record needs its map and map_hash")
    try:
        digest = map_hash(raw)
        _require(
            digest == said,
            f"map hash mismatch: the record says {said[:80]}, its map hashes to {digest}",
        )
        return custom_city(raw).key
    except DataError as exc:
        raise RecordError(f"map: {exc}") from None


def replay(record: Record) -> NextStationState:
    """Replay ``record`` and return the last state (over, or in progress).

    Raises:
        RecordError: the record's structure contradicts the game (cards after a round's end,
            a missing round, turns without cards).
        IllegalActionError: the first illegal action or card, with round, turn and player;
            an action that does not parse has reason ``bad-notation``.
    """
    city = record.city
    state = record.new_state()
    n = len(record.players)
    last_round = len(record.rounds) - 1
    for r, rnd in enumerate(record.rounds):
        cards, turns = rnd["cards"], rnd["turns"]
        if not cards and not turns:
            continue
        _require(
            state.round == r and not state.over, f"round {r + 1}: the previous round has not ended"
        )
        t = 0
        for k, card in enumerate(cards):
            _require(
                state.round == r, f"round {r + 1}: {len(cards) - k} card(s) after the round's end"
            )
            state.apply_in_place(CHANCE, card)
            if state.awaiting_card:
                continue  # a switch: the next card follows at once
            if t == len(turns):
                _require(
                    r == last_round and k == len(cards) - 1,
                    f"round {r + 1}, turn {t + 1}: no actions for a flipped card",
                )
                return state
            entry = turns[t]
            t += 1
            for p in range(n):
                value = entry[p]
                if value is None:
                    _require(
                        r == last_round and t == len(turns),
                        f"round {r + 1}, turn {t}: player {p} has no action in a finished turn",
                    )
                    continue
                try:
                    action = action_from_json(city, value)
                except NotationError as exc:
                    raise IllegalActionError("bad-notation", str(exc)).at(
                        round=r + 1, turn=t, player=p
                    ) from None
                state.apply_in_place(p, action)
        _require(t == len(turns), f"round {r + 1}: {len(turns) - t} turn(s) without a card")
        if r < last_round:
            _require(state.round == r + 1, f"round {r + 1} has not ended but round {r + 2} follows")
    return state


