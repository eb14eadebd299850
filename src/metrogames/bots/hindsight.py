"""Hindsight for a finished solo game: the best line found on the same deal with the whole
deck known, and the turn where the player lost most against the expert's estimate.

Everything goes through the game protocol, so any solo game whose record fixes its deal can be
analysed (the CLI and the web offer it for the games with a solo rating: London and Paris).

**Best line found** (:func:`search_best`). A record's first state (``record_start``) holds the
whole deal, so with one player the game is a deterministic one-player problem: every sequence
of the player's actions is a line whose final score is known by playing it. The search is a
beam search over the player's decisions (chance steps are taken from the deal):

* each state of the beam is expanded by every legal action (states reached twice are kept
  once, by their snapshot);
* a child is valued by completing it: one greedy completion
  (:func:`~metrogames.bots.montecarlo.greedy_turns`, the greedy bot's rule to the end) and
  ``playouts`` random completions (the engine's fast
  :meth:`~metrogames.core.protocol.State.random_playout`); its value is the best of them, and
  every completion is a whole legal line, so the best completion seen is kept as the answer;
* the ``width`` best children form the next beam, until the game is over.

The player's own line and a greedy line from the start are candidates too, so the best found is
never below either. It is the best line *found*, not a proven optimum. Budgets are counted in
states and playouts, never in seconds: the same record, budget and seed give the same line.

**Costliest turn** (:func:`player_losses`). At each of the player's decisions with more than
one legal action, the coach's search (:func:`metrogames.bots.coach.coach`: the ``expert``
level's Monte Carlo algorithm) ranks the legal actions on the player's *view* — honest: it
plays on resampled deals, not on the known deck — and the estimated loss is the best action's mean final score minus the mean
of the action played (0 when the player's action is the best).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from metrogames.bots.coach import coach
from metrogames.bots.montecarlo import greedy_turns
from metrogames.bots.search import Estimate
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng

PLAYER = 0
"""The seat of a solo game."""


@dataclass(frozen=True)
class Budget:
    """How hard to look (the defaults are ``analyse``'s ``normal`` budget).

    Attributes:
        width: states kept per decision by the beam search (at least 1).
        playouts: random completions per child state, besides its greedy completion (0 or
            more).
        coach: playouts of the coach's ranking at each of the player's decisions (at least
            1; the ``hard`` level's 1000 by default, as a hint).
    """

    width: int = 16
    playouts: int = 8
    coach: int = 1000

    def __post_init__(self) -> None:
        if self.width < 1:
            raise ValueError(f"a beam width is at least 1, not {self.width}")
        if self.playouts < 0:
            raise ValueError(f"playouts per state cannot be negative ({self.playouts})")
        if self.coach < 1:
            raise ValueError(f"the coach's budget is at least 1 playout, not {self.coach}")


@dataclass
class Line:
    """A whole game from the deal: its final state (``history()`` is the line, chance steps
    included) and the player's final score in points."""

    state: State[Action]
    score: int

    def actions(self) -> list[tuple[int, Action]]:
        """Every step of the line, ``(player or CHANCE, action)``."""
        return self.state.history()


@dataclass
class SearchStats:
    """What a search cost: states expanded (children made) and completions played."""

    states: int = 0
    completions: int = 0


@dataclass
class _Search:
    rng: Rng
    playouts: int
    best: Line | None = None
    stats: SearchStats = field(default_factory=SearchStats)

    def offer(self, state: State[Action]) -> int:
        """Keep ``state`` (a finished game) if it beats the best line; its score."""
        score = state.scores()[PLAYER]
        if self.best is None or score > self.best.score:
            self.best = Line(state, score)
        return score

    def complete(self, state: State[Action]) -> int:
        """The best score of the completions of ``state`` (a decision point or the end)."""
        if state.is_over():
            return self.offer(state)
        greedy = state.clone()
        greedy_turns(greedy, 1 << 30, Rng(self.rng.next64(), "greedy"))
        value = self.offer(greedy)
        for _ in range(self.playouts):
            rollout = state.clone()
            rollout.random_playout([Rng(self.rng.next64())])
            value = max(value, self.offer(rollout))
        self.stats.completions += 1 + self.playouts
        return value


def advance(state: State[Action]) -> None:
    """Take the deal's chance outcomes in place until a player is to move or the game ends.

    Raises:
        ValueError: a chance event the state does not fix (the deal is not known).
    """
    while CHANCE in state.to_move():
        outcomes = state.legal_actions(CHANCE)
        if len(outcomes) != 1:
            raise ValueError(
                "the deal is not known: the record gives neither its seed nor its decks"
            )
        state.apply_in_place(CHANCE, outcomes[0], check=False)


def search_best(
    start: State[Action],
    budget: Budget = Budget(),
    seed: int = 0,
    candidates: Sequence[State[Action]] = (),
) -> tuple[Line, SearchStats]:
    """The best line found from ``start`` (a solo game's full state with its deal fixed) and
    what it cost; ``candidates`` are finished games of the same deal to start from (the
    player's own line), kept when nothing better is found.

    Raises:
        ValueError: not a solo game, or a deal that is not fixed.
    """
    if start.num_players != 1:
        raise ValueError(f"hindsight is for solo games, not {start.num_players} players")
    search = _Search(Rng(seed, "hindsight"), budget.playouts)
    for done in candidates:
        search.offer(done)
    root = start.clone()
    advance(root)
    search.complete(root)
    beam = [root] if not root.is_over() else []
    while beam:
        children: dict[str, tuple[int, int, State[Action]]] = {}
        for node in beam:
            for action in node.legal_actions(PLAYER):
                child = node.clone()
                child.apply_in_place(PLAYER, action, check=False)
                advance(child)
                key = child.snapshot()
                if key in children:
                    continue
                search.stats.states += 1
                value = search.complete(child)
                children[key] = (value, child.scores()[PLAYER], child)
        ranked = sorted(children.values(), key=lambda c: (-c[0], -c[1]))
        beam = [c[2] for c in ranked[: budget.width] if not c[2].is_over()]
    assert search.best is not None
    return search.best, search.stats


@dataclass(frozen=True)
class Decision:
    """One of the player's decisions, weighed by the Monte Carlo ranking.

    Attributes:
        step: its index in the record's history (chance steps counted).
        played: the action the player chose; ``best``: the ranking's best action.
        played_score, best_score: their estimated mean final scores, in points.
        loss: ``max(0, best_score - played_score)``, points.
    """

    step: int
    played: Action
    best: Action
    played_score: float
    best_score: float

    @property
    def loss(self) -> float:
        return max(0.0, self.best_score - self.played_score)


def player_losses(
    start: State[Action], final: State[Action], budget: int = 1000, seed: int = 0
) -> list[Decision]:
    """Every decision of the player in ``final``'s history (replayed from ``start``) with more
    than one legal action, weighed on the player's view by the coach's search with
    ``budget`` playouts on the game's fast estimate (:func:`metrogames.bots.coach.coach`,
    ``deep=False``: London's deep estimate would make a game's ranking some 15 times slower).

    Raises:
        ValueError: a budget below 1, or a game whose expert level is not a search.
    """
    bot = coach(start.game.name, seed, budget, deep=False)
    state = start.clone()
    out: list[Decision] = []
    for step, (player, action) in enumerate(final.history()):
        if player != CHANCE:
            legal = state.legal_actions(player)
            if len(legal) > 1:
                ranked = bot.rank(state.view(player), player, legal)
                mine = _estimate_of(ranked, action)
                out.append(Decision(step, action, ranked[0].action, mine.score, ranked[0].score))
        state.apply_in_place(player, action, check=False)
    return out


def _estimate_of(ranked: Sequence[Estimate], action: Action) -> Estimate:
    for estimate in ranked:
        if estimate.action == action:
            return estimate
    raise ValueError("the action played is not among the legal actions")
