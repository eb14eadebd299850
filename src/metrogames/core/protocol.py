"""The game protocol every game implements (OpenSpiel's shape, Python's manners).

Source: ``docs/design.md``, "Core protocol"; the registry that hands out games is
:mod:`metrogames.games`. Layers above the games (bots, sim, web, cli, envs) use only these
types and the registry, never an engine class.

* A :class:`Game` is the rules plus options: a frozen value. ``game.new_game(seed)`` deals.
* A :class:`State` is one position. ``state.to_move()`` is the set of players who may act now:
  several players for simultaneous turns (Next Station), ``{CHANCE}`` when a card or tile is to
  be revealed, and the empty set once the game is over.
* ``state.apply(player, action)`` checks the action and returns a new state; the state it was
  called on is unchanged. ``apply_in_place(player, action, check=False)`` is the unchecked fast
  path (the action must come from ``legal_actions``). Chance outcomes are actions of the player
  :data:`CHANCE`, so a game's action history replays it exactly.
* Actions are frozen, hashable values with three faces: text (``action_to_string`` /
  ``string_to_action``), JSON (``action_to_json`` / ``action_from_json``) and a dense integer
  index (``game.action_index`` / ``game.action_from_index``, ``0 <= i <
  game.num_distinct_actions``). Chance outcomes are indexed **separately**
  (``game.chance_outcome_index``, ``0 <= i < game.max_chance_outcomes``), as in OpenSpiel.
* Hidden information lives in the engine: ``state.view(seat)`` is what ``seat`` may know (a
  read-only state: ``apply`` raises ``hidden-information``); ``state.resample(seat, rng)`` is a
  full, playable state consistent with that view whose hidden parts are drawn at random.
* ``state.snapshot()`` / ``game.from_snapshot(text)``: a compact, versioned position string that
  round-trips exactly (``docs/notation.md``, "Position snapshot").

A game name's facts are a :class:`GameType` (data only); what a game does beyond this protocol
— its engine, and capabilities such as drawing data or an estimate for bots — is in
:mod:`metrogames.core.capabilities`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, Self, TypeVar

from typing_extensions import TypeIs

if TYPE_CHECKING:
    from metrogames.core.rng import Rng

CHANCE = -1
"""The player id of chance: the one who flips cards and draws tiles."""

SPECTATOR = -3
"""The ``viewer`` of a public view (``state.view(None)``): what someone with no seat may know."""

HIDDEN = "?"
"""In a view's ``history()`` (and a Metro view's hands): what the viewer cannot see — another
seat's private tile draw, another player's action in a simultaneous turn in progress."""

JsonValue = None | bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
"""A JSON document (read-only container types, so that ``list[int]`` is one)."""
JsonObject = dict[str, JsonValue]
"""A JSON object as :func:`json.loads` gives it."""


def is_object(value: object) -> TypeIs[JsonObject]:
    """Whether ``value``, a decoded JSON document (:func:`json.loads`, a request's body, a
    record), is an object: a ``dict``, narrowed to :data:`JsonObject` where
    ``isinstance(value, dict)`` narrows to ``dict[Any, Any]``."""
    return isinstance(value, dict)


Action = Hashable
"""An action as game-agnostic code holds it: an opaque, hashable value that came from
``legal_actions`` or a notation reader, handed back to the same game."""

A = TypeVar("A", bound=Hashable)
"""The action type of a game: its player actions and its chance outcomes (e.g. ``TurnAction |
str`` for Next Station, where chance outcomes are card ids)."""


class State(Protocol[A]):
    """One position of a game, for actions of type ``A``."""

    @property
    def game(self) -> Game[A]:
        """The game (rules and options) this position belongs to."""
        ...

    @property
    def num_players(self) -> int: ...

    @property
    def viewer(self) -> int | None:
        """``None`` for a full state; the seat of a :meth:`view` (:data:`SPECTATOR` for the
        public view)."""
        ...

    def to_move(self) -> frozenset[int]:
        """Players who may act now (``{CHANCE}`` for a chance event, empty when over)."""
        ...

    def legal_actions(self, player: int) -> Sequence[A]:
        """Every legal action of ``player`` now, in a fixed order (chance outcomes for
        :data:`CHANCE`; empty for a player not to move)."""
        ...

    def is_legal(self, player: int, action: object) -> bool:
        """Whether ``player`` may play ``action`` now. Never raises."""
        ...

    def chance_outcomes(self) -> list[tuple[A, float]]:
        """The outcomes of the chance event now due with their exact probabilities (summing
        to 1); empty when no chance event is due. A known deal gives one outcome of
        probability 1."""
        ...

    def apply(self, player: int, action: A) -> Self:
        """Check ``action`` and return the following state (``self`` unchanged).

        Raises:
            IllegalActionError: the action breaks a rule (``NotYourTurnError``,
                ``GameOverError`` are kinds of it); ``reason`` names the rule.
        """
        ...

    def apply_in_place(self, player: int, action: A, check: bool = True) -> None:
        """Apply ``action`` to this state itself. With ``check=False`` (the fast path) the
        action must come from :meth:`legal_actions`; with ``check=True`` errors are those of
        :meth:`apply` and leave the state unchanged."""
        ...

    def random_playout(self, rngs: Sequence[Rng]) -> None:
        """Play the rest of the game in place with uniformly random players — player ``p``
        choosing with ``rngs[p]`` exactly as :func:`metrogames.core.playout.uniform_choice`
        does — and chance taking the deal's outcomes: the engine's fast path for random
        games and search rollouts.

        Raises:
            ValueError: not one generator per player, or a chance outcome the deal does not
                fix (a view: resample it first).
        """
        ...

    def clone(self) -> Self:
        """An independent copy."""
        ...

    def is_over(self) -> bool: ...

    def scores(self) -> list[int]:
        """Points per player so far (final scores once the game is over)."""
        ...

    def score_components(self, player: int) -> dict[str, int]:
        """``player``'s score by component, ``total`` (points) last; the keys depend on the
        game and its options. Components are points that add up to the total (Next Station:
        ``lines``, ``tourist``, ``interchanges``, ``bridges``, ``objectives``), except
        tie-break measures listed beside them in their own unit (Metro: ``longest_route``,
        in tiles)."""
        ...

    def winners(self) -> list[int]:
        """Players who win after the tie-break (several when still tied); empty until over."""
        ...

    def history(self) -> list[tuple[int, A]]:
        """Every action so far, in order, chance included (in a view, what the viewer could
        not see is replaced by the game's hidden marker)."""
        ...

    def view(self, seat: int | None) -> Self:
        """What ``seat`` may know (``None``: a spectator), as a read-only state.

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        ...

    def resample(self, seat: int, rng: Rng) -> Self:
        """A full, playable state consistent with ``view(seat)`` whose hidden parts are drawn
        at random (``rng``) from what ``seat`` cannot rule out (determinization).

        Raises:
            ValueError: ``seat`` is not a seat of this game, or this is another seat's view.
        """
        ...

    def snapshot(self) -> str:
        """The position as a compact, versioned string; ``game.from_snapshot`` reads it back."""
        ...

    def action_to_string(self, player: int, action: A) -> str:
        """The text notation of ``action`` (``D3-G3``, ``cbaa C5``; a chance outcome's id).

        Raises:
            NotationError: not an action of this game.
        """
        ...

    def string_to_action(self, player: int, text: str) -> A:
        """Read the text notation (not checked for legality).

        Raises:
            NotationError: bad syntax, unknown names.
        """
        ...

    def action_to_json(self, player: int, action: A) -> JsonValue:
        """The JSON notation of ``action`` (``docs/notation.md``)."""
        ...

    def action_from_json(self, player: int, value: object) -> A:
        """Read the JSON notation (not checked for legality).

        Raises:
            NotationError: wrong types, unknown keys or names.
        """
        ...


class Game(Protocol[A]):
    """Rules plus options for one game: a frozen, hashable value."""

    @property
    def name(self) -> str:
        """The game name of records (``london``, ``paris``, ``metro``)."""
        ...

    @property
    def num_players(self) -> int: ...

    def options_json(self) -> JsonObject:
        """The options as given (JSON form, ``docs/notation.md``, "Options"), without
        ``players``."""
        ...

    def new_game(self, seed: int) -> State[A]:
        """Deal a new game from ``seed`` (an int in ``0..2**64-1``).

        Raises:
            ValueError: a seed out of range.
        """
        ...

    @property
    def num_distinct_actions(self) -> int:
        """Size of the dense player-action index (chance outcomes are indexed apart)."""
        ...

    def action_index(self, action: A) -> int:
        """The dense index of a player action, ``0 <= i < num_distinct_actions``; stable
        across versions for the same game and options.

        Raises:
            NotationError: not a player action of this game.
        """
        ...

    def action_from_index(self, index: int) -> A:
        """The player action of a dense index.

        Raises:
            NotationError: an index out of range.
        """
        ...

    @property
    def max_chance_outcomes(self) -> int:
        """Size of the chance-outcome index (cards, tile types)."""
        ...

    def chance_outcome_index(self, outcome: A) -> int:
        """The index of a chance outcome, ``0 <= i < max_chance_outcomes``.

        Raises:
            NotationError: not a chance outcome of this game.
        """
        ...

    def chance_outcome_from_index(self, index: int) -> A:
        """The chance outcome of an index.

        Raises:
            NotationError: an index out of range.
        """
        ...

    @property
    def pass_action(self) -> A | None:
        """The action that changes nothing on the player's board, where the rules allow one
        (Next Station's ``pass``: always legal for a player to move, and listed first by
        ``legal_actions``), else ``None``."""
        ...

    def from_snapshot(self, text: str) -> State[A]:
        """The state a :meth:`State.snapshot` string describes (its history starts there).

        Raises:
            NotationError: not a snapshot of this game and options, or an inconsistent one.
        """
        ...

    def to_record(
        self, state: State[A], names: Sequence[str], *, seed: int | None = None,
        reveal: bool = False,
    ) -> JsonObject:
        """The game record of ``state`` (``docs/notation.md``, "Game record") with player
        ``names``; ``seed`` is written when given; ``reveal`` writes the whole deal (decks,
        pile) — for finished games and published deals only.

        Raises:
            RecordError: a state whose history cannot be written (a view hiding chance
                outcomes, a state read from a snapshot).
        """
        ...

    def deal_record(self, seed: int) -> JsonObject:
        """The deal record of ``seed`` (every chance outcome, no actions): one line of a deal
        manifest for paired comparisons."""
        ...


Dynamics = Literal["sequential", "simultaneous"]
CoachFigure = Literal["score", "win"]
"""What a hint shows of a move: the expected final ``score`` (points) or the ``win``
probability (:attr:`GameType.coach_figure`)."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game, for menus, checks (``GET /api/games``) and command-line flags.

    Attributes:
        default: the value when the option is not given.
        values: the values a menu offers (JSON).
        choose: how a custom value is built, e.g. ``{"count": 2, "from": [...]}``; ``None``.
        help: one line (English) on the option's command-line flag (``--turn-mode`` for
            ``turn_mode``: :mod:`metrogames.cli.options`); ``None``: the command line has no
            flag for it (set by deal records and the web table's menus only). Not part of
            :meth:`to_json`.
    """

    default: JsonValue
    values: tuple[JsonValue, ...]
    choose: JsonObject | None = None
    help: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {"default": self.default, "values": list(self.values)}
        if self.choose is not None:
            out["choose"] = self.choose
        return out


@dataclass(frozen=True)
class Preset:
    """A named rule set: values for some of a game's options (the others keep their default).

    Attributes:
        title: shown to people (``Publisher's box rules``).
        options: option name -> JSON value.
        note: one line on what the rule set means for a player.
        brief: a few words (English) after the name in the command line's ``--rules`` help
            (``the publisher's: official-hand, one-tile routes forbidden``); not part of
            :meth:`to_json`.
    """

    title: str
    options: JsonObject
    note: str = ""
    brief: str = ""

    def to_json(self) -> JsonObject:
        return {"title": self.title, "options": dict(self.options), "note": self.note}


@dataclass(frozen=True)
class BotSetting:
    """How a game is played at one bot level: an algorithm code of :mod:`metrogames.bots` and
    its settings (:class:`metrogames.bots.levels.Algorithm` reads them; a game states the
    tuning it measured in :attr:`GameType.bot_levels`).

    Attributes:
        code: ``random``, ``greedy``, ``montecarlo``, ``heuristic`` or ``lookahead``.
        budget: ``montecarlo``: playouts per decision (with ``use_heuristic``, the game's
            estimates); ``heuristic`` and ``lookahead``: determinizations per decision.
        greedy_turns: ``montecarlo``: greedy turns that start each playout.
        width: ``lookahead``: the candidates followed.
        rounds: ``lookahead``: the rounds of decisions followed.
        use_heuristic: ``montecarlo``: value positions by the game's estimate
            (:class:`~metrogames.core.capabilities.Evaluated`) instead of playouts.
        deep: with ``use_heuristic``, by its deep estimate
            (:class:`~metrogames.core.capabilities.DeepEvaluated`) where it has one.
    """

    code: str
    budget: int = 0
    greedy_turns: int = 0
    width: int = 0
    rounds: int = 0
    use_heuristic: bool = False
    deep: bool = False


@dataclass(frozen=True)
class Tutorial:
    """A game's guided first game (``docs/web-api.md``, "Rooms": ``"tutorial": true``): a
    fixed deal that the client's step lists (the web table's ``static/tutorials.json``) are
    written for — its cards, colour order and tiles.

    Attributes:
        seed: the deal's seed (public, and never a daily deal's: those are HMACs of a
            server secret).
        bot_opening: the bot's first actions in it, in the game's notation, played as
            written while each is legal (a step may be written for them); then the bot
            plays on its own. Empty: the bot decides from the start.
    """

    seed: int
    bot_opening: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameType:
    """What the registry knows of one game name before any options: its facts only.

    Behaviour comes from the game's own classes: the :class:`~metrogames.core.capabilities.Engine`
    registered beside the facts (:func:`metrogames.games.register_game`) makes games and reads
    records, and the small capability protocols of :mod:`metrogames.core.capabilities` (board
    data, view JSON, solo results, estimates for bots, observations for learning) are
    implemented by the engine or the states where the game provides them; each user checks
    for the one it needs (``docs/design.md``, "Capabilities").

    Attributes:
        name: the game name (``london``).
        title: shown to people (``Next Station: London``).
        players: the player counts the game takes.
        dynamics: ``sequential`` or ``simultaneous`` turns (OpenSpiel's term).
        options: option name -> :class:`OptionSpec` (``players`` excluded).
        view_type: the ``TypedDict`` of the game's part of a view (the state's ``view_json``),
            published in the web table's JSON Schema (``docs/web-schema.json``); ``None``: an
            open object.
        family: the renderer family (``nextstation``, ``metro``; the game name by default).
        presets: rule-set name -> :class:`Preset` (menus offer them by name; a game's options
            that match one are said to use it); empty for most games.
        coach_figure: what the coach's hints show for a move in a game of several players
            (:mod:`metrogames.bots.coach`): ``score``, the expected final score in points (a
            game scored on one's own board, as Next Station), or ``win``, the probability of
            winning (a game of interaction, as Metro). A solo game always shows ``score``.
        score_range: ``(lowest, highest)``: bounds of one player's final score, in points, in
            every game (any options, any player count) — value bounds for learners (OpenSpiel's
            ``min_utility``/``max_utility``); ``None`` when the game states none.
        max_game_length: the most player decisions a game can take (a simultaneous turn counts
            once; chance not counted): OpenSpiel's ``max_game_length``; ``None`` when the game
            states none.
        daily: whether the web table deals a daily challenge of the game (a solo game
            without modules, one deal a day: ``docs/web-api.md``, "The daily challenge"); it
            needs a game that takes one player.
        bot_levels: bot level (``medium``, ``hard``, ``expert``) -> the :class:`BotSetting`
            the game is played with at that level, as the game measured them; a level not
            listed plays the bots' default for every game (:mod:`metrogames.bots.levels`).
        tutorial: the game's guided first game (:class:`Tutorial`), ``None``: it has none.
    """

    name: str
    title: str
    players: range
    dynamics: Dynamics
    options: dict[str, OptionSpec]
    view_type: type | None = None
    family: str = ""
    presets: dict[str, Preset] = field(default_factory=dict)
    coach_figure: CoachFigure = "score"
    score_range: tuple[int, int] | None = None
    max_game_length: int | None = None
    daily: bool = False
    bot_levels: dict[str, BotSetting] = field(default_factory=dict)
    tutorial: Tutorial | None = None
