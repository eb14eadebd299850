"""Score sheets: a player's map copied off paper, checked and scored.

Format and checks: ``docs/notation.md``, "Score sheet" and "What ``score`` checks". A sheet has
no cards, so only the drawing is checked (links, starts, no revisits, no doubled sections, no
forbidden crossings, one circle per line on that line), not whether a deal could produce it.
"""

from __future__ import annotations

from typing import Any

from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CITY_FILES, CityMap, bits, load_city
from metrogames.games.nextstation.scoring import (
    Breakdown,
    breakdown,
    line_tourist_boxes,
    score_line,
)
from metrogames.games.nextstation.words import term
from metrogames.i18n import N_, msg

SHEET_KEYS = {"game", "lines", "circled", "objectives"}
MAX_SECTIONS = 60
"""More sections than any line can hold (a line visits each of ≤53 stations once)."""


def parse_sheet(
    data: Any,
) -> tuple[CityMap, dict[int, list[tuple[int, int]]], dict[int, int], tuple[str, ...]]:
    """Validate a sheet's structure and names.

    Returns:
        ``(city, lines, circled, objectives)``: sections per colour index as station-index
        pairs, circled station per colour index, objective ids.

    Raises:
        RecordError: not an object, unknown keys, wrong types, too many sections.
        NotationError: an unknown game, colour, station or objective.
    """
    if not isinstance(data, dict):
        raise RecordError("a score sheet must be a JSON object")
    unknown = set(data) - SHEET_KEYS
    if unknown:
        keys = ", ".join(sorted(f"{k!s:.40}" for k in unknown))
        raise RecordError(f"unknown key(s) in sheet: {keys}")
    game = data.get("game")
    if not isinstance(game, str) or game not in CITY_FILES:  # a list or object is unhashable
        raise NotationError(f"unknown game {game!r:.40} (expected one of {', '.join(CITY_FILES)})")
    city = load_city(game)
    lines = _read_lines(city, data.get("lines", {}))
    circled = _read_circled(city, data.get("circled", {}))
    objectives = _read_objectives(city, data.get("objectives", []))
    return city, lines, circled, objectives


def _read_lines(city: CityMap, raw_lines: object) -> dict[int, list[tuple[int, int]]]:
    """The ``lines`` object: colour -> ``[from, to]`` sections, as station-index pairs."""
    if not isinstance(raw_lines, dict):
        raise RecordError("lines must be an object: colour → list of sections")
    lines: dict[int, list[tuple[int, int]]] = {}
    for colour, sections in raw_lines.items():
        c = _colour(city, colour)
        if not isinstance(sections, list) or len(sections) > MAX_SECTIONS:
            raise RecordError(f"{colour} line: a list of at most {MAX_SECTIONS} sections expected")
        pairs = []
        for pair in sections:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise RecordError(
                    f"{colour} line: a section is a [from, to] pair, not {pair!r:.40}"
                )
            pairs.append((_station(city, pair[0]), _station(city, pair[1])))
        lines[c] = pairs
    return lines


def _read_circled(city: CityMap, raw_circled: object) -> dict[int, int]:
    """The ``circled`` object: colour -> station (cities with the circle-station power)."""
    if not isinstance(raw_circled, dict):
        raise RecordError("circled must be an object: colour → station")
    if raw_circled and "circle-station" not in city.powers:
        raise RecordError(f"{city.title} has no circled stations")
    circled: dict[int, int] = {}
    for colour, station in raw_circled.items():
        if not isinstance(station, str):
            raise RecordError(
                f"circled: one station per line, not {station!r:.40} on {colour!s:.40}"
            )
        circled[_colour(city, colour)] = _station(city, station)
    return circled


def _read_objectives(city: CityMap, raw_obj: object) -> tuple[str, ...]:
    """The ``objectives`` list: at most 2 distinct ids of ``city``."""
    if (
        not isinstance(raw_obj, list)
        or len(raw_obj) > 2
        or len(set(map(str, raw_obj))) != len(raw_obj)
    ):
        raise RecordError("objectives must be a list of at most 2 distinct ids")
    for o in raw_obj:
        if o not in city.objectives:
            raise NotationError(
                f"unknown objective {o!r:.40} (expected one of {', '.join(city.objectives)})"
            )
    return tuple(raw_obj)


def _colour(city: CityMap, colour: Any) -> int:
    """``city.colour_index(colour)``, the name cut short in the error (input may be huge)."""
    if not isinstance(colour, str) or len(colour) > 16:
        raise NotationError(
            f"unknown colour {colour!r:.40} (expected one of {', '.join(city.colours)})"
        )
    return city.colour_index(colour)


def _station(city: CityMap, name: Any) -> int:
    """``city.station(name)``, the name cut short in the error (input may be huge)."""
    if not isinstance(name, str) or len(name) > 16:
        raise NotationError(f"unknown station {name!r:.40} on the {city.title} map")
    return city.station(name)


def draw_sheet(
    city: CityMap, lines: dict[int, list[tuple[int, int]]], circled: dict[int, int]
) -> PlayerMap:
    """Draw the lines on an empty map, checking every section, and place the circles.

    Raises:
        IllegalActionError: the first bad section or circle; the detail names the line.
    """
    board = PlayerMap(len(city.colours))
    for c in range(len(city.colours)):
        for k, (s, t) in enumerate(lines.get(c, []), 1):
            starts = board.stations[c] if board.sections[c] else 1 << city.departures[c]
            try:
                link = board.check_section(city, c, s, t, starts, city.all_stations_mask)
            except IllegalActionError as exc:
                raise IllegalActionError.of(
                    exc.reason,
                    msg(
                        N_("{colour} line, section {k}: {detail}"),
                        colour=term(city.colours[c]),
                        k=k,
                        detail=exc.detail_message(),
                    ),
                    item={"colour": city.colours[c], "section": k},
                ) from None
            board.add_section(city, c, s, t, link)
    for c, station in circled.items():
        if not (board.stations[c] >> station) & 1:
            raise IllegalActionError.of(
                "circle-not-on-line",
                msg(
                    N_("{colour} line: circled station {station} is not on it"),
                    colour=term(city.colours[c]),
                    station=city.stations[station].name,
                ),
                item={"colour": city.colours[c], "station": city.stations[station].name},
            )
        board.circled[c] = station
    return board


def score_sheet(data: Any) -> tuple[CityMap, Breakdown]:
    """Check and score a score sheet (decoded JSON).

    Returns:
        ``(city, breakdown)``; ``breakdown.to_json(city)`` is the ``score --json`` shape.

    Raises:
        RecordError, NotationError: structure or names (see :func:`parse_sheet`).
        IllegalActionError: an illegal drawing (see :func:`draw_sheet`).
    """
    city, lines, circled, objectives = parse_sheet(data)
    board = draw_sheet(city, lines, circled)
    scores = [
        score_line(city, board.stations[c], board.sections[c], board.circled[c])
        for c in range(len(city.colours))
    ]
    boxes = sum(
        line_tourist_boxes(city, board.stations[c], board.sections[c])
        for c in range(len(city.colours))
    )
    return city, breakdown(city, board, scores, boxes, objectives)


def sheet_of(city: CityMap, board: PlayerMap, objectives: tuple[str, ...] = ()) -> dict[str, Any]:
    """The score sheet of a drawn map (sections in an order that redraws it: from each line's
    departure outward)."""
    names = [s.name for s in city.stations]
    lines: dict[str, list[list[str]]] = {}
    for c, colour in enumerate(city.colours):
        sections = board.sections[c]
        order: list[list[str]] = []
        if sections:
            reached = 1 << city.departures[c]
            remaining = sections
            while remaining:
                for link in bits(remaining):
                    a, b = city.links[link]
                    if (reached >> a) & 1 or (reached >> b) & 1:
                        s, t = (a, b) if (reached >> a) & 1 else (b, a)
                        order.append([names[s], names[t]])
                        reached |= (1 << a) | (1 << b)
                        remaining &= ~(1 << link)
        lines[colour] = order
    out: dict[str, Any] = {"game": city.city, "lines": lines}
    circled = {city.colours[c]: names[s] for c, s in enumerate(board.circled) if s >= 0}
    if circled:
        out["circled"] = circled
    if objectives:
        out["objectives"] = list(objectives)
    return out
