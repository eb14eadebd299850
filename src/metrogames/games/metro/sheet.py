"""Score a Metro score sheet: the placements copied off a physical board.

Source: ``docs/notation.md``, "Score sheet" and ``score --json``. A Metro sheet::

    {"game": "metro", "player_count": 2,
     "placements": [{"square": "A1", "tile": "baac"}, ...],
     "options": {"one_tile_routes": "forbidden"}}

Placements are in order (the board may be partial) and are checked one by one under the options
(``docs/engine-rules-metro.md``, "Placing a tile"): a known tile and square, no more copies of a tile than
exist, an empty non-central square touching the edge or a tile, and the one-tile-route rule when
forbidden. Whether the tiles could have come from a real pile is ``replay``'s job.
"""

from __future__ import annotations

from typing import Any

from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.core.protocol import JsonObject, is_object
from metrogames.games.metro.actions import metro_action_from_json
from metrogames.games.metro.board import MetroBoard
from metrogames.games.metro.options import MetroOptions
from metrogames.games.metro.state import MAX_PLAYERS, MIN_PLAYERS
from metrogames.games.metro.tiles import SQUARES, TILES, load_metro, square_name
from metrogames.i18n import N_, msg

SHEET_KEYS = frozenset({"game", "player_count", "placements", "options"})


def metro_sheet_board(sheet: object) -> MetroBoard:
    """Check a Metro sheet placement by placement and return the resulting board.

    Raises:
        RecordError: not an object, unknown or missing keys, wrong types, a wrong game, a
            player count outside 2–6, more than 60 placements.
        NotationError: an unknown option, square or tile (naming the placement).
        IllegalActionError: the first illegal placement (``turn`` = its 1-based number), with
            reason ``central-square``, ``square-occupied``, ``not-adjacent``, ``one-tile-route``
            or ``no-tile-left`` (more copies of a tile than exist).
    """
    head = _check_head(sheet)
    n = head["player_count"]
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RecordError(f"player_count must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}")
    options = MetroOptions.from_json(head.get("options"))
    placements = head["placements"]
    if not isinstance(placements, list):
        raise RecordError('placements must be a list of {"square", "tile"} objects')
    if len(placements) > TILES:
        raise RecordError(f"a board takes {TILES} tiles, the sheet lists {len(placements)}")
    data = load_metro()
    board = MetroBoard(data, data.owners(n), n)
    used = [0] * len(data.tile_codes)
    forbidden = options.one_tile_forbidden
    for i, raw in enumerate(placements):
        try:
            action = metro_action_from_json(raw)
            if action.is_draw or action.tile is None:
                raise NotationError("a sheet placement names its square and tile")
        except NotationError as exc:
            raise NotationError(f"placement {i + 1}: {exc}") from None
        t = data.tile_index[action.tile]
        try:
            if used[t] >= data.tile_counts[t]:
                raise IllegalActionError.of(
                    "no-tile-left",
                    msg(
                        N_("{tile} on {square}: all {count} tiles {tile} are already placed"),
                        tile=action.tile,
                        square=square_name(action.square),
                        count=data.tile_counts[t],
                    ),
                )
            board.check_place(action.square, t, forbidden)
        except IllegalActionError as exc:
            sq = action.square
            square = square_name(sq) if 0 <= sq < SQUARES else sq  # off-board: the index
            item = {"placement": i + 1, "square": square, "tile": action.tile}
            raise exc.at(turn=i + 1).with_item(**item) from None
        used[t] += 1
        board.place(action.square, t)
    return board


def score_metro_sheet(sheet: object) -> dict[str, Any]:
    """Check a Metro sheet (see :func:`metro_sheet_board`) and score it.

    Returns:
        ``{"scores": [points per seat], "routes": [{"station": 6, "player": 1, "tiles": 3,
        "central": false, "points": 3}, ...]}`` — completed routes only, in the order they
        completed; a route from an unallocated station has ``"player": null`` and 0 points.

    Raises:
        RecordError, NotationError, IllegalActionError: as :func:`metro_sheet_board`.
    """
    board = metro_sheet_board(sheet)
    return {"scores": board.scores[:], "routes": [r.to_json() for r in board.routes()]}


def _check_head(sheet: object) -> JsonObject:
    """``sheet``, an object with only a sheet's keys, the required ones among them, of Metro."""
    if not is_object(sheet):
        raise RecordError(f"a score sheet must be a JSON object, not {type(sheet).__name__}")
    unknown = set(sheet) - SHEET_KEYS
    if unknown:
        raise RecordError(
            f"unknown key(s) in the sheet: {', '.join(sorted(map(str, unknown)))[:80]}"
        )
    for key in ("game", "player_count", "placements"):
        if key not in sheet:
            raise RecordError(f'the Metro sheet has no "{key}"')
    if sheet["game"] != "metro":
        raise RecordError(f"not a Metro sheet: game is {str(sheet['game'])[:40]!r}")
    return sheet
