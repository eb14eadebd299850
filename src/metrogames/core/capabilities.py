"""What a game provides beyond the protocol: its engine, and small capabilities its users check.

Source: ``docs/design.md``, "Capabilities". A game registers its facts
(:class:`~metrogames.core.protocol.GameType`) with one :class:`Engine`, the object behind its
name that makes games and reads records (:func:`metrogames.games.register_game`). Everything
else is a capability: a small protocol that the game's own classes implement where the game
has it — the engine for what needs no position (:class:`Boards`, :class:`ScoreSheets`,
:class:`OptionText`), the
state class for what reads a position (:class:`Presented`, :class:`SoloRated`,
:class:`Evaluated`, :class:`DeepEvaluated`, :class:`ValueFeatured`, :class:`GreedyGains`, :class:`ScoreBounded`,
:class:`Observable`). Their
users check for them with ``isinstance`` (every capability is runtime-checkable) and treat a
game without one as the capability's docstring says; because a state's method runs on the
game's own class, no implementation casts a :class:`~metrogames.core.protocol.State` back to
it.

An ``isinstance`` check on a protocol costs microseconds (about 15 on Python 3.11): a hot loop
(a bot's search) checks once per decision, not per call, and the web table, which builds a view
per seat and change, asks :func:`presented`, answered once per class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self, runtime_checkable

from typing_extensions import TypeIs

from metrogames.core.protocol import Game, JsonObject, JsonValue, State
from metrogames.core.rng import Rng


@runtime_checkable
class Engine(Protocol):
    """The object behind a game name: games from options, states from records. Required of
    every registered game.

    Its results are typed ``Game[Any]`` and ``State[Any]``: the registry hands them out as
    ``Game[Action]`` and ``State[Action]``, so an engine returns its own classes as they are.
    """

    def make(self, players: int, options: JsonObject) -> Game[Any]:
        """The game for ``players`` (a count the game takes: the registry checked it) with
        ``options`` (JSON form, ``docs/notation.md``, "Options"; only names the game has).

        Raises:
            OptionError: a bad option value (the message names the option).
        """
        ...

    def replay(self, record: object) -> State[Any]:
        """A decoded game record (``docs/notation.md``, "Game record") replayed to its last
        state.

        Raises:
            RecordError: not a record of this game.
            NotationError, IllegalActionError: the first bad item.
        """
        ...

    def record_start(self, record: object) -> State[Any]:
        """The first state of a decoded game record (its deal, before any action).

        Raises:
            RecordError, NotationError: as :meth:`replay`.
        """
        ...

    def from_deal(self, deal: object, players: int) -> State[Any]:
        """The first state of a deal record (``Game.deal_record``: every chance outcome, no
        actions) for ``players`` players: one game of a deal manifest (``simulate --deals``).

        Raises:
            RecordError: not a deal record of this game (another game's, one with actions),
                or one for another player count where the deal fixes it.
            NotationError: a malformed deal.
            ValueError: a player count the game does not take.
        """
        ...


@runtime_checkable
class Boards(Protocol):
    """Engine capability: the drawing data of the game (``docs/web-api.md``, "Boards").

    Users: the web table (``GET /api/games/{game}/board``; a game without it is served
    ``{"game", "title"}``) and the learning environments' encoders (which need it).
    """

    def board_json(self) -> JsonObject:
        """The board document: positions, names and tables in the game's data order (the
        indices of :meth:`Observable.observe` and of the dense action index refer to it).
        The same for every option set and player count."""
        ...


@runtime_checkable
class ScoreSheets(Protocol):
    """Engine capability: scoring a paper score sheet (``docs/notation.md``, "Score sheet").

    Users: ``metrogames score`` and ``POST /api/score``; both refuse a game without it.
    """

    def score_sheet(self, sheet: object) -> JsonObject:
        """The ``score --json`` result of a decoded score sheet of this game.

        Raises:
            NotationError: a malformed sheet or unknown names.
            IllegalActionError: a drawing the rules forbid (the reason names the rule).
        """
        ...


@runtime_checkable
class MapChecks(Protocol):
    """Engine capability: maps as data (``docs/maps.md``): a checker's report on a map and the
    map a record is played on.

    Users: ``metrogames map check``, ``metrogames replay --map`` and the web table's map
    studio (``docs/web-api.md``, "Maps").
    """

    def check_map(self, data: object) -> JsonObject:
        """The checker's report on the decoded map ``data``: ``{"valid", "problems",
        "counts", "hash"}``; never raises."""
        ...

    def record_map(self, record: object) -> str | None:
        """The content hash of the map the decoded ``record`` is played on; ``None`` when it
        names none."""
        ...

    def adopt_map(self, data: object, report: JsonObject) -> str:
        """Keep the decoded map ``data`` as checked, without running the checker again:
        ``report`` is :meth:`check_map`'s on it, computed elsewhere (a job process). Its
        content hash; a game made on ``data`` afterwards skips the checker.

        Raises:
            DataError: ``report`` is not a valid report of this very map (its hash differs).
        """
        ...

    def map_board_json(self, data: object) -> JsonObject:
        """The drawing data (as :meth:`Boards.board_json`) of the decoded map ``data``: what a
        game on it draws (the web table's ``GET /api/rooms/{room}/board``).

        Raises:
            DataError: a map the checker refuses (every problem listed).
        """
        ...


@runtime_checkable
class OptionText(Protocol):
    """Engine capability: an option's value from the text of its command-line flag.

    User: the command line (:mod:`metrogames.cli.options`, whose flags come from the options'
    :class:`~metrogames.core.protocol.OptionSpec`); without it a flag's text is the option's
    value as written (a JSON string).
    """

    def option_from_text(self, name: str, text: str) -> JsonValue:
        """The JSON value (``docs/notation.md``, "Options") the flag of option ``name``
        means by ``text`` (not empty); only its syntax is checked (the game checks the value
        when it is made).

        Raises:
            NotationError: text the option's syntax does not allow (the message shows it).
        """
        ...


@runtime_checkable
class Presented(Protocol):
    """State capability: the game's part of a view's JSON (``docs/web-api.md``, "Views").

    Users: the web table's views and replays, the analysis report's views. A game without it
    has views with the generic keys only (status, seats, scores, legal moves).
    """

    def view_json(self, you: int | None) -> JsonObject:
        """The game's keys of the view of this state (a full state or a view) for seat
        ``you`` (``None``: a spectator). It reads only what the state shows, so called on
        ``state.view(you)`` it reveals nothing hidden from ``you``."""
        ...


_PRESENTED: dict[type, bool] = {}


def presented(state: object) -> TypeIs[Presented]:
    """``isinstance(state, Presented)``, worked out once per class: a capability is a class's
    methods, so every instance of a class answers alike."""
    known = _PRESENTED.get(type(state))
    if known is None:
        known = _PRESENTED[type(state)] = isinstance(state, Presented)
    return known


@runtime_checkable
class SoloRated(Protocol):
    """State capability: the rating of a finished solo game (London and Paris).

    Users: the web table's views (``"solo"``), the daily challenge's rating, the terminal's
    end of a solo game, and ``metrogames analyse``, which analyses only games with it.
    """

    def solo_result(self) -> JsonObject | None:
        """For a finished solo game, its rating and percentile (the game's JSON,
        ``docs/web-api.md``, "Views"); ``None`` for any other state."""
        ...


@runtime_checkable
class Evaluated(Protocol):
    """State capability: the game's own estimate of a final score, for search bots.

    Users: the heuristic, lookahead and Monte Carlo bots (:mod:`metrogames.bots`); a game
    without it is played by playouts alone (the heuristic and lookahead bots refuse it).
    """

    def heuristic(self, player: int) -> float:
        """An estimate of ``player``'s final score from this position, in points. It may read
        the whole state, so bots call it only on determinizations (``state.resample``), never
        on a view or the true state."""
        ...


@runtime_checkable
class DeepEvaluated(Protocol):
    """State capability: a slower, better estimate of the same kind as
    :meth:`Evaluated.heuristic` (the strongest search levels use it).

    User: the Monte Carlo bot with ``deep`` (:mod:`metrogames.bots.montecarlo`); without it,
    the game's :class:`Evaluated` estimate.
    """

    def deep_heuristic(self, player: int) -> float:
        """An estimate of ``player``'s final score, in points (on determinizations only)."""
        ...


@runtime_checkable
class ValueFeatured(Protocol):
    """State capability: a position as a fixed list of numbers for a learned value.

    Users: the value search bot and the ``train value`` command (:mod:`metrogames.bots.value`,
    ``docs/research.md``, "A learned position value"); the value search refuses a game without
    it, and a weights file names the version and names it was trained on.
    """

    def value_feature_spec(self) -> tuple[str, tuple[str, ...]]:
        """The features' version string and their names, in the order of
        :meth:`value_features` (the same for every state of a game)."""
        ...

    def open_deal(self, seat: int, rng: Rng) -> Self:
        """A playable state (of the same class) consistent with ``state.view(seat)`` in which
        every card or tile still unknown to ``seat`` is a chance event, so that
        ``chance_outcomes()`` are the exact distribution ``seat`` faces; what ``seat`` may not
        know of the turn in progress is drawn with ``rng`` (as ``resample``).

        Raises:
            ValueError: as ``resample``.
        """
        ...

    def value_features(self, player: int) -> list[float]:
        """``player``'s features of this position (a full state or ``player``'s view: they
        read only what that view shows, never a deck's order).

        Raises:
            ValueError: ``player`` is not a seat of the game.
        """
        ...


@runtime_checkable
class GreedyGains(Protocol):
    """State capability: the greedy rule's measure of every legal action, without trying each
    on a copy.

    User: the greedy rule (:func:`metrogames.bots.greedy.greedy_choice`: the greedy bot, the
    greedy playouts and completions of the Monte Carlo bot and the hindsight search); without
    it, each action is applied to a clone and the scores compared.
    """

    def greedy_gains(self, player: int, actions: Sequence[Any]) -> list[int]:  # its own actions
        """Per action of ``actions`` (legal for ``player``, who is to move), in points:
        ``player``'s gain in :meth:`~metrogames.core.protocol.State.scores` were the action
        applied now, minus the best other player's gain (0 alone) — exactly what applying it
        to a clone and comparing ``scores()`` gives."""
        ...


@runtime_checkable
class ScoreBounded(Protocol):
    """State capability: an upper bound of a player's score over every game of a deal.

    User: the hindsight analysis (:mod:`metrogames.bots.analysis`), which compares the best
    line it found with it; without it the report's ``upper_bound`` is ``null``.
    """

    def score_bound(self, player: int) -> dict[str, int] | None:
        """``{component: points, ..., "total": points}``: at least ``player``'s final score
        in every game of this state's deal, by component; ``None`` when the game gives none
        for this state. Reads the whole state (a full state, the deal known)."""
        ...


@runtime_checkable
class Observable(Protocol):
    """State capability: what a view shows its seat, as plain numbers, for learning.

    Users: the learning environments' observation encoders (:mod:`metrogames.envs.encoders`,
    ``docs/research.md``, "Observations"); a game without it has no encoder.
    """

    def observe(self, seat: int) -> JsonObject:
        """What this view — ``state.view(seat)`` — shows ``seat``: plain numbers and indices
        into the lists of :meth:`Boards.board_json` (each game's keys: ``docs/research.md``).
        It reads only what the view shows."""
        ...
