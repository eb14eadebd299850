"""Board drawing data for the browser, built from the engine's own data files.

Contract: ``docs/web-api.md``, "Boards". The client draws only from these documents, so the
picture and the rules never disagree: stations, links, river, bridges and decks of a Next Station
city come from :class:`~metrogames.games.nextstation.citymap.CityMap`; squares, tile tracks,
edge stations and allocations of Metro from :class:`~metrogames.games.metro.MetroData`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from metrogames.bots.base import BOTS, make_bot
from metrogames.games.metro import ONE_TILE_ROUTES, TURN_MODES, load_metro, square_name
from metrogames.games.metro.tiles import SIDES
from metrogames.games.nextstation.citymap import CITY_FILES, CityMap, load_city

GAME_NAMES: tuple[str, ...] = (*CITY_FILES, "metro")
"""The game names the web table serves, in the order ``GET /api/games`` lists them."""

SIDE_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
METRO_TITLE = "Metro"
ENDPOINTS = (
    "endpoints 0-7 sit two per side, clockwise from the north side's west point: "
    "0 north-west, 1 north-east, 2 east-north, 3 east-south, 4 south-east, 5 south-west, "
    "6 west-south, 7 west-north; a track joins an even endpoint to an odd one; an edge "
    "station's train departs from the even endpoint of its side and arrives at the odd one"
)


def bot_codes() -> list[str]:
    """The bot codes a room seat may name (``["greedy", "random"]``)."""
    make_bot("random")  # imports the bot modules, which register themselves
    return sorted(BOTS)


def _cell(point: tuple[float, float]) -> list[float | int]:
    """A JSON point with whole numbers written as ints (``[3, 2]``, ``[4.5, 4]``)."""
    return [int(v) if float(v).is_integer() else v for v in point]


def _next_station_options(city: CityMap) -> dict[str, Any]:
    options: dict[str, Any] = {
        "objectives": {
            "default": [],
            "values": [[], "random"],
            "choose": {"count": 2, "from": list(city.objectives)},
        },
        "colour_cycle": {
            "default": None,
            "values": [None],
            "choose": {"permutation_of": list(city.colours)},
        },
    }
    if city.powers:
        options["powers"] = {
            "default": None,
            "values": [None, "random"],
            "choose": {"per_colour": list(city.colours), "from": list(city.powers)},
        }
    return options


def _metro_options() -> dict[str, Any]:
    return {
        "turn_mode": {"default": "draw", "values": list(TURN_MODES)},
        "one_tile_routes": {"default": "allowed", "values": list(ONE_TILE_ROUTES)},
    }


@cache
def games_list() -> list[dict[str, Any]]:
    """``GET /api/games``: per game ``{"game", "title", "players": [min, max], "options":
    {name: {"default", "values": [...], "choose"?: {...}}}, "bots": [codes]}``."""
    out: list[dict[str, Any]] = []
    for name in CITY_FILES:
        city = load_city(name)
        out.append(
            {
                "game": name,
                "title": city.title,
                "players": [1, 4],
                "options": _next_station_options(city),
                "bots": bot_codes(),
            }
        )
    out.append(
        {
            "game": "metro",
            "title": METRO_TITLE,
            "players": [2, 6],
            "options": _metro_options(),
            "bots": bot_codes(),
        }
    )
    return out


def _next_station_board(city: CityMap) -> dict[str, Any]:
    raw = city.raw
    cells_of = {s["name"]: s.get("cells") for s in raw["stations"]}
    stations = []
    for st in city.stations:
        entry: dict[str, Any] = {
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
        stations.append(entry)
    links = []
    for j, (a, b) in enumerate(city.links):
        start, end = city.segments[j]
        links.append(
            {
                "id": city.link_name(j),
                "a": city.stations[a].name,
                "b": city.stations[b].name,
                "from": _cell(start),
                "to": _cell(end),
                "river": bool(city.river_mask >> j & 1),
            }
        )
    districts = [
        {"name": d["name"], "kind": d["kind"], "stations": list(d["stations"])}
        for d in raw["districts"]
    ]
    river = (
        {"name": city.river_name, "course": [_cell(p) for p in city.river_course]}
        if city.river_name
        else None
    )
    bridges = [
        {"at": _cell(tuple(b["at"])), "links": [city.link_name(j) for j in pair]}
        for b, pair in zip(raw.get("bridges", []), city.bridges, strict=True)
    ]
    return {
        "game": city.city,
        "title": city.title,
        "grid": {"columns": city.columns, "rows": city.rows},
        "colours": list(city.colours),
        "departures": dict(raw["departures"]),
        "aliases": dict(raw.get("aliases", {})),
        "stations": stations,
        "links": links,
        "districts": districts,
        "river": river,
        "bridges": bridges,
        "cards": [
            {"id": c.id, "kind": c.kind, "face": c.face, "ends_round": c.ends_round}
            for c in city.deck
        ],
        "round_end": {"kind": city.round_end_kind, "count": city.round_end_count},
        "objectives": [{"id": o, "text": city.objective_text[o]} for o in city.objectives],
        "powers": [{"id": p, "text": city.power_text[p]} for p in city.powers],
        "scoring": dict(raw["scoring"]),
    }


def _metro_board() -> dict[str, Any]:
    data = load_metro()
    central = set(data.central_squares)
    squares = [
        {"name": square_name(sq), "col": sq % 8, "row": sq // 8, "central": sq in central}
        for sq in range(64)
    ]
    tiles = []
    for code, count, conn in zip(data.tile_codes, data.tile_counts, data.conn, strict=True):
        tracks = [[e, conn[e]] for e in range(0, 8, 2)]
        tiles.append({"code": code, "tracks": tracks, "count": count})
    stations = [
        {
            "number": s.number,
            "square": square_name(s.square),
            "side": SIDE_NAMES[SIDES[s.side]],
            "departure": s.departure,
            "arrival": s.arrival,
        }
        for s in data.stations
    ]
    central_stations = [
        {"square": square_name(sq), "side": SIDE_NAMES[SIDES[side]]}
        for sq, side in data.central_faces
    ]
    allocations = {
        str(n): [list(seat) for seat in seats] for n, seats in sorted(data.allocations.items())
    }
    return {
        "game": "metro",
        "title": METRO_TITLE,
        "grid": {"columns": 8, "rows": 8},
        "squares": squares,
        "tiles": tiles,
        "endpoints": ENDPOINTS,
        "stations": stations,
        "central_stations": central_stations,
        "allocations": allocations,
        "unused": {str(n): list(v) for n, v in sorted(data.unused.items())},
        "colours": list(data.seat_colours),
    }


@cache
def board(game: str) -> dict[str, Any] | None:
    """``GET /api/games/{game}/board``: the drawing data of ``game`` (shapes in
    ``docs/web-api.md``, "Boards"), or ``None`` for an unknown game name."""
    if game == "metro":
        return _metro_board()
    if game in CITY_FILES:
        return _next_station_board(load_city(game))
    return None
