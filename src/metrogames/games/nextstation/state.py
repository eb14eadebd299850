"""The Next Station game and its states (London and Paris share them).

Source: ``rules/next-station-london.md`` ("Structure of a game", "A round", "Drawing a section",
"Advanced module 2") and ``rules/next-station-paris.md`` ("Cards"). Turns are simultaneous: in
each turn every player still to act is in :meth:`NextStationState.to_move`; card flips are chance
actions (card ids) of the player :data:`~metrogames.core.protocol.CHANCE`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metrogames.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng, check_seed
from metrogames.games.nextstation.actions import PASS, TurnAction, single_sections
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import SYMBOLS, Card, CityMap, load_city
from metrogames.games.nextstation.deal import ROUNDS, Deal, Options, colour_for, resolve
from metrogames.games.nextstation.scoring import (
    EMPTY_LINE,
    Breakdown,
    LineScore,
    breakdown,
    line_tourist_boxes,
    score_line,
)

MAX_PLAYERS = 4
_CHANCE_ONLY = frozenset((CHANCE,))
_MOVERS: dict[int, frozenset[int]] = {}
FIRST_EFFECTIVE_SWITCH = 3
"""A switch flipped 1st or 2nd in a round has no effect (rules, "A round", 3)."""


@dataclass(frozen=True)
class NextStationGame:
    """Rules and options of one Next Station game: city, player count (1–4) and options.

    Raises:
        ValueError: a player count outside 1–4.
    """

    city_name: str = "london"
    players: int = 1
    options: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        if not 1 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Next Station takes 1 to {MAX_PLAYERS} players, not {self.players}")

    @property
    def city(self) -> CityMap:
        """The city map (loaded once)."""
        return load_city(self.city_name)

    @property
    def name(self) -> str:
        return self.city_name

    @property
    def num_players(self) -> int:
        return self.players

    def new_game(self, seed: int) -> NextStationState:
        """A new game dealt from ``seed`` (0 ≤ seed < 2**64)."""
        return NextStationState(self, resolve(self.city, self.options, check_seed(seed)))

    def from_deal(self, deal: Deal) -> NextStationState:
        """A new game on a given deal (decks may be unknown: flips then come from outside)."""
        return NextStationState(self, deal)


class NextStationState:
    """One position of a Next Station game. :meth:`apply` returns a new state.

    Public read-only attributes: ``game``, ``city``, ``deal``, ``round`` (0-based),
    ``flipped`` (card ids flipped this round), ``turn`` (1-based number of the current turn,
    0 before the first), ``branch`` (the current turn has a switch effect), ``maps`` (one
    :class:`PlayerMap` per player), ``line_scores`` and ``tourist_boxes`` (scored so far).
    """

    __slots__ = (
        "_colours",
        "_history",
        "_pending",
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
    )

    def __init__(self, game: NextStationGame, deal: Deal) -> None:
        self.game = game
        self.city = game.city
        self.deal = deal
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
        self._history: list[Any] = []  # player, action, player, action, ...
        self._colours = self._round_colours()

    def _round_colours(self) -> list[int]:
        r = min(self.round, ROUNDS - 1)
        return [colour_for(self.deal, self.game.players, p, r) for p in range(self.game.players)]

    # -- protocol ------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.players

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
        for name in NextStationState.__slots__:
            setattr(other, name, getattr(self, name))
        other._history = self._history[:]
        other.maps = [m.copy() for m in self.maps]
        other.line_scores = [ls[:] for ls in self.line_scores]
        other.tourist_boxes = self.tourist_boxes[:]
        other.power_used = self.power_used[:]
        return other

    def history(self) -> list[tuple[int, str | TurnAction]]:
        """Every action so far, in order: ``(CHANCE, card_id)`` or ``(player, TurnAction)``."""
        flat = self._history
        return list(zip(flat[::2], flat[1::2], strict=True))

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
    def legal_actions(self, player: int) -> list[Any]:
        """Every legal action of ``player`` now: card ids for :data:`CHANCE` (just the dealt
        card when the deck is known), :class:`TurnAction` values for a player (``PASS``
        first); an empty list for someone not to move."""
        if player == CHANCE:
            if not self.awaiting_card or self.over:
                return []
            deck = self.deal.decks[self.round]
            return [deck[len(self.flipped)]] if deck is not None else self.remaining_cards()
        if self.over or self.awaiting_card or not (self._pending >> player) & 1:
            return []
        return self._enumerate(player)

    def _targets(self, face: str) -> int:
        if face in SYMBOLS:
            return self.city.symbol_mask[face]
        return self.city.all_stations_mask

    def _enumerate(self, player: int) -> list[TurnAction]:
        city = self.city
        card = city.card_by_id[self.flipped[-1]]
        colour = self.colour(player)
        board = self.maps[player]
        starts = board.starts(city, colour, self.branch)
        singles = board.moves(city, colour, starts, self._targets(card.face))
        table = single_sections(city)
        n = len(city.stations)
        actions: list[TurnAction] = [PASS]
        actions.extend([table[s * n + t] for s, t, _, _ in singles])  # type: ignore[misc]
        if card.face == "free-entry":
            for s, t, link, _ in singles:
                if (city.monument_mask >> t) & 1:
                    after = board.copy()
                    after.add_section(city, colour, s, t, link)
                    actions.extend(
                        TurnAction(((s, t), (t, t2)))
                        for _, t2, _, _ in after.moves(city, colour, 1 << t, city.all_stations_mask)
                    )
        power = self.power_available(player)
        if power == "joker" and card.face != "joker":
            actions.extend(
                TurnAction(((s, t),), "joker")
                for s, t, _, _ in board.moves(city, colour, starts, city.all_stations_mask)
            )
        elif power == "switch" and self.turn >= FIRST_EFFECTIVE_SWITCH and not self.branch:
            actions.extend(
                TurnAction(((s, t),), "switch")
                for s, t, _, _ in board.moves(
                    city, colour, board.starts(city, colour, True), self._targets(card.face)
                )
            )
        elif power == "double-section":
            actions.extend(self._doubles(board, colour, card.face))
        elif power == "circle-station":
            actions.extend(self._circles(board, colour, actions))
        return actions

    def _doubles(self, board: PlayerMap, colour: int, face: str) -> list[TurnAction]:
        city = self.city
        out: list[TurnAction] = []
        starts = board.starts(city, colour, self.branch)
        for s, t, link, _ in board.moves(city, colour, starts, self._targets(face)):
            after = board.copy()
            after.add_section(city, colour, s, t, link)
            if face in SYMBOLS or (city.wild_mask >> t) & 1:
                second = self._targets(face)
            else:
                second = city.symbol_mask[city.stations[t].symbol]
            starts2 = after.starts(city, colour, self.branch)
            out.extend(
                TurnAction(((s, t), (s2, t2)), "double-section")
                for s2, t2, _, _ in after.moves(city, colour, starts2, second)
            )
        return out

    def _circles(self, board: PlayerMap, colour: int, base: list[TurnAction]) -> list[TurnAction]:
        out: list[TurnAction] = []
        for action in base:
            if action.power is not None:
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
    def apply(self, player: int, action: Any) -> NextStationState:
        """Check ``action`` by ``player`` and return the following state (``self`` unchanged).

        Args:
            player: a player number, or :data:`CHANCE` with a card id.
            action: a :class:`TurnAction` for a player; a card id string for chance.

        Raises:
            GameOverError: the game is over.
            NotYourTurnError: ``player`` is not to move (already acted, or a card is due).
            IllegalActionError: the action breaks a rule; ``reason`` names the rule and the
                error carries the round, turn and player.
        """
        nxt = self.clone()
        nxt.apply_in_place(player, action, check=True)
        return nxt

    def apply_in_place(self, player: int, action: Any, check: bool = True) -> None:
        """Apply ``action`` to this state itself (the fast path for bots and simulations).

        With ``check=False`` the action must come from :meth:`legal_actions`. The state is
        unchanged when an error is raised.
        """
        if not check and not self.over:
            if player == CHANCE:
                self._flip(action, False)
            else:
                self._play(player, action, False)
            self._history.append(player)
            self._history.append(action)
            return
        where = {"round": self.round + 1, "turn": self.turn or None, "player": player}
        if self.over:
            raise GameOverError("game-over", "the game is over").at(**where)
        if player == CHANCE:
            self._flip(action, check)
        else:
            if (
                self.awaiting_card
                or not (0 <= player < self.game.players)
                or not ((self._pending >> player) & 1)
            ):
                raise NotYourTurnError(
                    "not-your-turn",
                    "a card must be flipped first"
                    if self.awaiting_card and 0 <= player < self.game.players
                    else f"player {player} is not to move now",
                ).at(**where)
            if not isinstance(action, TurnAction):
                raise IllegalActionError(
                    "not-an-action", f"{type(action).__name__} is not a turn action"
                ).at(**where)
            try:
                self._play(player, action, check)
            except IllegalActionError as exc:
                raise exc.at(**where) from None
        self._history.append(player)
        self._history.append(action)

    def _flip(self, card_id: Any, check: bool) -> None:
        card = self.city.card_by_id[card_id] if not check else self._check_card(card_id)
        self.flipped = (*self.flipped, card_id)
        if card.face == "switch":
            if len(self.flipped) >= FIRST_EFFECTIVE_SWITCH:
                self.branch = True
            return
        if card.ends_round:
            self.ends_flipped += 1
        self.turn += 1
        self.awaiting_card = False
        self._pending = (1 << self.game.players) - 1

    def _check_card(self, card_id: Any) -> Card:
        where = {"round": self.round + 1, "turn": self.turn + 1}
        if not self.awaiting_card:
            raise NotYourTurnError("not-your-turn", "players must act before the next card").at(
                **where
            )
        card = self.city.card_by_id.get(card_id) if isinstance(card_id, str) else None
        if card is None:
            raise IllegalActionError("unknown-card", f"unknown card {card_id!r}").at(**where)
        if card_id in self.flipped:
            raise IllegalActionError(
                "card-already-flipped", f"card {card_id} was already flipped this round"
            ).at(**where)
        deck = self.deal.decks[self.round]
        if deck is not None and deck[len(self.flipped)] != card_id:
            raise IllegalActionError(
                "not-the-dealt-card",
                f"card {card_id} is not the deal's next card {deck[len(self.flipped)]}",
            ).at(**where)
        return card

    def _play(self, player: int, action: TurnAction, check: bool) -> None:
        colour = self.colour(player)
        board = self.maps[player]
        if not action.is_pass:
            if check:  # draw on a copy so that an error leaves the state unchanged
                board = board.copy()
                self._draw(player, colour, board, action, check)
                self.maps[player] = board
            else:
                self._draw(player, colour, board, action, check)
            if action.powers_used:
                self.power_used[player] = True
        self._pending &= ~(1 << player)
        if not self._pending:
            self._end_turn()

    def _draw(
        self, player: int, colour: int, board: PlayerMap, action: TurnAction, check: bool
    ) -> None:
        """Draw ``action``'s sections on ``board`` (a copy), checking each when ``check``."""
        city = self.city
        face = city.card_by_id[self.flipped[-1]].face
        power = action.power
        if check:
            self._check_power(player, action, face)
        branch = self.branch or power == "switch"
        targets = city.all_stations_mask if power == "joker" else self._targets(face)
        sections = action.sections
        for i, (s, t) in enumerate(sections):
            if i == 0:
                starts = board.starts(city, colour, branch)
            elif face == "free-entry" and power is None:
                starts = 1 << sections[0][1]  # the extra section leaves the monument
            else:
                starts = board.starts(city, colour, branch)
            if check:
                if i == 1:
                    targets = self._second_targets(face, power, sections[0][1], targets)
                link = board.check_section(city, colour, s, t, starts, targets)
            else:
                link = city.link_of[(s, t)]
            board.add_section(city, colour, s, t, link)
        if (
            check
            and action.circle is not None
            and not (board.stations[colour] >> action.circle) & 1
        ):
            name = city.stations[action.circle].name
            raise IllegalActionError(
                "circle-not-on-line",
                f"cannot circle {name}: it is not on the {city.colours[colour]} line",
            )
        if action.circle is not None:
            board.circled[colour] = action.circle

    def _second_targets(self, face: str, power: str | None, first: int, targets: int) -> int:
        city = self.city
        if face == "free-entry" and power is None:
            return city.all_stations_mask
        if face == "joker" and not (city.wild_mask >> first) & 1:
            return city.symbol_mask[city.stations[first].symbol]
        return targets

    def _check_power(self, player: int, action: TurnAction, face: str) -> None:
        city = self.city
        n = len(action.sections)
        used = action.powers_used
        if action.power is not None and action.circle is not None:
            raise IllegalActionError(
                "too-many-powers", f"one power per turn, not {action.power} and a circle"
            )
        if used:
            power = used[0]
            holder = self.power_of(player)
            colour = city.colours[self.colour(player)]
            if holder is None:
                raise IllegalActionError("no-powers", f"pencil powers are not in play ({power})")
            if power != holder:
                raise IllegalActionError(
                    "wrong-power", f"the {colour} pencil's power is {holder}, not {power}"
                )
            if self.power_used[player]:
                raise IllegalActionError(
                    "power-used", f"the {colour} pencil's power {power} was already used this round"
                )
            if power == "joker" and face == "joker":
                raise IllegalActionError(
                    "power-not-usable", "the joker power cannot be used on a joker card"
                )
            if power == "switch" and (self.turn < FIRST_EFFECTIVE_SWITCH or self.branch):
                raise IllegalActionError(
                    "power-not-usable",
                    "the switch power cannot be used in turns 1-2 or in a turn with a switch effect",
                )
        if n > 2:  # a hand-built action; the notation readers already refuse it
            raise IllegalActionError(
                "wrong-section-count", f"a turn draws at most 2 sections, not {n}"
            )
        if action.power == "double-section":
            if n != 2:
                raise IllegalActionError(
                    "wrong-section-count",
                    f"the double-section power draws exactly 2 sections, not {n}",
                )
        elif n == 2:
            t = action.sections[0][1]
            if face != "free-entry" or action.power is not None:
                raise IllegalActionError(
                    "wrong-section-count",
                    "only one section per turn without the double-section power",
                )
            if not (city.monument_mask >> t) & 1:
                raise IllegalActionError(
                    "no-extra-section",
                    f"the extra section follows a free entry to a monument; {city.stations[t].name} is not one",
                )
            if action.sections[1][0] != t:
                raise IllegalActionError(
                    "not-an-end",
                    f"the extra section must leave the monument {city.stations[t].name}",
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

    def rollout(self, rng: Rng) -> None:
        """Play the rest of the game in place with uniformly random single sections for every
        player (a pass only when no section is legal; no powers): the engine's fast path for
        random playouts and benchmarks. Cards come from the deal.

        Maps never interact, so each player's round is played on its own
        (:meth:`PlayerMap.random_round`) and the actions are interleaved into the history
        turn by turn, as the checked path would record them.

        Raises:
            ValueError: a round whose deck is unknown (nothing to flip from).
        """
        city = self.city
        if not self.over and not self.awaiting_card:
            self._rollout_turn(rng, self._targets(city.card_by_id[self.flipped[-1]].face))
        card_by_id = city.card_by_id
        below = rng.below
        players = range(self.game.players)
        while not self.over:
            deck = self.deal.decks[self.round]
            if deck is None:
                raise ValueError("rollout needs the deal's decks")
            flipped = list(self.flipped)
            ends = self.ends_flipped
            branch = self.branch
            turns: list[tuple[int, bool]] = []  # (targets, branch) per playable card
            for card_id in deck[len(flipped) :]:
                flipped.append(card_id)
                card = card_by_id[card_id]
                if card.face == "switch":
                    branch = len(flipped) >= FIRST_EFFECTIVE_SWITCH
                    continue
                turns.append((self._targets(card.face), branch))
                branch = False
                ends += card.ends_round
                if ends >= city.round_end_count:
                    break
            played = [
                self.maps[p].random_round(city, self._colours[p], turns, below) for p in players
            ]
            history = self._history
            k = 0
            for card_id in flipped[len(self.flipped) :]:
                history += (CHANCE, card_id)
                if card_by_id[card_id].face != "switch":
                    for p in players:
                        history += (p, played[p][k])
                    k += 1
            self.flipped = tuple(flipped)
            self.ends_flipped = ends
            self.turn += len(turns)
            self._pending = 0
            self._end_turn()

    def _rollout_turn(self, rng: Rng, targets: int) -> None:
        """Every pending player draws a random legal section (or passes); the turn ends."""
        city = self.city
        singles = single_sections(city)
        n = len(city.stations)
        history = self._history
        for p in range(self.game.players):
            if not (self._pending >> p) & 1:
                continue
            colour = self._colours[p]
            board = self.maps[p]
            moves = board.moves(city, colour, board.starts(city, colour, self.branch), targets)
            if moves:
                s, t, link, _ = moves[rng.below(len(moves))]
                board.add_section(city, colour, s, t, link)
                history += (p, singles[s * n + t])
            else:
                history += (p, PASS)
        self._pending = 0
        self.awaiting_card = True
        self._end_turn()

    # -- scores --------------------------------------------------------------------------
    def breakdown(self, player: int) -> Breakdown:
        """``player``'s score sheet as if the game ended now: lines of finished rounds as
        scored, the current line scored as it stands, and the end-of-game items."""
        city = self.city
        board = self.maps[player]
        lines = self.line_scores[player]
        boxes = self.tourist_boxes[player]
        if not self.over:
            c = self.colour(player)
            lines = lines[:]
            lines[c] = score_line(city, board.stations[c], board.sections[c], board.circled[c])
            boxes += line_tourist_boxes(city, board.stations[c], board.sections[c])
        return breakdown(city, board, lines, boxes, self.deal.objectives)

    def total_after(self, player: int, action: TurnAction) -> int:
        """``player``'s total (as :meth:`breakdown`) if ``action``, a legal action, were
        played now: the what-if score greedy players maximise. ``self`` is unchanged."""
        city = self.city
        c = self.colour(player)
        board = self.maps[player].copy()
        for s, t in action.sections:
            board.add_section(city, c, s, t, city.link_of[(s, t)])
        if action.circle is not None:
            board.circled[c] = action.circle
        lines = self.line_scores[player][:]
        lines[c] = score_line(city, board.stations[c], board.sections[c], board.circled[c])
        boxes = self.tourist_boxes[player] + line_tourist_boxes(
            city, board.stations[c], board.sections[c]
        )
        return breakdown(city, board, lines, boxes, self.deal.objectives).total

    def scores(self) -> list[int]:
        """Each player's total in points (see :meth:`breakdown`); final once the game is over."""
        return [self.breakdown(p).total for p in range(self.game.players)]

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
