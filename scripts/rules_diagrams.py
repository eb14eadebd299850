"""The rules pages' diagrams, drawn from the games' own data (never from hand-placed coordinates).

Each diagram is a small SVG made from the package's city map (``metrogames/data/london.json``
through :func:`metrogames.games.nextstation.citymap.load_city`): stations where the data put
them, the dotted links the data list, the Thames along the data's course, districts from the
data's district lists. An example is given by station names only (the line drawn, the section
tried) and is checked against the map while it is drawn: a "legal" section is a link to a
station of the card's symbol that crosses nothing drawn, an "illegal" one crosses a drawn
section, and the scored line's numbers come from the engine's own scoring. The diagrams carry
no words (captions are in each page's language), only cell names like ``D3``.

Metro's diagrams are drawn by ``scripts/metro_diagrams.py`` from the tile data.
``scripts/build_rules.py`` writes them into ``docs/diagrams/`` (the docs site) and the web
table's ``static/rules/diagrams/``; ``tests/web/test_rules_diagrams.py`` checks them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from math import cos, pi, sin
from xml.sax.saxutils import escape

import metro_diagrams

from metrogames.core.geometry import segments_cross
from metrogames.games.nextstation.citymap import CityMap, load_city
from metrogames.games.nextstation.scoring import LineScore, score_line

CELL = 40
"""Pixels between two neighbouring cells."""
TOP = 12
"""Pixels above the first row (room for the district badges on the top edge)."""
PENCILS = {
    "blue": "#1f6fd1",
    "pink": "#d63384",
    "purple": "#7b3fb3",
    "green": "#2e9e4f",
    "orange": "#e8801a",
}
"""Each pencil colour's ink."""
GOOD, BAD = "#2e9e4f", "#c62828"


@dataclass(frozen=True)
class Line:
    """A line drawn on the map: its pencil ``colour`` and its stations in drawing order."""

    colour: str
    stations: tuple[str, ...]

    def sections(self) -> list[tuple[str, str]]:
        return list(pairwise(self.stations))


@dataclass(frozen=True)
class Example:
    """One picture: the map's window (``cols``/``rows`` inclusive, 0-based), the lines already
    drawn, the flipped card's symbol (or ``None``), the section tried (two station names) and
    whether the rules allow it."""

    name: str
    cols: tuple[int, int]
    rows: tuple[int, int]
    lines: tuple[Line, ...]
    card: str | None = None
    tried: tuple[str, str] | None = None
    legal: bool = True
    districts: bool = False


PURPLE = Line("purple", ("C6", "C5", "C4", "C1"))
GREEN = Line("green", ("D3", "D2"))
SCORED = Line("green", ("D2", "D3", "E4", "F4", "F5", "H7"))
LONDON = (
    Example("london-section-legal", (0, 5), (0, 6), (PURPLE, GREEN), "pentagon", ("D3", "C4")),
    Example(
        "london-section-illegal", (0, 5), (0, 6), (PURPLE, GREEN), "pentagon", ("D2", "B2"), False
    ),
    Example("london-line-score", (0, 9), (0, 9), (SCORED,), districts=True),
)
"""London's diagrams: a legal section (to a pentagon, making an interchange at C4), an
illegal one (it would cross the purple line), and a scored line with its districts."""


class DiagramError(ValueError):
    """An example that the map contradicts (a missing link, a wrong symbol, …)."""


def link(city: CityMap, a: str, b: str) -> int:
    try:
        return city.link_by_names(a, b)
    except Exception as exc:
        raise DiagramError(f"{a}-{b} is not a link of {city.city}") from exc


def crossing(city: CityMap, tried: tuple[str, str], lines: tuple[Line, ...]) -> list[str]:
    """The drawn sections that the section ``tried`` would cross (as ``"A-B"``)."""
    j = link(city, *tried)
    return [
        f"{a}-{b}"
        for line in lines
        for a, b in line.sections()
        if city.conflicts[j] >> link(city, a, b) & 1
    ]


def check(city: CityMap, ex: Example) -> None:
    """Raise :class:`DiagramError` unless ``ex`` is what it claims on ``city``'s map."""
    drawn = [link(city, a, b) for line in ex.lines for a, b in line.sections()]
    for j in drawn:
        if any(city.conflicts[j] >> k & 1 for k in drawn):
            raise DiagramError(f"{ex.name}: two drawn sections cross")
    if ex.tried is None:
        return
    target = city.stations[city.station(ex.tried[1])]
    fits = ex.card is None or target.symbol in (ex.card, "any")
    legal = fits and not crossing(city, ex.tried, ex.lines)
    if legal != ex.legal:
        raise DiagramError(
            f"{ex.name}: the section {ex.tried} is {'legal' if legal else 'illegal'}"
        )


def line_score(city: CityMap, line: Line) -> LineScore:
    """The engine's score of ``line`` drawn alone on ``city``'s map."""
    stations = sum(1 << city.station(s) for s in line.stations)
    sections = sum(1 << link(city, a, b) for a, b in line.sections())
    return score_line(city, stations, sections)


class Canvas:
    """An SVG picture of a window of ``city``'s map."""

    def __init__(self, city: CityMap, ex: Example) -> None:
        self.city, self.ex = city, ex
        self.parts: list[str] = []
        self.width = (ex.cols[1] - ex.cols[0] + 1) * CELL + (2 * CELL if ex.card else 0)
        self.height = (ex.rows[1] - ex.rows[0] + 1) * CELL + TOP

    def xy(self, col: float, row: float) -> tuple[float, float]:
        return ((col - self.ex.cols[0] + 0.5) * CELL, (row - self.ex.rows[0] + 0.5) * CELL + TOP)

    def inside(self, name: str) -> bool:
        s = self.city.stations[self.city.station(name)]
        ex = self.ex
        return ex.cols[0] <= s.col <= ex.cols[1] and ex.rows[0] <= s.row <= ex.rows[1]

    def segment(self, a: str, b: str, style: str) -> None:
        (x1, y1), (x2, y2) = (self.xy(*p) for p in self.city.segments[link(self.city, a, b)])
        self.parts.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" {style}/>')

    def svg(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
            f'width="{self.width}" height="{self.height}" font-family="sans-serif">'
        )
        return "\n".join([head, *self.parts, "</svg>", ""])


def symbol(x: float, y: float, shape: str, fill: str = "#333", r: float = 9) -> str:
    """A station's symbol centred on (x, y); ``any`` is London's "?" station."""
    if shape == "circle":
        return f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}"/>'
    if shape == "square":
        return f'<rect x="{x - r:g}" y="{y - r:g}" width="{2 * r:g}" height="{2 * r:g}" fill="{fill}"/>'
    if shape in ("triangle", "pentagon"):
        n = 3 if shape == "triangle" else 5
        pts = " ".join(
            f"{x + r * 1.15 * sin(2 * pi * k / n):.1f},{y - r * 1.15 * cos(2 * pi * k / n):.1f}"
            for k in range(n)
        )
        return f'<polygon points="{pts}" fill="{fill}"/>'
    return (
        f'<circle cx="{x:g}" cy="{y:g}" r="{r + 1:g}" fill="#fff" stroke="{fill}" stroke-width="2"/>'
        f'<text x="{x:g}" y="{y + 5:g}" font-size="14" font-weight="bold" text-anchor="middle" '
        f'fill="{fill}">?</text>'
    )


def draw(city: CityMap, ex: Example) -> str:
    """The SVG text of example ``ex`` on ``city``'s map (checked first: :func:`check`)."""
    check(city, ex)
    c = Canvas(city, ex)
    c.parts.append(f'<rect width="{c.width}" height="{c.height}" fill="#fbfaf5"/>')
    if ex.districts:
        draw_districts(c)
    if city.river_course:
        pts = " ".join("{:g},{:g}".format(*c.xy(x, y)) for x, y in city.river_course)
        c.parts.append(f'<polyline points="{pts}" fill="none" stroke="#9cc8ee" stroke-width="9"/>')
    for i, j in city.links:
        na, nb = city.stations[i].name, city.stations[j].name
        if c.inside(na) and c.inside(nb):
            c.segment(na, nb, 'stroke="#999" stroke-width="1.5" stroke-dasharray="2 4"')
    for line in ex.lines:
        for a, b in line.sections():
            c.segment(
                a, b, f'stroke="{PENCILS[line.colour]}" stroke-width="5" stroke-linecap="round"'
            )
    if ex.tried:
        draw_tried(c, ex.tried, ex.legal)
    draw_stations(c)
    if ex.card:
        draw_card(c, ex.card)
    return c.svg()


def draw_districts(c: Canvas) -> None:
    """Each district as the box around its stations' cells, and the line's station count in it."""
    city = c.city
    counted = {s for line in c.ex.lines for s in line.stations}
    for d in city.districts:
        cells = [city.stations[i] for i in range(len(city.stations)) if d.mask >> i & 1]
        left, top = c.xy(min(s.col for s in cells) - 0.45, min(s.row for s in cells) - 0.45)
        right, bottom = c.xy(max(s.col for s in cells) + 0.45, max(s.row for s in cells) + 0.45)
        n = sum(s.name in counted for s in cells)
        fill = "#fff3c4" if n else "none"
        c.parts.append(
            f'<rect x="{left:g}" y="{top:g}" width="{right - left:g}" height="{bottom - top:g}" '
            f'rx="6" fill="{fill}" stroke="#b9a77a" stroke-dasharray="6 3"/>'
        )
        if n:  # on the box's top edge, between two rows of stations
            x = (left + right) / 2
            c.parts.append(
                f'<circle cx="{x:g}" cy="{top:g}" r="9" fill="#8a6d1d"/>'
                f'<text x="{x:g}" y="{top + 4:g}" font-size="12" font-weight="bold" '
                f'text-anchor="middle" fill="#fff" class="district-count">{n}</text>'
            )


def draw_tried(c: Canvas, tried: tuple[str, str], legal: bool) -> None:
    colour = GOOD if legal else BAD
    c.segment(
        *tried, f'stroke="{colour}" stroke-width="5" stroke-dasharray="8 5" stroke-linecap="round"'
    )
    if legal:
        return
    city = c.city
    p1, p2 = city.segments[link(city, *tried)]
    for name in crossing(city, tried, c.ex.lines):
        q1, q2 = city.segments[link(city, *name.split("-"))]
        x, y = c.xy(*intersection(p1, p2, q1, q2))
        c.parts.append(
            f'<g class="crossing" stroke="{BAD}" stroke-width="3"><circle cx="{x:g}" cy="{y:g}" '
            f'r="8" fill="#fff"/><path d="M{x - 4:g} {y - 4:g}l8 8m0 -8l-8 8"/></g>'
        )


def intersection(
    p1: tuple[float, float],
    p2: tuple[float, float],
    q1: tuple[float, float],
    q2: tuple[float, float],
) -> tuple[float, float]:
    """Where segment p1–p2 meets segment q1–q2 (they cross: checked)."""
    if not segments_cross(p1, p2, q1, q2):
        raise DiagramError("the segments do not cross")
    dx1, dy1 = p2[0] - p1[0], p2[1] - p1[1]
    dx2, dy2 = q2[0] - q1[0], q2[1] - q1[1]
    t = ((q1[0] - p1[0]) * dy2 - (q1[1] - p1[1]) * dx2) / (dx1 * dy2 - dy1 * dx2)
    return (p1[0] + t * dx1, p1[1] + t * dy1)


def draw_stations(c: Canvas) -> None:
    city = c.city
    departures = {name: colour for colour, name in city.raw["departures"].items()}
    for s in city.stations:
        if not c.inside(s.name):
            continue
        x, y = c.xy(s.col, s.row)
        if s.name in departures:
            c.parts.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="14" fill="none" '
                f'stroke="{PENCILS[departures[s.name]]}" stroke-width="3"/>'
            )
        if s.tourist_site:
            c.parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="13" fill="#ffe08a"/>')
        c.parts.append(symbol(x, y, s.symbol))
        c.parts.append(
            f'<text x="{x - 17:g}" y="{y - 11:g}" font-size="9" fill="#666">{escape(s.name)}</text>'
        )


def draw_card(c: Canvas, face: str) -> None:
    x = c.width - CELL
    c.parts.append(
        f'<rect x="{x - 24:g}" y="{TOP + 10}" width="48" height="64" rx="6" fill="#fff" '
        f'stroke="#555" stroke-width="2"/>'
    )
    c.parts.append(symbol(x, TOP + 42, face, r=12))


def diagrams() -> dict[str, str]:
    """Every diagram's SVG text by file name (``london-section-legal.svg``, …)."""
    london = load_city("london")
    return {f"{ex.name}.svg": draw(london, ex) for ex in LONDON} | metro_diagrams.diagrams()
