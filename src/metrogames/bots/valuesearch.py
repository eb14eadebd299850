"""Expectimax over the exact next-card distribution with a learned afterstate value
(``docs/research.md``, "A learned position value").

Honest hidden information: the search starts from ``view.open_deal(player, rng)``
(``ValueFeatured``): the seat's view made playable with every unflipped card still a chance
event, so a chance node's outcomes are exactly the cards the seat may see next, each with its
probability (``chance_outcomes``). Nothing of the real deck is read.

The value of a node for the deciding player ``p``:

* game over: ``p``'s final score;
* a card is due (an *afterstate*) with no decision left to look at: ``p``'s score now plus the
  learned value of ``p``'s features (:class:`~metrogames.bots.value.ValueModel`: points still
  to come);
* a card is due otherwise: the mean over the next card's outcomes, by probability;
* ``p`` to move: the best of its legal actions (``depth`` decisions are looked at: 1 values
  each action by its afterstate, 2 also takes the mean over the next card of the best next
  action, and so on; with ``width``, a decision below the first follows only its ``width``
  actions of best afterstate value). Other players to move pass: players' maps never interact
  (``docs/engine-rules-london.md``, "Structure of a game"), so theirs never change ``p``'s
  score.

The leaves of one decision are valued in one numpy batch. Deterministic: the same view, seed and
weights give the same action. Solo Next Station decisions have about 4 legal actions and the next
card about 8 outcomes: ``depth=2`` values some 100-200 leaves.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from metrogames.bots.base import bot_rng, check_decision
from metrogames.bots.value import ValueModel, load_model
from metrogames.core.capabilities import ValueFeatured
from metrogames.core.protocol import CHANCE, Action, State

WEIGHTS = Path(__file__).with_name("weights")
"""The folder of the package's weights files."""
DEFAULT_DEPTH = 2

Node = tuple[str, float, list[tuple[float, "Node"]]]
"""``(kind, value, children)`` of the search tree: ``leaf`` (value: the score now; the learned
value of its features is added when the tree is valued, leaves in the order they were made),
``exact`` (value: the final score), ``mean`` (children: each outcome's probability and node) or
``max`` (children: ``(0.0, node)`` per action)."""


class ValueSearchBot:
    """The search of the module docstring with the weights file ``weights`` (default: the
    package's own for the game, :func:`shipped_weights`; checked against the game on the first
    decision, :func:`~metrogames.bots.value.load_model`) or a ``model``.

    Args:
        seed: the bot's seed (the other players' hidden actions of the turn in progress).
        weights: a weights file (``metrogames train value``).
        depth: decisions looked at (at least 1).
        model: a model already loaded, instead of ``weights``.
        width: below the first decision, follow only this many actions of best afterstate
            value at each decision that has more (0: all).

    Raises:
        ValueError: ``depth`` below 1.
    """

    sees_state = True

    def __init__(
        self,
        seed: int = 0,
        weights: Path | None = None,
        depth: int = DEFAULT_DEPTH,
        model: ValueModel | None = None,
        width: int = 0,
        name: str = "valuesearch",
    ) -> None:
        if depth < 1:
            raise ValueError(f"a value search looks at least 1 decision ahead, not {depth}")
        if width < 0:
            raise ValueError(f"a value search's width cannot be negative ({width})")
        self.name = name
        self.depth = depth
        self.width = width
        self.weights = weights
        self.model = model
        self.rng = bot_rng(seed, name)

    def _model(self, state: ValueFeatured, game: str) -> ValueModel:
        spec = state.value_feature_spec()
        if self.model is None:
            self.model = load_model(self.weights or shipped_weights(game), game, spec)
        elif self.model.game != game or self.model.version != spec[0]:
            raise ValueError(
                f"the value model is for {self.model.game} ({self.model.version}), "
                f"not {game} ({spec[0]})"
            )
        return self.model

    def action_values(
        self, state: State[Action], player: int, legal_actions: Sequence[Action]
    ) -> list[float]:
        """The value (points: ``player``'s expected final score) of each action of
        ``legal_actions`` in ``state`` (``player``'s view, or a full state: only its view is
        used).

        Raises:
            GameOverError, NotYourTurnError, IllegalActionError: as ``check_decision``.
            ValueError: a game without value features (``ValueFeatured``), or a model of
                another game; WeightsError: the weights file does not fit the game.
        """
        check_decision(self.name, state, player, legal_actions)
        if not isinstance(state, ValueFeatured):
            raise ValueError(f"{state.game.name} has no value features: no value search")
        model = self._model(state, state.game.name)
        root = state.open_deal(player, self.rng)
        rows: list[list[float]] = []
        nodes = [self._after(root, player, a, self.depth - 1, rows) for a in legal_actions]
        learned = model.predict(np.array(rows)) if rows else np.zeros(0)
        counter = iter(learned.tolist())
        return [_value(node, counter) for node in nodes]

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        values = self.action_values(state, player, legal_actions)
        best = max(range(len(values)), key=lambda i: (values[i], -i))
        return legal_actions[best]

    def _after(
        self, state: State[Action], player: int, action: Action, depth: int, rows: list[list[float]]
    ) -> Node:
        nxt = state.clone()
        nxt.apply_in_place(player, action, check=False)
        return self._node(nxt, player, depth, rows)

    def _node(self, state: State[Action], player: int, depth: int, rows: list[list[float]]) -> Node:
        if state.is_over():
            return ("exact", float(state.scores()[player]), [])
        movers = state.to_move()
        if CHANCE in movers:
            if depth == 0:
                assert isinstance(state, ValueFeatured)
                rows.append(state.value_features(player))
                return ("leaf", float(state.scores()[player]), [])
            children: list[tuple[float, Node]] = []
            for card, p in state.chance_outcomes():
                nxt = state.clone()
                nxt.apply_in_place(CHANCE, card, check=False)
                children.append((p, self._node(nxt, player, depth, rows)))
            return ("mean", 0.0, children)
        pass_action = state.game.pass_action
        for other in sorted(movers - {player}):
            state.apply_in_place(other, pass_action, check=False)
        if player not in movers:
            return self._node(state, player, depth, rows)
        legal = state.legal_actions(player)
        if self.width and depth > 1 and len(legal) > self.width:
            legal = self._screened(state, player, legal)
        return ("max", 0.0, [(0.0, self._after(state, player, a, depth - 1, rows)) for a in legal])

    def _screened(self, state: State[Action], player: int, legal: Sequence[Action]) -> list[Action]:
        """The :attr:`width` actions of ``legal`` of best afterstate value (one decision
        deep), in their order: those a deeper look follows."""
        rows: list[list[float]] = []
        nodes = [self._after(state, player, a, 0, rows) for a in legal]
        assert self.model is not None  # loaded by action_values
        learned = iter(self.model.predict(np.array(rows)).tolist() if rows else [])
        values = [_value(node, learned) for node in nodes]
        best = sorted(range(len(legal)), key=lambda i: (-values[i], i))[: self.width]
        return [legal[i] for i in sorted(best)]


def shipped_weights(game: str) -> Path:
    """The package's weights file for ``game`` (``metrogames/bots/weights/<game>.npz``; only
    London has one: :func:`~metrogames.bots.value.load_model` refuses a missing file)."""
    return WEIGHTS / f"{game}.npz"


def _value(node: Node, learned: Iterator[float]) -> float:
    """The value of ``node``, its leaves' learned values taken in order from the iterator
    ``learned``."""
    kind, value, children = node
    if kind == "exact":
        return value
    if kind == "leaf":
        return value + next(learned)
    values = [(p, _value(child, learned)) for p, child in children]
    if kind == "mean":
        return sum(p * v for p, v in values)
    return max(v for _, v in values)
