"""Metro (Dirk Henn): the tile-laying rules engine. Source: ``docs/engine-rules-metro.md``.

Modules, in the order data flows:

* :mod:`.tiles` — the data file ``metro.json`` validated into :class:`MetroData` with the play
  tables (tile tracks, stations, allocations, precomputed route steps and one-tile squares);
  square names (:func:`parse_square`, :func:`square_name`).
* :mod:`.board` — :class:`MetroBoard`: tiles as a ``bytearray`` plus bitsets, trains moved
  incrementally, scores kept up to date; :func:`recount` recomputes them from scratch.
* :mod:`.actions` — :class:`MetroAction`, :data:`DRAW` and their text/JSON/index notation.
* :mod:`.options`, :mod:`.state` — :class:`MetroOptions`, :class:`MetroGame`,
  :class:`MetroState` (the game protocol: chance draws, turns, views of hidden tiles).
* :mod:`.record`, :mod:`.sheet` — records (write, read, replay) and score sheets.
* :mod:`.snapshot` — position snapshots (``metro/1 ...``, one line that round-trips a state).

The engine's action type is :data:`MetroPlay` (``MetroAction | str``: player actions and chance
outcomes, tile type codes).

Quick use::

    game = MetroGame(players=2, options=MetroOptions(turn_mode="draw"))
    state = game.new_game(seed=7)
    while not state.is_over():
        player = state.to_move_player()
        state = state.apply(player, state.legal_actions(player)[0])
"""

from metrogames.core.protocol import HIDDEN
from metrogames.games.metro.actions import (
    DRAW,
    NUM_ACTIONS,
    MetroAction,
    MetroPlay,
    format_metro_action,
    metro_action_from_index,
    metro_action_from_json,
    metro_action_index,
    metro_action_to_json,
    parse_metro_action,
)
from metrogames.games.metro.board import MetroBoard, Route, recount
from metrogames.games.metro.options import ONE_TILE_ROUTES, TURN_MODES, MetroOptions
from metrogames.games.metro.record import MetroRecord, read_metro_record, replay_metro_record
from metrogames.games.metro.record_write import metro_deal_record, metro_record
from metrogames.games.metro.sheet import metro_sheet_board, score_metro_sheet
from metrogames.games.metro.snapshot import read_snapshot, write_snapshot
from metrogames.games.metro.state import MetroGame, MetroState
from metrogames.games.metro.tiles import MetroData, load_metro, parse_square, square_name

__all__ = [
    "DRAW",
    "HIDDEN",
    "NUM_ACTIONS",
    "ONE_TILE_ROUTES",
    "TURN_MODES",
    "MetroAction",
    "MetroBoard",
    "MetroData",
    "MetroGame",
    "MetroOptions",
    "MetroPlay",
    "MetroRecord",
    "MetroState",
    "Route",
    "format_metro_action",
    "load_metro",
    "metro_action_from_index",
    "metro_action_from_json",
    "metro_action_index",
    "metro_action_to_json",
    "metro_deal_record",
    "metro_record",
    "metro_sheet_board",
    "parse_metro_action",
    "parse_square",
    "read_metro_record",
    "read_snapshot",
    "recount",
    "replay_metro_record",
    "score_metro_sheet",
    "square_name",
    "write_snapshot",
]
