"""Next Station's entries in the game registry: one :class:`GameType` per city.

Imported by :mod:`metrogames.games.registry` the first time ``london`` or ``paris`` is asked
for; the modules behind the hooks (records, sheets, views) are imported when first used, so
playing games (``simulate``) loads only the engine. Everything adapters need of a city goes through these hooks: making a game from options,
records, deal manifests, score sheets, the drawing data and the JSON of a view.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import cast

from metrogames.core.errors import NotationError, OptionError, RecordError, message_of
from metrogames.core.protocol import (
    Action,
    Game,
    GameType,
    JsonObject,
    JsonValue,
    OptionSpec,
    State,
)
from metrogames.games.nextstation.bound import score_ceiling
from metrogames.games.nextstation.citymap import CITY_FILES, CityMap, load_city
from metrogames.games.nextstation.deal import ROUNDS, Options
from metrogames.games.nextstation.scoring import band_limits, percentile, solo_rating
from metrogames.games.nextstation.shapes import NextStationViewPart
from metrogames.games.nextstation.state import MAX_PLAYERS, NextStationGame, NextStationState
from metrogames.games.registry import register_game
from metrogames.i18n import N_, msg


def option_specs(city: CityMap) -> dict[str, OptionSpec]:
    """The options of ``city`` for menus (``docs/notation.md``, "Options")."""
    specs = {
        "objectives": OptionSpec([], ([], "random"), {"count": 2, "from": list(city.objectives)}),
        "colour_cycle": OptionSpec(None, (None,), {"permutation_of": list(city.colours)}),
    }
    if city.powers:
        specs["powers"] = OptionSpec(
            None,
            (None, "random"),
            {"per_colour": list(city.colours), "from": list(city.powers)},
        )
    return specs


@cache
def _game(city: str, players: int, options: Options) -> NextStationGame:
    return NextStationGame(city, players, options)


def _maker(city: str) -> Callable[[int, JsonObject], Game[Action]]:
    def make(players: int, options: JsonObject) -> Game[Action]:
        try:
            parsed = Options.from_json(load_city(city), options)
        except NotationError as exc:
            raise OptionError(
                msg(N_("{game} options: {detail}"), game=city, detail=message_of(exc))
            ) from None
        return cast(Game[Action], _game(city, players, parsed))

    return make


def _replay(data: object) -> State[Action]:
    from metrogames.games.nextstation import record as ns_record

    return cast(State[Action], ns_record.replay(ns_record.parse_record(data)))


def _record_start(data: object) -> State[Action]:
    from metrogames.games.nextstation import record as ns_record

    return cast(State[Action], ns_record.parse_record(data).new_state())


def _from_deal(city: str) -> Callable[[object, int], State[Action]]:
    def from_deal(data: object, players: int) -> State[Action]:
        from metrogames.games.nextstation import record as ns_record

        other = data.get("game") if isinstance(data, dict) else None
        if other != city:  # else a Paris manifest would be played and counted as London
            raise RecordError(f"a {other} deal, not a {city} one")
        record = ns_record.parse_record(data)
        if not record.is_deal:
            raise RecordError("a deal record needs all 4 rounds' decks and no cards or turns")
        record.players = [f"p{i}" for i in range(players)]
        return cast(State[Action], record.new_state())

    return from_deal


def _board_json(city: str) -> JsonObject:
    from metrogames.games.nextstation import present

    return present.board_json(city)


def _score_sheet(data: object) -> JsonObject:
    from metrogames.games.nextstation.sheet import score_sheet

    city, sheet = score_sheet(data)
    return cast(JsonObject, sheet.to_json(city))


def _view_json(state: State[Action], you: int | None) -> JsonObject:
    from metrogames.games.nextstation import present

    return cast(JsonObject, present.view_json(cast(NextStationState, state), you))


def _score_bound(state: State[Action], player: int) -> dict[str, int] | None:
    from metrogames.games.nextstation.bound import score_bound

    return score_bound(cast(NextStationState, state), player)


def _observe(view: State[Action], seat: int) -> JsonObject:
    from metrogames.games.nextstation.observe import observe

    return observe(cast(NextStationState, view), seat)


def _heuristic(state: State[Action], player: int) -> float:
    from metrogames.games.nextstation.heuristic import heuristic

    return heuristic(state, player)


def _deep_heuristic(state: State[Action], player: int) -> float:
    from metrogames.games.nextstation.heuristic import deep_heuristic

    return deep_heuristic(state, player)


def solo_result(state: State[Action]) -> JsonObject | None:
    """For a finished solo game: ``{"score", "modules", "rating": {"adjusted", "band",
    "range", "low", "high", "phrase", "penalty"} | None, "percentile": 0-100 | None, "reference":
    {"games", "bot"}}`` (``range``: the band's scores in English words; ``low``/``high``: the
    same as numbers, ``None`` at an open end, for a client to word; ``phrase``: the rulebook's
    English words for the top band, else empty; docs/next-station-london.md, "Solo rating"; the percentile among
    the city's reference games, without modules only); ``None`` otherwise."""
    ns = cast(NextStationState, state)
    if ns.num_players != 1 or not ns.is_over():
        return None
    city = ns.city
    score = ns.scores()[0]
    modules = (1 if ns.deal.objectives else 0) + (1 if ns.deal.powers else 0)
    rated = solo_rating(city, score, modules)
    rating: JsonValue = None
    if rated is not None:
        adjusted, band, span, phrase = rated
        penalty = int((city.solo_rating or {}).get("module_penalty", 0))
        rating = {
            "adjusted": adjusted,
            "band": band,
            "range": span,
            "low": band_limits(city, band)[0],
            "high": band_limits(city, band)[1],
            "phrase": phrase,
            "penalty": penalty * modules,
        }
    return {
        "score": score,
        "modules": modules,
        "rating": rating,
        "percentile": percentile(city, score) if not modules else None,
        "reference": {"games": sum(city.reference_scores.values()), "bot": city.reference_bot},
    }


def _register(city_name: str) -> None:
    city = load_city(city_name)
    register_game(
        GameType(
            name=city_name,
            title=city.title,
            players=range(1, MAX_PLAYERS + 1),
            dynamics="simultaneous",
            options=option_specs(city),
            make=_maker(city_name),
            replay=_replay,
            record_start=_record_start,
            from_deal=_from_deal(city_name),
            score_sheet=_score_sheet,
            board_json=cache(lambda: _board_json(city_name)),
            view_json=_view_json,
            view_type=NextStationViewPart,
            solo_result=solo_result,
            family="nextstation",
            score_bound=_score_bound,
            heuristic=_heuristic,
            deep_heuristic=_deep_heuristic,
            observe=_observe,
            score_range=(0, score_ceiling(city)),  # no rule takes points away
            max_game_length=ROUNDS * len(city.deck),  # at most one decision per card flipped
        )
    )


for _name in CITY_FILES:
    _register(_name)
