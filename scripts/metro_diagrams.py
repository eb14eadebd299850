"""Metro's rules diagrams, drawn from the package's tile data (``metrogames/data/metro.json``
through :func:`metrogames.games.metro.tiles.load_metro`): a tile's tracks from its endpoint
pairs, edge stations where the data put them, and routes traced along the placed tiles by the
data's own tables. The routes' scores are the engine's (:class:`MetroBoard`), so a picture and
its caption cannot disagree with the game. Used by ``scripts/rules_diagrams.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from metrogames.games.metro.board import MetroBoard, Route
from metrogames.games.metro.tiles import MetroData, load_metro, parse_square

U = 60
"""Pixels a square."""
M = 34
"""Pixels around the board window (room for the edge stations)."""
SEATS = {"yellow": "#e6b800", "blue": "#1f6fd1"}
"""The two seats' colours of the examples (2 players)."""
POINTS = ((1, 0), (2, 0), (3, 1), (3, 2), (2, 3), (1, 3), (0, 2), (0, 1))
"""Each endpoint 0–7 on a square, in thirds of its side (N west, N east, E north, … W north)."""
INWARD = ((0, 1), (0, 1), (-1, 0), (-1, 0), (0, -1), (0, -1), (1, 0), (1, 0))
"""The direction into the square from each endpoint."""


@dataclass(frozen=True)
class Placement:
    """A Metro picture: the board window (``cols``/``rows`` inclusive, 0-based), the tiles
    placed (code by square name) and the edge station whose route is shown."""

    name: str
    cols: tuple[int, int]
    rows: tuple[int, int]
    tiles: tuple[tuple[str, str], ...]
    station: int


ROUTE = Placement(
    "metro-route", (0, 3), (0, 1), (("A1", "baac"), ("B1", "aaaa"), ("C1", "cbaa")), 6
)
"""The rules' check value: station 6's route crosses three tiles into station 9's arrival."""
CENTRE = Placement(
    "metro-centre", (2, 5), (0, 4), (("D1", "aaaa"), ("D2", "aaaa"), ("D3", "aaaa")), 5
)
"""Station 5's route runs straight down three tiles into a central station: doubled."""
TILE = "cbaa"
"""The tile drawn alone."""


def board(data: MetroData, ex: Placement) -> tuple[MetroBoard, bytearray]:
    """The engine's 2-player board holding ``ex``'s tiles, and those tiles (64 bytes)."""
    tiles = bytearray(64)
    for square, code in ex.tiles:
        tiles[parse_square(square)] = data.tile(code) + 1
    return MetroBoard.from_tiles(data, data.owners(2), 2, tiles), tiles


def route(data: MetroData, ex: Placement) -> Route:
    """The engine's completed route of ``ex``'s station (``ValueError`` when not complete)."""
    done = [r for r in board(data, ex)[0].routes() if r.station == ex.station]
    if not done:
        raise ValueError(f"{ex.name}: the route of station {ex.station} is not complete")
    return done[0]


def trace(data: MetroData, tiles: bytearray, station: int) -> list[tuple[int, int, int]]:
    """The tracks a train from ``station`` follows: ``(square, entry, exit)`` endpoints."""
    out = []
    pos = data.departure_pos[station - 1]
    while pos >= 0 and tiles[pos // 8]:
        sq, e = divmod(pos, 8)
        x = data.conn[tiles[sq] - 1][e]
        out.append((sq, e, x))
        pos = data.step[sq * 8 + x]
    return out


def track(x0: float, y0: float, a: int, b: int, size: float) -> str:
    """The path of a track from endpoint ``a`` to ``b`` on the square at (x0, y0)."""
    (ax, ay), (bx, by) = POINTS[a], POINTS[b]
    pull = 0.45 if a // 2 != b // 2 else 0.8
    p = [x0 + ax * size / 3, y0 + ay * size / 3, x0 + bx * size / 3, y0 + by * size / 3]
    c1 = (p[0] + INWARD[a][0] * size * pull / 2, p[1] + INWARD[a][1] * size * pull / 2)
    c2 = (p[2] + INWARD[b][0] * size * pull / 2, p[3] + INWARD[b][1] * size * pull / 2)
    return f"M{p[0]:g} {p[1]:g}C{c1[0]:g} {c1[1]:g} {c2[0]:g} {c2[1]:g} {p[2]:g} {p[3]:g}"


def tile_parts(data: MetroData, code: str, x0: float, y0: float, size: float) -> list[str]:
    """A tile's square and its four tracks (from the data's endpoint pairs)."""
    conn = data.conn[data.tile(code)]
    parts = [
        f'<rect x="{x0:g}" y="{y0:g}" width="{size:g}" height="{size:g}" rx="{size * 0.06:g}" '
        f'fill="#f4efe2" stroke="#8c8170"/>'
    ]
    for e in range(0, 8, 2):
        d = track(x0, y0, e, conn[e], size)
        parts.append(f'<path d="{d}" fill="none" stroke="#5a5348" stroke-width="{size / 20:g}"/>')
    return parts


def tile_svg(data: MetroData, code: str = TILE) -> str:
    """One tile, large, with its 8 endpoints marked."""
    size, pad = 150, 12
    parts = tile_parts(data, code, pad, pad, size)
    for x, y in POINTS:
        parts.append(
            f'<circle cx="{pad + x * size / 3:g}" cy="{pad + y * size / 3:g}" r="4" fill="#333"/>'
        )
    return svg(size + 2 * pad, size + 2 * pad, parts)


def svg(width: float, height: float, parts: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
        f'width="{width:g}" height="{height:g}" font-family="sans-serif">'
    )
    return "\n".join([head, *parts, "</svg>", ""])


def board_svg(data: MetroData, ex: Placement) -> str:
    """A window of the board with ``ex``'s tiles, edge stations and central block, and the
    route of ``ex``'s station drawn in its owner's colour (checked complete: :func:`route`)."""
    done = route(data, ex)
    _, tiles = board(data, ex)
    c0, r0 = ex.cols[0], ex.rows[0]
    width, height = (ex.cols[1] - c0 + 1) * U + 2 * M, (ex.rows[1] - r0 + 1) * U + 2 * M

    def at(sq: int) -> tuple[float, float]:
        return M + (sq % 8 - c0) * U, M + (sq // 8 - r0) * U

    def inside(sq: int) -> bool:
        return ex.cols[0] <= sq % 8 <= ex.cols[1] and ex.rows[0] <= sq // 8 <= ex.rows[1]

    parts = [f'<rect width="{width}" height="{height}" fill="#fbfaf5"/>']
    for sq in range(64):
        if inside(sq) and sq not in data.central_squares:
            x, y = at(sq)
            parts.append(
                f'<rect x="{x + 1:g}" y="{y + 1:g}" width="{U - 2}" height="{U - 2}" rx="4" '
                f'fill="#ece9df"/>'
            )
    central = [sq for sq in data.central_squares if inside(sq)]
    if central:
        x, y = at(min(central))
        parts.append(
            f'<rect x="{x + 3:g}" y="{y + 3:g}" width="{2 * U - 6}" height="{2 * U - 6}" rx="10" '
            f'fill="#d8d2c2" stroke="#8c8170"/><text x="{x + U:g}" y="{y + U + 8:g}" '
            f'font-size="24" font-weight="bold" text-anchor="middle" fill="#5a5348">×2</text>'
        )
    for square, code in ex.tiles:
        parts += tile_parts(data, code, *at(parse_square(square)), U)
    colour = SEATS[data.seat_colours[done.player or 0]]
    for sq, e, x in trace(data, tiles, ex.station):
        d = track(*at(sq), e, x, U)
        parts.append(
            f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="6" stroke-linecap="round"/>'
        )
    parts += stations(data, ex, at, inside)
    return svg(width, height, parts)


def stations(data: MetroData, ex: Placement, at: object, inside: object) -> list[str]:
    """The numbered edge stations facing the window's squares, in their owners' colours."""
    assert callable(at) and callable(inside)
    owners = data.owners(2)
    parts = []
    offsets = ((0, -1), (1, 0), (0, 1), (-1, 0))
    for st in data.stations:
        if not inside(st.square):
            continue
        x, y = at(st.square)
        dx, dy = offsets[st.side]
        cx, cy = x + U / 2 + dx * (U / 2 + 14), y + U / 2 + dy * (U / 2 + 14)
        owner = owners[st.number - 1]
        fill = SEATS[data.seat_colours[owner]] if owner >= 0 else "#bbb"
        ring = ' stroke="#222" stroke-width="3"' if st.number == ex.station else ""
        parts.append(
            f'<rect x="{cx - 12:g}" y="{cy - 11:g}" width="24" height="22" rx="5" fill="{fill}"{ring}/>'
            f'<text x="{cx:g}" y="{cy + 5:g}" font-size="13" font-weight="bold" text-anchor="middle" '
            f'fill="#fff" class="edge-station">{st.number}</text>'
        )
    return parts


def diagrams() -> dict[str, str]:
    """Metro's diagrams by file name."""
    data = load_metro()
    return {
        "metro-tile.svg": tile_svg(data),
        "metro-route.svg": board_svg(data, ROUTE),
        "metro-centre.svg": board_svg(data, CENTRE),
    }
