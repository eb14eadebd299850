"""The rules pages' diagrams, drawn from the games' own data (never from hand-placed coordinates).

Each diagram is a small SVG made from the package's city map (``metrogames/data/london.json``
or ``paris.json`` through :func:`metrogames.games.nextstation.citymap.load_city`): stations
where the data put them (Paris's central platform over its four cells, its monuments as
diamonds), the dotted links the data list, the Thames along the data's course, Paris's
overhead crossings where the data put them, districts from the data's district lists. An
example is given by station names only (the line drawn, the section tried, Paris's extra
section after a free entry) and is checked against the map while it is drawn: a "legal"
section leaves an end of a drawn line (or a departure station), reaches a station of the
card's symbol not yet on that line and crosses nothing drawn (an overhead crossing excepted:
the map's conflict masks leave bridges out), an "illegal" one breaks one of these, and the
scored line's numbers come from the engine's own scoring. The diagrams carry
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

    def ends(self) -> tuple[str, str]:
        return self.stations[0], self.stations[-1]


@dataclass(frozen=True)
class Example:
    """One picture: the map's window (``cols``/``rows`` inclusive, counted from 0), the lines
    already drawn, the flipped card's face (a symbol, ``free-entry`` or ``None``), the section
    tried (two station names), whether the rules allow it, and the extra section it earns."""

    name: str
    cols: tuple[int, int]
    rows: tuple[int, int]
    lines: tuple[Line, ...]
    card: str | None = None
    tried: tuple[str, str] | None = None
    legal: bool = True
    districts: bool = False
    extra: tuple[str, str] | None = None
    """Paris's extra section after a free entry ended on a monument (from that monument)."""


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
ORANGE = Line("orange", ("D3", "C4", "B3", "B2"))
BLUE = Line("blue", ("H4", "F2", "E2", "B2"))
PARIS_SCORED = Line("orange", ("D3", "C4", "B4", "A5", "A6", "D6", "E5"))
PARIS = (
    Example("paris-section-legal", (0, 5), (0, 6), (ORANGE,), "square", ("D3", "D4")),
    Example("paris-section-illegal", (0, 5), (0, 6), (ORANGE,), "square", ("B2", "D4"), False),
    Example("paris-bridge", (0, 7), (0, 3), (BLUE,), "triangle", ("D3", "D1")),
    Example(
        "paris-free-entry",
        (0, 5),
        (0, 6),
        (Line("orange", ("D3", "C4")),),
        "free-entry",
        ("C4", "B4"),
        extra=("B4", "D6"),
    ),
    Example("paris-line-score", (0, 9), (0, 9), (PARIS_SCORED,), districts=True),
)
"""Paris's diagrams: a legal section (to a square, from the line's other end), an illegal
one (it would cross the orange line's D3–C4), the orange pencil's first section over the
blue line at an overhead crossing (allowed), a free entry to the monument B4 and its extra
section, and a scored line through three districts with two monuments and the platform."""


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
    legal = allowed(city, ex.tried, ex.card, ex.lines)
    if legal != ex.legal:
        raise DiagramError(
            f"{ex.name}: the section {ex.tried} is {'legal' if legal else 'illegal'}"
        )
    if ex.extra is None:
        return
    if not (
        ex.card == "free-entry"
        and ex.extra[0] == ex.tried[1]
        and city.stations[city.station(ex.tried[1])].monument
    ):
        raise DiagramError(f"{ex.name}: no extra section without a free entry to a monument")
    line = next(ln for ln in ex.lines if ex.tried[0] in ln.ends())
    onward = line.stations if ex.tried[0] == line.stations[-1] else line.stations[::-1]
    grown = Line(line.colour, (*onward, ex.tried[1]))
    others = tuple(ln for ln in ex.lines if ln is not line)
    if not allowed(city, ex.extra, "free-entry", (*others, grown)):
        raise DiagramError(f"{ex.name}: the extra section {ex.extra} is illegal")


def allowed(
    city: CityMap, tried: tuple[str, str], card: str | None, lines: tuple[Line, ...]
) -> bool:
    """Whether ``tried`` may be drawn on the flipped ``card`` (``None``: any symbol) over the
    drawn ``lines``: from an end of one of them (or from a departure station, a line's first
    section), to a station of the card's symbol (every card reaches a station of symbol
    ``any``; a free entry reaches every station) not yet on that line, crossing no drawn
    section (rules: London's "Drawing a section", Paris's "Cards" and "Drawing")."""
    start, end = tried
    line = next((ln for ln in lines if start in ln.ends()), None)
    departures = set(city.raw["departures"].values())
    if line is None and start not in departures:
        return False
    target = city.stations[city.station(end)]
    fits = card in (None, "free-entry") or target.symbol in (card, "any")
    return fits and end not in (line.stations if line else ()) and not crossing(city, tried, lines)


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
    """A station's symbol (or a card's face) centred on (x, y); ``any`` is London's "?"
    station, ``monument`` a Paris monument, ``free-entry`` Paris's free-entry card."""
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
    if shape in ("monument", "free-entry"):  # Paris: a diamond with "?" (on a card: a dot)
        d = r * 1.3
        mark = (
            f'<circle cx="{x:g}" cy="{y:g}" r="{r * 0.35:g}" fill="#fff"/>'
            if shape == "free-entry"
            else f'<text x="{x:g}" y="{y + 4:g}" font-size="11" font-weight="bold" '
            f'text-anchor="middle" fill="{fill}">?</text>'
        )
        body = fill if shape == "free-entry" else "#fff1c9"
        return (
            f'<polygon points="{x:g},{y - d:g} {x + d:g},{y:g} {x:g},{y + d:g} {x - d:g},{y:g}" '
            f'fill="{body}" stroke="{fill}" stroke-width="2"/>{mark}'
        )
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
    if ex.extra:
        draw_tried(c, ex.extra, True)
    draw_bridges(c)
    draw_stations(c)
    if ex.card:
        draw_card(c, ex.card)
    return c.svg()


def draw_districts(c: Canvas) -> None:
    """Each district as the box around its stations' cells, and the line's station count in it."""
    city = c.city
    counted = {city.station(s) for line in c.ex.lines for s in line.stations}
    for d in city.districts:
        members = [i for i in range(len(city.stations)) if d.mask >> i & 1]
        cells = [p for i in members for p in city.station_cells[i]]
        left, top = c.xy(min(x for x, _ in cells) - 0.45, min(y for _, y in cells) - 0.45)
        right, bottom = c.xy(max(x for x, _ in cells) + 0.45, max(y for _, y in cells) + 0.45)
        n = sum(i in counted for i in members)
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


def draw_bridges(c: Canvas) -> None:
    """Each overhead crossing in the window: a small bridge where its two links cross."""
    for b in c.city.raw.get("bridges", ()):
        col, row = b["at"]
        if c.ex.cols[0] <= col <= c.ex.cols[1] and c.ex.rows[0] <= row <= c.ex.rows[1]:
            x, y = c.xy(col, row)
            c.parts.append(
                f'<g class="bridge" transform="translate({x:g} {y:g})" fill="#fff" '
                f'stroke="#1b5a8e" stroke-width="2"><rect x="-7" y="-7" width="14" height="14" '
                f'rx="3" transform="rotate(45)"/><path d="M-5 3 Q0 -5 5 3" fill="none"/></g>'
            )


def draw_stations(c: Canvas) -> None:
    city = c.city
    departures = {name: colour for colour, name in city.raw["departures"].items()}
    for s in city.stations:
        if not c.inside(s.name):
            continue
        x, y = c.xy(s.col, s.row)
        platform = len(city.station_cells[s.index]) > 1
        if s.name in departures:
            c.parts.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="14" fill="none" '
                f'stroke="{PENCILS[departures[s.name]]}" stroke-width="3"/>'
            )
        if s.tourist_site:
            c.parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="13" fill="#ffe08a"/>')
        if platform:  # Paris's central platform: one big station over its cells
            c.parts.append(
                f'<rect x="{x - 0.78 * CELL:g}" y="{y - 0.78 * CELL:g}" width="{1.56 * CELL:g}" '
                f'height="{1.56 * CELL:g}" rx="8" fill="#fff" stroke="#333" stroke-width="3"/>'
                f'<text x="{x:g}" y="{y + 8:g}" font-size="24" font-weight="bold" '
                f'text-anchor="middle" fill="#333">?</text>'
            )
        elif s.monument:
            c.parts.append(symbol(x, y, "monument"))
        else:
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
    london, paris = load_city("london"), load_city("paris")
    return (
        {f"{ex.name}.svg": draw(london, ex) for ex in LONDON}
        | {f"{ex.name}.svg": draw(paris, ex) for ex in PARIS}
        | metro_diagrams.diagrams()
    )
