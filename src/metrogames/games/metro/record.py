"""Metro game records: write one from a state, read and replay one strictly.

Source: ``docs/notation.md``, "Game record" (the Metro paragraph and "Chance"). A Metro record::

    {"format": "metrogames/1", "game": "metro", "players": ["Ada", "bot:greedy"],
     "seed": 7, "options": {"turn_mode": "draw", "one_tile_routes": "allowed"},
     "tiles": ["cbaa", "aaaa", ...], "turns": [{"square": "A1", "tile": "cbaa"}, ...],
     "meta": {}}

* ``tiles``: the pile, top first, at least every tile drawn so far (hands are dealt from it one
  tile each in player order before the first turn in the hand modes). When ``seed`` is present the
  tiles must be the start of that seed's pile.
* ``turns``: the placements in turn order, player 0 first. In ``official-hand`` mode the tile
  played tells whether the held tile was placed or a new one drawn (:data:`~.actions.DRAW` never
  appears in a record).
* Unknown keys are errors, except under ``meta`` (free-form). A record may stop before the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metrogames.core.errors import (
    IllegalActionError,
    NotationError,
    RecordError,
)
from metrogames.core.protocol import CHANCE, JsonObject, is_object
from metrogames.core.rng import check_seed
from metrogames.games.metro.actions import (
    DRAW,
    MetroAction,
    metro_action_from_json,
)
from metrogames.games.metro.options import MetroOptions
from metrogames.games.metro.record_write import FORMAT, GAME
from metrogames.games.metro.state import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    MetroGame,
    MetroState,
)
from metrogames.games.metro.tiles import TILES, load_metro, square_name
from metrogames.i18n import N_, msg

RECORD_KEYS = frozenset({"format", "game", "players", "seed", "options", "tiles", "turns", "meta"})
MAX_NAME = 100
"""Longest player name accepted (characters)."""


@dataclass(frozen=True)
class MetroRecord:
    """A structurally valid Metro record (its moves not yet checked).

    Attributes:
        players: display names, one per seat (2–6).
        seed: the deal's seed, or ``None``.
        options: the game options.
        tiles: the pile, top first (codes; up to 60).
        turns: the placements in turn order.
        meta: the free-form ``meta`` object.
    """

    players: tuple[str, ...]
    seed: int | None
    options: MetroOptions
    tiles: tuple[str, ...]
    turns: tuple[MetroAction, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> MetroGame:
        """The :class:`MetroGame` this record is played under."""
        return MetroGame(len(self.players), self.options)

    def new_state(self) -> MetroState:
        """The record's first state (before any draw): on the whole pile of ``seed`` when the
        record names one (so a replay knows the tiles still to come and the game can go on),
        else on the listed ``tiles``."""
        game = self.game
        state = game.from_pile(game.pile_for(self.seed) if self.seed is not None else self.tiles)
        state.seed = self.seed
        return state


def read_metro_record(value: object) -> MetroRecord:
    """Check a record's structure and read it (the moves are checked by :func:`replay_metro_record`).

    Raises:
        RecordError: not an object, unknown or missing keys, wrong types, a wrong format or
            game, a bad player list or seed, a pile with too many copies of a tile, too many
            turns, ``"draw"`` in the turns, or tiles that are not the seed's pile.
        NotationError: an unknown option, tile code or square (naming where).
    """
    record = _check_head(value)
    players = _read_players(record["players"])
    given, seed = record.get("seed"), None
    if given is not None:
        try:
            seed = check_seed(given)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
    options = MetroOptions.from_json(record.get("options"))
    tiles = _read_tiles(record["tiles"])
    turns = _read_turns(record.get("turns", []))
    meta = record.get("meta", {})
    if not isinstance(meta, dict):
        raise RecordError(f"meta must be an object, not {type(meta).__name__}")
    game = MetroGame(len(players), options)
    if seed is not None:
        pile = game.pile_for(seed)
        if list(tiles) != pile[: len(tiles)]:
            at = next(i for i, (a, b) in enumerate(zip(tiles, pile, strict=False)) if a != b)
            raise RecordError(
                f"tiles[{at}] is {tiles[at]}, but the pile of seed {seed} has {pile[at]} there"
            )
    return MetroRecord(players, seed, options, tiles, turns, meta)


def _check_head(value: object) -> JsonObject:
    """``value``, an object with only a record's keys, the required ones among them, this
    format and game."""
    if not is_object(value):
        raise RecordError(f"a record must be a JSON object, not {type(value).__name__}")
    unknown = set(value) - RECORD_KEYS
    if unknown:
        raise RecordError(f"unknown key(s) in the record: {_short(sorted(map(str, unknown)))}")
    for key in ("format", "game", "players", "tiles"):
        if key not in value:
            raise RecordError(f'the record has no "{key}"')
    if value["format"] != FORMAT:
        raise RecordError(f"unknown record format {_short(value['format'])} (expected {FORMAT})")
    if value["game"] != GAME:
        raise RecordError(f"not a Metro record: game is {_short(value['game'])}")
    return value


def _read_players(players: object) -> tuple[str, ...]:
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"players must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names")
    for name in players:
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise RecordError(
                f"a player name must be text of 1-{MAX_NAME} characters, not {_short(name)}"
            )
    return tuple(players)


def _read_tiles(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise RecordError(f"tiles must be a list of tile codes, not {type(raw).__name__}")
    if len(raw) > TILES:
        raise RecordError(f"a pile holds {TILES} tiles, the record lists {len(raw)}")
    data = load_metro()
    out = []
    counts = [0] * len(data.tile_codes)
    for i, code in enumerate(raw):
        try:
            t = data.tile(code)
        except NotationError as exc:
            raise NotationError(f"tiles[{i}]: {exc}") from None
        counts[t] += 1
        if counts[t] > data.tile_counts[t]:
            raise RecordError(
                f"tiles[{i}]: the pile has only {data.tile_counts[t]} tiles {data.tile_codes[t]}"
            )
        out.append(data.tile_codes[t])
    return tuple(out)


def _read_turns(raw: object) -> tuple[MetroAction, ...]:
    if not isinstance(raw, list):
        raise RecordError(f"turns must be a list of Metro actions, not {type(raw).__name__}")
    if len(raw) > TILES:
        raise RecordError(f"a game has {TILES} turns, the record lists {len(raw)}")
    out = []
    for i, item in enumerate(raw):
        try:
            action = metro_action_from_json(item)
        except NotationError as exc:
            raise NotationError(f"turn {i + 1}: {exc}") from None
        if action.is_draw:
            raise RecordError(f'turn {i + 1}: a record shows the tile played, not "draw"')
        out.append(action)
    return tuple(out)


def replay_metro_record(value: object) -> MetroState:
    """Replay a record (a parsed JSON object or a :class:`MetroRecord`) to its last turn.

    Chance draws are taken from ``tiles`` as the game needs them; each turn is checked.

    Returns:
        The state after the last turn (and after any draw the listed tiles still make); with
        ``seed``, the draws still to come are the seed's (a saved game can be continued).

    Raises:
        RecordError, NotationError: see :func:`read_metro_record`; also a RecordError when the
            listed tiles run out before the turns do.
        IllegalActionError: the first illegal turn, with its turn number and player.
    """
    record = value if isinstance(value, MetroRecord) else read_metro_record(value)
    state = record.new_state()
    official = record.options.turn_mode == "official-hand"
    listed = len(record.tiles)
    for i, action in enumerate(record.turns):
        _drain(state, listed)
        actor = state.to_move_player()
        if actor == CHANCE:
            raise RecordError(f"turn {i + 1}: the record's tiles run out before this turn")
        if official and action.tile is not None and state.drawn_tile is None:
            _official_choice(state, action, actor, listed)
        state.apply_in_place(actor, action, check=True)
    _drain(state, listed)
    return state


def _drain(state: MetroState, listed: int) -> None:
    """Make the draws the game is waiting for, while the record lists tiles."""
    while state.to_move_player() == CHANCE and state.drawn_count < listed:
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=True)


def _official_choice(state: MetroState, action: MetroAction, actor: int, listed: int) -> None:
    """Official-hand: play :data:`DRAW` first when the tile played is not the held one."""
    held = state.hand(actor)
    code = action.tile
    if code in held or state.data.tile_index.get(code or "", -1) < 0:
        return  # the held tile (or an unknown code, which apply reports)
    pile_next = state.known_pile()[:1]
    if state.drawn_count >= TILES or (pile_next and pile_next[0] != code):
        square, codes = square_name(action.square), ", ".join(held) or "(none)"
        text = (
            msg(
                N_(
                    "tile {tile} on {square} is not the held tile {held}, nor the pile's next tile {next}"
                ),
                tile=code,
                square=square,
                held=codes,
                next=pile_next[0],
            )
            if pile_next
            else msg(
                N_("tile {tile} on {square} is not the held tile {held}"),
                tile=code,
                square=square,
                held=codes,
            )
        )
        raise IllegalActionError.of("wrong-tile", text).at(turn=state.turn, player=actor)
    state.apply_in_place(actor, DRAW, check=True)
    if state.drawn_count >= listed:
        raise RecordError(f"turn {state.turn}: the record's tiles run out before this turn")
    _drain(state, listed)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
