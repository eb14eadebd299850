"""Metro's public JSON for clients: the board's drawing data and the game's part of a view.

Contract: ``docs/web-api.md``, "Boards" and "Views". The drawing data come from the Metro data
file (squares, tile tracks, edge stations, allocations); the view from a state as
:meth:`MetroState.view` shows it to a seat (others' held tiles and the pile order are hidden by
the engine). They back the game's capabilities (:mod:`metrogames.core.capabilities`): the
engine's ``board_json`` (``Boards``), the state's ``view_json`` (``Presented``) and ``observe``
(``Observable``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from metrogames.core.protocol import CHANCE, JsonObject
from metrogames.games.metro.actions import MetroAction
from metrogames.games.metro.board import Route
from metrogames.games.metro.options import ONE_TILE_ROUTES, TURN_MODES
from metrogames.games.metro.shapes import LastJson, MetroViewPart, RouteJson, Side, TrainJson
from metrogames.games.metro.tiles import SIDES, load_metro, square_name

TITLE = "Metro"
SIDE_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
VIEW_SIDES: tuple[Side, ...] = ("north", "east", "south", "west")
"""Side names by endpoint pair (endpoints 0-1 north, 2-3 east, 4-5 south, 6-7 west)."""
ENDPOINTS = (
    "endpoints 0-7 sit two per side, clockwise from the north side's west point: "
    "0 north-west, 1 north-east, 2 east-north, 3 east-south, 4 south-east, 5 south-west, "
    "6 west-south, 7 west-north; a track joins an even endpoint to an odd one; an edge "
    "station's train departs from the even endpoint of its side and arrives at the odd one"
)

if TYPE_CHECKING:
    from metrogames.games.metro.state import MetroState
OPTIONS: dict[str, tuple[str, ...]] = {
    "turn_mode": TURN_MODES,
    "one_tile_routes": ONE_TILE_ROUTES,
}
"""Option name -> its values, the default first (``docs/notation.md``, "Options")."""
SQUARE_NAMES = tuple(square_name(sq) for sq in range(64))
"""Square index -> its name (``"C5"``), for the views written after every action."""


def board_json() -> JsonObject:
    """The drawing data of Metro (``docs/web-api.md``, "Boards"): squares, tiles with their
    tracks, edge and central stations, allocations per player count, seat colours."""
    data = load_metro()
    central = set(data.central_squares)
    return {
        "game": "metro",
        "title": TITLE,
        "grid": {"columns": 8, "rows": 8},
        "squares": [
            {"name": square_name(sq), "col": sq % 8, "row": sq // 8, "central": sq in central}
            for sq in range(64)
        ],
        "tiles": [
            {"code": code, "tracks": [[e, conn[e]] for e in range(0, 8, 2)], "count": count}
            for code, count, conn in zip(data.tile_codes, data.tile_counts, data.conn, strict=True)
        ],
        "endpoints": ENDPOINTS,
        "stations": [
            {
                "number": s.number,
                "square": square_name(s.square),
                "side": SIDE_NAMES[SIDES[s.side]],
                "departure": s.departure,
                "arrival": s.arrival,
            }
            for s in data.stations
        ],
        "central_stations": [
            {"square": square_name(sq), "side": SIDE_NAMES[SIDES[side]]}
            for sq, side in data.central_faces
        ],
        "allocations": {
            str(n): [list(seat) for seat in seats] for n, seats in sorted(data.allocations.items())
        },
        "unused": {str(n): list(v) for n, v in sorted(data.unused.items())},
        "colours": list(data.seat_colours),
    }


def _placements(state: MetroState) -> tuple[dict[int, int], int]:
    """Square -> the seat that placed its tile, and the last square placed (-1: none)."""
    placed_by: dict[int, int] = {}
    last = -1
    for who, action in state.history():
        if who != CHANCE and isinstance(action, MetroAction) and not action.is_draw:
            placed_by[action.square] = who
            last = action.square
    return placed_by, last


def _trains(state: MetroState) -> list[TrainJson]:
    """Where each open route's train waits, in station order: the empty square, the side it
    enters by and the exact endpoint (0–7, :data:`ENDPOINTS`)."""
    board = state.board
    out: list[TrainJson] = []
    for pos, k in sorted(board.waiting.items(), key=lambda item: item[1]):
        owner = board.owners[k]
        out.append(
            {
                "station": k + 1,
                "seat": owner if owner >= 0 else None,
                "square": SQUARE_NAMES[pos >> 3],
                "side": VIEW_SIDES[(pos & 7) // 2],
                "endpoint": pos & 7,
                "tiles": board.route_len[k],
            }
        )
    return out


def _routes(routes: list[Route]) -> list[RouteJson]:
    return [r.to_json() for r in routes]


def view_json(state: MetroState, you: int | None) -> MetroViewPart:
    """The Metro part of a view (``docs/web-api.md``, "Views") of ``state`` — a view of seat
    ``you`` (``None``: a spectator) or a full state of a finished game. Reads only what
    ``state`` shows: ``hand`` is ``you``'s own held tiles."""
    board = state.board
    placed_by, last_square = _placements(state)
    last: LastJson | None = None
    last_tile = board.tile_at(last_square) if last_square >= 0 else None
    if last_tile is not None:
        last = {
            "square": SQUARE_NAMES[last_square],
            "tile": last_tile,
            "by": placed_by[last_square],
            "routes": _routes(state.last_completed()),
        }
    return {
        "scores": state.scores(),
        "board": [
            {"square": SQUARE_NAMES[sq], "tile": tile, "by": placed_by.get(sq)}
            for sq, tile in enumerate(map(board.tile_at, range(64)))
            if tile is not None
        ],
        "pile": state.pile_size,
        "hand": list(state.hand(you)) if you is not None else [],
        "drawn": state.drawn_tile,  # placed at once, face up: never a held tile
        "trains": _trains(state),
        "routes": _routes(state.routes()),
        "longest": state.longest_routes(),
        "last": last,
    }


def observe(view: MetroState, seat: int) -> JsonObject:
    """``view``'s facts for ``seat`` (``view`` should be ``state.view(seat)``), for learning
    environments: :func:`view_json` of the view for ``seat`` and ``"held"``, how many tiles
    each seat holds (seat order; its own included)."""
    return {
        **cast(JsonObject, view_json(view, seat)),
        "held": [len(view.hand(p)) for p in range(view.num_players)],
    }
