"""Scoring a Next Station map: lines at the end of each round, the rest at the end of the game.

Source: ``docs/engine-rules-london.md`` ("Scoring a line", "End of game") and
``docs/engine-rules-paris.md`` ("Scoring"). What differs between cities is data: river points
per crossing, monument points, the tourist table, bridge points. All values are points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CityMap
from metrogames.games.nextstation.objectives import lines_through, objective_met
from metrogames.games.nextstation.shapes import SheetJson


class LineScore(NamedTuple):
    """One line's score: ``districts`` visited × ``max_in_district`` (a circled station counts
    twice) + river crossings × the city's points + monuments × the city's points. (A named
    tuple: every round scores each player's line, and it is the cheapest immutable record.)"""

    districts: int
    max_in_district: int
    river: int
    monuments: int
    circled: int
    score: int


EMPTY_LINE = LineScore(0, 0, 0, 0, -1, 0)


def score_line(city: CityMap, stations: int, sections: int, circled: int = -1) -> LineScore:
    """Score one line from its stations and sections masks (``circled``: station or -1).

    A line with no section is empty and scores 0 (rules: "Decision: a line on which no section
    was drawn is empty").
    """
    if not sections:
        return EMPTY_LINE
    districts = 0
    best = 0
    for mask in city.district_masks:
        n = (stations & mask).bit_count()
        if n:
            districts += 1
            best = max(best, n)
    if circled >= 0:  # the circled station counts twice in its district
        n = (stations & city.district_masks[city.stations[circled].district]).bit_count() + 1
        best = max(best, n)
    river = (sections & city.river_mask).bit_count()
    monuments = (stations & city.monument_mask).bit_count()
    score = districts * best + river * city.river_points + monuments * city.monument_points
    return LineScore(districts, best, river, monuments, circled, score)


def line_tourist_boxes(city: CityMap, stations: int, sections: int) -> int:
    """Tourist sites on one line (boxes it crosses off), 0 for an empty line."""
    return (stations & city.tourist_mask).bit_count() if sections else 0


@dataclass(frozen=True)
class Breakdown:
    """A player's whole score sheet: per-colour :class:`LineScore`, tourist boxes (capped at
    the table's end), interchange counts by number of lines, bridges by number of lines,
    objectives met, and the total in points."""

    lines: dict[str, LineScore]
    tourist_boxes: int
    tourist_points: int
    interchanges: dict[int, int]
    interchange_points: int
    bridges: dict[int, int]
    bridge_points: int
    objectives: dict[str, bool]
    objective_points: int
    total: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "total",
            sum(ls.score for ls in self.lines.values())
            + self.tourist_points
            + self.interchange_points
            + self.bridge_points
            + self.objective_points,
        )

    def best_line(self) -> int:
        """The highest single line score (the tie-break)."""
        return max((ls.score for ls in self.lines.values()), default=0)

    def to_json(self, city: CityMap) -> SheetJson:
        """The ``score --json`` shape of ``docs/notation.md``; keys a city lacks are absent
        (built key by key, in the order the breakdown prints them)."""
        lines: dict[str, Any] = {}
        for colour, ls in self.lines.items():
            entry: dict[str, Any] = {
                "districts": ls.districts,
                "max_in_district": ls.max_in_district,
            }
            if city.river_mask:
                entry["thames" if city.river_name == "Thames" else "river"] = ls.river
            if city.monument_mask:
                entry["monuments"] = ls.monuments
            if ls.circled >= 0:
                entry["circled"] = city.stations[ls.circled].name
            entry["score"] = ls.score
            lines[colour] = entry
        out: dict[str, Any] = {"lines": lines}
        if city.tourist_points:
            out["tourist"] = {"boxes": self.tourist_boxes, "points": self.tourist_points}
        out["interchanges"] = {
            **{str(k): self.interchanges.get(k, 0) for k in sorted(city.interchange_points)},
            "points": self.interchange_points,
        }
        if city.bridges:
            out["bridges"] = {
                "single": self.bridges.get(1, 0),
                "double": self.bridges.get(2, 0),
                "points": self.bridge_points,
            }
        out["objectives"] = {**self.objectives, "points": self.objective_points}
        out["total"] = self.total
        return cast(SheetJson, out)


def breakdown(
    city: CityMap,
    board: PlayerMap,
    line_scores: list[LineScore],
    tourist_boxes: int,
    objectives: tuple[str, ...],
) -> Breakdown:
    """The full sheet of ``board`` given its scored lines and tourist boxes so far.

    ``line_scores`` holds one entry per colour index (:data:`EMPTY_LINE` for lines not yet
    scored); interchanges, bridges and objectives are read off the map as it is.
    """
    two, three, four = lines_through(board)
    interchanges = {
        2: (two & ~three).bit_count(),
        3: (three & ~four).bit_count(),
        4: four.bit_count(),
    }
    interchange_points = sum(city.interchange_points.get(k, 0) * n for k, n in interchanges.items())
    bridges: dict[int, int] = {}
    for a, b in city.bridges:
        used = sum(1 for mask in board.sections if (mask >> a) & 1 or (mask >> b) & 1)
        if used:
            bridges[min(used, 2)] = bridges.get(min(used, 2), 0) + 1
    bridge_points = sum(city.bridge_points.get(k, 0) * n for k, n in bridges.items())
    boxes = min(tourist_boxes, len(city.tourist_points) - 1) if city.tourist_points else 0
    met = {o: objective_met(city, o, board) for o in objectives}
    return Breakdown(
        lines={city.colours[c]: line_scores[c] for c in range(len(city.colours))},
        tourist_boxes=boxes,
        tourist_points=city.tourist_points[boxes] if city.tourist_points else 0,
        interchanges=interchanges,
        interchange_points=interchange_points,
        bridges=bridges,
        bridge_points=bridge_points,
        objectives=met,
        objective_points=city.objective_points * sum(met.values()),
    )


def sheet_total(
    city: CityMap,
    board: PlayerMap,
    line_scores: list[LineScore],
    tourist_boxes: int,
    objectives: tuple[str, ...],
) -> int:
    """The total in points of :func:`breakdown` with the same arguments, without building the
    sheet (bots score positions by the thousand: ``NextStationState.scores``, the greedy
    rule's gains)."""
    total = 0
    for ls in line_scores:
        total += ls.score
    two, three, four = lines_through(board)
    points = city.interchange_points
    total += (
        points.get(2, 0) * (two & ~three).bit_count()
        + points.get(3, 0) * (three & ~four).bit_count()
        + points.get(4, 0) * four.bit_count()
    )
    if city.bridges:
        sections = board.sections
        for a, b in city.bridges:
            pair = (1 << a) | (1 << b)
            used = sum(1 for mask in sections if mask & pair)
            if used:
                total += city.bridge_points.get(min(used, 2), 0)
    if city.tourist_points:
        total += city.tourist_points[min(tourist_boxes, len(city.tourist_points) - 1)]
    if objectives:
        met = sum(1 for o in objectives if objective_met(city, o, board))
        total += city.objective_points * met
    return total


def solo_rating(city: CityMap, total: int, modules: int) -> tuple[int, int, str, str] | None:
    """The printed solo rating (docs/engine-rules-london.md, "Solo rating") of a ``total``
    (points) with ``modules`` advanced modules in play (0-2; 10 points off each).

    Returns:
        ``(adjusted score, band 1-6, range text, phrase)``, or ``None`` when the city has no
        table (Paris). The phrase is the top band's only (the rulebook's others are unknown).
    """
    table = city.solo_rating
    if not table:
        return None
    adjusted = total - int(table.get("module_penalty", 0)) * modules
    bands = table["bands"]
    for k, (band, lo, hi) in enumerate(bands):
        if (lo is None or adjusted >= lo) and (hi is None or adjusted <= hi):
            if lo is None:
                span = f"{hi} or less"
            elif hi is None:
                span = f"{lo} or more"
            else:
                span = f"{lo}–{hi}"
            phrase = str(table.get("top_phrase", "")) if k == len(bands) - 1 else ""
            return adjusted, int(band), span, phrase
    return None


def band_limits(city: CityMap, band: int) -> tuple[int | None, int | None]:
    """The lowest and highest adjusted score (points) of the solo rating's ``band``; ``None``
    for an open end (band 1 has no lowest, the top band no highest).

    Raises:
        KeyError: the city has no such band.
    """
    for number, lo, hi in (city.solo_rating or {}).get("bands", ()):
        if number == band:
            return lo, hi
    raise KeyError(f"no solo rating band {band} in {city.city}")


def percentile(city: CityMap, total: int) -> float | None:
    """Where a solo ``total`` (points) stands among the city's reference games (the greedy
    bot's solo scores stored with the map): the percentage of games scoring less, counting
    equal scores half (0-100). ``None`` when the city has no reference.

    Source: docs/engine-rules-paris.md ("show the player's percentile instead").
    """
    games = sum(city.reference_scores.values())
    if not games:
        return None
    below = sum(n for s, n in city.reference_scores.items() if s < total)
    equal = city.reference_scores.get(total, 0)
    return 100.0 * (below + equal / 2) / games
