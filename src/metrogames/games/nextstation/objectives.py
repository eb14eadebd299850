"""Shared objectives: one predicate per objective id, over a player's whole map.

Sources: ``docs/engine-rules-london.md`` ("Advanced module 1") and
``docs/engine-rules-paris.md`` ("Shared objectives"). A city's data file lists which ids it
uses; a new city's objectives are added here as small predicates.
"""

from __future__ import annotations

from collections.abc import Callable

from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CityMap, bits


def lines_through(board: PlayerMap) -> tuple[int, int, int]:
    """Stations masks of stations on at least 2, at least 3 and all 4 lines."""
    a, b, c, d = board.stations
    two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
    three = (a & b & (c | d)) | ((a | b) & c & d)
    return two, three, a & b & c & d


def other_lines(board: PlayerMap, colour: int, stations: int) -> list[int]:
    """Per station (``stations`` of them), how many of the map's lines other than ``colour``
    pass through it."""
    counts = [0] * stations
    for c, mask in enumerate(board.stations):
        if c != colour:
            for t in bits(mask):
                counts[t] += 1
    return counts


def union(board: PlayerMap) -> int:
    """Stations on any line of the map."""
    out = 0
    for mask in board.stations:
        out |= mask
    return out


def _interchanges_8(city: CityMap, board: PlayerMap) -> bool:
    return lines_through(board)[0].bit_count() >= 8


def _all_districts(city: CityMap, board: PlayerMap) -> bool:
    on_map = union(board)
    return all(d.mask & on_map for d in city.districts)


def _all_tourist_sites(city: CityMap, board: PlayerMap) -> bool:
    return city.tourist_mask & ~union(board) == 0


def _central_district(city: CityMap, board: PlayerMap) -> bool:
    return city.central_mask & ~union(board) == 0


def _thames_6(city: CityMap, board: PlayerMap) -> bool:
    return (board.drawn & city.river_mask).bit_count() >= 6


def bridges_by_lines(city: CityMap, board: PlayerMap) -> list[int]:
    """Per overhead crossing (bridge) of ``city``, the number of distinct lines drawn on its
    two links (0, 1 or 2: each link is drawn at most once on a map)."""
    return [
        sum(1 for mask in board.sections if (mask >> a) & 1 or (mask >> b) & 1)
        for a, b in city.bridges
    ]


def _triple_interchanges_3(city: CityMap, board: PlayerMap) -> bool:
    return lines_through(board)[1].bit_count() >= 3


def _districts_7(city: CityMap, board: PlayerMap) -> bool:
    return any(sum(1 for d in city.districts if d.mask & line) >= 7 for line in board.stations)


def _double_bridges_2(city: CityMap, board: PlayerMap) -> bool:
    return sum(1 for n in bridges_by_lines(city, board) if n >= 2) >= 2


def _monuments_6(city: CityMap, board: PlayerMap) -> bool:
    return (union(board) & city.monument_mask).bit_count() >= 6


Predicate = Callable[[CityMap, PlayerMap], bool]

OBJECTIVES: dict[str, Predicate] = {
    "interchanges-8": _interchanges_8,
    "all-districts": _all_districts,
    "all-tourist-sites": _all_tourist_sites,
    "central-district": _central_district,
    "thames-6": _thames_6,
    "triple-interchanges-3": _triple_interchanges_3,
    "districts-7": _districts_7,
    "double-bridges-2": _double_bridges_2,
    "monuments-6": _monuments_6,
}


def objective_met(city: CityMap, objective: str, board: PlayerMap) -> bool:
    """Whether ``board`` meets ``objective`` (an id listed by ``city``).

    Raises:
        KeyError: an objective id with no predicate (a data file naming an unknown objective).
    """
    return OBJECTIVES[objective](city, board)
