"""The Next Station game and its states (London and Paris share them).

Source: ``docs/engine-rules-london.md`` ("Structure of a game", "A round", "Drawing a section",
"Advanced module 2") and ``docs/engine-rules-paris.md`` ("Cards"). Turns are simultaneous: in
each turn every player still to act is in :meth:`NextStationState.to_move`; card flips are chance
actions (card ids) of the player :data:`~metrogames.core.protocol.CHANCE`.

The game implements the whole protocol of :mod:`metrogames.core.protocol` for actions of type
:data:`NextStationAction` (``TurnAction | str``): the dense action index
(:mod:`.index`), position snapshots (:mod:`.snapshot`), and hidden information in the engine —
a :meth:`NextStationState.view` hides the order of the unflipped cards and the other players'
choices in the turn in progress; :meth:`NextStationState.resample` draws them at random.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
    OptionError,
    RecordError,
)
from metrogames.core.playout import random_playout, uniform_choice
from metrogames.core.protocol import CHANCE, HIDDEN, SPECTATOR, JsonObject, JsonValue
from metrogames.core.rng import Rng, check_seed
from metrogames.games.nextstation.actions import (
    PASS,
    POWERS_IN_ACTION,
    NextStationAction,
    TurnAction,
    action_from_json,
    action_to_json,
    format_action,
    parse_action,
    single_sections,
)
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.bound import score_bound
from metrogames.games.nextstation.citymap import (
    CITY_FILES,
    CUSTOM_GAME,
    SYMBOLS,
    Card,
    CityMap,
    city_known,
    is_custom,
    load_city,
)
from metrogames.games.nextstation.deal import (
    FIRST_EFFECTIVE_SWITCH,
    MAX_PLAYERS,
    ROUNDS,
    Deal,
    Options,
    colour_for,
    resolve,
)
from metrogames.games.nextstation.gains import draw_action, greedy_gains
from metrogames.games.nextstation.heuristic import LOOKAHEAD_WIDTH, greedy_final_score
from metrogames.games.nextstation.index import ActionIndex, action_index_for, card_positions
from metrogames.games.nextstation.observe import observe
from metrogames.games.nextstation.present import solo_result, view_json
from metrogames.games.nextstation.record_write import deal_record, to_record
from metrogames.games.nextstation.scoring import (
    EMPTY_LINE,
    Breakdown,
    LineScore,
    breakdown,
    line_tourist_boxes,
    score_line,
    sheet_total,
)
from metrogames.games.nextstation.snapshot import (
    Line,
    PlayerPart,
    Position,
    format_position,
    parse_position,
)
from metrogames.games.nextstation.value import FEATURE_VERSION, feature_names, features
from metrogames.games.nextstation.words import term
from metrogames.i18n import N_, msg

if TYPE_CHECKING:
    from metrogames.core.capabilities import (
        DeepEvaluated,
        Evaluated,
        GreedyGains,
        Observable,
        Presented,
        ScoreBounded,
        SoloRated,
        ValueFeatured,
    )
    from metrogames.core.protocol import Game, State

__all__ = [
    "HIDDEN",
    "MAX_PLAYERS",
    "PASS",
    "NextStationAction",
    "NextStationGame",
    "NextStationState",
    "TurnAction",
]

_CHANCE_ONLY = frozenset((CHANCE,))
_MOVERS: dict[int, frozenset[int]] = {}

_Turn = tuple[str, int, bool, int]
"""A turn of a round to play at random: the card's face, its targets mask, whether a switch
takes effect, and the turn's number in the round (1-based)."""

TurnStart = tuple[int, int, int, int, int, int, bool]
"""What a player's action of the turn in progress changed, as it was before: the current
colour's stations, sections, ends and circled station, the map's drawn and blocked links, and
the power-used flag."""


@dataclass(frozen=True)
class NextStationGame:
    """Rules and options of one Next Station game: city, player count (1–4) and options.

    Raises:
        OptionError: an unknown city or a player count outside 1–4 (``OptionError`` is a
            ``ValueError``).
    """

    city_name: str = "london"
    players: int = 1
    options: Options = field(default_factory=Options)
    _map: CityMap | None = field(default=None, init=False, repr=False, compare=False)
    """The city map, held: a custom map stays known while a game on it lives."""

    def __post_init__(self) -> None:
        if not isinstance(self.city_name, str) or not city_known(self.city_name):
            raise OptionError(
                f"unknown Next Station city {self.city_name!r:.80} "
                f"(expected one of {', '.join(CITY_FILES)} or a custom map's hash)"
            )
        object.__setattr__(self, "_map", load_city(self.city_name))
        players = self.players
        if (
            isinstance(players, bool)
            or not isinstance(players, int)
            or not (1 <= players <= MAX_PLAYERS)
        ):
            raise OptionError(f"Next Station takes 1 to {MAX_PLAYERS} players, not {players!r}")

    @property
    def city(self) -> CityMap:
        """The city map (loaded once, held by the game)."""
        return self._map if self._map is not None else load_city(self.city_name)

    @property
    def name(self) -> str:
        """The game's name: the city's (``london``, ``paris``), ``nextstation`` on a custom
        map (``docs/maps.md``)."""
        return CUSTOM_GAME if is_custom(self.city_name) else self.city_name

    @property
    def num_players(self) -> int:
        return self.players

    def options_json(self) -> JsonObject:
        """The options as given, in their JSON form (``docs/notation.md``, "Options"): only
        the keys whose value is not the default (on a custom map, ``map`` first: the map's
        data); ``load_game(game.name, **game.options_json())`` makes the game again."""
        options = self.options
        out: JsonObject = {}
        if is_custom(self.city_name):
            out["map"] = cast(JsonObject, self.city.raw)  # decoded JSON
        if options.objectives:
            chosen: list[JsonValue] = [*options.objectives]
            out["objectives"] = "random" if options.objectives == "random" else chosen
        if options.powers == "random":
            out["powers"] = "random"
        elif options.powers is not None:
            pairs = zip(self.city.colours, options.powers, strict=True)
            out["powers"] = {colour: power for colour, power in pairs}
        if options.colour_cycle is not None:
            out["colour_cycle"] = [*options.colour_cycle]
        return out

    def new_game(self, seed: int) -> NextStationState:
        """A new game dealt from ``seed``.

        Raises:
            ValueError: a seed outside ``0..2**64-1``.
        """
        return NextStationState(self, resolve(self.city, self.options, check_seed(seed)))

    def from_deal(self, deal: Deal) -> NextStationState:
        """A new game on a given deal (decks may be unknown: flips then come from outside)."""
        return NextStationState(self, deal)

    # -- the dense action index (docs/notation.md, "Dense action index") ------------------
    @property
    def _index(self) -> ActionIndex:
        return action_index_for(self.city_name, self.options.powers is not None)

    @property
    def num_distinct_actions(self) -> int:
        """The size of the player-action index: 311 for London without powers, 113,514 with
        them; 453 for Paris (its 148 free-entry pairs included)."""
        return self._index.size

    def action_index(self, action: NextStationAction) -> int:
        """The dense index of a player action (stable for a city and its options).

        Raises:
            NotationError: a card id (chance outcomes are indexed apart), or an action this
                game can never produce (powers not in play, a second section that is not a
                free entry's, a station or link that does not exist).
        """
        return self._index.index(action)

    def action_from_index(self, index: int) -> TurnAction:
        """The player action of a dense index.

        Raises:
            NotationError: not an int from 0 to ``num_distinct_actions - 1``.
        """
        return self._index.action(index)

    @property
    def max_chance_outcomes(self) -> int:
        """The number of cards in the city's deck (11)."""
        return len(self.city.deck)

    def chance_outcome_index(self, outcome: NextStationAction) -> int:
        """The position of card id ``outcome`` in the city's deck data order.

        Raises:
            NotationError: not a card id of this city's deck.
        """
        position = card_positions(self.city_name).get(outcome) if isinstance(outcome, str) else None
        if position is None:
            raise NotationError(f"unknown card {_short(outcome)} in the {self.city.title} deck")
        return position

    def chance_outcome_from_index(self, index: int) -> str:
        """The card id at position ``index`` of the deck data order.

        Raises:
            NotationError: not an int from 0 to ``max_chance_outcomes - 1``.
        """
        deck = self.city.deck
        if type(index) is not int or not 0 <= index < len(deck):
            raise NotationError(
                f"chance outcome index must be an int from 0 to {len(deck) - 1}, not "
                f"{_short(index)}"
            )
        return deck[index].id

    @property
    def pass_action(self) -> TurnAction:
        """``PASS``: always legal for a player to move."""
        return PASS

    # -- snapshots and records -----------------------------------------------------------
    def from_snapshot(self, text: str) -> NextStationState:
        """The state a :meth:`NextStationState.snapshot` string describes; its history starts
        there (:meth:`to_record` refuses it).

        Raises:
            NotationError: another game or city, player count or options; bad syntax; unknown
                cards or stations; inconsistent content (``docs/notation.md``, "Position
                snapshot: Next Station").
        """
        return NextStationState.from_position(
            self, parse_position(self.city, self.players, self.options, text)
        )

    def to_record(
        self,
        state: State[NextStationAction],
        names: Sequence[str],
        *,
        seed: int | None = None,
        reveal: bool = False,
    ) -> JsonObject:
        """The game record of ``state`` (``record_write.to_record``): ``seed`` written when given,
        ``reveal`` writes each played round's whole deck. In a view, the actions the viewer
        cannot see are written as not yet played (``null``).

        Raises:
            RecordError: a state of another game, not one name per player, or a state read
                from a snapshot (its history does not start at the deal).
        """
        if not isinstance(state, NextStationState) or state.game != self:
            raise RecordError(f"not a state of this game ({self.city_name}, {self.players}p)")
        if len(names) != self.players:
            raise RecordError(f"{self.players} player names expected, not {len(names)}")
        return to_record(state, list(names), seed=seed, reveal_decks=reveal)

    def deal_record(self, seed: int) -> JsonObject:
        """The deal record of ``seed`` (every round's deck, no cards or turns), players named
        ``p0`` … and ``{"seed": seed}`` in ``meta``.

        Raises:
            ValueError: a seed outside ``0..2**64-1``.
        """
        names = [f"p{k}" for k in range(self.players)]
        return deal_record(self.new_game(seed), names, {"seed": seed})


class NextStationState:
    """One position of a Next Station game. :meth:`apply` returns a new state.

    Public read-only attributes: ``game``, ``city``, ``deal``, ``round`` (0-based),
    ``flipped`` (card ids flipped this round), ``turn`` (1-based number of the current turn,
    0 before the first), ``branch`` (the current turn has a switch effect), ``maps`` (one
    :class:`PlayerMap` per player), ``line_scores`` and ``tourist_boxes`` (scored so far),
    ``viewer`` (``None`` for a full state, the seat of a :meth:`view`, :data:`SPECTATOR` for
    the public view).

    Cost: with more than one player, a player's action first keeps the few ints it changes
    (:data:`TurnStart`, what :meth:`view` shows the others until the turn ends); solo games
    keep nothing.
    """

    __slots__ = (
        "_colours",
        "_final",
        "_history",
        "_partial",
        "_pending",
        "_turn_start",
        "awaiting_card",
        "branch",
        "city",
        "deal",
        "ends_flipped",
        "flipped",
        "game",
        "line_scores",
        "maps",
        "over",
        "power_used",
        "round",
        "tourist_boxes",
        "turn",
        "viewer",
    )

    @classmethod
    def of(cls, state: object) -> NextStationState:
        """``state`` itself, checked to be a Next Station state: how the family's own adapters
        (the terminal renderer) read back a state the protocol hands them.

        Raises:
            TypeError: another game's state.
        """
        if not isinstance(state, NextStationState):
            raise TypeError(f"not a Next Station state: {type(state).__name__}")
        return state

    def __init__(self, game: NextStationGame, deal: Deal) -> None:
        self.game = game
        self.city = game.city
        self.deal = deal
        self.viewer: int | None = None
        self.round = 0
        self.flipped: tuple[str, ...] = ()
        self.ends_flipped = 0
        self.turn = 0
        self.branch = False
        self.awaiting_card = True
        self.over = False
        self._pending = 0
        n = game.players
        colours = len(self.city.colours)
        self.maps = [PlayerMap(colours) for _ in range(n)]
        self.line_scores = [[EMPTY_LINE] * colours for _ in range(n)]
        self.tourist_boxes = [0] * n
        self.power_used = [False] * n
        self._turn_start: list[TurnStart | None] | None = [None] * n if n > 1 else None
        self._history: list[int | NextStationAction] = []  # player, action, player, ...
        self._partial = False
        self._colours = self._round_colours()
        self._final: list[Breakdown] | None = None

    def _round_colours(self) -> list[int]:
        r = min(self.round, ROUNDS - 1)
        return [colour_for(self.deal, self.game.players, p, r) for p in range(self.game.players)]

    @classmethod
    def from_position(cls, game: NextStationGame, pos: Position) -> NextStationState:
        """The state of a checked snapshot :class:`Position` (its history starts empty)."""
        state = cls(game, pos.deal)
        state.viewer = pos.viewer
        state.round = pos.round
        state.flipped = pos.flipped
        state.turn = pos.turn
        state.ends_flipped = pos.ends_flipped
        state.branch = pos.branch
        state.awaiting_card = pos.awaiting_card
        state.over = pos.over
        state._pending = pos.pending
        state._partial = True
        state._colours = state._round_colours()
        for p, part in enumerate(pos.players):
            state.maps[p] = _map_of(state.city, part.lines)
            state.power_used[p] = part.power_used
            state._rescore(p)
            if part.turn_start is not None and state._turn_start is not None:
                used, line = part.turn_start
                lines = list(part.lines)
                lines[state._colours[p]] = line
                state._turn_start[p] = _turn_start(
                    _map_of(state.city, lines), state._colours[p], used
                )
        return state

    def _rescore(self, player: int) -> None:
        """Score ``player``'s lines of the finished rounds (a state read from a snapshot)."""
        city = self.city
        board = self.maps[player]
        for r in range(min(self.round, ROUNDS)):
            c = self.colour(player, r)
            self.line_scores[player][c] = score_line(
                city, board.stations[c], board.sections[c], board.circled[c]
            )
            self.tourist_boxes[player] += line_tourist_boxes(
                city, board.stations[c], board.sections[c]
            )

    # -- protocol ------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.players

    @property
    def history_from_deal(self) -> bool:
        """True when :meth:`history` starts at the deal (false for a state read from a
        snapshot): only then can the game be written as a record."""
        return not self._partial

    def to_move(self) -> frozenset[int]:
        """``{CHANCE}`` when a card is to be flipped, else the players yet to act this turn;
        empty once the game is over."""
        if self.over:
            return frozenset()
        if self.awaiting_card:
            return _CHANCE_ONLY
        pending = self._pending
        movers = _MOVERS.get(pending)
        if movers is None:
            movers = _MOVERS[pending] = frozenset(
                p for p in range(MAX_PLAYERS) if (pending >> p) & 1
            )
        return movers

    def is_over(self) -> bool:
        return self.over

    def clone(self) -> NextStationState:
        """An independent copy (history, maps and scores copied; rules data shared)."""
        other = NextStationState.__new__(NextStationState)
        # every slot, by name (bots clone once per action they weigh)
        other.game = self.game
        other.city = self.city
        other.deal = self.deal
        other.viewer = self.viewer
        other.round = self.round
        other.flipped = self.flipped
        other.ends_flipped = self.ends_flipped
        other.turn = self.turn
        other.branch = self.branch
        other.awaiting_card = self.awaiting_card
        other.over = self.over
        other._pending = self._pending
        other._partial = self._partial
        other._colours = self._colours  # replaced, never changed, at a round's end
        other._final = self._final
        other._history = self._history[:]
        other.maps = [m.copy() for m in self.maps]
        other.line_scores = [ls[:] for ls in self.line_scores]
        other.tourist_boxes = self.tourist_boxes[:]
        other.power_used = self.power_used[:]
        starts = self._turn_start
        other._turn_start = None if starts is None else starts[:]
        return other

    def history(self) -> list[tuple[int, NextStationAction]]:
        """Every action so far, in order: ``(CHANCE, card_id)`` or ``(player, TurnAction)``;
        in a :meth:`view`, ``(player, HIDDEN)`` for an action the viewer cannot see. Empty at
        the start of a state read from a snapshot."""
        flat = self._history
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return cast(list[tuple[int, NextStationAction]], list(pairs))

    # -- what is on the table ------------------------------------------------------------
    @property
    def card(self) -> str | None:
        """The card of the current turn (the last flipped), or ``None`` before any flip."""
        return self.flipped[-1] if self.flipped else None

    def colour(self, player: int, round_index: int | None = None) -> int:
        """The colour index ``player`` draws with in ``round_index`` (default: this round)."""
        if round_index is None:
            return self._colours[player]
        return colour_for(self.deal, self.game.players, player, min(round_index, ROUNDS - 1))

    def power_of(self, player: int) -> str | None:
        """The power of the pencil ``player`` holds this round, if the module is on."""
        if self.deal.powers is None:
            return None
        return self.deal.powers[self.colour(player)]

    def power_available(self, player: int) -> str | None:
        """The power ``player`` may still use this round, or ``None``."""
        power = self.power_of(player)
        return None if power is None or self.power_used[player] else power

    def remaining_cards(self) -> list[str]:
        """Card ids not yet flipped this round, in the deck's data order."""
        seen = set(self.flipped)
        return [c.id for c in self.city.deck if c.id not in seen]

    # -- legal actions -------------------------------------------------------------------
    def legal_actions(self, player: int) -> list[NextStationAction]:
        """Every legal action of ``player`` now: card ids for :data:`CHANCE` (just the dealt
        card when the deck is known, else the cards not yet flipped this round),
        :class:`TurnAction` values for a player (``PASS`` first); an empty list for someone
        not to move. In a view, the viewer's own actions are those of the full state."""
        if player == CHANCE:
            if not self.awaiting_card or self.over:
                return []
            deck = self.deal.decks[self.round]
            cards: list[NextStationAction] = (
                [deck[len(self.flipped)]] if deck is not None else [*self.remaining_cards()]
            )
            return cards
        if self.over or self.awaiting_card or player < 0 or not (self._pending >> player) & 1:
            return []
        return self._enumerate(player)

    def turn_actions(self, player: int) -> list[TurnAction]:
        """:meth:`legal_actions` of a player (never :data:`CHANCE`), typed as turn actions:
        ``PASS`` first; empty for a player not to move."""
        if self.over or self.awaiting_card or player < 0 or not (self._pending >> player) & 1:
            return []
        return cast(list[TurnAction], self._enumerate(player))  # no card ids for a player

    def is_legal(self, player: int, action: object) -> bool:
        """Whether ``player`` may play ``action`` now (the checks of :meth:`apply`, which a
        view passes too). Never raises, whatever ``player`` and ``action`` are."""
        if self.over or isinstance(player, bool) or not isinstance(player, int):
            return False
        try:
            if player == CHANCE:
                self._check_card(action)
            else:
                self._check_mover(player)
                turn_action = self._check_shape(action)
                board = self.maps[player].copy()
                self._draw(player, self._colours[player], board, turn_action, True)
        except IllegalActionError:
            return False
        return True

    def chance_outcomes(self) -> list[tuple[NextStationAction, float]]:
        """The card flipped next with its probability: ``[(card, 1.0)]`` when the deck is
        known; each card not yet flipped this round with probability ``1/k`` (deck data
        order) when it is not (a view, a record without seed); empty when no card is due."""
        cards = self.legal_actions(CHANCE)
        if not cards:
            return []
        p = 1.0 / len(cards)
        return [(card, p) for card in cards]

    def _targets(self, face: str) -> int:
        if face in SYMBOLS:
            return self.city.symbol_mask[face]
        return self.city.all_stations_mask

    def _enumerate(self, player: int) -> list[NextStationAction]:
        return self._actions_on(
            self.maps[player],
            self._colours[player],
            self.city.card_by_id[self.flipped[-1]].face,
            self.branch,
            self.turn,
            self.power_available(player),
        )

    def _actions_on(
        self, board: PlayerMap, colour: int, face: str, branch: bool, turn: int, power: str | None
    ) -> list[NextStationAction]:
        """The legal actions (``PASS`` first) of a player whose line ``colour`` is drawn on
        ``board``, for a card ``face`` in turn ``turn`` (1-based) of the round, with a switch
        effect when ``branch`` and pencil power ``power`` still usable (or ``None``)."""
        city = self.city
        starts = board.starts(city, colour, branch)
        singles = board.moves(city, colour, starts, self._targets(face))
        table = single_sections(city)
        n = len(city.stations)
        actions: list[NextStationAction] = [PASS]
        actions.extend([table[s * n + t] for s, t, _, _ in singles])  # type: ignore[misc]
        if face == "free-entry":
            for s, t, link, _ in singles:
                if (city.monument_mask >> t) & 1:
                    after = board.copy()
                    after.add_section(city, colour, s, t, link)
                    actions.extend(
                        TurnAction(((s, t), (t, t2)))
                        for _, t2, _, _ in after.moves(city, colour, 1 << t, city.all_stations_mask)
                    )
        if power == "joker" and face != "joker":
            actions.extend(
                TurnAction(((s, t),), "joker")
                for s, t, _, _ in board.moves(city, colour, starts, city.all_stations_mask)
            )
        elif power == "switch" and turn >= FIRST_EFFECTIVE_SWITCH and not branch:
            actions.extend(
                TurnAction(((s, t),), "switch")
                for s, t, _, _ in board.moves(
                    city, colour, board.starts(city, colour, True), self._targets(face)
                )
            )
        elif power == "double-section":
            actions.extend(self._doubles(board, colour, face, branch))
        elif power == "circle-station":
            actions.extend(self._circles(board, colour, actions))
        return actions

    def _doubles(self, board: PlayerMap, colour: int, face: str, branch: bool) -> list[TurnAction]:
        city = self.city
        out: list[TurnAction] = []
        starts = board.starts(city, colour, branch)
        for s, t, link, _ in board.moves(city, colour, starts, self._targets(face)):
            after = board.copy()
            after.add_section(city, colour, s, t, link)
            if face in SYMBOLS or (city.wild_mask >> t) & 1:
                second = self._targets(face)
            else:
                second = city.symbol_mask[city.stations[t].symbol]
            starts2 = after.starts(city, colour, branch)
            out.extend(
                TurnAction(((s, t), (s2, t2)), "double-section")
                for s2, t2, _, _ in after.moves(city, colour, starts2, second)
            )
        return out

    def _circles(
        self, board: PlayerMap, colour: int, base: list[NextStationAction]
    ) -> list[TurnAction]:
        out: list[TurnAction] = []
        for action in base:
            if not isinstance(action, TurnAction) or action.power is not None:
                continue
            on_line = board.stations[colour]
            for a, b in action.sections:
                on_line |= (1 << a) | (1 << b)
            out.extend(
                TurnAction(action.sections, None, i)
                for i in range(len(self.city.stations))
                if (on_line >> i) & 1
            )
        return out

    # -- applying ------------------------------------------------------------------------
    def apply(self, player: int, action: NextStationAction) -> NextStationState:
        """Check ``action`` by ``player`` and return the following state (``self`` unchanged).

        Args:
            player: a player number, or :data:`CHANCE` with a card id.
            action: a :class:`TurnAction` for a player; a card id string for chance.

        Raises:
            GameOverError: the game is over.
            NotYourTurnError: ``player`` is not to move (already acted, or a card is due).
            IllegalActionError: the action breaks a rule; ``reason`` names the rule and the
                error carries the round, turn and player. ``hidden-information`` on a view.
        """
        nxt = self.clone()
        nxt.apply_in_place(player, action, check=True)
        return nxt

    def apply_in_place(self, player: int, action: NextStationAction, check: bool = True) -> None:
        """Apply ``action`` to this state itself (the fast path for bots and simulations).

        With ``check=False`` the action must come from :meth:`legal_actions`. The state is
        unchanged when an error is raised (the errors of :meth:`apply`).
        """
        if not check and not self.over and self.viewer is None:
            fast: Any = action  # a card id for CHANCE, else a TurnAction (legal_actions' own)
            if player == CHANCE:
                self._flip(self.city.card_by_id[fast])
            else:
                self._play(player, fast, False)
            self._history.append(player)
            self._history.append(action)
            return
        self._apply_checked(player, action)

    def _apply_checked(self, player: int, action: object) -> None:
        where = {"round": self.round + 1, "turn": self.turn or None, "player": player}
        if self.viewer is not None:
            raise IllegalActionError(
                "hidden-information",
                f"this is {self._viewer_name()} view: resample() it before playing on",
            ).at(**where)
        if self.over:
            raise GameOverError.of("game-over", msg(N_("the game is over"))).at(**where)
        if player == CHANCE:
            card = self._check_card(action)
            self._flip(card)
            self._history += (CHANCE, card.id)
            return
        try:
            self._check_mover(player)
            turn_action = self._check_shape(action)
            self._play(player, turn_action, True)
        except IllegalActionError as exc:
            raise exc.at(**where) from None
        self._history += (player, turn_action)

    def _check_mover(self, player: int) -> None:
        """Raise ``not-your-turn`` unless ``player`` is a seat still to act this turn."""
        seat = 0 <= player < self.game.players
        if self.awaiting_card or not seat or not (self._pending >> player) & 1:
            raise NotYourTurnError.of(
                "not-your-turn",
                msg(N_("a card must be flipped first"))
                if self.awaiting_card and seat
                else msg(N_("player {player} is not to move now"), player=player),
            )

    def _check_shape(self, action: object) -> TurnAction:
        """``action`` if it is a well-formed :class:`TurnAction` (sections are pairs of
        station indices, a known power, a station index to circle); else ``not-an-action``."""
        if not isinstance(action, TurnAction):
            raise IllegalActionError(
                "not-an-action", f"{type(action).__name__} is not a turn action"
            )
        n = len(self.city.stations)
        sections = action.sections
        if not isinstance(sections, tuple) or not all(
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(type(x) is int and 0 <= x < n for x in pair)
            for pair in sections
        ):
            raise IllegalActionError(
                "not-an-action",
                f"sections must be pairs of station indices, not {_short(sections)}",
            )
        if action.power is not None and action.power not in POWERS_IN_ACTION:
            raise IllegalActionError("not-an-action", f"unknown power {_short(action.power)}")
        circle = action.circle
        if circle is not None and (type(circle) is not int or not 0 <= circle < n):
            raise IllegalActionError(
                "not-an-action",
                f"the circled station must be a station index, not {_short(circle)}",
            )
        return action

    def _flip(self, card: Card) -> None:
        self.flipped = (*self.flipped, card.id)
        if card.face == "switch":
            if len(self.flipped) >= FIRST_EFFECTIVE_SWITCH:
                self.branch = True
            return
        if card.ends_round:
            self.ends_flipped += 1
        self.turn += 1
        self.awaiting_card = False
        self._pending = (1 << self.game.players) - 1

    def _check_card(self, card_id: object) -> Card:
        where = {"round": self.round + 1, "turn": self.turn + 1}
        if not self.awaiting_card:
            raise NotYourTurnError.of(
                "not-your-turn", msg(N_("players must act before the next card"))
            ).at(**where)
        card = self.city.card_by_id.get(card_id) if isinstance(card_id, str) else None
        if card is None:
            raise IllegalActionError("unknown-card", f"unknown card {_short(card_id)}").at(**where)
        if card.id in self.flipped:
            raise IllegalActionError.of(
                "card-already-flipped",
                msg(N_("card {card} was already flipped this round"), card=card.id),
            ).at(**where)
        deck = self.deal.decks[self.round]
        if deck is not None and deck[len(self.flipped)] != card.id:
            raise IllegalActionError.of(
                "not-the-dealt-card",
                msg(
                    N_("card {card} is not the deal's next card {next}"),
                    card=card.id,
                    next=deck[len(self.flipped)],
                ),
            ).at(**where)
        return card

    def _play(self, player: int, action: TurnAction, check: bool) -> None:
        starts = self._turn_start
        if not action.is_pass:
            if check or starts is not None:
                self._draw_kept(player, action, check)
            else:  # solo and unchecked: the fast path draws in place
                self._draw(player, self._colours[player], self.maps[player], action, False)
            if action.powers_used:
                self.power_used[player] = True
        elif starts is not None:
            starts[player] = None  # unchanged since the card was flipped
        self._pending &= ~(1 << player)
        if not self._pending:
            self._end_turn()

    def _draw_kept(self, player: int, action: TurnAction, check: bool) -> None:
        """Draw ``action`` on ``player``'s map, on a copy when ``check`` (an error leaves the
        state unchanged). With several players, what it changes is kept first as the player's
        :data:`TurnStart` (what :meth:`view` shows the others until the turn ends)."""
        colour = self._colours[player]
        board = self.maps[player]
        starts = self._turn_start
        start = None if starts is None else _turn_start(board, colour, self.power_used[player])
        if check:
            board = board.copy()
            self._draw(player, colour, board, action, True)
            self.maps[player] = board
        else:
            self._draw(player, colour, board, action, False)
        if starts is not None:
            starts[player] = start

    def _draw(
        self, player: int, colour: int, board: PlayerMap, action: TurnAction, check: bool
    ) -> None:
        """Draw ``action``'s sections on ``board`` (a copy), checking each when ``check``."""
        city = self.city
        if not check:
            draw_action(city, board, colour, action)
            return
        face = city.card_by_id[self.flipped[-1]].face
        power = action.power
        self._check_power(player, action, face)
        branch = self.branch or power == "switch"
        targets = city.all_stations_mask if power == "joker" else self._targets(face)
        sections = action.sections
        for i, (s, t) in enumerate(sections):
            if i == 1 and face == "free-entry" and power is None:
                starts = 1 << sections[0][1]  # the extra section leaves the monument
            else:
                starts = board.starts(city, colour, branch)
            if i == 1:
                targets = self._second_targets(face, power, sections[0][1], targets)
            try:
                link = board.check_section(city, colour, s, t, starts, targets)
            except IllegalActionError as exc:
                section = [city.stations[s].name, city.stations[t].name]
                raise exc.with_item(colour=city.colours[colour], section=section) from None
            board.add_section(city, colour, s, t, link)
        if action.circle is not None:
            if not (board.stations[colour] >> action.circle) & 1:
                name = city.stations[action.circle].name
                raise IllegalActionError.of(
                    "circle-not-on-line",
                    msg(
                        N_("cannot circle {station}: it is not on the {colour} line"),
                        station=name,
                        colour=term(city.colours[colour]),
                    ),
                )
            board.circled[colour] = action.circle

    def _second_targets(self, face: str, power: str | None, first: int, targets: int) -> int:
        city = self.city
        if face == "free-entry" and power is None:
            return city.all_stations_mask
        if face == "joker" and not (city.wild_mask >> first) & 1:
            return city.symbol_mask[city.stations[first].symbol]
        return targets

    def _check_power(self, player: int, action: TurnAction, face: str) -> None:
        used = action.powers_used
        if action.power is not None and action.circle is not None:
            raise IllegalActionError.of(
                "too-many-powers",
                msg(N_("one power per turn, not {power} and a circle"), power=term(action.power)),
            )
        if used:
            self._check_power_held(player, used[0], face)
        self._check_section_count(action, face)

    def _check_power_held(self, player: int, power: str, face: str) -> None:
        """``player`` holds ``power``, unused this round, and may use it on card ``face``."""
        city = self.city
        holder = self.power_of(player)
        colour = city.colours[self.colour(player)]
        if holder is None:
            raise IllegalActionError.of(
                "no-powers",
                msg(N_("pencil powers are not in play ({power})"), power=term(power)),
            )
        if power != holder:
            raise IllegalActionError.of(
                "wrong-power",
                msg(
                    N_("the {colour} pencil's power is {holder}, not {power}"),
                    colour=term(colour),
                    holder=term(holder),
                    power=term(power),
                ),
            )
        if self.power_used[player]:
            raise IllegalActionError.of(
                "power-used",
                msg(
                    N_("the {colour} pencil's power {power} was already used this round"),
                    colour=term(colour),
                    power=term(power),
                ),
            )
        if power == "joker" and face == "joker":
            raise IllegalActionError.of(
                "power-not-usable", msg(N_("the joker power cannot be used on a joker card"))
            )
        if power == "switch" and (self.turn < FIRST_EFFECTIVE_SWITCH or self.branch):
            raise IllegalActionError.of(
                "power-not-usable",
                msg(
                    N_(
                        "the switch power cannot be used in turns 1-2 or in a turn with a "
                        "switch effect"
                    )
                ),
            )

    def _check_section_count(self, action: TurnAction, face: str) -> None:
        """The sections ``action`` draws are as many as its power (or a free entry to a
        monument) allows."""
        city = self.city
        n = len(action.sections)
        if n > 2:  # a hand-built action; the notation readers already refuse it
            raise IllegalActionError.of(
                "wrong-section-count", msg(N_("a turn draws at most 2 sections, not {n}"), n=n)
            )
        if action.power == "double-section":
            if n != 2:
                raise IllegalActionError.of(
                    "wrong-section-count",
                    msg(N_("the double-section power draws exactly 2 sections, not {n}"), n=n),
                )
        elif action.power is not None and n != 1:  # joker, switch: a hand-built action
            raise IllegalActionError.of(
                "wrong-section-count",
                msg(
                    N_("the {power} power draws 1 section, not {n}"), power=term(action.power), n=n
                ),
            )
        elif n == 2:
            t = action.sections[0][1]
            if face != "free-entry" or action.power is not None:
                raise IllegalActionError.of(
                    "wrong-section-count",
                    msg(N_("only one section per turn without the double-section power")),
                )
            if not (city.monument_mask >> t) & 1:
                raise IllegalActionError.of(
                    "no-extra-section",
                    msg(
                        N_(
                            "the extra section follows a free entry to a monument; "
                            "{station} is not one"
                        ),
                        station=city.stations[t].name,
                    ),
                )
            if action.sections[1][0] != t:
                raise IllegalActionError.of(
                    "not-an-end",
                    msg(
                        N_("the extra section must leave the monument {station}"),
                        station=city.stations[t].name,
                    ),
                )

    def _end_turn(self) -> None:
        if self.ends_flipped >= self.city.round_end_count:
            self._score_round()
            self.round += 1
            self.flipped = ()
            self.ends_flipped = 0
            self.turn = 0
            self.power_used = [False] * self.game.players
            if self.round >= ROUNDS:
                self.over = True
            self._colours = self._round_colours()
        self.branch = False
        self.awaiting_card = not self.over

    def _score_round(self) -> None:
        city = self.city
        for p, board in enumerate(self.maps):
            c = self.colour(p)
            self.line_scores[p][c] = score_line(
                city, board.stations[c], board.sections[c], board.circled[c]
            )
            self.tourist_boxes[p] += line_tourist_boxes(city, board.stations[c], board.sections[c])

    def random_playout(self, rngs: Sequence[Rng]) -> None:
        """Play to the end in place with uniformly random players; cards come from the deal.

        Player ``p`` draws with ``rngs[p]`` exactly as
        :func:`metrogames.core.playout.uniform_choice` over :meth:`legal_actions` does — one
        ``below(k)`` among the ``k`` legal actions that are not the pass, in their order, and
        no draw when only the pass is legal — so the games are those of the stepwise loop
        (:func:`metrogames.core.playout.random_playout`), history included.

        The fast path: maps never interact, so each player's round is played on its own
        (:meth:`_random_line`, on local ints) and the actions are interleaved into the
        history as the stepwise loop records them — each card, then the players in seat
        order. A turn in progress is finished one step at a time first.

        Raises:
            ValueError: not one generator per player, a view, or a round to play whose deck
                is unknown (a record without seed); the state is then unchanged.
        """
        players = self.game.players
        if len(rngs) != players:
            raise ValueError(f"random_playout needs {players} generators, not {len(rngs)}")
        if self.over:
            return
        if self.viewer is not None or None in self.deal.decks[self.round :]:
            raise ValueError("random_playout needs a known deal (resample a view first)")
        if len({id(rng) for rng in rngs}) < players:
            # a generator shared by seats must draw in the stepwise loop's order
            random_playout(self, rngs)
            return
        if not self.awaiting_card:
            for p in range(players):
                if (self._pending >> p) & 1:
                    action = uniform_choice(rngs[p], self._enumerate(p), PASS)
                    self.apply_in_place(p, action, check=False)
        while not self.over:
            self._random_round(rngs)

    def _random_round(self, rngs: Sequence[Rng]) -> None:
        """Play the round in progress from its next card to its end (the round is scored):
        every card is flipped, and each player plays every turn with ``rngs[player]``."""
        city = self.city
        deck = self.deal.decks[self.round]
        assert deck is not None  # random_playout checked the decks
        card_by_id = city.card_by_id
        flipped = list(self.flipped)
        ends = self.ends_flipped
        branch = self.branch
        turn = self.turn
        turns: list[_Turn] = []
        for card_id in deck[len(flipped) :]:
            flipped.append(card_id)
            card = card_by_id[card_id]
            if card.face == "switch":
                branch = branch or len(flipped) >= FIRST_EFFECTIVE_SWITCH
                continue
            turn += 1
            turns.append((card.face, self._targets(card.face), branch, turn))
            branch = False
            ends += card.ends_round
            if ends >= city.round_end_count:
                break
        lines = [self._random_line(p, turns, rng) for p, rng in enumerate(rngs)]
        history = self._history
        k = 0
        for card_id in flipped[len(self.flipped) :]:
            history += (CHANCE, card_id)
            if card_by_id[card_id].face != "switch":
                for p, line in enumerate(lines):
                    history += (p, line[k])
                k += 1
        self.flipped = tuple(flipped)
        self.ends_flipped = ends
        self.turn = turn
        self._pending = 0
        self._end_turn()  # ends the round: a deck holds every card, so enough end cards

    def _random_line(self, player: int, turns: list[_Turn], rng: Rng) -> list[TurnAction]:
        """``player``'s random actions for ``turns`` (drawn on their map), by
        :func:`~metrogames.core.playout.uniform_choice`'s draws.

        A turn with one kind of action — single sections — is played on local ints (the
        rules of :meth:`PlayerMap.moves` and :meth:`PlayerMap.add_section`, candidates in
        the same order); a turn where a pencil power is still available, or a free entry
        (Paris), takes the engine's own enumeration (:meth:`_actions_on`).
        """
        city = self.city
        colour = self._colours[player]
        board = self.maps[player]
        power = self.power_available(player)
        steps = _random_steps(city)
        below = rng.below
        departure = 1 << city.departures[colour]
        stations, sections, ends, blocked = board.line(colour)
        actions: list[TurnAction] = []
        for face, targets, branch, turn in turns:
            if power is not None or face == "free-entry":
                board.set_line(colour, stations, sections, ends, blocked)
                action = self._random_listed(player, board, colour, (face, branch, turn), power, rng)
                if action.powers_used:
                    power = None
                actions.append(action)
                stations, sections, ends, blocked = board.line(colour)
                continue
            starts = (stations if branch else ends) if sections else departure
            open_targets = targets & ~stations
            moves = []  # find_sections, inlined: the hot loop of random games
            while starts:
                sbit = starts & -starts
                starts ^= sbit
                reach, by_target = steps[sbit]
                cand = reach & open_targets
                while cand:
                    tbit = cand & -cand
                    cand ^= tbit
                    move = by_target[tbit]
                    if not blocked & move[2]:
                        moves.append(move)
            if not moves:
                actions.append(PASS)
                continue
            sbit, tbit, lbit, block, action = moves[below(len(moves))]
            if sections:
                if ends & sbit:
                    ends ^= sbit  # it had one section of the line: now two
                ends |= tbit
                stations |= tbit
            else:
                ends = stations = sbit | tbit
            sections |= lbit
            blocked |= block
            actions.append(action)
        board.set_line(colour, stations, sections, ends, blocked)
        return actions

    def _random_listed(
        self,
        player: int,
        board: PlayerMap,
        colour: int,
        turn: tuple[str, bool, int],
        power: str | None,
        rng: Rng,
    ) -> TurnAction:
        """A uniform draw (by ``rng``) among the engine's own actions for ``turn`` (its card
        face, switch effect and number: :meth:`_actions_on`), drawn on ``board``; a power it
        uses is marked used."""
        face, branch, number = turn
        legal = self._actions_on(board, colour, face, branch, number, power)
        action = legal[1 + rng.below(len(legal) - 1)] if len(legal) > 1 else PASS
        assert isinstance(action, TurnAction)  # never a card id for a player
        draw_action(self.city, board, colour, action)
        if action.powers_used:
            self.power_used[player] = True
        return action

    # -- scores --------------------------------------------------------------------------
    def breakdown(self, player: int) -> Breakdown:
        """``player``'s score sheet as if the game ended now: lines of finished rounds as
        scored, the current line scored as it stands, and the end-of-game items."""
        if self.over:
            return self._final_sheets()[player]
        city = self.city
        board = self.maps[player]
        c = self.colour(player)
        lines = self.line_scores[player][:]
        lines[c] = score_line(city, board.stations[c], board.sections[c], board.circled[c])
        boxes = self.tourist_boxes[player]
        boxes += line_tourist_boxes(city, board.stations[c], board.sections[c])
        return breakdown(city, board, lines, boxes, self.deal.objectives)

    def _final_sheets(self) -> list[Breakdown]:
        """Every player's sheet of a finished game, made once (nothing changes after the
        end; scores, components and winners all read them)."""
        sheets = self._final
        if sheets is None:
            city = self.city
            objectives = self.deal.objectives
            sheets = self._final = [
                breakdown(city, board, lines, boxes, objectives)
                for board, lines, boxes in zip(
                    self.maps, self.line_scores, self.tourist_boxes, strict=True
                )
            ]
        return sheets

    def scores(self) -> list[int]:
        """Each player's total in points (see :meth:`breakdown`); final once the game is over."""
        if self.over:
            return [sheet.total for sheet in self._final_sheets()]
        return [self._total(p, self.maps[p]) for p in range(self.game.players)]

    def _total(self, player: int, board: PlayerMap) -> int:
        """:meth:`breakdown`'s total of a game not over, ``board`` standing for ``player``'s
        map (:func:`.scoring.sheet_total`: no sheet built)."""
        city = self.city
        c = self._colours[player]
        lines = self.line_scores[player][:]
        stations, sections = board.stations[c], board.sections[c]
        lines[c] = score_line(city, stations, sections, board.circled[c])
        boxes = self.tourist_boxes[player] + line_tourist_boxes(city, stations, sections)
        return sheet_total(city, board, lines, boxes, self.deal.objectives)

    def greedy_gains(self, player: int, actions: Sequence[NextStationAction]) -> list[int]:
        """``GreedyGains``: per action (a turn action legal for ``player``, who is to move),
        ``player``'s gain in :meth:`scores` were it applied now, in points; the other players'
        gains are always 0 (:func:`.gains.greedy_gains`: each action drawn on a copy of the
        player's map alone)."""
        return greedy_gains(self, player, actions)

    def winners(self) -> list[int]:
        """Players with the highest total, then the highest single line (rules, "Tie-break");
        several when still tied; empty until the game is over."""
        if not self.over:
            return []
        sheets = [self.breakdown(p) for p in range(self.game.players)]
        best = max((s.total, s.best_line()) for s in sheets)
        return [p for p, s in enumerate(sheets) if (s.total, s.best_line()) == best]

    def line_score(self, player: int, colour: int) -> LineScore:
        """The scored line of ``colour`` for ``player`` (empty until its round is scored)."""
        return self.line_scores[player][colour]

    def score_components(self, player: int) -> dict[str, int]:
        """``player``'s score by component, in points (as :meth:`breakdown`): ``lines``,
        ``tourist`` (cities that score tourist sites), ``interchanges``, ``bridges`` (cities
        with bridges), ``objectives`` (when objectives are in play), ``total`` last."""
        sheet = self.breakdown(player)
        out = {"lines": sum(ls.score for ls in sheet.lines.values())}
        if self.city.tourist_points:
            out["tourist"] = sheet.tourist_points
        out["interchanges"] = sheet.interchange_points
        if self.city.bridges:
            out["bridges"] = sheet.bridge_points
        if self.deal.objectives:
            out["objectives"] = sheet.objective_points
        out["total"] = sheet.total
        return out

    # -- capabilities (metrogames.core.capabilities; their modules load on first use) ------
    def view_json(self, you: int | None) -> JsonObject:
        """``Presented``: the Next Station part of a view's JSON
        (:func:`.present.view_json`)."""
        return cast(JsonObject, view_json(self, you))  # a NextStationViewPart: typed JSON

    def solo_result(self) -> JsonObject | None:
        """``SoloRated``: the rating and percentile of a finished solo game, else ``None``
        (:func:`.present.solo_result`)."""
        return solo_result(self)

    def heuristic(self, player: int) -> float:
        """``Evaluated``: the greedy playout of ``player``'s map to the end of the game
        (:func:`.heuristic.greedy_final_score`), in points.

        Raises:
            ValueError: a view or an unknown deal.
        """
        return float(greedy_final_score(self, player))

    def deep_heuristic(self, player: int) -> float:
        """``DeepEvaluated``: the same playout looking one card ahead among
        :data:`.heuristic.LOOKAHEAD_WIDTH` sections, in points (about three times slower).

        Raises:
            ValueError: a view or an unknown deal.
        """
        return float(greedy_final_score(self, player, lookahead=LOOKAHEAD_WIDTH))

    def value_feature_spec(self) -> tuple[str, tuple[str, ...]]:
        """``ValueFeatured``: the features' version and names (:mod:`.value`)."""
        return FEATURE_VERSION, feature_names(self.city)

    def open_deal(self, seat: int, rng: Rng) -> NextStationState:
        """``ValueFeatured``: :meth:`resample` with every deck unknown again: a playable state
        consistent with ``view(seat)`` whose unflipped cards are chance events, so that its
        :meth:`chance_outcomes` are the exact next-card distribution ``seat`` faces (the
        other players' hidden actions of the turn in progress drawn as :meth:`resample` does).

        Raises:
            ValueError: as :meth:`resample`.
        """
        out = self.resample(seat, rng)
        out.deal = replace(out.deal, decks=(None,) * ROUNDS)
        return out

    def value_features(self, player: int) -> list[float]:
        """``ValueFeatured``: ``player``'s position features (:func:`.value.features`); they
        read only what ``player``'s view shows, so a view gives them too.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return features(self, player)

    def score_bound(self, player: int) -> dict[str, int] | None:
        """``ScoreBounded``: upper bounds of ``player``'s final score on this deal by
        component, ``None`` when the decks are not known (:func:`.bound.score_bound`)."""
        return score_bound(self, player)

    def observe(self, seat: int) -> JsonObject:
        """``Observable``: what this view shows ``seat`` as indices
        (:func:`.observe.observe`; ``docs/research.md``, "Observations")."""
        return observe(self, seat)

    # -- hidden information --------------------------------------------------------------
    def view(self, seat: int | None) -> NextStationState:
        """What ``seat`` may know (``None``: a spectator), as a read-only state.

        Hidden: the order of the unflipped cards (every round's deck is unknown, so the
        chance outcomes are the round's remaining cards) and, for every other player who has
        acted in the turn in progress, that action: their map and power-used flag (and so
        their scores) are those of the moment the turn's card was flipped, and their action
        reads ``(player, HIDDEN)`` in :meth:`history`. Who has acted stays public
        (:meth:`to_move` is unchanged). The spectator sees no action of the turn in progress.
        :meth:`apply` on a view raises ``hidden-information``; :meth:`legal_actions`,
        :meth:`is_legal`, the scores and :meth:`chance_outcomes` work. A seat's view can be
        narrowed to the spectator's, not to another seat's.

        Raises:
            ValueError: ``seat`` is not a seat of this game (or, on a view, another seat).
        """
        viewer = self._viewer_for(seat)
        out = self.clone()
        out.viewer = viewer
        out.deal = replace(self.deal, decks=(None,) * ROUNDS)
        hidden = out._hidden_from(viewer)
        for p in hidden:
            out._restore_turn_start(p)
        out._hide_history(hidden)
        return out

    def resample(self, seat: int, rng: Rng) -> NextStationState:
        """A full, playable state consistent with ``view(seat)``: the current round's
        unflipped cards and every later round's deck shuffled with ``rng``, and each hidden
        action of the turn in progress replaced by a uniformly random legal action of its
        player from their turn-start map (in seat order, after the decks). Its ``viewer`` is
        ``None``; earlier rounds' decks stay unknown.

        Raises:
            ValueError: ``seat`` is not a seat of this game, or this is another seat's view
                (or the spectator's).
        """
        self._seat(seat)
        if self.viewer is not None and self.viewer != seat:
            raise ValueError(f"this is {self._viewer_name()} view, not player {seat}'s")
        out = self.view(seat) if self.viewer is None else self.clone()
        out.viewer = None
        out.deal = replace(out.deal, decks=out._sampled_decks(rng))
        for p in out._hidden_from(seat):
            out._sample_hidden(p, rng)
        return out

    def _seat(self, seat: object) -> int:
        n = self.game.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"no seat {_short(seat)} in a {n}-player game")
        return seat

    def _viewer_for(self, seat: int | None) -> int:
        viewer = SPECTATOR if seat is None else self._seat(seat)
        if self.viewer is not None and viewer not in (self.viewer, SPECTATOR):
            raise ValueError(f"this is {self._viewer_name()} view: it cannot show player {seat}'s")
        return viewer

    def _viewer_name(self) -> str:
        return "the spectator's" if self.viewer == SPECTATOR else f"player {self.viewer}'s"

    def _acted(self, player: int) -> bool:
        """``player`` has acted in the turn in progress."""
        return not self.over and not self.awaiting_card and not (self._pending >> player) & 1

    def _hidden_from(self, viewer: int) -> list[int]:
        """The players whose action of the turn in progress ``viewer`` cannot see."""
        return [p for p in range(self.game.players) if p != viewer and self._acted(p)]

    def _restore_turn_start(self, player: int) -> None:
        """Put back what ``player``'s action of the turn in progress changed."""
        starts = self._turn_start
        entry = starts[player] if starts is not None else None
        if entry is None or starts is None:
            return
        board = self.maps[player] = self.maps[player].copy()
        c = self._colours[player]
        (
            board.stations[c],
            board.sections[c],
            board.ends[c],
            board.circled[c],
            board.drawn,
            board.blocked,
            self.power_used[player],
        ) = entry
        starts[player] = None

    def _hide_history(self, hidden: list[int]) -> None:
        """Replace the turn in progress's actions of ``hidden`` players with ``HIDDEN``."""
        flat = self._history
        for i in range(len(flat) - 2, -1, -2):
            if flat[i] == CHANCE:
                return
            if flat[i] in hidden:
                flat[i + 1] = HIDDEN

    def _sampled_decks(self, rng: Rng) -> tuple[tuple[str, ...] | None, ...]:
        decks: list[tuple[str, ...] | None] = [None] * ROUNDS
        if self.over:
            return tuple(decks)
        rest = self.remaining_cards()
        rng.shuffle(rest)
        decks[self.round] = (*self.flipped, *rest)
        ids = [card.id for card in self.city.deck]
        for r in range(self.round + 1, ROUNDS):
            decks[r] = tuple(rng.shuffled(ids))
        return tuple(decks)

    def _sample_hidden(self, player: int, rng: Rng) -> None:
        """Play a uniformly random legal action for ``player`` (who has acted, hidden) from
        their map and put it in the history in place of ``HIDDEN``."""
        action = rng.choice(self._enumerate(player))  # acted: not pending any more
        assert isinstance(action, TurnAction)
        if not action.is_pass:
            self._draw_kept(player, action, False)
            if action.powers_used:
                self.power_used[player] = True
        flat = self._history
        for i in range(len(flat) - 2, -1, -2):
            if flat[i] == CHANCE:  # not in the history (it began after: a snapshot)
                return
            if flat[i] == player:
                flat[i + 1] = action
                return

    # -- snapshots -----------------------------------------------------------------------
    def snapshot(self) -> str:
        """The position as a one-line string (``docs/notation.md``, "Position snapshot: Next
        Station"); ``game.from_snapshot`` reads it back. It holds no history."""
        return format_position(self.city, self._position())

    def _position(self) -> Position:
        return Position(
            viewer=self.viewer,
            deal=self.deal,
            round=self.round,
            flipped=self.flipped,
            turn=self.turn,
            ends_flipped=self.ends_flipped,
            pending=self._pending,
            awaiting_card=self.awaiting_card,
            branch=self.branch,
            over=self.over,
            players=tuple(self._player_part(p) for p in range(self.game.players)),
        )

    def _player_part(self, player: int) -> PlayerPart:
        board = self.maps[player]
        lines = tuple(Line(s, c) for s, c in zip(board.sections, board.circled, strict=True))
        starts = self._turn_start
        entry = starts[player] if starts is not None and self._acted(player) else None
        start = None
        if entry is not None:
            start = (entry[6], Line(entry[1], entry[3]))
        return PlayerPart(self.power_used[player], lines, start)

    # -- notation ------------------------------------------------------------------------
    def action_to_string(self, player: int, action: NextStationAction) -> str:
        """The text notation: ``D3-G3``, ``pass``, ``@E4``…; a chance outcome's card id.

        Raises:
            NotationError: not an action of this game (an unknown card, a malformed action,
                no such player).
        """
        if player == CHANCE:
            return self._card_id(action)
        return format_action(self.city, self._turn_action(player, action))

    def string_to_action(self, player: int, text: str) -> NextStationAction:
        """Read the text notation (not checked for legality); for :data:`CHANCE` a card id.

        Raises:
            NotationError: bad syntax, unknown stations, powers or cards.
        """
        if player == CHANCE:
            return self._card_id(text.strip() if isinstance(text, str) else text)
        self._notation_player(player)
        return parse_action(self.city, text)

    def action_to_json(self, player: int, action: NextStationAction) -> JsonValue:
        """The JSON notation (``docs/notation.md``); for :data:`CHANCE` the card id.

        Raises:
            NotationError: as :meth:`action_to_string`.
        """
        if player == CHANCE:
            return self._card_id(action)
        value: JsonValue = action_to_json(self.city, self._turn_action(player, action))
        return value

    def action_from_json(self, player: int, value: object) -> NextStationAction:
        """Read the JSON notation (not checked for legality); for :data:`CHANCE` a card id.

        Raises:
            NotationError: wrong types, unknown keys, stations, powers or cards.
        """
        if player == CHANCE:
            return self._card_id(value)
        self._notation_player(player)
        return action_from_json(self.city, value)

    def _card_id(self, value: object) -> str:
        if isinstance(value, str) and value in self.city.card_by_id:
            return value
        raise NotationError(f"unknown card {_short(value)} in the {self.city.title} deck")

    def _notation_player(self, player: object) -> None:
        n = self.game.players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
            raise NotationError(f"no player {_short(player)} in a {n}-player game")

    def _turn_action(self, player: int, action: object) -> TurnAction:
        self._notation_player(player)
        try:
            return self._check_shape(action)
        except IllegalActionError as exc:
            raise NotationError(exc.detail) from None


_Move = tuple[int, int, int, int, TurnAction]
"""A one-section move of the random playout: start and target station bits, link bit, the
links it blocks (itself and those it crosses), and the action."""
_STEPS: weakref.WeakKeyDictionary[CityMap, dict[int, tuple[int, dict[int, _Move]]]] = (
    weakref.WeakKeyDictionary()
)
"""Per map object: a custom map may reuse a city's id; a forgotten map's entry goes too."""


def _random_steps(city: CityMap) -> dict[int, tuple[int, dict[int, _Move]]]:
    """Per station bit ``s``: the mask of its neighbours and, per neighbour bit, the
    :data:`_Move` from ``s`` to it — :func:`~.board.find_sections`'s tables, shaped for the
    random playout (one lookup per candidate, nothing to recompute once one is drawn)."""
    steps = _STEPS.get(city)
    if steps is None:
        singles = single_sections(city)
        n = len(city.stations)
        steps = _STEPS[city] = {}
        for s, table in enumerate(city.links_by_target):
            moves: dict[int, _Move] = {}
            for tbit, (_, t, link, lbit) in table.items():
                action = singles[s * n + t]
                assert action is not None  # a link joins s and t
                moves[tbit] = (1 << s, tbit, lbit, lbit | city.conflicts[link], action)
            steps[1 << s] = (city.neighbours[s], moves)
    return steps


def _map_of(city: CityMap, lines: Sequence[Line]) -> PlayerMap:
    return PlayerMap.from_lines(city, [ln.sections for ln in lines], [ln.circled for ln in lines])


def _turn_start(board: PlayerMap, colour: int, power_used: bool) -> TurnStart:
    return (
        board.stations[colour],
        board.sections[colour],
        board.ends[colour],
        board.circled[colour],
        board.drawn,
        board.blocked,
        power_used,
    )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


if TYPE_CHECKING:

    def _protocol_check(
        game: NextStationGame, state: NextStationState
    ) -> tuple[Game[NextStationAction], State[NextStationAction]]:
        """mypy checks here that the engine implements the protocol exactly."""
        return game, state

    def _capabilities_check(
        state: NextStationState,
    ) -> tuple[
        Presented,
        SoloRated,
        Evaluated,
        DeepEvaluated,
        GreedyGains,
        ScoreBounded,
        Observable,
        ValueFeatured,
    ]:
        """mypy checks here that the states provide these capabilities exactly."""
        return state, state, state, state, state, state, state, state
