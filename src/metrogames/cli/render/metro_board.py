"""Rich pictures of Metro: the 8×8 board with its tiles' tracks, the stations around it, the
trains still running, a player's held tiles, the scores and the routes as they complete.

Part of :mod:`metrogames.cli.render`, the one place in ``cli/`` that may know a game's
internals: it reads the engine's :class:`MetroState` and tile data directly.

The board is drawn on a character canvas. Every square is :data:`CELL_W` × :data:`CELL_H`
characters; a tile shows its 4 tracks as box-drawing strokes, and the track ends line up with the
neighbouring squares' (a side's two endpoints sit at the same characters on both squares), so a
route reads as one continuous line across the tiles. Inside a cell:

* endpoint 0 (north side, west point, where a train enters from the north) is column 2 of the top
  row, endpoint 1 column 4; the south side's endpoints 5 and 4 are columns 2 and 4 of the bottom
  row; the west side's endpoints 7 and 6 are rows 1 and 2 of column 0, the east side's 2 and 3
  rows 1 and 2 of column 6;
* a ``┼`` is always two tracks crossing straight, never a junction (tracks never branch).

The stroke layout of each tile type (:data:`TILE_PATHS`) was found once by a small search (each
track a path of cells, no two tracks sharing a cell except at a straight crossing, fewest cells
and bends) and is checked against the tile data by the tests.

Tracks travelled by a route take the colour of the station's owner (bold while the train runs,
plain once the route is complete); a train that has left its station waits at the entry of an
empty square, drawn as the seat letter and an arrow into the square. Stations carry their number
and seat letter, so colour is never the only cue (``color_system=None`` still reads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from metrogames.cli.lang import _, ntr, tr
from metrogames.cli.render.canvas import Canvas, Fitted, colour_style
from metrogames.games.metro import MetroState, Route, load_metro, square_name
from metrogames.games.metro.tiles import CENTRAL_BASE, SIZE, MetroData
from metrogames.i18n import N_

CELL_W = 7
"""Canvas columns per square."""
CELL_H = 4
"""Canvas rows per square."""
LEFT = 6
"""Columns left of the board (row number, west stations)."""
RIGHT = 6
"""Columns right of the board (east stations, row number)."""
TOP = 2
"""Rows above the board (column letters, north stations)."""
BOARD_W = LEFT + SIZE * CELL_W + RIGHT
"""Width of the rendered board in characters."""

SEAT_LETTERS = "YBOGPL"
"""One letter per seat colour (yellow blue orange green purple black: the first letter of the
name not yet taken, as the web table's English letters)."""
SEAT_COLOURS = (N_("yellow"), N_("blue"), N_("orange"), N_("green"), N_("purple"), N_("black"))
"""The seats' colour names as the catalogs hold them (the data's ``seat_colours``: the
publisher's rulebook's)."""
SIDE_NAMES = (N_("north"), N_("east"), N_("south"), N_("west"))

ENDPOINT_CELL: dict[int, tuple[int, int, str]] = {
    0: (0, 2, "u"),
    1: (0, 4, "u"),
    2: (1, 6, "r"),
    3: (2, 6, "r"),
    4: (3, 4, "d"),
    5: (3, 2, "d"),
    6: (2, 0, "l"),
    7: (1, 0, "l"),
}
"""Per tile endpoint: (row, column) of its character in the cell and the side it leaves by."""

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"

TILE_PATHS: dict[str, tuple[str, str, str, str]] = {
    "aaaa": ("29gn", "dcba987", "pib4", "efghijk"),
    "aacb": ("29gn", "dcba987", "pijk", "e701234"),
    "baac": ("29ghijk", "dcba987", "pib4", "elmn"),
    "cbaa": ("2987", "dkrqpon", "pib4", "efghijk"),
    "acba": ("29gn", "dcb4", "poha987", "efghijk"),
    "cbcb": ("2987", "dkrqpon", "pijk", "e701234"),
    "bcbc": ("29ghijk", "dcb4", "poha987", "elmn"),
    "cccc": ("2987", "dcb4", "pijk", "efgn"),
    "bbbb": ("29ghijk", "dkrqpon", "piba987", "e701234"),
    "dddd": ("234", "dk", "pon", "e7"),
    "dacc": ("234", "dcba987", "pijk", "efgn"),
    "cdac": ("2987", "dk", "pib4", "efgn"),
    "ccda": ("2987", "dcb4", "pon", "efghijk"),
    "accd": ("29gn", "dcb4", "pijk", "e7"),
    "dbba": ("234", "dcba9gn", "ponmf87", "efghijk"),
    "adbb": ("29gn", "dk", "piba987", "e701234"),
    "badb": ("29ghijk", "dcba987", "pon", "e701234"),
    "bbad": ("29ghijk", "dkrqpon", "pib4", "e7"),
    "ddbc": ("234", "dk", "piba987", "efgn"),
    "cddb": ("2987", "dk", "pon", "efghib4"),
    "bcdd": ("29ghijk", "dcb4", "pon", "e7"),
    "dbcd": ("234", "dcba9gn", "pijk", "e7"),
    "adad": ("29gn", "dk", "pib4", "e7"),
    "dada": ("234", "dcba987", "pon", "efghijk"),
}
"""Per tile type, its 4 tracks (from endpoint 0, 2, 4, 6 to their partners) as the cells they
cross, each cell ``row * CELL_W + column`` written in base 36."""

_GLYPH = {
    frozenset("ud"): "│",
    frozenset("lr"): "─",
    frozenset("ul"): "╯",
    frozenset("ur"): "╰",
    frozenset("dl"): "╮",
    frozenset("dr"): "╭",
}
_STEP = {(-1, 0): "u", (1, 0): "d", (0, -1): "l", (0, 1): "r"}
_INWARD = {0: (1, 0, "↓"), 2: (0, -1, "←"), 4: (-1, 0, "↑"), 6: (0, 1, "→")}
"""Per entry endpoint: the step into the square and the arrow drawn there for a waiting train."""

_FG = "#c8ccd4"
_DIM = "#6b7280"
_DEFAULT = Style(color=_FG)
_TRACK = "#7d8490"
_TILE_BG = "#1f232b"
_LAST_BG = "#2e3a50"
_LEGAL_BG = "#3b3418"
_LEGAL_FG = "#ffd23f"
_CENTRE_FG = "#e8e8e8"


@dataclass(frozen=True)
class Stroke:
    """One character of a tile picture: its ``glyph`` and the tracks drawn there, each named by
    its even endpoint (two at a crossing ``┼``: the vertical one first)."""

    glyph: str
    tracks: tuple[int, ...]


@cache
def tile_strokes(code: str) -> dict[tuple[int, int], Stroke]:
    """The picture of tile type ``code``: (row, column) in the cell -> :class:`Stroke`.

    Raises:
        NotationError: an unknown tile code.
    """
    data = load_metro()
    code = data.tile_codes[data.tile(code)]
    conn = data.conn[data.tile_index[code]]
    arms: dict[tuple[int, int], list[tuple[frozenset[str], int]]] = {}
    for i, e in enumerate((0, 2, 4, 6)):
        cells = [divmod(_B36.index(ch), CELL_W) for ch in TILE_PATHS[code][i]]
        for j, (r, c) in enumerate(cells):
            if j == 0:
                a = ENDPOINT_CELL[e][2]
            else:
                pr, pc = cells[j - 1]
                a = _STEP[(pr - r, pc - c)]
            if j == len(cells) - 1:
                b = ENDPOINT_CELL[conn[e]][2]
            else:
                nr, nc = cells[j + 1]
                b = _STEP[(nr - r, nc - c)]
            arms.setdefault((r, c), []).append((frozenset((a, b)), e))
    out: dict[tuple[int, int], Stroke] = {}
    for cell, here in arms.items():
        if len(here) == 1:
            out[cell] = Stroke(_GLYPH[here[0][0]], (here[0][1],))
        else:
            vertical = next(e for arm, e in here if arm == frozenset("ud"))
            horizontal = next(e for arm, e in here if arm == frozenset("lr"))
            out[cell] = Stroke("┼", (vertical, horizontal))
    return out


def seat_colour(seat: int) -> str:
    """The seat's colour name (``yellow`` for seat 0 …)."""
    return load_metro().seat_colours[seat]


def seat_style(seat: int, *, bold: bool = True) -> Style:
    """The seat's screen colour."""
    return colour_style(seat_colour(seat), bold=bold)


def seat_text(seat: int, name: str | None = None) -> Text:
    """``yellow (Y)`` in that colour, or ``Player 1 · yellow (Y)`` with a name."""
    out = Text()
    if name is not None:
        out.append(f"{name} · ", style="bold")
    out.append(f"{_(seat_colour(seat))} ({SEAT_LETTERS[seat]})", style=seat_style(seat))
    return out


class _Canvas(Canvas):
    """Characters with one style each."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        self.style: list[list[Style | None]] = [[None] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: Style | None = None) -> None:
        for i, ch in enumerate(text):
            if self.inside(x + i, y):
                self.ch[y][x + i] = ch
                self.style[y][x + i] = style

    def fill_bg(self, x: int, y: int, w: int, h: int, colour: str) -> None:
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.bg[yy][xx] = colour

    def cell_style(self, x: int, y: int) -> Style:
        style = self.style[y][x] or _DEFAULT
        if self.bg[y][x] and style.bgcolor is None:  # a seat's own light cell stays
            return style + Style(bgcolor=self.bg[y][x])
        return style


def route_tracks(state: MetroState) -> dict[tuple[int, int], int]:
    """Every placed track a route from an edge station has travelled: (square, the track's even
    endpoint) -> edge station index (station number - 1)."""
    data = state.data
    tiles = state.board.tiles
    out: dict[tuple[int, int], int] = {}
    for k, start in enumerate(data.departure_pos):
        pos = start
        while pos >= 0 and tiles[pos >> 3]:
            sq, e = divmod(pos, 8)
            out[(sq, e)] = k
            pos = data.step[sq * 8 + data.conn[tiles[sq] - 1][e]]
    return out


def _track_style(state: MetroState, k: int | None) -> Style:
    if k is None:
        return Style(color=_TRACK)
    owner = state.board.owners[k]
    if owner < 0:
        return Style(color=_DIM)
    running = not state.board.route_end[k]
    return colour_style(seat_colour(owner), bold=running)


def _cell_origin(sq: int) -> tuple[int, int]:
    row, col = divmod(sq, SIZE)
    return LEFT + col * CELL_W, TOP + row * CELL_H


def station_label(state: MetroState, k: int) -> tuple[str, Style]:
    """The label of edge station index ``k``: ``6·B`` (number and seat letter) in the owner's
    colour (plain once its route is complete), or the bare number, dimmed, when unallocated."""
    owner = state.board.owners[k]
    if owner < 0:
        return f"{k + 1}", Style(color=_DIM)
    done = bool(state.board.route_end[k])
    return (
        f"{k + 1}·{SEAT_LETTERS[owner]}",
        colour_style(seat_colour(owner), bold=not done, dim=done),
    )


def render_board(
    state: MetroState,
    *,
    legal: Sequence[int] = (),
    last: int | None = None,
) -> Text:
    """The board: stations round the edge, the central block, placed tiles with their tracks
    (travelled tracks in the owner's colour), waiting trains, and the ``legal`` squares
    highlighted and named (the ``last`` square placed on shaded)."""
    canvas = _Canvas(BOARD_W, TOP + SIZE * CELL_H + 2)
    _headings(canvas)
    _stations(canvas, state)
    _squares(canvas, state, set(legal), last)
    _trains(canvas, state)
    _central_block(canvas, state.data)
    return canvas.text()


def _headings(canvas: _Canvas) -> None:
    """Column letters above and below the board, row numbers left and right."""
    bottom = TOP + SIZE * CELL_H
    right = LEFT + SIZE * CELL_W
    letters = "ABCDEFGH"
    head = Style(color=_FG, bold=True)
    for c in range(SIZE):
        x = LEFT + c * CELL_W
        canvas.put(x + 3, 0, letters[c], head)
        canvas.put(x + 3, bottom + 1, letters[c], head)
    for r in range(SIZE):
        y = TOP + r * CELL_H
        canvas.put(0, y + 1, f"{r + 1:>2}", head)
        canvas.put(right + RIGHT - 2, y + 2, f"{r + 1:>2}", head)


def _stations(canvas: _Canvas, state: MetroState) -> None:
    """Each edge station's label outside its side of the board."""
    bottom = TOP + SIZE * CELL_H
    right = LEFT + SIZE * CELL_W
    for k, st in enumerate(state.data.stations):
        label, style = station_label(state, k)
        x, y = _cell_origin(st.square)
        if st.side == 0:
            canvas.put(x + 2, 1, label, style)
        elif st.side == 2:
            canvas.put(x + 2, bottom, label, style)
        elif st.side == 3:
            canvas.put(LEFT - 1 - len(label), y + 2, label, style)
        else:
            canvas.put(right + 1, y + 1, label, style)


def _squares(canvas: _Canvas, state: MetroState, legal: set[int], last: int | None) -> None:
    """Each square outside the centre: its tile's tracks (travelled ones in the owner's
    colour; the ``last`` placed shaded), else named when ``legal``, else a dot."""
    data = state.data
    board = state.board
    travelled = route_tracks(state)
    for sq in range(SIZE * SIZE):
        if (data.central_mask >> sq) & 1:
            continue
        x, y = _cell_origin(sq)
        code = board.tile_at(sq)
        if code is not None:
            canvas.fill_bg(x, y, CELL_W, CELL_H, _LAST_BG if sq == last else _TILE_BG)
            for (r, c), stroke in tile_strokes(code).items():
                who = travelled.get((sq, stroke.tracks[0]))
                if len(stroke.tracks) > 1 and who is None:
                    who = travelled.get((sq, stroke.tracks[1]))
                canvas.put(x + c, y + r, stroke.glyph, _track_style(state, who))
        elif sq in legal:
            canvas.fill_bg(x, y, CELL_W, CELL_H, _LEGAL_BG)
            canvas.put(x + 3, y + 1, square_name(sq), Style(color=_LEGAL_FG, bold=True))
        else:
            canvas.put(x + 3, y + 1, "·", Style(color=_DIM))


def _trains(canvas: _Canvas, state: MetroState) -> None:
    """Each train out on the board: its seat letter and an arrow at the endpoint it waits
    at (trains still at their station are shown by the station label)."""
    board = state.board
    for pos, k in board.waiting.items():
        owner = board.owners[k]
        if owner < 0 or not board.route_len[k]:
            continue
        sq, e = divmod(pos, 8)
        x, y = _cell_origin(sq)
        r, c, _ = ENDPOINT_CELL[e]
        dr, dc, arrow = _INWARD[e]
        style = seat_style(owner)
        canvas.put(x + c, y + r, SEAT_LETTERS[owner], style)
        canvas.put(x + c + dc, y + r + dr, arrow, style)


def _central_block(canvas: _Canvas, data: MetroData) -> None:
    top_left = min(data.central_squares)
    x0, y0 = _cell_origin(top_left)
    w, h = 2 * CELL_W, 2 * CELL_H
    frame = Style(color=_CENTRE_FG)
    canvas.put(x0, y0, "╭" + "─" * (w - 2) + "╮", frame)
    canvas.put(x0, y0 + h - 1, "╰" + "─" * (w - 2) + "╯", frame)
    for y in range(y0 + 1, y0 + h - 1):
        canvas.put(x0, y, "│", frame)
        canvas.put(x0 + w - 1, y, "│", frame)
    canvas.put(x0 + 3, y0 + 3, "CENTRAL", Style(color=_CENTRE_FG, bold=True))
    canvas.put(x0 + 3, y0 + 4, "  ×2", Style(color=_LEGAL_FG, bold=True))
    steps = {"u": (-1, 0), "d": (1, 0), "l": (0, -1), "r": (0, 1)}
    for sq, side in data.central_faces:
        r, c, out = ENDPOINT_CELL[2 * side + 1]
        dr, dc = steps[out]
        x, y = _cell_origin(sq)
        canvas.put(x + c + dc, y + r + dr, "●", Style(color=_CENTRE_FG, bold=True))


def tile_card(code: str, *, caption: str | None = None) -> Text:
    """A held tile drawn in a frame with its code (or ``caption``) under it."""
    strokes = tile_strokes(code)
    card = _Canvas(CELL_W + 2, CELL_H + 2)
    frame = Style(color=_DIM)
    card.put(0, 0, "╭" + "─" * CELL_W + "╮", frame)
    label = caption if caption is not None else code
    card.put(0, CELL_H + 1, "╰" + "─" * CELL_W + "╯", frame)
    label = label[:CELL_W]
    card.put(1 + (CELL_W - len(label)) // 2, CELL_H + 1, label, Style(color=_FG, bold=True))
    for y in range(1, CELL_H + 1):
        card.put(0, y, "│", frame)
        card.put(CELL_W + 1, y, "│", frame)
    for (r, c), stroke in strokes.items():
        card.put(1 + c, 1 + r, stroke.glyph, Style(color=_FG, bold=True))
    card.fill_bg(1, 1, CELL_W, CELL_H, _TILE_BG)
    return card.text()


def tiles_row(codes: Sequence[str]) -> Text:
    """Several :func:`tile_card` pictures side by side."""
    cards = [tile_card(code).split("\n") for code in codes]
    out = Text(no_wrap=True, overflow="crop")
    for y in range(CELL_H + 2):
        if y:
            out.append("\n")
        for i, lines in enumerate(cards):
            if i:
                out.append("  ")
            out.append_text(lines[y])
    return out


# -- words ------------------------------------------------------------------------------------
def arrival_text(data: MetroData, code: int) -> str:
    """``station 9`` or ``the centre`` for an arrival code."""
    return _("the centre") if code <= CENTRAL_BASE else tr("station {n}", n=-code)


def tile_count(n: int) -> str:
    """``1 tile``, ``3 tiles``."""
    return ntr("{n} tile", "{n} tiles", n)


def route_text(state: MetroState, route: Route) -> Text:
    """A completed route as it scores: ``yellow (Y): station 6, 5 tiles, ×2 centre = 10
    (→ the centre)``; a route from an unallocated station scores for nobody."""
    out = Text("  ✔ ")
    tiles = tile_count(route.tiles)
    end = arrival_text(state.data, route.arrival)
    if route.player is None:
        text = tr(
            "station {n} (nobody's), {tiles} → {end}: no points",
            n=route.station,
            tiles=tiles,
            end=end,
        )
        out.append(text, style=_DIM)
        return out
    out.append_text(seat_text(route.player))
    out.append(": " + tr("station {n}", n=route.station) + f", {tiles}")
    if route.central:
        out.append(", " + _("×2 centre"), style=_LEGAL_FG)
    out.append(f" = {route.points}", style="bold")
    out.append(f"  (→ {end})", style=_DIM)
    return out


@dataclass(frozen=True)
class OpenRoute:
    """A train on its way: edge ``station`` number, owning ``seat``, the ``square`` and ``side``
    (0–3: N, E, S, W) where it waits, and the ``tiles`` travelled so far."""

    station: int
    seat: int
    square: int
    side: int
    tiles: int


def open_routes(state: MetroState, *, moved_only: bool = False) -> list[OpenRoute]:
    """Unfinished routes of allocated stations, by seat then station (``moved_only``: those
    whose train has left its station)."""
    board = state.board
    out = []
    for pos, k in board.waiting.items():
        owner = board.owners[k]
        if owner < 0 or (moved_only and not board.route_len[k]):
            continue
        sq, e = divmod(pos, 8)
        out.append(OpenRoute(k + 1, owner, sq, e // 2, board.route_len[k]))
    out.sort(key=lambda o: (o.seat, o.station))
    return out


def open_routes_text(state: MetroState, *, moved_only: bool = False) -> Text:
    """One line per open route: ``yellow (Y): station 6 → waiting at C5 north (3 tiles)``."""
    out = Text()
    for i, o in enumerate(open_routes(state, moved_only=moved_only)):
        if i:
            out.append("\n")
        out.append_text(seat_text(o.seat))
        where = f"{square_name(o.square)} {_(SIDE_NAMES[o.side])}"
        out.append(": " + tr("station {n} → waiting at {where}", n=o.station, where=where))
        if o.tiles:
            out.append(f" ({tile_count(o.tiles)})", style=_DIM)
        else:
            out.append(" " + _("(at its station)"), style=_DIM)
    if not out.plain:
        out.append(_("no train is on its way"), style=_DIM)
    return out


def _compact_open(state: MetroState) -> Text:
    """The trains on their way, one line per seat: ``Y 6→C5 N (3) · 8→A2 W (1)``."""
    out = Text()
    by_seat: dict[int, list[OpenRoute]] = {}
    for o in open_routes(state, moved_only=True):
        by_seat.setdefault(o.seat, []).append(o)
    for i, seat in enumerate(sorted(by_seat)):
        if i:
            out.append("\n")
        out.append(f"{SEAT_LETTERS[seat]} ", style=seat_style(seat))
        parts = [
            f"{o.station}→{square_name(o.square)} {'NESW'[o.side]} ({o.tiles})"
            for o in by_seat[seat]
        ]
        out.append(" · ".join(parts))
    if not out.plain:
        out.append(_("none has left its station yet"), style=_DIM)
    return out


def legal_by_tile(state: MetroState, player: int) -> list[tuple[str, list[int]]]:
    """The tiles ``player`` may place now and each one's legal squares (the drawn tile, else
    the distinct tiles in hand)."""
    drawn = state.drawn_tile
    codes = [drawn] if drawn is not None else list(dict.fromkeys(state.hand(player)))
    return [(code, state.legal_squares(code)) for code in codes]


def can_draw(state: MetroState, player: int) -> bool:
    """Official-hand mode: whether ``player`` may choose ``draw`` now."""
    return any(getattr(a, "is_draw", False) for a in state.legal_actions(player))


def moves_text(state: MetroState, player: int) -> Text:
    """Every legal move of ``player``: one line per tile, ``cbaa: A1 B1 C1`` (in draw mode the
    square alone is enough), and ``draw`` when it is allowed."""
    out = Text()
    for i, (code, squares) in enumerate(legal_by_tile(state, player)):
        if i:
            out.append("\n")
        out.append(f"  {code}:", style="bold")
        out.append(" " + " ".join(square_name(sq) for sq in squares))
    if can_draw(state, player):
        out.append("\n  draw", style="bold")
        out.append("  " + _("(take a new tile and place it, keeping the held one)"), style=_DIM)
    return out


def scores_table(state: MetroState, names: Sequence[str], *, current: int | None = None) -> Table:
    """Seat, player, score, longest completed route, routes done and trains still running."""
    board = state.board
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("")
    table.add_column(_("player"))
    table.add_column(_("score"), justify="right")
    table.add_column(_("longest"), justify="right")
    table.add_column(_("done"), justify="right")
    table.add_column(_("open"), justify="right")
    done = [0] * len(names)
    running = [0] * len(names)
    for k, owner in enumerate(board.owners):
        if owner >= 0:
            if board.route_end[k]:
                done[owner] += 1
            else:
                running[owner] += 1
    for p, name in enumerate(names):
        marker = "▶" if p == current else " "
        table.add_row(
            Text(f"{marker}{SEAT_LETTERS[p]}", style=seat_style(p)),
            Text(name, style=seat_style(p, bold=p == current)),
            Text(str(board.scores[p]), style="bold"),
            str(board.longest[p]),
            str(done[p]),
            str(running[p]),
        )
    return table


def turn_view(
    state: MetroState,
    player: int,
    names: Sequence[str],
    *,
    width: int,
    last: int | None = None,
    last_text: Text | None = None,
) -> RenderableType:
    """The screen for ``player``'s turn: the board with the legal squares highlighted beside
    (or, when ``width`` is too narrow, above) a panel with the placement count, the scores,
    the player's own tile(s) only — never another player's — with their legal squares, and the
    trains on their way."""
    legal = legal_by_tile(state, player)
    squares = sorted({sq for _, sqs in legal for sq in sqs})
    board = Fitted(render_board(state, legal=squares, last=last))
    panel = Table.grid(padding=(0, 0))
    panel.add_column()
    head = Text(tr("Placement {n} of 60", n=min(state.turn, 60)), style="bold")
    head.append(
        " · " + ntr("{n} tile in the pile", "{n} tiles in the pile", state.pile_size), style=_DIM
    )
    panel.add_row(head)
    to_play = Text(_("To play:") + " ")
    to_play.append_text(seat_text(player, names[player]))
    panel.add_row(to_play)
    if last_text is not None:
        panel.add_row(last_text)
    panel.add_row(Text(""))
    panel.add_row(scores_table(state, names, current=player))
    panel.add_row(Text(""))
    drawn = state.drawn_tile
    codes = [drawn] if drawn is not None else list(state.hand(player))
    title = _("Your tile") if len(codes) == 1 else _("Your tiles")
    if drawn is not None and state.game.options.hand:
        title = _("Drawn tile (place it)")
    panel.add_row(Text(title, style="bold"))
    if codes:
        panel.add_row(tiles_row(codes))
    same: dict[tuple[int, ...], list[str]] = {}
    for code, sqs in legal:
        same.setdefault(tuple(sqs), []).append(code)
    for where, group in same.items():
        line = Text(f"{', '.join(group)} → ", style="bold")
        line.append(" ".join(square_name(sq) for sq in where) or _("nowhere"), style=_LEGAL_FG)
        panel.add_row(line)
    if can_draw(state, player):
        panel.add_row(Text(_("or type draw: take a new tile and place it"), style=_DIM))
    if drawn is not None and state.game.options.turn_mode == "official-hand":
        held = ", ".join(state.hand(player)) or _("none")
        panel.add_row(Text(tr("(you keep the held tile: {held})", held=held), style=_DIM))
    panel.add_row(Text(""))
    panel.add_row(Text(_("Trains on their way"), style="bold"))
    panel.add_row(_compact_open(state))
    if width >= BOARD_W + 40:
        outer = Table.grid(padding=(0, 2))
        outer.add_column(no_wrap=True, width=BOARD_W)
        outer.add_column()
        outer.add_row(board, panel)
        return Group(outer, legend())
    return Group(board, legend(), Text(""), panel)


def final_table(state: MetroState, names: Sequence[str]) -> Table:
    """The end: per player the score, the longest route and the completed routes."""
    table = Table(title="Final scores", header_style="bold", show_lines=False)
    table.add_column("seat")
    table.add_column("player")
    table.add_column("score", justify="right")
    table.add_column("longest route", justify="right")
    table.add_column("routes", justify="right")
    table.add_column("at the centre", justify="right")
    routes = state.routes()
    winners = set(state.winners())
    for p, name in enumerate(names):
        mine = [r for r in routes if r.player == p]
        table.add_row(
            Text(f"{SEAT_LETTERS[p]} {seat_colour(p)}", style=seat_style(p)),
            Text(name + ("  ★" if p in winners else ""), style="bold" if p in winners else ""),
            Text(str(state.board.scores[p]), style="bold"),
            str(state.board.longest[p]),
            str(len(mine)),
            str(sum(1 for r in mine if r.central)),
        )
    return table


def legend() -> Text:
    """How to read the board."""
    out = Text(style=_DIM)
    out.append(_("Stations: number·seat letter") + " (")
    for seat, letter in enumerate(SEAT_LETTERS):
        out.append(letter, style=seat_style(seat))
        out.append(" " if seat < len(SEAT_LETTERS) - 1 else "")
    out.append("). ● " + _("central station (×2).") + " ")
    out.append("Y↓ " + _("a train waiting to enter a square.") + " ")
    out.append(_("Named squares: where your tile may go.") + " ┼ " + _("tracks cross."))
    return out


__all__ = [
    "BOARD_W",
    "CELL_H",
    "CELL_W",
    "ENDPOINT_CELL",
    "SEAT_LETTERS",
    "TILE_PATHS",
    "OpenRoute",
    "Stroke",
    "arrival_text",
    "can_draw",
    "final_table",
    "legal_by_tile",
    "legend",
    "moves_text",
    "open_routes",
    "open_routes_text",
    "render_board",
    "route_text",
    "route_tracks",
    "scores_table",
    "seat_colour",
    "seat_style",
    "seat_text",
    "station_label",
    "tile_card",
    "tile_strokes",
    "tiles_row",
    "turn_view",
]
