"""Search bots that decide by ranking: each legal action gets an :class:`Estimate` (the coach
shows the best ones) and the bot plays the best-ranked one.

Used by the Monte Carlo, heuristic and lookahead bots (:mod:`.montecarlo`, :mod:`.heuristic`,
:mod:`.lookahead`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.bots.base import check_decision
from metrogames.core.protocol import Action, State


@dataclass(frozen=True)
class Estimate:
    """What a search found for one legal action (the coach shows these).

    Attributes:
        action: the action.
        playouts: the finished playouts behind the figures.
        score: the player's mean final score after the action, in points.
        win: the share of those playouts the player won (a shared win counts as a fraction;
            in a solo game, the share it finished at all: 1.0).
        value: the search's criterion, the mean margin (the player's score minus the
            best other player's; its score alone in a solo game), in points.
    """

    action: Action
    playouts: int
    score: float
    win: float
    value: float



class RankingBot:
    """A bot whose decision is the first action of its :meth:`rank`.

    Attributes:
        name: the bot's code.
    """

    name: str
    sees_state = True

    def rank(
        self, state: State[Action], player: int, legal_actions: Sequence[Action], keep: int = 1
    ) -> list[Estimate]:
        """Every action of ``legal_actions`` with its :class:`Estimate`, best first."""
        raise NotImplementedError

    def decide(self, state: State[Action], player: int, legal_actions: Sequence[Action]) -> Action:
        """The best-ranked action (the only one without a search).

        Raises:
            GameOverError, NotYourTurnError, IllegalActionError: as
                :func:`~metrogames.bots.base.check_decision`.
        """
        check_decision(self.name, state, player, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        return self.rank(state, player, legal_actions)[0].action
