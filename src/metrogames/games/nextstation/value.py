"""Next Station's position features for a learned value: plain numbers describing one player's
map and the cards still to come, for the ``ValueFeatured`` capability
(:mod:`metrogames.core.capabilities`; ``docs/research.md``, "A learned position value").

Source: what scores, ``docs/engine-rules-london.md`` ("Scoring a line", "End of game") and
``docs/engine-rules-paris.md`` ("Scoring"): the line's districts and most stations in one
district, river crossings, interchanges, tourist sites and bridges; and what lets a line grow
("Drawing a section": a section leaves an end of the line — any station after a switch — for an
adjacent station of the card's symbol, without crossing a drawn section).

Every feature reads only what the player's view shows (their own map, the cards flipped this
round, the round): never a deck's order, so the features of a view and of any of its
determinizations are the same. The list of names and its version, :func:`feature_names` and
:data:`FEATURE_VERSION`, is part of a weights file's header: change a feature, bump the version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrogames.games.nextstation.citymap import ANY, SYMBOLS, CityMap, bits
from metrogames.games.nextstation.deal import ROUNDS
from metrogames.games.nextstation.objectives import lines_through
from metrogames.games.nextstation.scoring import score_line

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState

FEATURE_VERSION = "nextstation-value-1"
"""The version of :func:`feature_names`' list (what a weights file was trained on)."""

_COMPONENTS = ("lines", "tourist", "interchanges", "bridges", "total")


def feature_names(city: CityMap) -> tuple[str, ...]:
    """The names of :func:`features`' numbers for ``city``, in order (the deck's cards by id,
    so London and Paris differ)."""
    return (
        *(f"round_{r + 1}" for r in range(ROUNDS)),
        *(f"left_{card.id}" for card in city.deck),
        "ends_left",
        "awaiting_card",
        "branch",
        "line_stations",
        "line_districts",
        "line_max_in_district",
        "line_score",
        "line_ends",
        "line_river",
        "line_sites",
        *(f"reach_{symbol}" for symbol in (*SYMBOLS, ANY)),
        "reach_new_district",
        "reach_best_district",
        "open_links",
        "reach_two_steps",
        "free_links",
        "future_departure_links",
        "future_departures_taken",
        "stations_two_lines",
        "stations_three_lines",
        "stations_four_lines",
        *(f"score_{name}" for name in _COMPONENTS),
    )


def features(state: NextStationState, player: int) -> list[float]:
    """``player``'s features in ``state`` (a full state or ``player``'s view), in the order of
    :func:`feature_names`: the round (one-hot), the cards not yet flipped this round, the
    round-ending cards still needed, whether a card is due and a switch's effect, the current
    line (stations, districts, most in one district, its score as it stands, ends, river
    crossings, tourist sites), the stations it can reach next (by symbol, in a new district, in
    its best district), its open links and the stations two sections away, the map's free links,
    the later lines' departures (free links, stations already on a line), the interchanges and
    the score so far by component. All zeros but the scores once the game is over.

    Raises:
        ValueError: ``player`` is not a seat of the game.
    """
    if not 0 <= player < state.game.players:
        raise ValueError(f"player {player} is not a seat of this {state.game.name} game")
    city = state.city
    components = state.score_components(player)
    scores = [float(components.get(name, 0)) for name in _COMPONENTS]
    size = len(feature_names(city))
    if state.over:
        return [0.0] * (size - len(scores)) + scores
    board = state.maps[player]
    colour = state.colour(player)
    stations, sections, ends, blocked = board.line(colour)
    out: list[float] = [float(r == state.round) for r in range(ROUNDS)]
    flipped = set(state.flipped)
    out += [float(card.id not in flipped) for card in city.deck]
    out += [
        float(city.round_end_count - state.ends_flipped),
        float(state.awaiting_card),
        float(state.branch),
    ]
    counts = [(stations & m).bit_count() for m in city.district_masks]
    best = max(counts)
    line_score = score_line(city, stations, sections, board.circled[colour])
    out += [
        float(stations.bit_count()),
        float(len(counts) - counts.count(0)),
        float(best),
        float(line_score.score),
        float(ends.bit_count()),
        float(line_score.river),
        float((stations & city.tourist_mask).bit_count()),
    ]
    starts = ends if sections else 1 << city.departures[colour]
    reach, links = _frontier(city, starts, blocked, stations)
    out += [float((reach & city.symbol_mask[s]).bit_count()) for s in SYMBOLS]
    out.append(float(sum(1 for t in bits(reach) if city.stations[t].symbol == ANY)))
    district_of = [s.district for s in city.stations]
    out += [
        float(sum(1 for t in bits(reach) if counts[district_of[t]] == 0)),
        float(sum(1 for t in bits(reach) if best and counts[district_of[t]] == best)),
        float(links),
        float(_frontier(city, reach, blocked, stations | reach)[0].bit_count()),
        float(len(city.links) - blocked.bit_count()),
    ]
    later = [state.colour(player, r) for r in range(state.round + 1, ROUNDS)]
    on_lines = board.stations[0] | board.stations[1] | board.stations[2] | board.stations[3]
    departures = [city.departures[c] for c in later]
    out += [
        float(sum((city.link_mask_of_station[d] & ~blocked).bit_count() for d in departures)),
        float(sum((on_lines >> d) & 1 for d in departures)),
    ]
    two, three, four = lines_through(board)
    out += [float((two & ~three).bit_count()), float((three & ~four).bit_count())]
    out.append(float(four.bit_count()))
    return out + scores


def _frontier(city: CityMap, starts: int, blocked: int, line: int) -> tuple[int, int]:
    """The stations one section away from ``starts`` over links not ``blocked`` and not on the
    ``line`` (a stations mask), and the number of such links."""
    reach = 0
    links = 0
    for s in bits(starts):
        table = city.links_by_target[s]
        for tbit, (_, _, _, lbit) in table.items():
            if not blocked & lbit and not line & tbit:
                reach |= tbit
                links += 1
    return reach, links
