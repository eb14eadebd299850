"""A cheap upper bound of a player's final score on a known deal, by scoring component.

Source: ``docs/engine-rules-london.md`` ("A round", "Scoring a line", "End of game", "Advanced
module 2") and ``docs/engine-rules-paris.md`` ("Cards", "Scoring"). It relaxes every rule but
the count of sections: a round's line has at most one section per turn (two for a free-entry
card, one more with the double-section power), so at most that plus one stations; each
component is then bounded on its own, as if the lines could be drawn anywhere. It holds for
every game of the deal, whatever the player does — and it is loose (the components compete for
the same few stations).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from metrogames.games.nextstation.citymap import CityMap
from metrogames.games.nextstation.deal import ROUNDS, colour_for

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState

DOUBLE_SECTION = "double-section"
CIRCLE_STATION = "circle-station"
FREE_ENTRY = "free-entry"
SWITCH = "switch"


def round_sections(city: CityMap, deck: tuple[str, ...], double: bool) -> int:
    """The most sections a line can get in a round of ``deck`` (flip order)."""
    sections = 0
    ends = 0
    for card_id in deck:
        card = city.card_by_id[card_id]
        if card.face == SWITCH:
            continue
        sections += 2 if card.face == FREE_ENTRY else 1
        ends += card.ends_round
        if ends >= city.round_end_count:
            break
    return sections + (1 if double and sections else 0)


def line_bound(city: CityMap, sections: int, circle: bool) -> int:
    """The most a line of ``sections`` sections can score: districts × the most stations in
    one (``d - 1 + m <= stations``; +1 with a circled station), river crossings and
    monuments counted as if every section and station had them."""
    if not sections:
        return 0
    stations = sections + 1
    largest = max(mask.bit_count() for mask in city.district_masks)
    route = max(
        d * (min(stations - d + 1, largest) + (1 if circle else 0))
        for d in range(1, min(stations, len(city.district_masks)) + 1)
    )
    river = min(sections, city.river_mask.bit_count()) * city.river_points
    monuments = min(stations, city.monument_mask.bit_count()) * city.monument_points
    return route + river + monuments


@cache
def _interchanges(points: tuple[tuple[int, int], ...], incidences: int, cap_top: int) -> int:
    """The most interchange points with ``incidences`` line-stations in all (a station on
    ``k`` lines uses ``k``), at most ``cap_top`` stations on every line (unbounded knapsack)."""
    top = max(k for k, _ in points)
    others = [(k, v) for k, v in points if k != top]
    value_top = dict(points)[top]
    best = [0] * (incidences + 1)
    for i in range(1, incidences + 1):
        best[i] = max([best[i - 1], *(best[i - k] + v for k, v in others if k <= i)])
    return max(
        n * value_top + best[incidences - n * top]
        for n in range(min(cap_top, incidences // top) + 1)
    )


def score_bound(state: NextStationState, player: int) -> dict[str, int] | None:
    """Upper bounds of ``player``'s final score on ``state``'s deal: ``lines`` (the four
    line scores), ``tourist``, ``interchanges``, ``bridges``, ``objectives`` and ``total``,
    in points; ``None`` when the decks are not known."""
    city = state.city
    deal = state.deal
    if any(deck is None for deck in deal.decks):
        return None
    lines = 0
    stations: list[int] = []
    for r in range(ROUNDS):
        deck = deal.decks[r]
        assert deck is not None
        colour = colour_for(deal, state.num_players, player, r)
        power = deal.powers[colour] if deal.powers is not None else None
        sections = round_sections(city, deck, power == DOUBLE_SECTION)
        lines += line_bound(city, sections, power == CIRCLE_STATION)
        stations.append(sections + 1 if sections else 0)
    tourist, interchanges, bridges = _station_bounds(city, stations)
    objectives = city.objective_points * len(deal.objectives)
    total = lines + tourist + interchanges + bridges + objectives
    return {
        "lines": lines,
        "tourist": tourist,
        "interchanges": interchanges,
        "bridges": bridges,
        "objectives": objectives,
        "total": total,
    }


def score_ceiling(city: CityMap) -> int:
    """An upper bound of any player's final score in any game of ``city`` (any options,
    deal and player count), in points: :func:`score_bound`'s relaxation with every card of
    the deck flipped in each round, the double-section and circle-station powers on every
    line and the two objectives met."""
    sections = 1 + sum(
        0 if card.face == SWITCH else 2 if card.face == FREE_ENTRY else 1 for card in city.deck
    )
    stations = [sections + 1] * ROUNDS
    lines = ROUNDS * line_bound(city, sections, True)
    tourist, interchanges, bridges = _station_bounds(city, stations)
    return lines + tourist + interchanges + bridges + 2 * city.objective_points


def _station_bounds(city: CityMap, stations: list[int]) -> tuple[int, int, int]:
    """Bounds of the tourist-site, interchange and Thames-crossing points (in that order) of
    a sheet whose rounds reach at most ``stations[r]`` stations each."""
    sites = city.tourist_mask.bit_count()
    boxes = sum(min(n, sites) for n in stations)
    tourist = city.tourist_points[min(boxes, len(city.tourist_points) - 1)] if sites else 0
    points = tuple(sorted(city.interchange_points.items()))
    interchanges = _interchanges(points, sum(stations), min(stations)) if points else 0
    bridges = len(city.bridges) * max(city.bridge_points.values(), default=0)
    return tourist, interchanges, bridges
