"""Rich pictures of Next Station: a player's map, the table beside it (cards, line, power,
objectives) and the score sheets, for any city
:func:`~metrogames.games.nextstation.citymap.load_city` loads.

Part of :mod:`metrogames.cli.render`, the one place in ``cli/`` that may know a game's
internals: it reads the engine's :class:`NextStationState` and city data directly.

The map is drawn on a character canvas from the city's data alone: each grid cell is
:data:`CELL_W` characters wide and :data:`ROW_H` rows high; a station is a 5-character label
(marker, symbol glyph, up to 3 letters of the lines through it); the links still free to draw
are grey dots, drawn sections are box-drawing strokes in their line's colour, districts are
shaded backgrounds and the river follows ``city.river_course``. Shape and letters carry every
fact the colours carry, so the map also reads without colour (``color_system=None``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from metrogames.cli.lang import _, ntr, tr
from metrogames.cli.render.canvas import Canvas, Fitted, colour_hex
from metrogames.games.nextstation.actions import TurnAction, format_action
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import ANY, Card, CityMap, bits
from metrogames.games.nextstation.scoring import LineScore
from metrogames.games.nextstation.shapes import SheetJson
from metrogames.games.nextstation.state import NextStationState
from metrogames.i18n import N_

CELL_W = 8
"""Canvas columns per grid column."""
ROW_H = 2
"""Canvas rows per grid row (one station row, one row of connectors)."""
MARGIN = 3
"""Columns left of the grid for the row numbers."""

GLYPHS: dict[str, tuple[str, str]] = {
    "square": ("■", "□"),
    "circle": ("●", "○"),
    "triangle": ("▲", "△"),
    "pentagon": ("⬟", "⬠"),
    ANY: ("?", "?"),
}
"""Per symbol: the glyph of a station on a line (filled) and of a free one (hollow)."""

FACE_GLYPHS: dict[str, str] = {
    "square": "■",
    "circle": "●",
    "triangle": "▲",
    "pentagon": "⬟",
    "joker": "✱",
    "switch": "⇄",
    "free-entry": "◆",
}

TOURIST_MARK = "★"
MONUMENT_MARK = "◆"
RIVER_CHAR = "≈"
DOT = "·"
BRIDGE_MARK = "╳"

_BG = ("#1d2b22", "#33291c", "#252a40")
"""District shades: dark green, brown and blue, far enough apart to show the districts'
borders (adjacent districts get different ones)."""
_RIVER_BG = "#17406b"
_FG = "#c8ccd4"
_DIM = "#6b7280"
_TARGET = Style(color="black", bgcolor="#ffd23f", bold=True)
_STROKES = {"h": "─", "v": "│", "d": "╲", "u": "╱"}


MOVES_HELP: tuple[tuple[str, str], ...] = (
    ("D3-G3", N_("one section from D3 (on your line) to G3")),
    ("pass", N_("draw nothing this turn")),
    ("D3-E4 E4-E1 +double-section", N_("two sections with the double-section power")),
    ("F8-F5 +joker", N_("one section with the joker power (any symbol)")),
    ("G4-F4 +switch", N_("start from any station of the line (switch power)")),
    ("F5-E4 @E4", N_("a section, then circle E4 (circle-station power); @E4 alone circles")),
)
"""How a Next Station move is typed (the notation of ``docs/notation.md``): each example as
typed and its meaning (an English literal, translated by
:func:`~metrogames.cli.render.help_text`)."""


ROUND_END_LABELS = {
    "underground": N_("underground cards: {seen}/{total}"),
    "metro": N_("metro cards: {seen}/{total}"),
    "": N_("round-end cards: {seen}/{total}"),
}
"""The counter of round-end cards flipped, by the back of the city's round-end cards."""


def colour_letters(city: CityMap) -> dict[str, str]:
    """One distinct lower-case letter per line colour: its first letter not already taken
    (London: blue ``b``, pink ``p``, purple ``u``, green ``g``)."""
    out: dict[str, str] = {}
    for colour in city.colours:
        letter = next((ch for ch in colour.lower() if ch.isalpha() and ch not in out.values()), "?")
        out[colour] = letter
    return out


def colour_text(city: CityMap, colour: int | str, *, glyph: bool = True) -> Text:
    """A line colour written out: ``━ pink (p)`` in that colour."""
    name = city.colours[colour] if isinstance(colour, int) else colour
    letter = colour_letters(city)[name]
    label = f"━ {_(name)} ({letter})" if glyph else f"{_(name)} ({letter})"
    return Text(label, style=Style(color=colour_hex(name), bold=True))


def card_text(card: Card, *, long: bool = False) -> Text:
    """A card as a chip on a background of its kind: ``U●`` (``U``/``S``/``M``: the initial
    of its back), or with ``long`` ``underground ● circle``."""
    face = FACE_GLYPHS.get(card.face, "?")
    bg = "#a8326e" if card.ends_round else "#2d5da1"
    style = Style(color="white", bgcolor=bg, bold=True)
    label = (
        f" {_(card.kind)} {face} {_(card.face).replace('-', ' ')} "
        if long
        else (f"{card.kind[0].upper()}{face}")
    )
    out = Text()
    out.append(label, style=style)
    return out


# -- the map ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class MapView:
    """What to show on one player's map besides the drawing.

    Attributes:
        current: the colour index being drawn this round, or ``None``.
        targets: stations mask to highlight (the current card's legal targets).
        departure: a station to highlight (the departure station at a round's start), or ``None``.
        title: a caption above the map.
    """

    current: int | None = None
    targets: int = 0
    departure: int | None = None
    title: str | None = None


class _Canvas(Canvas):
    """Characters with a colour and weight each; ``special`` overrides a cell's whole style."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        self.fg: list[list[str | None]] = [[None] * width for _ in range(height)]
        self.bold = [[False] * width for _ in range(height)]
        self.special: dict[tuple[int, int], Style] = {}

    def put(self, x: int, y: int, ch: str, fg: str | None = None, bold: bool = False) -> None:
        if self.inside(x, y):
            self.ch[y][x] = ch
            self.fg[y][x] = fg
            self.bold[y][x] = bold

    def cell_style(self, x: int, y: int) -> Style:
        style = self.special.get((x, y))
        if style is None:
            return Style(color=self.fg[y][x] or _FG, bgcolor=self.bg[y][x], bold=self.bold[y][x])
        if self.bg[y][x] and style.bgcolor is None:
            return style + Style(bgcolor=self.bg[y][x])
        return style


def _anchor(col: float, row: float) -> tuple[int, int]:
    """Canvas position (of the glyph) of a grid point; row 0 of the canvas is the header."""
    return MARGIN + round(col * CELL_W) + 2, 1 + round(row * ROW_H)


def map_width(city: CityMap) -> int:
    """Columns the map of ``city`` takes."""
    return MARGIN + city.columns * CELL_W


def _district_cells(city: CityMap) -> dict[tuple[int, int], int]:
    """The district of every grid cell: the smallest district whose stations' bounding box
    holds it, else the district of the nearest station."""
    boxes = []
    for d in city.districts:
        pts = [p for i in bits(d.mask) for p in city.station_cells[i]]
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        area = (max(xs) - min(xs) + 1) * (max(ys) - min(ys) + 1)
        boxes.append((area, d.index, min(xs), max(xs), min(ys), max(ys)))
    boxes.sort()
    out: dict[tuple[int, int], int] = {}
    for c in range(city.columns):
        for r in range(city.rows):
            hit = next(
                (i for _, i, x0, x1, y0, y1 in boxes if x0 <= c <= x1 and y0 <= r <= y1), None
            )
            if hit is None:
                near = min(city.stations, key=lambda s: (abs(s.col - c) + abs(s.row - r), s.index))
                hit = near.district
            out[(c, r)] = hit
    return out


def _district_shades(city: CityMap, cells: dict[tuple[int, int], int]) -> dict[int, str]:
    """Greedy colouring of the district adjacency graph with :data:`_BG`."""
    neighbours: dict[int, set[int]] = {d.index: set() for d in city.districts}
    for (c, r), d in cells.items():
        for other in ((c + 1, r), (c, r + 1), (c + 1, r + 1), (c - 1, r + 1)):
            e = cells.get(other)
            if e is not None and e != d:
                neighbours[d].add(e)
                neighbours[e].add(d)
    shade: dict[int, str] = {}
    for d in sorted(neighbours, key=lambda i: -len(neighbours[i])):
        used = {shade.get(e) for e in neighbours[d]}
        shade[d] = next((s for s in _BG if s not in used), _BG[0])
    return shade


def _stroke_cells(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int, str]]:
    """Canvas cells strictly between two anchors, each with its stroke kind (h, v, d, u)."""
    (x0, y0), (x1, y1) = a, b
    if y0 == y1:
        step = 1 if x1 > x0 else -1
        return [(x, y0, "h") for x in range(x0 + step, x1, step)]
    if y1 < y0:
        (x0, y0), (x1, y1) = (x1, y1), (x0, y0)
    if x0 == x1:
        return [(x0, y, "v") for y in range(y0 + 1, y1)]
    kind = "d" if x1 > x0 else "u"
    return [(x0 + round((y - y0) * (x1 - x0) / (y1 - y0)), y, kind) for y in range(y0 + 1, y1)]


def _merge(old: str, kind: str) -> str:
    new = _STROKES[kind]
    if old in (" ", DOT, RIVER_CHAR, new):
        return new
    pair = {old, new}
    if pair == {"╲", "╱"}:
        return "╳"
    return "┼"


def _intersection(
    s1: tuple[tuple[float, float], tuple[float, float]],
    s2: tuple[tuple[float, float], tuple[float, float]],
) -> tuple[float, float] | None:
    (x1, y1), (x2, y2) = s1
    (x3, y3), (x4, y4) = s2
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if den == 0:
        return None
    t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / den
    return x1 + t * (x2 - x1), y1 + t * (y2 - y1)


def render_map(city: CityMap, board: PlayerMap, view: MapView | None = None) -> Text:
    """The map of ``board`` as a player sees it: grid, districts, river, stations with their
    symbols and the letters of the lines through them, free links dotted, drawn sections in
    colour, and the highlights of ``view``."""
    view = view or MapView()
    width = map_width(city)
    height = 1 + (city.rows - 1) * ROW_H + 1
    cv = _Canvas(width, height)
    anchors = [_anchor(*seg[0]) + _anchor(*seg[1]) for seg in city.segments]
    _draw_districts(cv, city, width, height)
    _draw_river(cv, city, width)
    _draw_links(cv, city, board, anchors)
    _draw_bridges(cv, city, board.drawn)
    _draw_platforms(cv, city)
    _draw_stations(cv, city, board, view)
    _draw_headings(cv, city)
    out = cv.text()
    if view.title:
        out = Text.assemble((view.title, "bold"), "\n", out)
    return out


def _draw_districts(cv: _Canvas, city: CityMap, width: int, height: int) -> None:
    """Each cell shaded by its district."""
    cells = _district_cells(city)
    shade = _district_shades(city, cells)
    for y in range(1, height):
        r = min((y - 1) // ROW_H, city.rows - 1)
        for x in range(MARGIN, width):
            c = min((x - MARGIN) // CELL_W, city.columns - 1)
            cv.bg[y][x] = shade[cells[(c, r)]]


def _draw_river(cv: _Canvas, city: CityMap, width: int) -> None:
    """The river along its course."""
    course = [_anchor(x, y) for x, y in city.river_course]
    # no further right than the last column's glyph and two letters: the map's usual width
    edge = min(width - 1, _anchor(city.columns - 1, 0)[0] + 2)
    for (xa, ya), (xb, yb) in itertools.pairwise(course):
        n = max(abs(xb - xa), abs(yb - ya)) * 2 or 1
        for k in range(n + 1):
            x = round(xa + (xb - xa) * k / n)
            y = round(ya + (yb - ya) * k / n)
            x = min(max(x, MARGIN), edge)
            if cv.inside(x, y) and y >= 1:
                cv.bg[y][x] = _RIVER_BG
                cv.put(x, y, RIVER_CHAR, "#5aa9e6")


def _draw_links(cv: _Canvas, city: CityMap, board: PlayerMap, anchors: list[tuple[int, int, int, int]]) -> None:
    """Links: free ones (not drawn, crossing nothing drawn) dotted, drawn ones in colour."""
    drawn = board.drawn
    for j, (xa, ya, xb, yb) in enumerate(anchors):
        if (drawn >> j) & 1 or city.conflicts[j] & drawn:
            continue
        for x, y, kind in _stroke_cells((xa, ya), (xb, yb)):
            if kind == "h" and (x - xa) % 2:
                continue  # horizontal dots every other column, like the printed map
            if cv.ch[y][x] in (" ", RIVER_CHAR):
                cv.put(x, y, DOT, _DIM)
    for colour, sections in enumerate(board.sections):
        hexc = colour_hex(city.colours[colour])
        for j in bits(sections):
            xa, ya, xb, yb = anchors[j]
            for x, y, kind in _stroke_cells((xa, ya), (xb, yb)):
                cv.put(x, y, _merge(cv.ch[y][x] if cv.fg[y][x] != _DIM else " ", kind), hexc, True)


def _draw_bridges(cv: _Canvas, city: CityMap, drawn: int) -> None:
    """Paris's overhead crossings (bridges), where two links may cross: marked, or highlighted once used."""
    for ja, jb in city.bridges:
        point = _intersection(city.segments[ja], city.segments[jb])
        if point is not None:
            x, y = _anchor(*point)
            used = (drawn >> ja) & 1 or (drawn >> jb) & 1
            if used:
                cv.special[(x, y)] = Style(color=cv.fg[y][x], bgcolor="#6b4a12", bold=True)
            else:
                cv.put(x, y, BRIDGE_MARK, "#ffb347")


def _draw_platforms(cv: _Canvas, city: CityMap) -> None:
    """Multi-cell stations (Paris's central platform): a frame around their cells."""
    for st in city.stations:
        pts = city.station_cells[st.index]
        if len(pts) <= 1:
            continue
        x0, y0 = _anchor(min(p[0] for p in pts), min(p[1] for p in pts))
        x1, y1 = _anchor(max(p[0] for p in pts), max(p[1] for p in pts))
        x0, x1 = x0 - 2, x1 + 2
        for x in range(x0 + 1, x1):
            cv.put(x, y0, "─", _FG)
            cv.put(x, y1, "─", _FG)
        for y in range(y0 + 1, y1):
            cv.put(x0, y, "│", _FG)
            cv.put(x1, y, "│", _FG)
            for x in range(x0 + 1, x1):
                cv.put(x, y, " ")
        for x, y, ch in ((x0, y0, "┌"), (x1, y0, "┐"), (x0, y1, "└"), (x1, y1, "┘")):
            cv.put(x, y, ch, _FG)


def _draw_stations(cv: _Canvas, city: CityMap, board: PlayerMap, view: MapView) -> None:
    """Stations: symbol (filled once a line visits), site marks, the letters of the lines through them, and the highlights of ``view``."""
    letters = colour_letters(city)
    for st in city.stations:
        x, y = _anchor(st.col, st.row)
        lines = [c for c in range(len(city.colours)) if (board.stations[c] >> st.index) & 1]
        filled, hollow = GLYPHS[st.symbol]
        if st.monument:
            cv.put(x - 1, y, MONUMENT_MARK, "#ffb347", True)
        elif st.tourist_site:
            cv.put(x - 1, y, TOURIST_MARK, "#ffd23f", True)
        if lines:
            main = view.current if view.current in lines else lines[0]
            cv.put(x, y, filled, colour_hex(city.colours[main]), True)
        else:
            cv.put(x, y, hollow, "#e5e7eb", st.symbol == ANY)
        for k, c in enumerate(lines[:4]):
            cv.put(x + 1 + k, y, letters[city.colours[c]], colour_hex(city.colours[c]), True)
        if (view.targets >> st.index) & 1:
            cv.special[(x, y)] = _TARGET
        if view.departure == st.index and view.current is not None:
            hexc = colour_hex(city.colours[view.current])
            cv.special[(x, y)] = Style(color="black", bgcolor=hexc, bold=True, blink=True)
            cv.put(x - 1, y, "▶", hexc, True)


def _draw_headings(cv: _Canvas, city: CityMap) -> None:
    """Column letters above the map, row numbers on its left."""
    for c in range(city.columns):
        cv.put(MARGIN + c * CELL_W + 2, 0, chr(ord("A") + c), _FG, True)
    for r in range(city.rows):
        label = f"{r + 1:>2}"
        for k, ch in enumerate(label):
            cv.put(k, 1 + r * ROW_H, ch, _FG, True)


def map_legend(city: CityMap) -> Text:
    """Two lines explaining the map's glyphs, marks and line letters."""
    t = Text(style=_DIM)
    for sym in ("square", "circle", "triangle", "pentagon", ANY):
        if sym == ANY and not city.wild_mask:
            continue
        hollow, filled = GLYPHS[sym][1], GLYPHS[sym][0]
        t.append(f"{hollow if hollow == filled else hollow + filled} {_(sym)}  ")
    t.append(DOT + " " + _("free link") + "\n")
    if city.tourist_mask:
        t.append(TOURIST_MARK + " " + _("tourist site") + "  ", style="#ffd23f")
    if city.monument_mask:
        t.append(MONUMENT_MARK + " " + _("monument") + "  ", style="#ffb347")
    if city.bridges:
        t.append(BRIDGE_MARK + " " + _("bridge") + "  ", style="#ffb347")
    if city.river_course:
        t.append(f"{RIVER_CHAR} {river_word(city)}  ", style="#5aa9e6")
    t.append(_("lines:") + " ")
    for colour, letter in colour_letters(city).items():
        t.append(f"{letter}={_(colour)} ", style=Style(color=colour_hex(colour), bold=True))
    return t


# -- the table around the map ----------------------------------------------------------------
def moves_text(city: CityMap, actions: Sequence[TurnAction], *, full: bool = False) -> Text:
    """The legal moves in notation: ``pass`` and every plain section; moves with a pencil
    power are counted (with one example) unless ``full``."""
    plain = [a for a in actions if not a.powers_used]
    powered = [a for a in actions if a.powers_used]
    t = Text()
    t.append("  ".join(format_action(city, a) for a in plain), style="bold")
    if powered:
        if full:
            t.append("\n")
            t.append("  ".join(format_action(city, a) for a in powered), style="bold")
        else:
            by_power: dict[str, list[TurnAction]] = {}
            for a in powered:
                by_power.setdefault(a.powers_used[0], []).append(a)
            for power, items in by_power.items():
                t.append(
                    f"\n+ {len(items)} with the {power} power, e.g. {format_action(city, items[0])}"
                    " (type moves to list them)",
                    style=_DIM,
                )
    return t


def panel_head(city: CityMap, name: str, round_number: int, turn: int, colour: int) -> Table:
    """The first rows of a player's side panel: player, round and turn, line and departure."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    grid.add_row(_("Player"), Text(name, style="bold"))
    grid.add_row(_("Round"), tr("{round} of 4 · turn {turn}", round=round_number, turn=turn))
    dep = city.stations[city.departures[colour]]
    line = colour_text(city, colour)
    line.append(
        "  " + tr("from {station}", station=dep.name) + f" {GLYPHS[dep.symbol][0]}", style=_FG
    )
    grid.add_row(_("Line"), line)
    return grid


def table_panel(
    state: NextStationState,
    player: int,
    name: str,
    legal: Sequence[TurnAction] | None = None,
) -> RenderableType:
    """The table as ``player`` sees it: round, turn, line colour and departure, the cards
    flipped this round with the round-end count, the current card, the pencil power, the
    objectives in play, the lines scored so far, the running total and the legal moves."""
    city = state.city
    colour = state.colour(player)
    grid = panel_head(city, name, min(state.round + 1, 4), state.turn, colour)
    chips = Text()
    for cid in state.flipped:
        chips.append_text(card_text(city.card_by_id[cid]))
        chips.append(" ")
    kind = next((c.kind for c in city.deck if c.ends_round), "")
    label = ROUND_END_LABELS.get(kind, ROUND_END_LABELS[""])
    counted = tr(label, seen=state.ends_flipped, total=city.round_end_count)
    chips.append("\n" + counted, style="#ff5fb4")
    grid.add_row(_("Cards"), chips)
    if state.card is not None:
        current = card_text(city.card_by_id[state.card], long=True)
        if state.branch:
            current.append(
                "  " + _("after a switch: start from any station of the line"), style="#ffd23f"
            )
        grid.add_row(_("Card now"), current)
    if state.deal.powers is not None:
        power = state.power_of(player)
        if power is not None:
            used = state.power_available(player) is None
            p = Text(_(power), style="bold strike" if used else "bold #ffd23f")
            p.append(
                " " + _("used") if used else " — " + _(city.power_text.get(power, "")), style=_DIM
            )
            grid.add_row(_("Power"), p)
    if state.deal.objectives:
        obj = Text()
        for k, o in enumerate(state.deal.objectives):
            obj.append(("\n" if k else "") + o, style="bold")
            obj.append(": " + _(city.objective_text.get(o, "")), style=_DIM)
        grid.add_row(_("Objectives"), obj)
    scored = Text()
    for c, ls in enumerate(state.line_scores[player]):
        if state.round > 0 and any(state.colour(player, r) == c for r in range(state.round)):
            scored.append_text(colour_text(city, c, glyph=False))
            scored.append(f" {ls.score}\n")
    if scored:
        scored.rstrip()
        grid.add_row(_("Scored"), scored)
    sheet = state.breakdown(player)
    now = Text(str(sheet.total), style="bold")
    line_score = sheet.lines[city.colours[colour]].score
    now.append(
        "  " + tr("(this line {score}, if the game ended now)", score=line_score), style=_DIM
    )
    grid.add_row(_("Total"), now)
    if legal is not None:
        grid.add_row(_("Moves"), moves_text(city, legal))
    return grid


def fitted_map(city: CityMap, board: PlayerMap, view: MapView | None = None) -> Fitted:
    """:func:`render_map` drawn for the terminal's width (:class:`~.canvas.Fitted`)."""
    return Fitted(render_map(city, board, view))


def turn_view(
    state: NextStationState,
    player: int,
    name: str,
    legal: Sequence[TurnAction],
    *,
    width: int,
    show_departure: bool,
) -> RenderableType:
    """The screen for ``player``'s turn: the map with the legal targets highlighted beside
    (or, when ``width`` is too narrow, above) the table panel."""
    city = state.city
    colour = state.colour(player)
    targets = 0
    for a in legal:
        if not a.powers_used and a.sections:
            targets |= 1 << a.sections[-1][1]
    view = MapView(
        current=colour,
        targets=targets,
        departure=city.departures[colour] if show_departure else None,
    )
    board = fitted_map(city, state.maps[player], view)
    panel = table_panel(state, player, name, legal)
    left = Group(board, map_legend(city))
    if width >= map_width(city) + 36:
        outer = Table.grid(padding=(0, 2))
        outer.add_column(no_wrap=True, width=map_width(city))
        outer.add_column()
        outer.add_row(left, panel)
        return outer
    return Group(left, Text(""), panel)


# -- scores ----------------------------------------------------------------------------------
def line_score_text(city: CityMap, colour: int, ls: LineScore) -> Text:
    """``6 districts × 3 + 1 Thames × 2 = 20`` for one scored line."""
    t = colour_text(city, colour, glyph=False)
    t.append(
        ": "
        + ntr(
            "{n} district × {most}", "{n} districts × {most}", ls.districts, most=ls.max_in_district
        )
    )
    if city.river_mask:
        t.append(f" + {ls.river} {river_word(city)} × {city.river_points}")
    if city.monument_mask:
        t.append(
            " + "
            + ntr(
                "{n} monument × {points}",
                "{n} monuments × {points}",
                ls.monuments,
                points=city.monument_points,
            )
        )
    t.append(" = ")
    t.append(str(ls.score), style="bold")
    if ls.circled >= 0:
        t.append(
            "  " + tr("(circled {station})", station=city.stations[ls.circled].name), style=_DIM
        )
    return t


def final_table(state: NextStationState, names: Sequence[str]) -> Table:
    """Every player's score sheet side by side: lines, tourist sites, interchanges, bridges,
    objectives and the total."""
    city = state.city
    sheets = [state.breakdown(p).to_json(city) for p in range(len(names))]
    return sheets_table(city, names, sheets, tr("{title}: final scores", title=city.title))


def river_word(city: CityMap) -> str:
    """The city's river (``Thames``), translated; empty for a city without one."""
    return _(city.river_name) if city.river_name else ""


def boxes(count: int) -> str:
    """``1 box``, ``2 boxes``, ``0 boxes`` (the tourist track's crossed-off boxes)."""
    return ntr("{n} box", "{n} boxes", count)


def sheets_table(
    city: CityMap, names: Sequence[str], sheets: Sequence[SheetJson], title: str
) -> Table:
    """Score sheets in the ``score --json`` shape (``Breakdown.to_json``), one column each."""
    table = Table(title=title, title_style="bold")
    table.add_column("", style="bold")
    river = tr("{river} crossings × {points}", river=river_word(city), points=city.river_points)
    monuments = tr("monuments × {points}", points=city.monument_points)
    table.caption = (
        _("lines: districts × most in one district")
        + (f" + {river}" if city.river_mask else "")
        + (f" + {monuments}" if city.monument_mask else "")
    )
    for n in names:
        table.add_column(n, justify="right")
    for c, colour in enumerate(city.colours):
        cells = []
        for s in sheets:
            ln = s["lines"][colour]
            detail = f"{ln['districts']}×{ln['max_in_district']}"
            if "thames" in ln or "river" in ln:
                detail += f" + {ln.get('thames', ln.get('river', 0))}×{city.river_points}"
            if "monuments" in ln:
                detail += f" + {ln['monuments']}×{city.monument_points}"
            circled = (
                " " + tr("(circled {station})", station=ln["circled"]) if "circled" in ln else ""
            )
            cells.append(f"{detail} = {ln['score']}{circled}")
        table.add_row(colour_text(city, c, glyph=False), *cells)
    if city.tourist_points:
        table.add_row(
            _("tourist sites"),
            *(f"{boxes(s['tourist']['boxes'])} → {s['tourist']['points']}" for s in sheets),
        )
    keys = [k for k in sheets[0]["interchanges"] if k != "points"]
    table.add_row(
        tr("interchanges ({counts} lines)", counts="/".join(keys)),
        *(
            " + ".join(str(s["interchanges"][k]) for k in keys)
            + f" → {s['interchanges']['points']}"
            for s in sheets
        ),
    )
    if "bridges" in sheets[0]:
        table.add_row(
            _("bridges"),
            *(
                tr(
                    "{single} single {double} double → {points}",
                    single=s["bridges"]["single"],
                    double=s["bridges"]["double"],
                    points=s["bridges"]["points"],
                )
                for s in sheets
            ),
        )
    for o in (k for k in sheets[0]["objectives"] if k != "points"):
        text = city.objective_text.get(o)
        table.add_row(
            tr("objective: {text}", text=_(text)) if text else o,
            *(f"✔ {city.objective_points}" if s["objectives"][o] else "✘ 0" for s in sheets),
        )
    table.add_row(
        Text(_("total"), style="bold"), *(Text(str(s["total"]), style="bold") for s in sheets)
    )
    return table
