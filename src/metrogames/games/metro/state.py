"""The Metro game and its states.

Source: ``docs/engine-rules-metro.md`` ("A turn", "Placing a tile", "Routes and scoring", "End"). Turns go
clockwise from player 0; tile draws are chance actions (tile type codes) of the player
:data:`~metrogames.core.protocol.CHANCE`, so the action history replays a game exactly.

A turn, by ``turn_mode``:

* ``draw``: CHANCE draws the top tile; the player places it (``MetroAction(sq, tile)``, or
  ``MetroAction(sq)`` for "the drawn tile").
* ``hand``: before the first turn CHANCE deals one tile to each player in seat order. On a turn
  CHANCE draws a second tile into the player's hand (while the pile lasts); the player places one
  of the tiles and keeps the other.
* ``official-hand``: dealt like ``hand``. On a turn the player either places the held tile (then
  CHANCE draws a replacement, while the pile lasts) or plays :data:`~.actions.DRAW` (CHANCE draws
  a tile, which the player then places, keeping the held tile).

In both hand modes a player with no tile left is skipped. The game ends after 60 placements.

:class:`MetroGame` and :class:`MetroState` implement the game protocol
(:class:`~metrogames.core.protocol.Game` and :class:`~metrogames.core.protocol.State`) for the
action type :data:`~.actions.MetroPlay` (``MetroAction | str``: player actions and tile codes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias, cast

from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
    OptionError,
    RecordError,
)
from metrogames.core.playout import random_playout
from metrogames.core.protocol import CHANCE, HIDDEN, SPECTATOR, JsonObject, JsonValue
from metrogames.core.rng import Rng, check_seed
from metrogames.games.metro.actions import (
    DRAW,
    NUM_ACTIONS,
    MetroAction,
    MetroPlay,
    format_metro_action,
    metro_action_from_index,
    metro_action_from_json,
    metro_action_to_json,
    parse_metro_action,
)
from metrogames.games.metro.board import MetroBoard, Route, recount
from metrogames.games.metro.heuristic import metro_heuristic
from metrogames.games.metro.options import PHASES, MetroOptions
from metrogames.games.metro.present import observe, view_json
from metrogames.games.metro.record_write import game_record, metro_deal_record
from metrogames.games.metro.snapshot import read_snapshot, write_snapshot
from metrogames.games.metro.tiles import SQUARES, TILES, MetroData, load_metro, square_name
from metrogames.i18n import N_, msg, verbatim

if TYPE_CHECKING:
    from metrogames.core.capabilities import Evaluated, Observable, Presented
    from metrogames.core.protocol import Game, State

MIN_PLAYERS, MAX_PLAYERS = 2, 6

_DEAL, _DRAW, _PLACE, _REPLACE, _OVER = range(5)
"""Phases: CHANCE deals a starting tile / draws for the player / the player places / CHANCE
draws the official-hand replacement / game over."""
_MODES = {"draw": 0, "hand": 1, "official-hand": 2}
_NOBODY = -2
_TO_MOVE = {a: frozenset((a,)) for a in range(CHANCE, MAX_PLAYERS)} | {_NOBODY: frozenset()}

_Node: TypeAlias = "tuple[_Node | None, int, MetroPlay, int]"
"""One history entry, linked to the one before: (previous, player, action, private), where
``private`` is the seat who alone saw a draw (-1: public)."""


def _row_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per board row and byte value, the squares of that row set in the byte."""
    return tuple(
        tuple(tuple(r * 8 + c for c in range(8) if (b >> c) & 1) for b in range(256))
        for r in range(8)
    )


_ROWS = _row_tables()


def squares_of(mask: int) -> list[int]:
    """The square indices set in a 64-bit board mask, lowest first."""
    out: list[int] = []
    r = 0
    while mask:
        b = mask & 255
        if b:
            out += _ROWS[r][b]
        mask >>= 8
        r += 1
    return out


@dataclass(frozen=True)
class MetroGame:
    """Rules and options of one Metro game: 2–6 players and :class:`MetroOptions` (the
    protocol's :class:`~metrogames.core.protocol.Game` for :data:`~.actions.MetroPlay`).

    Raises:
        OptionError: a player count outside 2–6, or options that are not a
            :class:`MetroOptions`.
    """

    players: int = 2
    options: MetroOptions = field(default_factory=MetroOptions)

    def __post_init__(self) -> None:
        if (
            isinstance(self.players, bool)
            or not isinstance(self.players, int)
            or not (MIN_PLAYERS <= self.players <= MAX_PLAYERS)
        ):
            raise OptionError(
                f"Metro takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {_short(self.players)}"
            )
        if not isinstance(self.options, MetroOptions):
            raise OptionError(f"Metro options must be MetroOptions, not {_short(self.options)}")

    @property
    def name(self) -> str:
        return "metro"

    @property
    def num_players(self) -> int:
        return self.players

    @property
    def data(self) -> MetroData:
        """The Metro data (loaded once)."""
        return load_metro()

    def pile_for(self, seed: int) -> list[str]:
        """The 60-tile pile of ``seed``, top first: the tiles in data order (each type repeated
        by its count) shuffled by ``Rng(seed, "pile")``. Stable across versions (golden test).

        Raises:
            ValueError: a seed outside ``0..2**64-1``.
        """
        data = self.data
        tiles = [
            code
            for code, n in zip(data.tile_codes, data.tile_counts, strict=True)
            for _ in range(n)
        ]
        Rng(check_seed(seed), "pile").shuffle(tiles)
        return tiles

    def new_game(self, seed: int) -> MetroState:
        """A new game whose pile is :meth:`pile_for` ``seed``.

        Raises:
            ValueError: a seed outside ``0..2**64-1``.
        """
        data = self.data
        order = [t for t, n in enumerate(data.tile_counts) for _ in range(n)]
        Rng(check_seed(seed), "pile").shuffle(order)  # the same permutation as pile_for
        state = MetroState(self, bytes(order))
        state.seed = seed
        return state

    def from_pile(self, tiles: Sequence[str] | None) -> MetroState:
        """A new game on a given pile (top first). The pile may be short or ``None``: draws
        beyond it are then chosen by the caller among the tiles left (``legal_actions(CHANCE)``).

        Raises:
            NotationError: an unknown tile code.
            IllegalActionError: more copies of a tile type than exist (``no-tile-left``) or more
                than 60 tiles (``no-tile-left``).
        """
        data = self.data
        idx = [data.tile(t) for t in (tiles or ())]
        _check_multiset(data, idx)
        return MetroState(self, bytes(idx))

    def options_json(self) -> JsonObject:
        """The options as given: their JSON form (``docs/notation.md``, "Options") with only
        the keys whose value is not the default (``{}`` for the defaults);
        ``MetroOptions.from_json`` reads it back."""
        default = MetroOptions().to_json()
        return {k: v for k, v in self.options.to_json().items() if v != default[k]}

    # -- dense indices -------------------------------------------------------------------
    @property
    def num_distinct_actions(self) -> int:
        """1537: the placements ``tile_index * 64 + square`` (0–1535), then :data:`DRAW`."""
        return NUM_ACTIONS

    def action_index(self, action: MetroPlay) -> int:
        """The dense index of a player action: ``tile_index * 64 + square`` (tile index in
        data order, square ``row * 8 + col``), ``1536`` for :data:`DRAW`
        (:func:`~.actions.metro_action_index`).

        Raises:
            NotationError: not a :class:`MetroAction`, an unknown tile code, a square off the
                board, or a placement with ``tile=None`` (the draw-mode shorthand has no index
                of its own: the tile must be named; :meth:`MetroState.string_to_action` fills
                in the drawn tile).
        """
        if not isinstance(action, MetroAction):
            raise NotationError(f"not a Metro player action: {_short(action)}")
        if action.is_draw:
            return NUM_ACTIONS - 1
        where = square_name(action.square)
        if action.tile is None:
            raise NotationError(
                f"{where} without a tile has no action index: the tile must be named, "
                "like cbaa " + where
            )
        t = self.data.tile_index.get(action.tile, -1) if isinstance(action.tile, str) else -1
        if t < 0:
            raise NotationError(f"unknown Metro tile {_short(action.tile)} on {where}")
        return t * SQUARES + action.square

    def action_from_index(self, index: int) -> MetroAction:
        """The player action of a dense index (inverse of :meth:`action_index`).

        Raises:
            NotationError: not an int in ``0..1536``.
        """
        return metro_action_from_index(index)

    @property
    def max_chance_outcomes(self) -> int:
        """24: one chance outcome per tile type."""
        return len(self.data.tile_codes)

    def chance_outcome_index(self, outcome: MetroPlay) -> int:
        """The index of a chance outcome (a tile type code): its position in the data file's
        tile list (``aaaa`` = 0, ``aacb`` = 1, ...).

        Raises:
            NotationError: not one of the 24 tile type codes (exact, lower case).
        """
        t = self.data.tile_index.get(outcome, -1) if isinstance(outcome, str) else -1
        if t < 0:
            raise NotationError(
                f"not a Metro chance outcome: {_short(outcome)} (a tile type code such as cbaa)"
            )
        return t

    def chance_outcome_from_index(self, index: int) -> str:
        """The tile type code of a chance-outcome index.

        Raises:
            NotationError: not an int in ``0..23``.
        """
        codes = self.data.tile_codes
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(codes):
            raise NotationError(
                f"no Metro chance outcome has index {_short(index)} (0-{len(codes) - 1})"
            )
        return codes[index]

    @property
    def pass_action(self) -> None:
        """``None``: Metro has no action that changes nothing (every turn places a tile)."""
        return None

    # -- snapshots and records -----------------------------------------------------------
    def from_snapshot(self, text: str) -> MetroState:
        """The state a :meth:`MetroState.snapshot` string describes (``docs/notation.md``,
        "Position snapshot: Metro"); its history starts there (no record can be written).

        Raises:
            NotationError: not a Metro snapshot, another version, player count or options
                than this game's, bad syntax, an unknown tile, more copies of a tile than
                exist, or content no game reaches (naming the field and the problem).
        """
        return read_snapshot(self, text)

    def restored_state(
        self,
        board: MetroBoard,
        *,
        pile: bytes | None,
        hands: list[list[int]],
        drawn: int,
        current: int,
        phase: int,
        dealt: int,
        seed: int | None,
        viewer: int | None,
    ) -> MetroState:
        """The state of checked snapshot parts (:func:`.snapshot.read_snapshot`), its
        history empty."""
        return MetroState._restore(
            self,
            board,
            pile=pile,
            hands=hands,
            drawn=drawn,
            current=current,
            phase=phase,
            dealt=dealt,
            seed=seed,
            viewer=viewer,
        )

    def to_record(
        self,
        state: State[MetroPlay],
        names: Sequence[str],
        *,
        seed: int | None = None,
        reveal: bool = False,
    ) -> JsonObject:
        """The game record of ``state`` (``docs/notation.md``, "Game record") with one name
        per seat: ``seed`` is written when given; ``reveal`` lists the whole known pile, not
        only the tiles drawn (finished games, published deals). A record of a view whose
        history shows every draw (draw mode) is the public record.

        Raises:
            RecordError: not a state of this game; a view whose history hides draws (hand
                modes), ``reveal`` on a view, a state read from a snapshot (no history), or a
                ``seed`` whose pile is not the one drawn.
            ValueError: a wrong number of names, a seed outside ``0..2**64-1``.
        """
        if not isinstance(state, MetroState):
            raise RecordError(f"not a state of this game ({self.players}-player Metro)")
        return game_record(self, state, names, seed=seed, reveal=reveal)

    def deal_record(self, seed: int) -> JsonObject:
        """The deal record of ``seed``: the whole pile and no turns (names ``player 1`` ...),
        one line of a deal manifest (:func:`~.record_write.metro_deal_record`).

        Raises:
            ValueError: a seed outside ``0..2**64-1``.
        """
        return metro_deal_record(self, seed)


def _check_multiset(data: MetroData, idx: Sequence[int]) -> None:
    if len(idx) > TILES:
        raise IllegalActionError(
            "no-tile-left", f"a pile holds at most {TILES} tiles, not {len(idx)}"
        )
    counts = [0] * len(data.tile_codes)
    for t in idx:
        counts[t] += 1
        if counts[t] > data.tile_counts[t]:
            raise IllegalActionError(
                "no-tile-left",
                f"there are only {data.tile_counts[t]} tiles {data.tile_codes[t]}",
            )


class MetroState:
    """One position of a Metro game. :meth:`apply` returns a new state. The protocol's
    :class:`~metrogames.core.protocol.State` for :data:`~.actions.MetroPlay`.

    Public read-only attributes: ``game``, ``data``, ``board`` (:class:`MetroBoard`: tiles,
    trains, scores), ``seed`` (when dealt from one, else ``None``), ``viewer`` (the seat of a
    :meth:`view`, :data:`~metrogames.core.protocol.SPECTATOR` for the public view, ``None`` for
    a full state), ``current`` (the seat whose turn it is), ``dealt`` (starting tiles dealt so
    far, hand modes) and ``drawn_count`` (tiles taken from the pile, 0–60).
    Use the methods for everything else; never mutate the attributes.

    Cost: :meth:`clone` copies a 64-byte board, a 32-entry dict and a few short lists;
    :meth:`legal_actions` is a bitset AND plus table look-ups; :meth:`apply_in_place` moves
    only the trains the new tile wakes.
    """

    __slots__ = (
        "_actor",
        "_drawn",
        "_forbidden",
        "_from_snapshot",
        "_hands",
        "_history",
        "_last_done",
        "_mode",
        "_phase",
        "_pile",
        "_pile_pos",
        "board",
        "current",
        "data",
        "dealt",
        "drawn_count",
        "game",
        "seed",
        "viewer",
    )

    @classmethod
    def of(cls, state: object) -> MetroState:
        """``state`` itself, checked to be a Metro state: how Metro's own adapters (the
        terminal renderer) read back a state the protocol hands them.

        Raises:
            TypeError: another game's state.
        """
        if not isinstance(state, MetroState):
            raise TypeError(f"not a Metro state: {type(state).__name__}")
        return state

    def __init__(self, game: MetroGame, pile: bytes) -> None:
        data = game.data
        n = game.players
        self.game = game
        self.data = data
        self.board = MetroBoard(data, data.owners(n), n)
        self.seed: int | None = None
        self.viewer: int | None = None
        self._pile: bytes | None = pile
        self._pile_pos = 0
        self.drawn_count = 0
        self._mode = _MODES[game.options.turn_mode]
        self._forbidden = game.options.one_tile_forbidden
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._drawn = -1
        self.current = 0
        self.dealt = 0
        self._history: _Node | None = None
        self._from_snapshot = False
        self._last_done = 0
        self._phase = _DEAL if self._mode else _DRAW
        self._actor = CHANCE

    # -- protocol ------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.players

    def to_move(self) -> frozenset[int]:
        """``{CHANCE}`` when a tile must be drawn or dealt, ``{player}`` when a player must
        place (or, official-hand, choose to draw), empty once the game is over."""
        return _TO_MOVE[self._actor]

    def to_move_player(self) -> int:
        """The single actor now: a player, :data:`CHANCE`, or -2 when the game is over."""
        return self._actor

    def is_over(self) -> bool:
        return self._phase == _OVER

    def random_playout(self, rngs: Sequence[Rng]) -> None:
        """Play to the end in place with uniformly random players, player ``p`` choosing with
        ``rngs[p]`` (:func:`metrogames.core.playout.uniform_choice`); draws come from the
        pile. The protocol's playout, one step at a time (Metro's steps are cheap).

        Raises:
            ValueError: not one generator per player, or a view (resample it first).
        """
        random_playout(self, rngs)

    def clone(self) -> MetroState:
        """An independent copy (board and hands copied; history shared, it is immutable)."""
        other = MetroState.__new__(MetroState)
        other.game = self.game
        other.data = self.data
        other.board = self.board.copy()
        other.seed = self.seed
        other.viewer = self.viewer
        other._pile = self._pile
        other._pile_pos = self._pile_pos
        other.drawn_count = self.drawn_count
        other._mode = self._mode
        other._forbidden = self._forbidden
        other._hands = [h[:] for h in self._hands]
        other._drawn = self._drawn
        other.current = self.current
        other.dealt = self.dealt
        other._history = self._history
        other._from_snapshot = self._from_snapshot
        other._last_done = self._last_done
        other._phase = self._phase
        other._actor = self._actor
        return other

    def history(self) -> list[tuple[int, MetroPlay]]:
        """Every action so far, in order: ``(CHANCE, tile_code)`` or ``(player, MetroAction)``.
        In a :meth:`view`, draws the viewer did not see read ``(CHANCE, "?")``. A state read
        from a snapshot starts with an empty history."""
        out: list[tuple[int, MetroPlay]] = []
        node = self._history
        while node is not None:
            node, player, action, _ = node
            out.append((player, action))
        out.reverse()
        return out

    # -- what is on the table ------------------------------------------------------------
    @property
    def phase(self) -> str:
        """What happens next: ``deal`` (CHANCE deals a starting tile, hand modes), ``draw``
        (CHANCE draws for the current seat), ``place`` (the current seat plays), ``replace``
        (CHANCE draws the official-hand replacement) or ``over``."""
        return PHASES[self._phase]

    @property
    def starts_at_snapshot(self) -> bool:
        """True when this state (or the one it came from) was read by
        :meth:`MetroGame.from_snapshot`: its history does not start at the deal."""
        return self._from_snapshot

    @property
    def turn(self) -> int:
        """The number (1-based) of the current placement; 61 once the game is over."""
        return self.board.placed + 1

    def hand(self, player: int) -> tuple[str, ...]:
        """Tile codes ``player`` holds (hand modes; ``"?"`` for tiles hidden in a view)."""
        codes = self.data.tile_codes
        return tuple(codes[t] if t >= 0 else HIDDEN for t in self._hands[player])

    @property
    def last_square(self) -> int:
        """The square of the last tile placed, or -1 before the first placement (and in a
        state read from a snapshot, until its first placement)."""
        node = self._history
        while node is not None:
            node, player, action, _ = node
            if player >= 0 and isinstance(action, MetroAction) and action.square >= 0:
                return action.square
        return -1

    @property
    def drawn_tile(self) -> str | None:
        """The tile drawn this turn that must be placed now (draw mode, or official-hand after
        :data:`DRAW`), else ``None``."""
        return self.data.tile_codes[self._drawn] if self._drawn >= 0 else None

    @property
    def pile_size(self) -> int:
        """Tiles left in the face-down pile."""
        return TILES - self.drawn_count

    def known_pile(self) -> list[str]:
        """The codes of the pile's known tiles, top first (empty in a view: order hidden)."""
        pile = self._pile
        if pile is None:
            return []
        codes = self.data.tile_codes
        return [codes[t] for t in pile[self._pile_pos :]]

    def scores(self) -> list[int]:
        """Points per player so far (final once the game is over)."""
        return self.board.scores[:]

    def longest_routes(self) -> list[int]:
        """Per player, the longest completed route in tiles (the tie-break)."""
        return self.board.longest[:]

    def routes(self) -> list[Route]:
        """Completed routes in completion order (unallocated stations included, 0 points)."""
        return self.board.routes()

    def last_completed(self) -> list[Route]:
        """The routes the last placement completed, in completion order (empty when it
        completed none, before the first placement, and before the first placement after a
        snapshot)."""
        board = self.board
        return [r for k in board.completed[self._last_done :] if (r := board.route(k))]

    def score_components(self, player: int) -> dict[str, int]:
        """``player``'s score by component: ``{"longest_route": tiles, "total": points}`` (the
        longest completed route is the tie-break, rules "End").

        Raises:
            ValueError: ``player`` is not a seat of this game.
        """
        self._seat(player)
        return {N_("longest_route"): self.board.longest[player], "total": self.board.scores[player]}

    def winners(self) -> list[int]:
        """Highest score, then (among the tied) the longest completed route (rules, "End");
        several players when still tied; empty until the game is over."""
        if self._phase != _OVER:
            return []
        keys = list(zip(self.board.scores, self.board.longest, strict=True))
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    def recount(self) -> tuple[list[int], list[int], list[Route]]:
        """Scores, longest routes and completed routes (station order) recomputed from the
        tiles alone (see :func:`~metrogames.games.metro.board.recount`)."""
        return recount(self.data, self.board.tiles, self.board.owners, self.game.players)

    def unseen_tiles(self) -> dict[str, int]:
        """Tile code -> copies not on the board, not in a known hand and not drawn: the pile plus
        (in a view) the others' hidden tiles. Types with no copy left are omitted."""
        data = self.data
        counts = list(data.tile_counts)
        for t in self.board.tiles:
            if t:
                counts[t - 1] -= 1
        for h in self._hands:
            for t in h:
                if t >= 0:
                    counts[t] -= 1
        if self._drawn >= 0:
            counts[self._drawn] -= 1
        return {data.tile_codes[t]: c for t, c in enumerate(counts) if c > 0}

    # -- legal actions -------------------------------------------------------------------
    def legal_actions(self, player: int) -> list[MetroPlay]:
        """Every legal action of ``player`` now.

        For :data:`CHANCE`: tile codes (the pile's next tile when known, else every type left).
        For the player to move: :class:`MetroAction` values with the tile filled in, in square
        order, one tile type after the other (plus :data:`DRAW` in official-hand mode while the
        pile lasts). Empty for anyone else, and in a view for a player whose tiles are hidden.
        """
        if player != self._actor:
            return []
        if player == CHANCE:
            nxt = self._next_known()
            if nxt >= 0:
                return [self.data.tile_codes[nxt]]
            return [*self.unseen_tiles()]
        board = self.board
        forbidden = self._forbidden
        if self._drawn >= 0:
            if not forbidden:
                return _placements(self._drawn, board.frontier)
            return _placements(self._drawn, board.legal_squares(self._drawn, True))
        out: list[MetroPlay] = []
        seen = -1
        for t in self._hands[player]:
            if t < 0:
                return []
            if t != seen:
                seen = t
                out += _placements(t, board.legal_squares(t, forbidden))
        if self._mode == 2 and self.drawn_count < TILES:
            out.append(DRAW)
        return out

    def is_legal(self, player: int, action: object) -> bool:
        """Whether ``player`` may play ``action`` now: what :meth:`apply` accepts (the
        draw-mode shorthand ``MetroAction(square)`` included). In a view, judged on what the
        viewer knows (a hidden hand allows nothing). Never raises."""
        if isinstance(player, bool) or not isinstance(player, int):
            return False
        if player != self._actor or self._phase == _OVER:
            return False  # what _check_turn refuses, without making its error
        try:
            self._check(player, action, in_view=True)
        except IllegalActionError:
            return False
        return True

    def chance_outcomes(self) -> list[tuple[MetroPlay, float]]:
        """The draw now due and its probabilities: empty unless CHANCE is to move; the pile's
        next tile with probability 1 when known; else every tile type not seen (see
        :meth:`unseen_tiles`), with probability copies / total, in tile data order."""
        if self._actor != CHANCE:
            return []
        nxt = self._next_known()
        if nxt >= 0:
            return [(self.data.tile_codes[nxt], 1.0)]
        unseen = self.unseen_tiles()
        total = sum(unseen.values())
        return [(code, n / total) for code, n in unseen.items()]

    def legal_squares(self, tile: str) -> list[int]:
        """Squares where ``tile`` (a code) could go now, under this game's options."""
        t = self.data.tile(tile)
        return squares_of(self.board.legal_squares(t, self._forbidden))

    def _next_known(self) -> int:
        pile = self._pile
        if pile is not None and self._pile_pos < len(pile):
            return pile[self._pile_pos]
        return -1

    # -- applying ------------------------------------------------------------------------
    def apply(self, player: int, action: MetroPlay) -> MetroState:
        """Check ``action`` by ``player`` and return the following state (``self`` unchanged).

        Args:
            player: the player to move, or :data:`CHANCE` with a tile code.
            action: a :class:`MetroAction` (or :data:`DRAW`) for a player; a tile code for chance.

        Raises:
            GameOverError: the game is over (``game-over``).
            NotYourTurnError: ``player`` is not to move (``not-your-turn``).
            IllegalActionError: the action breaks a rule; ``reason`` is one of ``off-board``,
                ``central-square``, ``square-occupied``, ``not-adjacent``, ``one-tile-route``,
                ``wrong-tile``, ``missing-tile``, ``no-draw``, ``no-tile-left``, ``not-an-action``,
                ``hidden-information``; the error carries the turn and player.
        """
        nxt = self.clone()
        nxt.apply_in_place(player, action, check=True)
        return nxt

    def apply_in_place(self, player: int, action: MetroPlay, check: bool = True) -> None:
        """Apply ``action`` to this state itself (the fast path for bots and simulations).

        With ``check=False`` the action must come from :meth:`legal_actions`. With
        ``check=True`` the state is unchanged when an error is raised (same errors as
        :meth:`apply`).
        """
        if check:
            try:
                self._check(player, action)
            except IllegalActionError as exc:
                where_player = None if player == CHANCE else player
                raise exc.at(turn=min(self.turn, TILES), player=where_player) from None
        if player == CHANCE:
            self._chance(self.data.tile_index[action])  # type: ignore[index]
            return
        # a player's action is a MetroAction (checked above, or it came from legal_actions)
        act: MetroAction = action  # type: ignore[assignment]
        if act.square < 0:
            self._history = (self._history, player, act, -1)
            self._phase = _DRAW
            self._actor = CHANCE
        else:
            self._place(player, act)

    def _check(self, player: int, action: object, in_view: bool = False) -> None:
        """Raise the error :meth:`apply` would raise for this action, without changing state
        (``in_view``: judge a view's action on what it shows instead of refusing it)."""
        self._check_turn(player, in_view)
        if player == CHANCE:
            self._check_chance(action)
            return
        if not isinstance(action, MetroAction):
            raise IllegalActionError(
                "not-an-action", f"{type(action).__name__} is not a Metro action"
            )
        if action.is_draw:
            self._check_draw()
            return
        t = self._tile_of(action)
        try:
            self.board.check_place(action.square, t, self._forbidden)
        except IllegalActionError as exc:
            sq = action.square
            square = square_name(sq) if 0 <= sq < SQUARES else sq  # off-board: the index
            raise exc.with_item(square=square, tile=self.data.tile_codes[t]) from None

    def _check_turn(self, player: int, in_view: bool) -> None:
        """The game goes on, on a full state (or ``in_view``), and ``player`` is to move."""
        if self._phase == _OVER:
            raise GameOverError.of(
                "game-over", msg(N_("the game is over: all 60 tiles are placed"))
            )
        if self.viewer is not None and not in_view:
            raise IllegalActionError(
                "hidden-information",
                f"this is {_viewer_name(self.viewer)}'s view: resample() it before playing on",
            )
        if player != self._actor:
            if self._actor == CHANCE:
                detail = msg(N_("a tile must be drawn first"))
            elif player == CHANCE:
                detail = msg(N_("player {player} must place a tile, not draw"), player=self._actor)
            else:
                detail = msg(
                    N_("player {player} is not to move now (player {actor} is)"),
                    player=repr(player),
                    actor=self._actor,
                )
            raise NotYourTurnError.of("not-your-turn", detail)

    def _check_chance(self, action: object) -> None:
        """A draw: a tile code, the pile's next tile where it is known, and one left."""
        data = self.data
        t = data.tile_index.get(action, -1) if isinstance(action, str) else -1
        if t < 0:
            raise IllegalActionError(
                "not-an-action",
                f"a draw is a tile type code such as cbaa, not {_short(action)}",
            )
        nxt = self._next_known()
        if nxt >= 0 and nxt != t:
            raise IllegalActionError.of(
                "wrong-tile",
                msg(
                    N_("the pile's next tile is {next}, not {tile}"),
                    next=data.tile_codes[nxt],
                    tile=action,
                ),
            )
        if self.drawn_count >= TILES or (nxt < 0 and action not in self.unseen_tiles()):
            raise IllegalActionError.of(
                "no-tile-left", msg(N_("no tile {tile} is left in the pile"), tile=action)
            )

    def _check_draw(self) -> None:
        """A player's :data:`~.actions.DRAW`: official-hand mode, once a turn, a tile left."""
        if self._mode != 2:
            raise IllegalActionError.of(
                "no-draw", msg(N_("drawing instead of placing is an official-hand mode choice"))
            )
        if self._drawn >= 0:
            raise IllegalActionError.of(
                "no-draw", msg(N_("a tile was already drawn this turn"))
            )
        if self.drawn_count >= TILES:
            raise IllegalActionError.of(
                "no-draw", msg(N_("the pile is empty: place the held tile"))
            )

    def _tile_of(self, action: MetroAction) -> int:
        """The tile type index ``action`` plays, checked against the drawn tile or the hand."""
        data = self.data
        code = action.tile
        t = -1 if code is None else data.tile_index.get(code, -1) if isinstance(code, str) else -2
        square = _square(action.square)
        if t == -2 or (code is not None and t < 0):
            raise IllegalActionError.of(
                "wrong-tile",
                msg(N_("unknown tile {tile} on {square}"), tile=_short(code), square=square),
            )
        if self._drawn >= 0:
            if t >= 0 and t != self._drawn:
                raise IllegalActionError.of(
                    "wrong-tile",
                    msg(
                        N_("tile {tile} on {square} is not the drawn tile {drawn}"),
                        tile=data.tile_codes[t],
                        square=square,
                        drawn=data.tile_codes[self._drawn],
                    ),
                )
            return self._drawn
        hand = self._hands[self._actor]
        if t < 0:
            raise IllegalActionError.of(
                "missing-tile",
                msg(
                    N_("name the tile to place on {square}: one of {tiles}"),
                    square=square,
                    tiles=", ".join(self.hand(self._actor)),
                ),
            )
        if t not in hand:
            codes = ", ".join(self.hand(self._actor))
            raise IllegalActionError.of(
                "wrong-tile",
                msg(
                    N_("tile {tile} on {square} is not in hand (holds {held})"),
                    tile=data.tile_codes[t],
                    square=square,
                    held=verbatim(codes) if codes else msg(N_("no tile")),
                ),
            )
        return t

    def _chance(self, t: int) -> None:
        """Take tile type ``t`` from the pile (unchecked) and move on."""
        self.drawn_count += 1
        self._pile_pos += 1
        phase = self._phase
        if not self._mode:  # draw mode: the drawn tile is placed at once (public)
            self._drawn = t
            self._history = (self._history, CHANCE, self.data.tile_codes[t], -1)
            self._phase = _PLACE
            self._actor = self.current
            return
        private = -1
        if phase == _DEAL:
            private = self.dealt
            self._hands[self.dealt].append(t)
            self.dealt += 1
            self._history = (self._history, CHANCE, self.data.tile_codes[t], private)
            if self.dealt == self.game.players:
                self._start_turn(0)
            return
        p = self.current
        if phase == _REPLACE:
            self._hands[p].append(t)
            self._history = (self._history, CHANCE, self.data.tile_codes[t], p)
            self._start_turn((p + 1) % self.game.players)
            return
        if self._mode == 1:
            self._hands[p].append(t)
            private = p
        else:
            self._drawn = t
        self._history = (self._history, CHANCE, self.data.tile_codes[t], private)
        self._phase = _PLACE
        self._actor = p

    def _place(self, player: int, action: MetroAction) -> None:
        """Place ``action`` for ``player`` (unchecked) and move on."""
        drawn = self._drawn
        if drawn >= 0:
            t = drawn
            self._drawn = -1
            from_hand = False
        else:
            t = self.data.tile_index[action.tile]  # type: ignore[index]
            self._hands[player].remove(t)
            from_hand = True
        board = self.board
        self._last_done = len(board.completed)
        board.place(action.square, t)
        self._history = (self._history, player, action, -1)
        n = self.game.players
        if not self._mode and board.placed < TILES:
            self.current = (player + 1) % n
            self._phase = _DRAW
            self._actor = CHANCE
        elif board.placed == TILES:
            self._phase = _OVER
            self._actor = _NOBODY
        elif self._mode == 2 and from_hand and self.drawn_count < TILES:
            self._phase = _REPLACE
            self._actor = CHANCE
        else:
            self._start_turn((player + 1) % n)

    def _start_turn(self, p: int) -> None:
        """Begin the turn of seat ``p`` (skipping players with no tile once the pile is empty)."""
        if self.board.placed == TILES:
            self._phase = _OVER
            self._actor = _NOBODY
            return
        mode = self._mode
        if self.drawn_count < TILES:
            self.current = p
            if mode == 2:
                self._phase = _PLACE
                self._actor = p
            else:
                self._phase = _DRAW
                self._actor = CHANCE
            return
        hands = self._hands
        n = self.game.players
        while not hands[p]:
            p = (p + 1) % n
        self.current = p
        self._phase = _PLACE
        self._actor = p

    # -- capabilities (metrogames.core.capabilities) -------------------------------------
    def view_json(self, you: int | None) -> JsonObject:
        """``Presented``: the Metro part of a view's JSON (:func:`.present.view_json`)."""
        return cast(JsonObject, view_json(self, you))  # a MetroViewPart: typed JSON

    def heuristic(self, player: int) -> float:
        """``Evaluated``: ``player``'s score plus the estimated worth of their open routes
        (:func:`.heuristic.metro_heuristic`), in points."""
        return metro_heuristic(self, player)

    def observe(self, seat: int) -> JsonObject:
        """``Observable``: what this view shows ``seat`` (:func:`.present.observe`;
        ``docs/research.md``, "Observations")."""
        return observe(self, seat)

    # -- hidden information --------------------------------------------------------------
    def view(self, seat: int | None) -> MetroState:
        """What ``seat`` sees (``None``: a spectator, ``viewer`` :data:`SPECTATOR`): the
        others' held tiles read ``"?"`` (:meth:`hand`; a spectator sees no hand), the pile order
        is unknown (chance outcomes are the unseen tile types) and draws the viewer did not see
        read ``"?"`` in :meth:`history`. Nothing else is hidden. A view is read-only:
        :meth:`apply` raises ``hidden-information``; :meth:`resample` makes a playable state
        from it. A view's view may only hide more (the same seat, or the spectator).

        Raises:
            ValueError: ``seat`` is not a seat of this game, or this is already another
                seat's view.
        """
        viewer = SPECTATOR if seat is None else self._seat(seat)
        if self.viewer is not None and viewer not in (self.viewer, SPECTATOR):
            raise ValueError(
                f"{_viewer_name(self.viewer)}'s view cannot show what player {seat} sees"
            )
        other = self.clone()
        other.viewer = viewer
        other.seed = None
        other._pile = None
        other._pile_pos = 0
        other._hands = [h[:] if p == viewer else [-1] * len(h) for p, h in enumerate(self._hands)]
        entries = []
        node = self._history
        while node is not None:
            prev, who, action, private = node
            if private >= 0 and private != viewer:
                action = HIDDEN
            entries.append((who, action, private))
            node = prev
        rebuilt: _Node | None = None
        for who, action, private in reversed(entries):
            rebuilt = (rebuilt, who, action, private)
        other._history = rebuilt
        return other

    def resample(self, seat: int, rng: Rng) -> MetroState:
        """A full, playable state consistent with ``view(seat)``: the board, the turn and
        ``seat``'s own tiles as they are; the others' hidden tiles and the pile order drawn at
        random (``rng``) from the tiles ``seat`` has not seen (:meth:`unseen_tiles` of the
        view). Callable on the full state or on ``seat``'s own view. Its history keeps the
        view's ``"?"`` entries, so it cannot be written as a record; it has no seed.

        Raises:
            ValueError: ``seat`` is not a seat of this game, or this is another seat's view
                (the spectator's included).
        """
        self._seat(seat)
        if self.viewer is None:
            base = self.view(seat)
        elif self.viewer == seat:
            base = self
        else:
            raise ValueError(
                f"{_viewer_name(self.viewer)}'s view cannot be resampled for player {seat}"
            )
        data = self.data
        unseen = [data.tile_index[c] for c, n in base.unseen_tiles().items() for _ in range(n)]
        rng.shuffle(unseen)
        other = base.clone()
        for h in other._hands:
            for i, t in enumerate(h):
                if t < 0:
                    h[i] = unseen.pop()
        other._pile = bytes(unseen)
        other._pile_pos = 0
        other.viewer = None
        return other

    def _seat(self, seat: object) -> int:
        """``seat`` when it is a seat of this game.

        Raises:
            ValueError: anything else.
        """
        n = self.game.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"no player {_short(seat)} in a {n}-player game")
        return seat

    # -- notation ------------------------------------------------------------------------
    def action_to_string(self, player: int, action: MetroPlay) -> str:
        """The text notation: ``cbaa C5``, ``C5`` (draw-mode shorthand) or ``draw`` for a
        player; the tile code for :data:`CHANCE` (``docs/notation.md``, "Metro turn action").

        Raises:
            NotationError: not a Metro action of ``player`` (a tile code for chance).
        """
        if player == CHANCE:
            return self._tile_code(action, exact=True)
        if not isinstance(action, MetroAction):
            raise NotationError(f"not a Metro player action: {_short(action)}")
        return format_metro_action(action)

    def string_to_action(self, player: int, text: str) -> MetroPlay:
        """Read ``cbaa C5``, ``C5`` or ``draw`` (a tile code for :data:`CHANCE`),
        case-insensitive. When ``player`` must place a drawn tile, ``C5`` reads as that tile
        on C5, the action :meth:`legal_actions` lists. Not checked for legality.

        Raises:
            NotationError: bad syntax, an unknown tile or square.
        """
        if player == CHANCE:
            return self._tile_code(text)
        return self._fill_drawn(player, parse_metro_action(text))

    def action_to_json(self, player: int, action: MetroPlay) -> JsonValue:
        """The JSON notation: ``{"square": "C5", "tile": "cbaa"}`` (``tile`` left out for the
        draw-mode shorthand) or ``"draw"``; the tile code for :data:`CHANCE`.

        Raises:
            NotationError: not a Metro action of ``player``.
        """
        if player == CHANCE:
            return self._tile_code(action, exact=True)
        if not isinstance(action, MetroAction):
            raise NotationError(f"not a Metro player action: {_short(action)}")
        out: JsonValue = metro_action_to_json(action)
        return out

    def action_from_json(self, player: int, value: object) -> MetroPlay:
        """Read the JSON notation (see :meth:`action_to_json`), filling in the drawn tile as
        :meth:`string_to_action` does. Not checked for legality.

        Raises:
            NotationError: wrong types, unknown keys, an unknown tile or square.
        """
        if player == CHANCE:
            return self._tile_code(value)
        return self._fill_drawn(player, metro_action_from_json(value))

    def _tile_code(self, value: object, exact: bool = False) -> str:
        """The tile type code ``value`` names (``exact``: as written, lower case).

        Raises:
            NotationError: not a tile type code.
        """
        if exact and not (isinstance(value, str) and value in self.data.tile_index):
            raise NotationError(
                f"a Metro draw is a tile type code such as cbaa, not {_short(value)}"
            )
        code: str = self.data.tile_codes[self.data.tile(value)]
        return code

    def _fill_drawn(self, player: int, action: MetroAction) -> MetroAction:
        """``action`` with the drawn tile filled in, when it is a placement without a tile by
        the player who must place the drawn tile."""
        drawn = self._drawn
        if drawn >= 0 and action.tile is None and action.square >= 0 and player == self._actor:
            return MetroAction(action.square, self.data.tile_codes[drawn])
        return action

    # -- snapshots -----------------------------------------------------------------------
    def snapshot(self) -> str:
        """The position as one line of ASCII, ``metro/1 ...`` (``docs/notation.md``, "Position
        snapshot: Metro"); :meth:`MetroGame.from_snapshot` reads it back exactly. It holds no
        history."""
        return write_snapshot(self)

    @classmethod
    def _restore(
        cls,
        game: MetroGame,
        board: MetroBoard,
        *,
        pile: bytes | None,
        hands: list[list[int]],
        drawn: int,
        current: int,
        phase: int,
        dealt: int,
        seed: int | None,
        viewer: int | None,
    ) -> MetroState:
        """The state of checked snapshot parts (:mod:`.snapshot`), its history empty."""
        state = cls(game, pile or b"")
        state.board = board
        state._pile = pile
        state._hands = hands
        state._drawn = drawn
        state.current = current
        state._phase = phase
        state.dealt = dealt
        state.drawn_count = board.placed + sum(map(len, hands)) + (drawn >= 0)
        state.seed = seed
        state.viewer = viewer
        state._from_snapshot = True
        state._last_done = len(board.completed)
        state._actor = current if phase == _PLACE else _NOBODY if phase == _OVER else CHANCE
        return state

    def __repr__(self) -> str:
        status = "over" if self._phase == _OVER else f"to move {self._actor}"
        return (
            f"<MetroState {self.game.players}p {self.game.options.turn_mode} "
            f"placed={self.board.placed} scores={self.board.scores} {status}>"
        )


if TYPE_CHECKING:

    def _implements_protocol(game: MetroGame, state: MetroState) -> None:
        """Checked by mypy only: the engine is the protocol's game for :data:`MetroPlay`."""
        as_game: Game[MetroPlay] = game
        as_state: State[MetroPlay] = state
        del as_game, as_state


def _viewer_name(viewer: int) -> str:
    return "the spectator" if viewer == SPECTATOR else f"player {viewer}"


def _square(sq: object) -> str:
    try:
        return square_name(sq)  # type: ignore[arg-type]
    except Exception:
        return repr(sq)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_PLACEMENT_ROWS: list[tuple[tuple[tuple[MetroAction, ...], ...], ...] | None] = []


def _placement_rows(t: int) -> tuple[tuple[tuple[MetroAction, ...], ...], ...]:
    """Per board row and byte value, the actions placing tile type ``t`` on the squares of
    that row set in the byte (built once per tile type, on first use)."""
    data = load_metro()
    if not _PLACEMENT_ROWS:
        _PLACEMENT_ROWS.extend([None] * len(data.tile_codes))
    rows = _PLACEMENT_ROWS[t]
    if rows is None:
        code = data.tile_codes[t]
        built = []
        for r in range(8):
            row: list[tuple[MetroAction, ...]] = [()] * 256
            acts = [MetroAction(r * 8 + c, code) for c in range(8)]
            for b in range(1, 256):
                low = (b & -b).bit_length() - 1  # the row's first square in b
                row[b] = (acts[low], *row[b & (b - 1)])
            built.append(tuple(row))
        rows = tuple(built)
        _PLACEMENT_ROWS[t] = rows
    return rows


def _placements(t: int, mask: int) -> list[MetroPlay]:
    """The actions placing tile type ``t`` on each square of ``mask``, in square order."""
    rows = _PLACEMENT_ROWS[t] if _PLACEMENT_ROWS else None
    if rows is None:
        rows = _placement_rows(t)
    out: list[MetroPlay] = []
    # one board row per byte, unrolled (the hot path of random playouts)
    if b := mask & 255:
        out += rows[0][b]
    if b := (mask >> 8) & 255:
        out += rows[1][b]
    if b := (mask >> 16) & 255:
        out += rows[2][b]
    if b := (mask >> 24) & 255:
        out += rows[3][b]
    if b := (mask >> 32) & 255:
        out += rows[4][b]
    if b := (mask >> 40) & 255:
        out += rows[5][b]
    if b := (mask >> 48) & 255:
        out += rows[6][b]
    if b := mask >> 56:
        out += rows[7][b]
    return out


if TYPE_CHECKING:

    def _capabilities_check(state: MetroState) -> tuple[Presented, Evaluated, Observable]:
        """mypy checks here that the states provide these capabilities exactly."""
        return state, state, state
