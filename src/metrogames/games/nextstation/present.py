"""Next Station's public JSON for clients: the board's drawing data, the game's part of a view
and a solo game's rating.

Contract: ``docs/web-api.md``, "Boards" and "Views". All are built from the engine alone, so a
picture and the rules never disagree: the drawing data from the city's :class:`CityMap`, the view
from a state as :meth:`NextStationState.view` shows it to a seat (hidden information is the
engine's business, not the client's). They back the game's capabilities
(:mod:`metrogames.core.capabilities`): the engine's ``board_json`` (``Boards``), the state's
``view_json`` (``Presented``) and ``solo_result`` (``SoloRated``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrogames.core.protocol import JsonObject, JsonValue
from metrogames.games.nextstation.citymap import CityMap, bits, load_city
from metrogames.games.nextstation.deal import ROUNDS
from metrogames.games.nextstation.scoring import band_limits, percentile, solo_rating
from metrogames.games.nextstation.shapes import (
    LastRoundJson,
    LineJson,
    NextStationViewPart,
    PlayerJson,
    SheetJson,
)

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState


def _cell(point: tuple[float, float]) -> list[float | int]:
    """A JSON point with whole numbers written as ints (``[3, 2]``, ``[4.5, 4]``)."""
    return [int(v) if float(v).is_integer() else v for v in point]


def _stations(city: CityMap) -> list[JsonObject]:
    cells_of = {s["name"]: s.get("cells") for s in city.raw["stations"]}
    out = []
    for st in city.stations:
        entry: JsonObject = {
            "name": st.name,
            "col": _cell((st.col, 0))[0],
            "row": _cell((st.row, 0))[0],
            "symbol": st.symbol,
            "district": city.districts[st.district].name,
            "tourist_site": st.tourist_site,
            "monument": st.monument,
        }
        if cells_of.get(st.name):
            entry["cells"] = [list(c) for c in cells_of[st.name]]
        out.append(entry)
    return out


def _links(city: CityMap) -> list[JsonObject]:
    out: list[JsonObject] = []
    for j, (a, b) in enumerate(city.links):
        start, end = city.segments[j]
        out.append(
            {
                "id": city.link_name(j),
                "a": city.stations[a].name,
                "b": city.stations[b].name,
                "from": _cell(start),
                "to": _cell(end),
                "river": bool(city.river_mask >> j & 1),
            }
        )
    return out


def board_json(city_name: str) -> JsonObject:
    """The drawing data of ``city_name`` (``docs/web-api.md``, "Boards": stations, links,
    districts, river, bridges, cards, objectives, powers, scoring tables) in cell coordinates.

    Raises:
        DataError: an unknown city.
    """
    city = load_city(city_name)
    raw = city.raw
    river = (
        {"name": city.river_name, "course": [_cell(p) for p in city.river_course]}
        if city.river_name
        else None
    )
    return {
        "game": city.city,
        "title": city.title,
        "grid": {"columns": city.columns, "rows": city.rows},
        "colours": list(city.colours),
        "departures": dict(raw["departures"]),
        "aliases": dict(raw.get("aliases", {})),
        "stations": _stations(city),
        "links": _links(city),
        "districts": [
            {"name": d["name"], "kind": d["kind"], "stations": list(d["stations"])}
            for d in raw["districts"]
        ],
        "river": river,
        "bridges": [
            {"at": _cell(tuple(b["at"])), "links": [city.link_name(j) for j in pair]}
            for b, pair in zip(raw.get("bridges", []), city.bridges, strict=True)
        ],
        "cards": [
            {"id": c.id, "kind": c.kind, "face": c.face, "ends_round": c.ends_round}
            for c in city.deck
        ],
        "round_end": {"kind": city.round_end_kind, "count": city.round_end_count},
        "objectives": [{"id": o, "text": city.objective_text[o]} for o in city.objectives],
        "powers": [{"id": p, "text": city.power_text[p]} for p in city.powers],
        "scoring": dict(raw["scoring"]),
    }


def _lines(state: NextStationState, seat: int) -> dict[str, LineJson]:
    city = state.city
    board = state.maps[seat]
    names = [s.name for s in city.stations]
    out: dict[str, LineJson] = {}
    for c, colour in enumerate(city.colours):
        out[colour] = {
            "sections": [
                [names[city.links[j][0]], names[city.links[j][1]]] for j in bits(board.sections[c])
            ],
            "ends": city.names(board.ends[c]),
            "circled": names[board.circled[c]] if board.circled[c] >= 0 else None,
        }
    return out


def _player(
    state: NextStationState, p: int, sheet: SheetJson, scored: int, to_move: frozenset[int]
) -> PlayerJson:
    city = state.city
    power = state.power_of(p)
    return {
        "seat": p,
        "colour": city.colours[state.colour(p)],
        "acted": not state.awaiting_card and not state.is_over() and p not in to_move,
        "lines": _lines(state, p),
        "power": None
        if power is None
        else {"id": power, "available": state.power_available(p) is not None},
        "sheet": sheet,
        "line_scores": {
            city.colours[state.colour(p, r)]: state.line_score(p, state.colour(p, r)).score
            for r in range(scored)
        },
    }


def _targets(state: NextStationState, you: int | None) -> dict[str, list[str]]:
    """``{start: [targets]}`` of ``you``'s legal single sections without a power."""
    targets: dict[str, list[str]] = {}
    if you is None or you not in state.to_move():
        return targets
    names = [s.name for s in state.city.stations]
    for action in state.turn_actions(you):
        if len(action.sections) == 1 and action.power is None and action.circle is None:
            a, b = action.sections[0]
            targets.setdefault(names[a], []).append(names[b])
    return targets


def view_json(state: NextStationState, you: int | None) -> NextStationViewPart:
    """The Next Station part of a view (``docs/web-api.md``, "Views") of ``state`` — a view
    of seat ``you`` (``None``: a spectator), or a full state when everything may be shown (a
    finished game's replay). Reads only what ``state`` shows."""
    city = state.city
    scored = ROUNDS if state.is_over() else state.round
    to_move = state.to_move()
    seats = range(state.num_players)
    sheets = [state.breakdown(p).to_json(city) for p in seats]
    last_round: LastRoundJson | None = None
    if scored:
        r = scored - 1
        last_round = {
            "round": scored,
            "lines": {str(p): sheets[p]["lines"][city.colours[state.colour(p, r)]] for p in seats},
        }
    return {
        "scores": [sheet["total"] for sheet in sheets],
        "round": min(state.round + 1, ROUNDS),
        "turn": state.turn,
        "card": state.card,
        "flipped": list(state.flipped),
        "round_end": {"flipped": state.ends_flipped, "count": city.round_end_count},
        "branch": state.branch,
        "objectives": list(state.deal.objectives),
        "players": [_player(state, p, sheets[p], scored, to_move) for p in seats],
        "targets": _targets(state, you),
        "last_round": last_round,
    }


def solo_result(state: NextStationState) -> JsonObject | None:
    """For a finished solo game: ``{"score", "modules", "rating": {"adjusted", "band",
    "range", "low", "high", "phrase", "penalty"} | None, "percentile": 0-100 | None, "reference":
    {"games", "bot"}}`` (``range``: the band's scores in English words; ``low``/``high``: the
    same as numbers, ``None`` at an open end, for a client to word; ``phrase``: the rulebook's
    English words for the top band, else empty; ``docs/engine-rules-london.md``, "Solo
    rating"; the percentile among the city's reference games, without modules only;
    ``reference`` ``None`` on a map with no reference games, a custom map's as a rule); ``None``
    otherwise."""
    if state.num_players != 1 or not state.is_over():
        return None
    city = state.city
    score = state.scores()[0]
    modules = (1 if state.deal.objectives else 0) + (1 if state.deal.powers else 0)
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
    games = sum(city.reference_scores.values())
    reference: JsonValue = (
        {"games": games, "bot": city.reference_bot} if games and city.reference_bot else None
    )
    return {
        "score": score,
        "modules": modules,
        "rating": rating,
        "percentile": percentile(city, score) if not modules else None,
        "reference": reference,
    }
