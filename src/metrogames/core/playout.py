"""Uniformly random play, defined once: the random bot's choice and the generic playout.

A uniformly random player picks one of its legal actions other than the pass (the pass only
when nothing else is legal), by one ``rng.below(k)`` draw among the ``k`` candidates in
``legal_actions`` order, and no draw when the pass is forced. Engines implement
:meth:`~metrogames.core.protocol.State.random_playout` with exactly these draws (their fast
paths must give the same games); :func:`random_playout` is the plain version a new game can
delegate to.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from metrogames.core.protocol import CHANCE, State
from metrogames.core.rng import Rng

A = TypeVar("A", bound=Hashable)


def uniform_choice(rng: Rng, legal_actions: Sequence[A], pass_action: object) -> A:
    """One of ``legal_actions`` (never empty), uniformly among those that are not
    ``pass_action`` (listed first when legal, see ``Game.pass_action``); the pass when it is
    the only legal action."""
    if legal_actions[0] != pass_action:
        return rng.choice(legal_actions)
    return rng.choice(legal_actions[1:]) if len(legal_actions) > 1 else legal_actions[0]


def random_playout(state: State[A], rngs: Sequence[Rng]) -> None:
    """Play ``state`` to the end in place: each player ``p`` chooses with ``rngs[p]`` by
    :func:`uniform_choice`; simultaneous movers act in seat order; chance takes the deal's
    outcome.

    Raises:
        ValueError: ``rngs`` is not one generator per player, or a chance event whose outcome
            the deal does not fix (a view; resample it first).
    """
    if len(rngs) != state.num_players:
        raise ValueError(f"random_playout needs {state.num_players} generators, not {len(rngs)}")
    pass_action = state.game.pass_action
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            outcomes = state.legal_actions(CHANCE)
            if len(outcomes) != 1:
                raise ValueError("random_playout needs a known deal (resample a view first)")
            state.apply_in_place(CHANCE, outcomes[0], check=False)
            continue
        for p in sorted(movers):
            action = uniform_choice(rngs[p], state.legal_actions(p), pass_action)
            state.apply_in_place(p, action, check=False)
