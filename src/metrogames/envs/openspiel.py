"""The games as OpenSpiel Python games (the ``openspiel`` extra).

Importing this module registers every game of the registry (``game_names()``) that states its
score range and maximum length — ``metrogames_london``, ``metrogames_paris`` and
``metrogames_metro`` among them — with OpenSpiel, so that ``pyspiel.load_game("metrogames_london")``
and OpenSpiel's own algorithms work on them; :func:`register` adds a game registered later, or
one that states no bounds (given here). Like
the rest of :mod:`metrogames.envs` it talks to the games only through the registry and the
protocol (``docs/research.md``, "OpenSpiel"):

* **Actions** are the dense index (``game.action_index``); **chance outcomes** are the chance
  index (``game.chance_outcome_index``) with the engine's exact probabilities. The cards and
  tiles are real chance nodes: the initial state is the game's deal with its decks or pile left
  unknown (a record without seed, ``docs/notation.md``), so each flip or draw is uniform over
  what is left (Metro: copies / tiles left).
* **Dynamics**: Next Station is *simultaneous* (every player acts on each card;
  ``pyspiel.convert_to_turn_based`` gives a sequential version for MCTS), Metro *sequential*
  with *imperfect information* (the hand modes hide the other seats' tiles).
* **Observations**: the information state string of a seat is the history it could see (the
  other seats' hidden tiles as ``?``); its observation string is its view's position snapshot,
  its observation tensor the fields of the game's observation encoder, flattened.
* **Returns** (``utility``): ``score`` — the final scores in points; ``win`` — ``1/k`` to each of
  the ``k`` winners after the tie-break, 0 to the others (constant-sum 1); ``auto`` (default)
  is ``score`` for one player and ``win`` for more. Rewards come only at the end.

Parameters: ``players`` (default 2), ``options`` (the JSON object of ``docs/notation.md``,
"Options", as a string), ``seed`` (fixes what the options leave to the deal before play: Next
Station's colour cycle and ``"random"`` objectives or powers; default 1), ``utility``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyspiel

if TYPE_CHECKING:
    import numpy as np

from metrogames.core.errors import NotationError, OptionError
from metrogames.core.protocol import CHANCE, Action, Game, State
from metrogames.envs.common import ENCODERS, Encoder, encoder_for
from metrogames.games import game_engine, game_from_options, game_names, game_type

PREFIX = "metrogames_"
"""OpenSpiel short names are this prefix plus the game name (``metrogames_london``)."""

UTILITIES = ("auto", "score", "win")
Params = dict[str, bool | int | float | str]
"""A game's parameters as OpenSpiel gives them (``load_game("metrogames_london(players=3)")``)."""
DEFAULT_PARAMS: Params = {"players": 2, "options": "{}", "seed": 1, "utility": "auto"}


@dataclass(frozen=True)
class _Spec:
    """What OpenSpiel needs to know of a game beyond the protocol."""

    name: str
    score_bounds: tuple[int, int]
    max_game_length: int


_SPECS: dict[str, _Spec] = {}


class _Box:
    """Holds the engine state. OpenSpiel clones a Python state by deep-copying its
    ``__dict__``; this makes that copy the engine's own fast ``clone()``."""

    __slots__ = ("state",)

    def __init__(self, state: State[Action]) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, object]) -> _Box:
        return _Box(self.state.clone())


def _game_type(spec: _Spec, utility: str) -> pyspiel.GameType:
    kind = game_type(spec.name)
    tensor = (kind.family or kind.name) in ENCODERS
    simultaneous = kind.dynamics == "simultaneous"
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=PREFIX + spec.name,
        long_name=f"metrogames: {kind.title}",
        dynamics=(
            pyspiel.GameType.Dynamics.SIMULTANEOUS
            if simultaneous
            else pyspiel.GameType.Dynamics.SEQUENTIAL
        ),
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        # Next Station hides nothing but the moves of a turn in progress (like oshi-zumo);
        # Metro's hand modes hide the other seats' tiles
        information=info.PERFECT_INFORMATION if simultaneous else info.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.CONSTANT_SUM
            if utility == "win"
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=kind.players.stop - 1,
        min_num_players=kind.players.start,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=tensor,
        provides_factored_observation_string=False,
        parameter_specification=dict(DEFAULT_PARAMS),
    )


class MetrogamesGame(pyspiel.Game):  # type: ignore[misc]
    """One game with its parameters, as OpenSpiel sees it.

    Attributes:
        engine: the protocol :class:`~metrogames.core.protocol.Game` (rules and options).
        utility: ``score`` or ``win`` (``auto`` resolved).
    """

    def __init__(self, params: Params | None, spec: _Spec) -> None:
        merged = {**DEFAULT_PARAMS, **(params or {})}
        try:
            options = json.loads(str(merged["options"]))
        except json.JSONDecodeError as exc:
            raise OptionError(f"options must be a JSON object: {exc.msg}") from None
        players = int(merged["players"])
        self.engine: Game[Action] = game_from_options(spec.name, players, options)
        utility = str(merged["utility"])
        if utility not in UTILITIES:
            raise OptionError(f"utility must be one of {', '.join(UTILITIES)}, not {utility!r}")
        if utility == "auto":
            utility = "score" if players == 1 else "win"
        self.utility = utility
        # the deal's fixed parts (colour cycle, drawn modules) from the seed; decks and pile
        # left out, so that every card or tile is a chance node with its true probabilities
        dealt = self.engine.new_game(int(merged["seed"]))
        record = self.engine.to_record(dealt, [f"p{i}" for i in range(players)])
        self._start = game_engine(spec.name).record_start(record)
        self._encoder = encoder_for(self.engine)
        low, high = (0, 1) if utility == "win" else spec.score_bounds
        super().__init__(
            _game_type(spec, utility),
            pyspiel.GameInfo(
                num_distinct_actions=self.engine.num_distinct_actions,
                max_chance_outcomes=self.engine.max_chance_outcomes,
                num_players=players,
                min_utility=float(low),
                max_utility=float(high),
                utility_sum=1.0 if utility == "win" else None,
                max_game_length=spec.max_game_length,
            ),
            merged,
        )

    def new_initial_state(self) -> MetrogamesState:
        return MetrogamesState(self, self._start.clone())

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Params | None = None
    ) -> MetrogamesObserver:
        return MetrogamesObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            params,
            self._encoder,
        )


class MetrogamesState(pyspiel.State):  # type: ignore[misc]
    """One position: the engine state, stepped by OpenSpiel's action ids."""

    def __init__(self, game: MetrogamesGame, state: State[Action]) -> None:
        super().__init__(game)
        self._box = _Box(state)

    @property
    def engine_state(self) -> State[Action]:
        """The full engine state (it shows every hidden part: not for an agent to read)."""
        return self._box.state

    def _engine(self) -> MetrogamesGame:
        game: MetrogamesGame = self.get_game()
        return game

    def current_player(self) -> int:
        movers = self._box.state.to_move()
        if not movers:
            return int(pyspiel.PlayerId.TERMINAL)
        if CHANCE in movers:
            return int(pyspiel.PlayerId.CHANCE)
        if self.get_game().get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        (player,) = movers
        return player

    def _legal_actions(self, player: int) -> list[int]:
        engine = self._engine().engine
        state = self._box.state
        return sorted(engine.action_index(a) for a in state.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        engine = self._engine().engine
        return sorted(
            (engine.chance_outcome_index(o), p) for o, p in self._box.state.chance_outcomes()
        )

    def _apply_action(self, action: int) -> None:
        engine = self._engine().engine
        state = self._box.state
        if CHANCE in state.to_move():
            state.apply_in_place(CHANCE, engine.chance_outcome_from_index(action))
        else:
            (player,) = state.to_move()
            state.apply_in_place(player, engine.action_from_index(action))

    def _apply_actions(self, actions: list[int]) -> None:
        engine = self._engine().engine
        state = self._box.state
        moves = [(p, engine.action_from_index(a)) for p, a in enumerate(actions)]
        # every player's action checked before any is applied: an illegal one changes nothing
        for player, move in moves:
            if not state.is_legal(player, move):
                text = state.action_to_string(player, move)
                raise ValueError(f"player {player}: {text} is not legal now")
        for player, move in moves:
            state.apply_in_place(player, move, check=False)

    def _action_to_string(self, player: int, action: int) -> str:
        engine = self._engine().engine
        if player == CHANCE:
            return self._box.state.action_to_string(
                CHANCE, engine.chance_outcome_from_index(action)
            )
        return self._box.state.action_to_string(player, engine.action_from_index(action))

    def is_terminal(self) -> bool:
        return self._box.state.is_over()

    def returns(self) -> list[float]:
        state = self._box.state
        n = state.num_players
        if not state.is_over():
            return [0.0] * n
        if self._engine().utility == "win":
            winners = state.winners()
            return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
        return [float(s) for s in state.scores()]

    def __str__(self) -> str:
        return self._box.state.snapshot()


class MetrogamesObserver:
    """OpenSpiel's Python observer. Strings: with perfect recall, a seat's information state
    (the history it saw, hidden outcomes as ``?``); without, its view's position snapshot;
    public information only (``private_info`` none): the spectator's. Tensor (a seat's
    observation, without perfect recall): the fields of the game's observation encoder
    (``docs/research.md``, "Observations"), flattened in the space's key order; ``dict`` holds
    each field, shaped, as a view into ``tensor``."""

    def __init__(
        self, iig_obs_type: pyspiel.IIGObservationType, params: Params | None, encoder: Encoder | None
    ) -> None:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        self.iig_obs_type = iig_obs_type
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        per_seat = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._encoder = encoder if (per_seat and not iig_obs_type.perfect_recall) else None
        if self._encoder is not None:
            import numpy as np

            shapes = {k: tuple(v.shape or ()) for k, v in self._encoder.space.spaces.items()}
            self.tensor = np.zeros(sum(int(np.prod(s)) for s in shapes.values()), np.float32)
            offset = 0
            for name, shape in shapes.items():
                size = int(np.prod(shape))
                self.dict[name] = self.tensor[offset : offset + size].reshape(shape)
                offset += size

    def set_from(self, state: MetrogamesState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation (nothing without an encoder)."""
        if self._encoder is None:
            return
        fields = self._encoder.encode(state.engine_state.view(player), player)
        for name, array in self.dict.items():
            array[...] = fields[name]

    def _seat(self, player: int) -> int | None:
        if self.iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE:
            return None
        return player

    def string_from(self, state: MetrogamesState, player: int) -> str:
        view = state.engine_state.view(self._seat(player))
        if not self.iig_obs_type.perfect_recall:
            return view.snapshot()
        return f"p{player} " + " ".join(_history_text(view))


def _history_text(view: State[Action]) -> list[str]:
    """Each step of a view's history as ``player:action`` (``c`` for chance, ``?`` for what the
    view hides)."""
    game = view.game
    out = []
    for player, action in view.history():
        who = "c" if player == CHANCE else str(player)
        try:
            if player == CHANCE:
                game.chance_outcome_index(action)  # a hidden marker is no outcome
            text = view.action_to_string(player, action)
        except NotationError:
            text = "?"
        out.append(f"{who}:{text}")
    return out


def register(
    name: str,
    score_bounds: tuple[int, int] | None = None,
    max_game_length: int | None = None,
) -> None:
    """Register the game ``name`` of the registry with OpenSpiel as ``metrogames_<name>``.

    Args:
        score_bounds: the lowest and highest final score (``utility="score"``); default the
            game's ``score_range`` (``GameType``).
        max_game_length: the most player decisions (a simultaneous turn counts once) a game
            can take; default the game's ``max_game_length``.

    Raises:
        OptionError: an unknown game name.
        ValueError: a bound neither given nor stated by the game.
    """
    kind = game_type(name)
    bounds = score_bounds or kind.score_range
    length = max_game_length or kind.max_game_length
    if bounds is None or length is None:
        raise ValueError(
            f"{name} states no score range or maximum game length: give score_bounds and "
            "max_game_length"
        )
    spec = _Spec(name, bounds, length)
    _SPECS[name] = spec

    def init(self: MetrogamesGame, params: Params | None = None) -> None:
        MetrogamesGame.__init__(self, params, spec)

    # a class, not a closure, as the factory: OpenSpiel keeps it until the interpreter has
    # finalized, and dropping a closure then aborts the process
    factory = type(f"Metrogames_{name}", (MetrogamesGame,), {"__init__": init})
    pyspiel.register_game(_game_type(spec, "score"), factory)


for _name in game_names():
    _kind = game_type(_name)
    if _kind.score_range is not None and _kind.max_game_length is not None:
        register(_name)  # the game's own score range and maximum length
