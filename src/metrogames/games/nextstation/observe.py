"""What one seat's view of a Next Station game shows, for learning environments
(``GameType.observe``; the keys: ``docs/research.md``, "Observations").

Every index is a position in a list of the city's drawing data (``board_json``: ``colours``,
``stations``, ``links``, ``cards``, ``objectives``, ``powers``), which is the data files'
order. Source of the facts: ``docs/engine-rules-london.md`` ("A round", "Colour rotation")
and ``docs/engine-rules-paris.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrogames.core.protocol import JsonObject
from metrogames.games.nextstation.citymap import bits
from metrogames.games.nextstation.deal import ROUNDS
from metrogames.games.nextstation.index import card_positions

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState


def observe(view: NextStationState, seat: int) -> JsonObject:
    """``view``'s facts for ``seat`` (``view`` should be ``state.view(seat)``):

    ``{"round": 0–4 (4: over), "flipped": [card indices flipped this round, in order],
    "branch": bool (the flipped card is the branch), "objectives": [indices], "powers":
    [power index per colour] | None, "seats": [per seat, in seat order: {"power_used":
    bool, "colour": colour index of this round | None (over), "lines": [per colour: {"links":
    [link indices], "stations": [station indices], "ends": [station indices the line goes on
    from: its ends, or its departure station while the line of this round's colour is empty],
    "circled": station index | None}]}]}``.
    """
    del seat  # the view already shows only what its seat sees
    city = view.city
    deal = view.deal
    cards = card_positions(city.key)
    playing = view.round < ROUNDS
    seats = []
    for player, board in enumerate(view.maps):
        colour = view.colour(player) if playing else None
        lines = []
        for c, links in enumerate(board.sections):
            ends = bits(board.ends[c])
            if not links and c == colour:
                ends = [city.departures[c]]
            circled = board.circled[c]
            lines.append(
                {
                    "links": bits(links),
                    "stations": bits(board.stations[c]),
                    "ends": ends,
                    "circled": circled if circled >= 0 else None,
                }
            )
        seats.append({"power_used": view.power_used[player], "colour": colour, "lines": lines})
    return {
        "round": view.round,
        "flipped": [cards[card] for card in view.flipped],
        "branch": view.branch,
        "objectives": [city.objectives.index(o) for o in deal.objectives],
        "powers": None
        if deal.powers is None
        else [city.powers.index(p) for p in deal.powers],
        "seats": seats,
    }
