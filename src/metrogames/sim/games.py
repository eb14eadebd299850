"""Which games the adapters know, and how to start, replay and record each.

The single place that maps a game name (``london``, ``paris``, ``metro``) to its engine, so
the command line, the simulator and the web table stay game-agnostic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from metrogames.core.errors import RecordError
from metrogames.games.metro import (
    MetroGame,
    MetroOptions,
    metro_deal_record,
    metro_record,
    read_metro_record,
    replay_metro_record,
    score_metro_sheet,
)
from metrogames.games.nextstation import record as ns_record
from metrogames.games.nextstation.citymap import CITY_FILES, load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.sheet import score_sheet
from metrogames.games.nextstation.state import NextStationGame, NextStationState


def next_station_components(state: NextStationState, player: int) -> dict[str, int]:
    """``lines``, ``tourist``, ``interchanges``, ``bridges``, ``objectives``, ``total`` (points);
    keys a city does not score are left out."""
    b = state.breakdown(player)
    out = {"lines": sum(ls.score for ls in b.lines.values())}
    if state.city.tourist_points:
        out["tourist"] = b.tourist_points
    out["interchanges"] = b.interchange_points
    if state.city.bridges:
        out["bridges"] = b.bridge_points
    if state.deal.objectives:
        out["objectives"] = b.objective_points
    out["total"] = b.total
    return out


@dataclass(frozen=True)
class GameKind:
    """How the adapters handle one game.

    Attributes:
        name: the game name of records (``london``).
        new_state: ``(players, seed, options_json) -> state``.
        state_from_deal: ``(deal record dict, players) -> state`` for ``--deals``.
        replay: ``(record dict) -> final state``; raises the engine's errors.
        to_record: ``(state, names, seed) -> record dict`` of a finished game.
        components: ``(state, player) -> {component: points}``.
        score_sheet: ``(sheet dict) -> score --json dict``; raises the engine's errors.
        deal_record: ``(players, seed) -> deal record dict`` for ``deals``.
        players: the player counts the game takes.
    """

    name: str
    new_state: Callable[[int, int, Any], Any]
    state_from_deal: Callable[[Any, int], Any]
    replay: Callable[[Any], Any]
    to_record: Callable[[Any, list[str], int | None], dict[str, Any]]
    components: Callable[[Any, int], dict[str, int]]
    score_sheet: Callable[[Any], dict[str, Any]]
    deal_record: Callable[[int, int], dict[str, Any]]
    players: range


def _ns_new_state(city: str) -> Callable[[int, int, Any], Any]:
    @cache
    def game(players: int, options: str) -> NextStationGame:
        opts = Options.from_json(load_city(city), json.loads(options))
        return NextStationGame(city, players, opts)

    def new_state(players: int, seed: int, options: Any) -> Any:
        return game(players, json.dumps(options or {}, sort_keys=True)).new_game(seed)

    return new_state


def _ns_from_deal(city: str) -> Callable[[Any, int], Any]:
    def from_deal(data: Any, players: int) -> Any:
        _check_game(data, city)
        record = ns_record.parse_record(data)
        if record.game != city:  # else a Paris manifest would be played and counted as London
            raise RecordError(f"a {record.game} deal, not a {city} one")
        if not record.is_deal:
            raise RecordError("a deal record needs all 4 rounds' decks and no cards or turns")
        record.players = [f"p{i}" for i in range(players)]
        return record.new_state()

    return from_deal


def _ns_replay(data: Any) -> Any:
    return ns_record.replay(ns_record.parse_record(data))


def _ns_to_record(state: Any, names: list[str], seed: int | None) -> dict[str, Any]:
    return ns_record.to_record(state, names, seed=seed, reveal_decks=state.is_over())


def _ns_score_sheet(data: Any) -> dict[str, Any]:
    city, sheet = score_sheet(data)
    return sheet.to_json(city)


def _ns_deal_record(city: str) -> Callable[[int, int], dict[str, Any]]:
    new_state = _ns_new_state(city)

    def deal(players: int, seed: int) -> dict[str, Any]:
        names = [f"p{k}" for k in range(players)]
        return ns_record.deal_record(new_state(players, seed, {}), names, {"seed": seed})

    return deal


def _metro_new_state(players: int, seed: int, options: Any) -> Any:
    return MetroGame(players, MetroOptions.from_json(options or {})).new_game(seed)


def _check_game(data: Any, game: str) -> None:
    """Refuse a deal record of another game, naming both."""
    other = data.get("game") if isinstance(data, dict) else None
    if other != game:
        raise RecordError(f"a {other} deal, not a {game} one")


def _metro_from_deal(data: Any, players: int) -> Any:
    _check_game(data, "metro")
    record = read_metro_record(data)
    if record.turns:
        raise RecordError("a deal record has no turns")
    if len(record.players) != players:
        raise RecordError(f"a deal for {len(record.players)} players, not {players}")
    return record.game.from_pile(record.tiles)


def _metro_to_record(state: Any, names: list[str], seed: int | None) -> dict[str, Any]:
    return metro_record(state, names, include_seed=seed is not None, reveal_pile=state.is_over())


def _metro_components(state: Any, player: int) -> dict[str, int]:
    return {"longest_route": state.longest_routes()[player], "total": state.scores()[player]}


def _metro_deal_record(players: int, seed: int) -> dict[str, Any]:
    return metro_deal_record(MetroGame(players), seed)


GAMES: dict[str, GameKind] = {
    **{
        city: GameKind(
            city,
            _ns_new_state(city),
            _ns_from_deal(city),
            _ns_replay,
            _ns_to_record,
            next_station_components,
            _ns_score_sheet,
            _ns_deal_record(city),
            range(1, 5),
        )
        for city in CITY_FILES
    },
    "metro": GameKind(
        "metro",
        _metro_new_state,
        _metro_from_deal,
        replay_metro_record,
        _metro_to_record,
        _metro_components,
        score_metro_sheet,
        _metro_deal_record,
        range(2, 7),
    ),
}


def game_kind(name: Any) -> GameKind:
    """The :class:`GameKind` of ``name``.

    Raises:
        RecordError: an unknown game name.
    """
    kind = GAMES.get(name) if isinstance(name, str) else None
    if kind is None:
        raise RecordError(f"unknown game {name!r} (expected one of {', '.join(GAMES)})")
    return kind
