"""Metro's pieces and board geometry, loaded from ``data/metro.json`` and validated once.

Source: ``docs/engine-rules-metro.md`` ("Board and pieces", "Routes and scoring"). The data file lists the
24 tile types (4-letter code, copy count, 4 tracks), the 32 edge stations (square, side,
departure and arrival endpoints), the 8 central-station faces, the allocation tables for 2–6
players and the seat colours. Everything the rules need at play time is precomputed here as flat
tuples of ints, so the hot path never touches names or dictionaries.

Board indexing: square ``sq = row * 8 + col`` (``A1`` = 0, ``H1`` = 7, ``A2`` = 8, ``H8`` = 63),
row 1 at the top (station 1 sits on H1's top side). A *position* is ``sq * 8 + endpoint``, the
endpoint numbered 0–7 clockwise from the north side's west point (0, 1 north; 2, 3 east; 4, 5
south; 6, 7 west). A train always *enters* a tile at an even endpoint and *leaves* at an odd one
(every track joins an even endpoint to an odd one, and an odd endpoint meets an even one across a
side), so a route's state is one position: the even entry where it waits for a tile.

*Arrival codes* (negative ints) say where a train leaving a tile ends: ``-(k + 1)`` for the
arrival of edge station index ``k`` (station number ``k + 1``), ``CENTRAL_BASE - j`` (``-33 - j``)
for central face ``j``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from metrogames.core.errors import DataError, NotationError
from metrogames.data import load_json
from metrogames.i18n import N_, msg

SIZE = 8
SQUARES = SIZE * SIZE
TILES = SQUARES - 4
"""Tiles in a game: one for every square but the four central stations'."""
SIDES = ("N", "E", "S", "W")
SIDE_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))
"""(row, column) step across each side N, E, S, W."""
COLUMN_LETTERS = "ABCDEFGH"
PLAYER_COUNTS = (2, 3, 4, 5, 6)
CENTRAL_BASE = -33
"""Arrival codes at or below this value are central stations (doubled)."""


def square_name(sq: int) -> str:
    """``"C5"`` for square index 34. Raises ``NotationError`` outside 0–63."""
    if not isinstance(sq, int) or isinstance(sq, bool) or not 0 <= sq < SQUARES:
        raise NotationError(f"no square with index {sq!r} (0-63)")
    return f"{COLUMN_LETTERS[sq % SIZE]}{sq // SIZE + 1}"


def parse_square(text: object) -> int:
    """The index of a square name such as ``"C5"`` or ``"c5"`` (column A–H, row 1–8).

    Central squares parse (they are squares); placing there is an illegal action.

    Raises:
        NotationError: not a string, or not a square of the 8×8 board.
    """
    if isinstance(text, str) and len(text) <= 4:
        t = text.strip().upper()
        if len(t) == 2 and t[0] in COLUMN_LETTERS and t[1] in "12345678":
            return (int(t[1]) - 1) * SIZE + COLUMN_LETTERS.index(t[0])
    shown = repr(text) if len(repr(text)) <= 40 else repr(text)[:37] + "..."
    raise NotationError(
        msg(N_("unknown square {square}: a Metro square is A-H and 1-8, like C5"), square=shown)
    )


@dataclass(frozen=True, slots=True)
class EdgeStation:
    """An edge station: ``number`` 1–32, its ``square`` index, ``side`` (0–3 for N, E, S, W),
    ``departure`` (even) and ``arrival`` (odd) endpoints on that side."""

    number: int
    square: int
    side: int
    departure: int
    arrival: int


class MetroData:
    """The validated Metro data with the precomputed play tables. Build with :func:`load_metro`.

    Attributes (all immutable):
        tile_codes: the 24 type codes in data order; a *tile type index* is a position here.
        tile_index: code -> tile type index.
        tile_counts: copies per type (sum 60).
        conn: per tile type, the 8-tuple giving each endpoint's partner along its track.
        stations: the 32 :class:`EdgeStation` in number order (index = number - 1).
        central_faces: ``(square, side)`` of the 8 tile sides facing the central block.
        allocations: player count -> per seat, the station numbers owned.
        unused: player count -> station numbers owned by nobody.
        seat_colours: the 6 seat colours.
        central_mask / edge_mask / playable_mask: square bitsets (central 4, edge 28, the 60).
        neighbours: per square, the bitset of its orthogonal non-central neighbours.
        step: per position ``sq*8+x`` with odd ``x``, where a train leaving there goes: the
            next entry position (>= 0) or an arrival code (< 0).
        advance: per tile type, per entry position ``sq*8+e`` (even ``e``), the result of
            crossing a tile of that type on ``sq``: ``step[sq*8 + conn[t][e]]``.
        departure_pos: per edge station index, its departure position.
        one_tile: per tile type, the squares where that tile would make a one-tile route.

    Raises:
        DataError: on construction, when a count, a track, a station or a table is wrong.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        try:
            self._build(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise DataError(f"malformed Metro data: {exc!r}") from exc
        self._tables()

    # -- reading and validating ----------------------------------------------------------
    def _build(self, data: Mapping[str, Any]) -> None:
        board = data["board"]
        if (board["columns"], board["rows"]) != (SIZE, SIZE):
            raise DataError("the Metro board must be 8x8")
        if tuple(data["sides"]) != SIDES:
            raise DataError(f"sides must be {SIDES}")
        self.neighbour_endpoint: tuple[int, ...] = tuple(data["neighbour_endpoint"])
        for e, m in enumerate(self.neighbour_endpoint):
            # across side s lies the neighbour's side s+2; an even endpoint meets an odd one
            if m // 2 != (e // 2 + 2) % 4 or (m + e) % 2 != 1 or self.neighbour_endpoint[m] != e:
                raise DataError(f"neighbour_endpoint[{e}] = {m} is not the facing endpoint")
        central = tuple(sorted(parse_square(n) for n in board["central_squares"]))
        if len(set(central)) != 4:
            raise DataError("there must be 4 central squares")
        self.central_squares: tuple[int, ...] = central
        self._read_tiles(data["tile_types"])
        self._read_stations(data["stations"])
        self._read_faces(data["central_station_faces"])
        self._read_allocations(data)
        self._check_values(data["check_values"])

    def _read_tiles(self, tile_types: Any) -> None:
        codes: list[str] = []
        counts: list[int] = []
        conns: list[tuple[int, ...]] = []
        for t in tile_types:
            code = t["code"]
            if not (isinstance(code, str) and len(code) == 4 and set(code) <= set("abcd")):
                raise DataError(f"bad tile code {code!r}")
            if code in codes:
                raise DataError(f"tile type {code} listed twice")
            count = t["count"]
            if not isinstance(count, int) or count < 1:
                raise DataError(f"tile {code}: bad count {count!r}")
            codes.append(code)
            counts.append(count)
            conns.append(_tracks(code, t["tracks"]))
        self.tile_codes: tuple[str, ...] = tuple(codes)
        self.tile_index: dict[str, int] = {c: i for i, c in enumerate(codes)}
        self.tile_counts: tuple[int, ...] = tuple(counts)
        self.conn: tuple[tuple[int, ...], ...] = tuple(conns)

    def _read_stations(self, listed: Any) -> None:
        stations = []
        for i, s in enumerate(listed):
            side = SIDES.index(s["side"])
            st = EdgeStation(
                s["number"], parse_square(s["square"]), side, s["departure"], s["arrival"]
            )
            if st.number != i + 1:
                raise DataError(f"station {st.number} listed at position {i + 1}")
            if (st.departure, st.arrival) != (2 * side, 2 * side + 1):
                raise DataError(
                    f"station {st.number}: departure/arrival are not the even/odd "
                    f"endpoints of side {s['side']}"
                )
            if _neighbour(st.square, side) is not None:
                raise DataError(
                    f"station {st.number}: {s['square']} {s['side']} is not on the edge"
                )
            stations.append(st)
        self.stations: tuple[EdgeStation, ...] = tuple(stations)
        if [(s.square, s.side) for s in stations] != _station_places():
            raise DataError("edge stations are not numbered 1-32 anticlockwise from H1's top side")

    def _read_faces(self, listed: Any) -> None:
        central = self.central_squares
        faces = []
        for f in listed:
            sq, side = parse_square(f["square"]), SIDES.index(f["side"])
            if sq in central or _neighbour(sq, side) not in central:
                raise DataError(f"central face {f['square']} {f['side']} does not face the centre")
            faces.append((sq, side))
        if len(set(faces)) != 8:
            raise DataError("there must be 8 distinct central-station faces")
        self.central_faces: tuple[tuple[int, int], ...] = tuple(faces)

    def _read_allocations(self, data: Mapping[str, Any]) -> None:
        colours = tuple(data["seat_colours"])
        if len(colours) != 6 or len(set(colours)) != 6:
            raise DataError("there must be 6 distinct seat colours")
        self.seat_colours: tuple[str, ...] = colours
        allocations: dict[int, tuple[tuple[int, ...], ...]] = {}
        unused: dict[int, tuple[int, ...]] = {}
        for key, table in data["allocations"].items():
            n = int(key)
            seats = tuple(tuple(seat) for seat in table["stations"])
            if n not in PLAYER_COUNTS or len(seats) != n:
                raise DataError(f"allocation for {key} players has {len(seats)} seats")
            free = tuple(table["unused"])
            listed = [x for seat in seats for x in seat] + list(free)
            if sorted(listed) != list(range(1, 33)):
                raise DataError(
                    f"allocation for {n} players does not share stations 1-32 once each"
                )
            if len({len(seat) for seat in seats}) != 1:
                raise DataError(f"allocation for {n} players gives seats different station counts")
            allocations[n], unused[n] = seats, free
        if sorted(allocations) != list(PLAYER_COUNTS):
            raise DataError("allocations must cover 2 to 6 players")
        self.allocations: dict[int, tuple[tuple[int, ...], ...]] = allocations
        self.unused: dict[int, tuple[int, ...]] = unused

    def _check_values(self, check_values: Any) -> None:
        counts_now = {
            "tile_types": len(self.tile_codes),
            "tiles": sum(self.tile_counts),
            "stations": len(self.stations),
            "central_station_faces": len(self.central_faces),
        }
        for key, expected in check_values.items():
            if key not in counts_now:
                raise DataError(f"unknown check value {key!r}")
            if counts_now[key] != expected:
                raise DataError(f"Metro data: {key} is {counts_now[key]}, expected {expected}")
        if counts_now["tiles"] != SQUARES - 4:
            raise DataError(f"Metro needs 60 tiles, the data has {counts_now['tiles']}")

    # -- play tables ---------------------------------------------------------------------
    def _tables(self) -> None:
        central = set(self.central_squares)
        self.central_mask: int = _mask(central)
        self.playable_mask: int = ((1 << SQUARES) - 1) & ~self.central_mask
        self.edge_mask: int = _mask(
            sq for sq in range(SQUARES) if any(_neighbour(sq, s) is None for s in range(4))
        )
        self.neighbours: tuple[int, ...] = tuple(
            _mask(n for s in range(4) if (n := _neighbour(sq, s)) is not None and n not in central)
            for sq in range(SQUARES)
        )
        arrival_of: dict[tuple[int, int], int] = {}
        for k, st in enumerate(self.stations):
            arrival_of[(st.square, st.arrival)] = -(k + 1)
        for j, (sq, side) in enumerate(self.central_faces):
            arrival_of[(sq, 2 * side + 1)] = CENTRAL_BASE - j
        step = [0] * (SQUARES * 8)
        for sq in range(SQUARES):
            if sq in central:
                continue
            for x in range(1, 8, 2):
                nb = _neighbour(sq, x // 2)
                if nb is None or nb in central:
                    if (sq, x) not in arrival_of:
                        raise DataError(f"{square_name(sq)} endpoint {x} leads to no station")
                    step[sq * 8 + x] = arrival_of[(sq, x)]
                else:
                    step[sq * 8 + x] = nb * 8 + self.neighbour_endpoint[x]
        self.step: tuple[int, ...] = tuple(step)
        self.advance: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                step[(p & ~7) + conn[p & 7]] if (p & 1) == 0 and (p >> 3) not in central else 0
                for p in range(SQUARES * 8)
            )
            for conn in self.conn
        )
        self.departure_pos: tuple[int, ...] = tuple(
            st.square * 8 + st.departure for st in self.stations
        )
        self.one_tile: tuple[int, ...] = tuple(
            _mask(
                st.square
                for st in self.stations
                if self.advance[t][st.square * 8 + st.departure] < 0
            )
            for t in range(len(self.tile_codes))
        )

    # -- names ---------------------------------------------------------------------------
    def tile(self, code: object) -> int:
        """The tile type index of ``code`` (e.g. ``"cbaa"``, case-insensitive).

        Raises:
            NotationError: not one of the 24 tile type codes.
        """
        if isinstance(code, str):
            idx = self.tile_index.get(code.strip().lower())
            if idx is not None:
                return idx
        shown = repr(code) if len(repr(code)) <= 40 else repr(code)[:37] + "..."
        raise NotationError(
            msg(N_("unknown Metro tile {tile} (a 4-letter type code such as cbaa)"), tile=shown)
        )

    def owners(self, players: int) -> tuple[int, ...]:
        """Per edge station index, the seat owning it with ``players`` players, or -1."""
        out = [-1] * len(self.stations)
        for seat, numbers in enumerate(self.allocations[players]):
            for number in numbers:
                out[number - 1] = seat
        return tuple(out)



def _mask(squares: Iterable[int]) -> int:
    """The bitset of ``squares`` (each counted once)."""
    out = 0
    for sq in squares:
        out |= 1 << sq
    return out



def _tracks(code: str, tracks: Any) -> tuple[int, ...]:
    """The endpoint each endpoint of tile ``code`` joins, from its 4 ``[a, b]`` tracks.

    Raises:
        DataError: not 4 tracks, an endpoint reused or out of 0-7, a track that does not join
            an even endpoint to an odd one, or tracks that do not spell ``code``.
    """
    conn = [-1] * 8
    if len(tracks) != 4:
        raise DataError(f"tile {code}: {len(tracks)} tracks, expected 4")
    for a, b in tracks:
        if not (0 <= a < 8 and 0 <= b < 8) or conn[a] != -1 or conn[b] != -1:
            raise DataError(f"tile {code}: track [{a}, {b}] reuses or misses an endpoint")
        if (a + b) % 2 != 1:
            raise DataError(
                f"tile {code}: track [{a}, {b}] does not join an even endpoint to an odd one"
            )
        conn[a], conn[b] = b, a
    if _code_of(conn) != code:
        raise DataError(f"tile {code}: its tracks spell {_code_of(conn)}")
    return tuple(conn)

def _code_of(conn: list[int] | tuple[int, ...]) -> str:
    """The tile code spelled by a track table (data file's ``tile_code`` rule)."""
    letters = []
    for side in range(4):
        other = conn[2 * side] // 2
        letters.append("dbac"[(other - side) % 4])
    return "".join(letters)


def _neighbour(sq: int, side: int) -> int | None:
    row, col = divmod(sq, SIZE)
    dr, dc = SIDE_STEP[side]
    r, c = row + dr, col + dc
    return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else None


def _station_places() -> list[tuple[int, int]]:
    """(square, side) of stations 1–32: anticlockwise from the top side of H1."""
    top = [(0 * SIZE + c, 0) for c in range(SIZE - 1, -1, -1)]
    left = [(r * SIZE + 0, 3) for r in range(SIZE)]
    bottom = [((SIZE - 1) * SIZE + c, 2) for c in range(SIZE)]
    right = [(r * SIZE + SIZE - 1, 1) for r in range(SIZE - 1, -1, -1)]
    return top + left + bottom + right


@cache
def load_metro() -> MetroData:
    """The Metro data (``metro.json`` in the package), validated and indexed once.

    Raises:
        DataError: the file is missing, malformed or fails a check (60 tiles, tracks joining an
            even endpoint to an odd one, 32 stations on the edge, allocations for 2–6 players).
    """
    return MetroData(load_json("metro.json"))
