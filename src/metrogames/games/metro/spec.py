"""Metro's entry in the game registry: its :class:`GameType` and its engine.

Imported by :mod:`metrogames.games.registry` the first time ``metro`` is asked for. The facts
(options, rule sets, score range, game length, bot tuning) are stated here; the
:class:`MetroEngine` makes games and reads records, deal manifests and score sheets, and gives
the drawing data; the states provide the position capabilities themselves
(:class:`~metrogames.games.metro.state.MetroState`: view JSON, estimate, observations;
``docs/design.md``, "Capabilities").
"""

from __future__ import annotations

from functools import cache

from metrogames.core.errors import NotationError, OptionError, RecordError, message_of
from metrogames.core.protocol import (
    BotSetting,
    GameType,
    JsonObject,
    OptionSpec,
    Preset,
    Tutorial,
)
from metrogames.games.known import register_game
from metrogames.games.metro import present
from metrogames.games.metro.options import MetroOptions
from metrogames.games.metro.record import read_metro_record, replay_metro_record
from metrogames.games.metro.shapes import MetroViewPart
from metrogames.games.metro.sheet import score_metro_sheet
from metrogames.games.metro.state import MAX_PLAYERS, MIN_PLAYERS, MetroGame, MetroState
from metrogames.games.metro.tiles import load_metro
from metrogames.i18n import N_, msg


@cache
def _game(players: int, options: MetroOptions) -> MetroGame:
    return MetroGame(players, options)


class MetroEngine:
    """The engine behind ``metro`` (:class:`~metrogames.core.capabilities.Engine`, with
    ``Boards`` and ``ScoreSheets``)."""

    def make(self, players: int, options: JsonObject) -> MetroGame:
        """The game (one shared frozen value per player count and options).

        Raises:
            OptionError: a bad option value (``"metro options: ..."``).
        """
        try:
            parsed = MetroOptions.from_json(options)
        except NotationError as exc:
            raise OptionError(
                msg(N_("{game} options: {detail}"), game="metro", detail=message_of(exc))
            ) from None
        return _game(players, parsed)

    def replay(self, record: object) -> MetroState:
        """The record replayed to its last state (``docs/notation.md``, "Game record")."""
        return replay_metro_record(record)

    def record_start(self, record: object) -> MetroState:
        """The record's first state (its pile, when known)."""
        return read_metro_record(record).new_state()

    def from_deal(self, deal: object, players: int) -> MetroState:
        """The first state of a Metro deal record (its pile, no turns) for ``players``.

        Raises:
            RecordError: another game's deal, one with turns, or one for another player
                count.
        """
        other = deal.get("game") if isinstance(deal, dict) else None
        if other != "metro":
            raise RecordError(f"a {other} deal, not a metro one")
        record = read_metro_record(deal)
        if record.turns:
            raise RecordError("a deal record has no turns")
        if len(record.players) != players:
            raise RecordError(f"a deal for {len(record.players)} players, not {players}")
        return record.game.from_pile(record.tiles)

    def score_sheet(self, sheet: object) -> JsonObject:
        """``ScoreSheets``: the ``score --json`` result of a Metro sheet (placements in
        order)."""
        return score_metro_sheet(sheet)

    def board_json(self) -> JsonObject:
        """``Boards``: Metro's drawing data (:func:`.present.board_json`), built once."""
        return _board_json()


_board_json = cache(present.board_json)

TILES = sum(load_metro().tile_counts)
TRACKS_PER_TILE = 4
SCORE_RANGE = (0, 2 * TRACKS_PER_TILE * TILES)
"""Bounds of a final score (``docs/engine-rules-metro.md``, "Routes and scoring"): a route scores a point per tile
it traverses, doubled at a central station, and each traversal runs along one of the tile's
4 tracks, each track on one route at most: all routes together traverse at most 4 × 60."""
MAX_GAME_LENGTH = 2 * TILES
"""Each tile is placed once, with at most one draw decision before it (official-hand)."""


PRESETS = {
    "seed": Preset(
        N_("Original rules"),
        {"turn_mode": "draw", "one_tile_routes": "allowed"},
        N_("draw the top tile and place it; one-tile routes allowed"),
        brief="the default",
    ),
    "box": Preset(
        N_("Publisher's box rules"),
        {"turn_mode": "official-hand", "one_tile_routes": "forbidden"},
        N_(
            "hold one tile: place it or a newly drawn one; no one-tile route unless no other "
            "square is legal"
        ),
        brief="the publisher's: official-hand, one-tile routes forbidden",
    ),
}
"""Metro's rule sets (``docs/engine-rules-metro.md``, "A turn", "Placing a tile"): the original rules (the
project seed's, the default options) and the publisher's box rules."""

OPTION_HELP = {
    "turn_mode": "Metro: draw (default), hand or official-hand.",
    "one_tile_routes": "Metro: one-tile routes allowed (default) or forbidden.",
}
"""Option name -> its command-line flag's help."""

BOT_LEVELS = {
    "medium": BotSetting("heuristic", 1),
    "hard": BotSetting("lookahead", 8, width=4, rounds=1),
    "expert": BotSetting("lookahead", 32, width=6, rounds=2),
}
"""Metro's bot levels, chosen by measured strength and time per decision
(``benchmarks/bots.py``; the figures are in the README's "Bots" table): the greedy player closes
its own routes as soon as they score and loses to random, so

* ``medium`` is the one-ply heuristic player (:mod:`metrogames.bots.heuristic`, on the
  state's estimate of its open routes; about 1 ms a decision), which won all of 300 2-player
  games against random;
* ``hard`` a short heuristic lookahead (:mod:`metrogames.bots.lookahead`: the 4 best actions
  followed for one round of decisions on 8 determinizations), 30–60 ms with 2 players;
* ``expert`` a deeper lookahead (the 6 best actions followed for two rounds on 32
  determinizations), 0.3 s a decision with 2 players, 0.7 s with 4 (p95 1.4 s): against three
  ``medium`` bots it won 52.1 % of 120 4-player games (on the first 60, 52.5 % where 16 won
  43.3 %).
"""

TUTORIAL = Tutorial(seed=20261130, bot_opening=("adad B1",))
"""Metro's guided first game, against one bot: the deal of this seed (the web table's
``static/tutorials.json`` steps through its tiles), the bot's first tile played as written —
the third step scores a route across it (B1) — then the bot plays on its own."""


register_game(
    GameType(
        name="metro",
        title=present.TITLE,
        players=range(MIN_PLAYERS, MAX_PLAYERS + 1),
        dynamics="sequential",
        options={
            name: OptionSpec(values[0], tuple(values), help=OPTION_HELP[name])
            for name, values in present.OPTIONS.items()
        },
        view_type=MetroViewPart,
        family="metro",
        presets=PRESETS,
        coach_figure="win",
        score_range=SCORE_RANGE,
        max_game_length=MAX_GAME_LENGTH,
        bot_levels=BOT_LEVELS,
        tutorial=TUTORIAL,
    ),
    MetroEngine(),
)
