"""What the environments share: chance steps, action masks, illegal actions, deal seeds.

Game-agnostic: only the registry's games and the protocol (``docs/research.md``).
"""

from __future__ import annotations

import functools
import importlib
import operator
from typing import TYPE_CHECKING, Literal, Protocol, TypedDict, cast

import numpy as np

from metrogames.core.capabilities import Boards, Observable
from metrogames.core.errors import IllegalActionError, Where
from metrogames.core.protocol import CHANCE, Action, Game, JsonObject, State
from metrogames.games import game_engine, game_type

Info = dict[str, object]
"""An environment's info dict (Gymnasium's and PettingZoo's): each environment says its keys."""


class MaskedObservation(TypedDict):
    """A PettingZoo agent's observation: the encoded view (one flat array, or the named fields)
    and the mask of its legal actions (``int8``, one per dense index)."""

    observation: np.ndarray | dict[str, np.ndarray]
    action_mask: np.ndarray

if TYPE_CHECKING:
    from gymnasium import spaces  # the rl extra: the encoders import it

IllegalMode = Literal["pass", "raise"]
ILLEGAL_MODES: tuple[str, ...] = ("pass", "raise")
MAX_DEAL_SEED = 2**63
"""Deal seeds drawn by ``reset()`` without a seed are below this (``new_game`` takes any
64-bit seed; ``reset(seed=s)`` deals ``new_game(s)`` itself)."""


def check_illegal_mode(mode: object, game: Game[Action]) -> IllegalMode:
    """``mode`` if this game can use it (``pass`` needs a game with a pass action).

    Raises:
        ValueError: an unknown mode, or ``pass`` for a game without a pass action.
    """
    if mode not in ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be 'pass' or 'raise', not {mode!r}")
    if mode == "pass" and game.pass_action is None:
        raise ValueError(f"{game.name} has no pass action: illegal_action must be 'raise'")
    return "pass" if mode == "pass" else "raise"


class Encoder(Protocol):
    """An observation encoder (:mod:`metrogames.envs.encoders`): one game's observation space
    and the observation of a seat's view in it."""

    @property
    def space(self) -> spaces.Dict: ...

    def encode(self, view: State[Action], seat: int) -> dict[str, np.ndarray]: ...


ENCODERS = {
    "nextstation": "metrogames.envs.encoders.nextstation",
    "metro": "metrogames.envs.encoders.metro",
}
"""Game family -> the module of its observation encoder (its ``ENCODER``), imported when first
asked for (it needs gymnasium)."""


def encoder_for(game: Game[Action]) -> Encoder | None:
    """The observation encoder of ``game``, by its family (``GameType.family``); ``None`` for
    a family without one.

    Raises:
        ValueError: a game of the family without what the encoder reads
            (:func:`encoder_facts`).
    """
    kind = game_type(game.name)
    module = ENCODERS.get(kind.family or kind.name)
    if module is None:
        return None
    encoder: Encoder = importlib.import_module(module).ENCODER(game)
    return encoder


def encoder_facts(game: Game[Action]) -> tuple[JsonObject, tuple[int, int]]:
    """What an observation encoder of ``game`` reads before any view: the game's drawing data
    (the engine's ``board_json``: ``Boards``) and its ``score_range``.

    Raises:
        ValueError: a game without board data, score range or observations
            (``Observable`` states).
    """
    engine = game_engine(game.name)
    score_range = game_type(game.name).score_range
    observed = isinstance(game.new_game(0), Observable)
    if not isinstance(engine, Boards) or score_range is None or not observed:
        raise ValueError(f"{game.name} gives no observation facts, board data or score range")
    return engine.board_json(), score_range


def observation_facts(view: State[Action], seat: int) -> JsonObject:
    """``view.observe(seat)`` (``Observable``): the JSON object an encoder reads.

    Raises:
        ValueError: ``view`` is not ``seat``'s view, or its game gives no observations.
    """
    if view.viewer != seat:
        raise ValueError(f"encode needs seat {seat}'s view (state.view({seat}))")
    if not _observable(type(view)):
        raise ValueError(f"{view.game.name} gives no observation facts")
    return cast(Observable, view).observe(seat)


@functools.cache
def _observable(kind: type) -> bool:
    """Whether states of class ``kind`` are ``Observable``, asked once per class (a
    protocol's ``isinstance`` inspects the class's members at every call: a twentieth of an
    environment step)."""
    return issubclass(kind, Observable)


def deal_seed(seed: int | None, rng: np.random.Generator) -> int:
    """The deal of a reset: ``seed`` itself, else a seed drawn from the environment's
    generator (so that ``reset(seed=s)`` then ``reset()`` replays the same deals)."""
    if seed is not None:
        return int(seed)
    return int(rng.integers(0, MAX_DEAL_SEED, dtype=np.int64))


def advance_chance(state: State[Action], rng: np.random.Generator) -> None:
    """Play chance (card flips, tile draws) until a player is to move or the game is over. A
    dealt state has one outcome per chance event; otherwise (a state read from a snapshot)
    the outcome is drawn from ``rng`` with the engine's probabilities."""
    while CHANCE in state.to_move():
        outcomes = state.chance_outcomes()
        if len(outcomes) == 1:
            outcome = outcomes[0][0]
        else:
            weights = np.array([w for _, w in outcomes], np.float64)
            outcome = outcomes[int(rng.choice(len(outcomes), p=weights / weights.sum()))][0]
        state.apply_in_place(CHANCE, outcome, check=False)


def legal_by_index(game: Game[Action], state: State[Action], seat: int) -> dict[int, Action]:
    """``seat``'s legal actions by dense index (empty when ``seat`` is not to move)."""
    if seat not in state.to_move():
        return {}
    return {game.action_index(a): a for a in state.legal_actions(seat)}


def action_mask(size: int, legal: dict[int, Action]) -> np.ndarray:
    """The action mask: ``int8`` of length ``size``, 1 at every legal index."""
    mask = np.zeros(size, np.int8)
    if legal:
        mask[list(legal)] = 1
    return mask


def resolve_action(
    game: Game[Action],
    state: State[Action],
    seat: int,
    action: object,
    legal: dict[int, Action],
    mode: IllegalMode,
) -> tuple[Action, bool]:
    """The engine action of the dense index ``action`` for ``seat``, and whether it was
    illegal (then replaced by ``game.pass_action`` in the ``pass`` mode).

    Raises:
        TypeError: ``action`` is not an integer (an ``int``, a NumPy integer, or a NumPy
            array holding one).
        IllegalActionError: (``raise`` mode) an index outside the action space (reason
            ``illegal-index``) or an action the rules refuse now (the engine's reason, e.g.
            ``crosses-section``, with the index and its notation in the message).
    """
    if isinstance(action, np.ndarray) and action.shape in {(), (1,)}:
        action = action.reshape(()).item()  # a 0-d or one-element array, as some learners send
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise TypeError(f"an action is a dense index (an int), not {action!r}")
    index = operator.index(action)
    found = legal.get(index)
    if found is not None:
        return found, False
    if mode == "pass":
        return game.pass_action, True
    where = Where(player=seat)
    size = game.num_distinct_actions
    if not 0 <= index < size:
        raise IllegalActionError(
            "illegal-index", f"action index {index} is outside 0..{size - 1}", where
        )
    candidate = game.action_from_index(index)
    text = state.action_to_string(seat, candidate)
    try:
        state.apply(seat, candidate)
    except IllegalActionError as exc:
        raise IllegalActionError(
            exc.reason, f"action index {index} ({text}): {exc.detail}", exc.where
        ) from exc
    raise IllegalActionError(
        "illegal-index", f"action index {index} ({text}) is not in the action mask", where
    )
