"""Metro's entry in the game registry.

Imported by :mod:`metrogames.games.registry` the first time ``metro`` is asked for. Everything
adapters need of Metro goes through these hooks: making a game from options, records, deal
manifests, score sheets, the drawing data and the JSON of a view.
"""

from __future__ import annotations

from functools import cache
from typing import cast

from metrogames.core.errors import NotationError, OptionError, RecordError, message_of
from metrogames.core.protocol import Action, Game, GameType, JsonObject, OptionSpec, Preset, State
from metrogames.games.metro import present
from metrogames.games.metro.heuristic import metro_heuristic
from metrogames.games.metro.options import MetroOptions
from metrogames.games.metro.record import read_metro_record, replay_metro_record
from metrogames.games.metro.shapes import MetroViewPart
from metrogames.games.metro.sheet import score_metro_sheet
from metrogames.games.metro.state import MAX_PLAYERS, MIN_PLAYERS, MetroGame, MetroState
from metrogames.games.metro.tiles import load_metro
from metrogames.games.registry import register_game
from metrogames.i18n import N_, msg


@cache
def _game(players: int, options: MetroOptions) -> MetroGame:
    return MetroGame(players, options)


def _make(players: int, options: JsonObject) -> Game[Action]:
    try:
        parsed = MetroOptions.from_json(options)
    except NotationError as exc:
        raise OptionError(
            msg(N_("{game} options: {detail}"), game="metro", detail=message_of(exc))
        ) from None
    return cast(Game[Action], _game(players, parsed))


def _replay(data: object) -> State[Action]:
    return cast(State[Action], replay_metro_record(data))


def _record_start(data: object) -> State[Action]:
    return cast(State[Action], read_metro_record(data).new_state())


def _from_deal(data: object, players: int) -> State[Action]:
    other = data.get("game") if isinstance(data, dict) else None
    if other != "metro":
        raise RecordError(f"a {other} deal, not a metro one")
    record = read_metro_record(data)
    if record.turns:
        raise RecordError("a deal record has no turns")
    if len(record.players) != players:
        raise RecordError(f"a deal for {len(record.players)} players, not {players}")
    return cast(State[Action], record.game.from_pile(record.tiles))


def _heuristic(state: State[Action], player: int) -> float:
    return metro_heuristic(cast(MetroState, state), player)


def _view_json(state: State[Action], you: int | None) -> JsonObject:
    return cast(JsonObject, present.view_json(cast(MetroState, state), you))


def _observe(view: State[Action], seat: int) -> JsonObject:
    return present.observe(cast(MetroState, view), seat)


TILES = sum(load_metro().tile_counts)
TRACKS_PER_TILE = 4
SCORE_RANGE = (0, 2 * TRACKS_PER_TILE * TILES)
"""Bounds of a final score (``docs/metro.md``, "Routes and scoring"): a route scores a point per tile
it traverses, doubled at a central station, and each traversal runs along one of the tile's
4 tracks, each track on one route at most: all routes together traverse at most 4 × 60."""
MAX_GAME_LENGTH = 2 * TILES
"""Each tile is placed once, with at most one draw decision before it (official-hand)."""


PRESETS = {
    "seed": Preset(
        N_("Original rules"),
        {"turn_mode": "draw", "one_tile_routes": "allowed"},
        N_("draw the top tile and place it; one-tile routes allowed"),
    ),
    "box": Preset(
        N_("Publisher's box rules"),
        {"turn_mode": "official-hand", "one_tile_routes": "forbidden"},
        N_(
            "hold one tile: place it or a newly drawn one; no one-tile route unless no other "
            "square is legal"
        ),
    ),
}
"""Metro's rule sets (``docs/metro.md``, "A turn", "Placing a tile"): the original rules (the
project seed's, the default options) and the publisher's box rules."""


register_game(
    GameType(
        name="metro",
        title=present.TITLE,
        players=range(MIN_PLAYERS, MAX_PLAYERS + 1),
        dynamics="sequential",
        options={
            name: OptionSpec(values[0], tuple(values)) for name, values in present.OPTIONS.items()
        },
        make=_make,
        replay=_replay,
        record_start=_record_start,
        from_deal=_from_deal,
        score_sheet=score_metro_sheet,
        board_json=cache(present.board_json),
        view_json=_view_json,
        view_type=MetroViewPart,
        family="metro",
        presets=PRESETS,
        heuristic=_heuristic,
        coach_figure="win",
        observe=_observe,
        score_range=SCORE_RANGE,
        max_game_length=MAX_GAME_LENGTH,
    )
)
