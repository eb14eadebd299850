"""``metrogames analyse``: the hindsight report of a finished solo game record.

Contract: ``docs/notation.md``, "Analysis". The record is replayed by the engine (registry
``replay_record``), then :mod:`metrogames.bots.hindsight` searches its deal with the whole deck
known and weighs the player's decisions on the player's view. Only finished solo games of a
game with a solo rating (the states' ``solo_result``: ``SoloRated``, London and Paris) whose record
fixes the deal (a seed, or revealed decks) are analysed; anything else is refused with an
:class:`AnalysisRefusedError` naming the reason. When the game gives one (the state's
``score_bound``: ``ScoreBounded``) the report carries an upper bound of the score on the deal,
by component.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.bots.hindsight import PLAYER, Budget, Decision, Line, player_losses, search_best
from metrogames.core.capabilities import Presented, ScoreBounded, SoloRated
from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import CHANCE, Action, JsonObject, JsonValue, State, is_object
from metrogames.core.rng import Rng
from metrogames.games import game_type, record_start, replay_record

BUDGETS: dict[str, Budget] = {
    "rough": Budget(width=2, playouts=2, coach=60),
    "quick": Budget(width=4, playouts=4, coach=300),
    "normal": Budget(width=16, playouts=8, coach=1000),
    "deep": Budget(width=64, playouts=16, coach=4000),
}
"""Named budgets, cheapest first: beam width, random completions per state, and the Monte
Carlo ranking's playouts per decision (``normal``: about 5 s of search and 3 s of ranking
for a London game on one core; ``rough``: a fraction of a second, rough estimates, for a
small machine and for the tests of the report's path through a server)."""

NOTE = "the best score found by a search with the whole deck known, not a proven optimum"
"""Said with every best-found score."""

SHOWN_TURNS = 3
"""The costliest decisions listed (the first is *the* costliest turn)."""


class AnalysisRefusedError(MetrogamesError):
    """A record that cannot be analysed.

    Attributes:
        reason: ``not-solo``, ``not-finished``, ``no-solo-rating`` (a game without a solo
            rating: not London or Paris) or ``unknown-deal`` (no seed, decks not revealed).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{message} ({reason})")
        self.reason = reason
        self.detail = message

    def __reduce__(self) -> tuple[type[AnalysisRefusedError], tuple[str, str]]:
        # rebuilt from its fields (Exception would call cls(text)): it crosses processes intact
        return type(self), (self.reason, self.detail)


@dataclass
class Analysis:
    """A finished solo game, the best line found on its deal and the player's decisions
    weighed. ``record`` is the analysed record (decoded JSON)."""

    record: JsonObject
    final: State[Action]
    best: Line
    decisions: list[Decision]
    budget_name: str
    budget: Budget
    seed: int
    states: int
    completions: int
    bound: dict[str, int] | None

    @property
    def costliest(self) -> list[Decision]:
        """The decisions that lost points, costliest first (ties: earlier first)."""
        lost = [d for d in self.decisions if d.loss > 0]
        return sorted(lost, key=lambda d: (-d.loss, d.step))

    def best_record(self) -> JsonObject:
        """The best line as a game record of the same deal (same names, seed when the
        analysed record has one, decks revealed)."""
        seed = self.record.get("seed")
        names = [str(n) for n in _names(self.record)]
        return dict(
            self.best.state.game.to_record(
                self.best.state, names, seed=seed if isinstance(seed, int) else None, reveal=True
            )
        )

    def to_json(self) -> JsonObject:
        """The ``analyse --json`` document (``docs/notation.md``, "Analysis")."""
        score = self.final.scores()[PLAYER]
        turns: list[JsonValue] = [self._turn(d) for d in self.costliest[:SHOWN_TURNS]]
        return {
            "game": self.final.game.name,
            "player": _names(self.record)[PLAYER],
            "score": score,
            "best_found": {
                "score": self.best.score,
                "gain": self.best.score - score,
                "proven_optimal": False,
                "note": NOTE,
                "moves": self._moves(self.best.state),
                "record": self.best_record(),
            },
            "upper_bound": dict(self.bound) if self.bound is not None else None,
            "costliest_turn": turns[0] if turns else None,
            "costly_turns": turns,
            "decisions": len(self.decisions),
            "estimated_loss": round(sum(d.loss for d in self.decisions), 1),
            "search": {
                "budget": self.budget_name,
                "width": self.budget.width,
                "playouts": self.budget.playouts,
                "coach_playouts": self.budget.coach,
                "seed": self.seed,
                "states": self.states,
                "completions": self.completions,
            },
        }

    def views(self) -> JsonObject:
        """The game's view JSON (the state's ``view_json``: ``Presented``, spectator) of the
        player's final position and of the best line's (``{}`` each for a game without)."""
        return {"player": _view_json(self.final, None), "best": _view_json(self.best.state, None)}

    def _moves(self, state: State[Action]) -> list[str]:
        return [state.action_to_string(p, a) for p, a in state.history() if p != CHANCE]

    def _turn(self, d: Decision) -> JsonObject:
        """Where decision ``d`` was taken (the view JSON's ``round``, ``turn`` and ``card``
        when the game gives them), the moves and their estimates."""
        start = record_start(self.record)
        history = self.final.history()
        for player, action in history[: d.step]:
            start.apply_in_place(player, action, check=False)
        shown = _view_json(start, PLAYER)
        where = {k: shown[k] for k in ("round", "turn", "card") if k in shown}
        return {
            "step": d.step,
            **where,
            "played": start.action_to_string(PLAYER, d.played),
            "better": start.action_to_string(PLAYER, d.best),
            "played_estimate": round(d.played_score, 1),
            "better_estimate": round(d.best_score, 1),
            "loss": round(d.loss, 1),
        }


def check_record(data: object) -> tuple[State[Action], State[Action]]:
    """The first and final states of a record that may be analysed.

    Raises:
        AnalysisRefusedError: see the class.
        RecordError, NotationError, IllegalActionError: a record the engine refuses.
    """
    final = replay_record(data)
    if final.num_players != 1:
        raise AnalysisRefusedError(
            "not-solo", f"only solo games are analysed, not a {final.num_players}-player game"
        )
    if not final.is_over():
        raise AnalysisRefusedError("not-finished", "the game is not over: finish it first")
    if not isinstance(final, SoloRated):
        title = game_type(final.game.name).title
        raise AnalysisRefusedError(
            "no-solo-rating", f"{title} has no solo rating: London and Paris are analysed"
        )
    start = record_start(data)
    probe = start.clone()
    try:
        probe.random_playout([Rng(0)])
    except ValueError:
        raise AnalysisRefusedError(
            "unknown-deal", "the record gives neither its seed nor its decks"
        ) from None
    return start, final


def analyse(data: object, budget: str = "normal", seed: int = 0) -> Analysis:
    """Analyse a decoded game record with the named ``budget`` (:data:`BUDGETS`) and
    ``seed`` (the same arguments always give the same analysis).

    Raises:
        ValueError: an unknown budget name.
        AnalysisRefusedError, RecordError, NotationError, IllegalActionError: as
            :func:`check_record`.
    """
    chosen = BUDGETS.get(budget)
    if chosen is None:
        raise ValueError(f"unknown budget {budget!r} (known: {', '.join(BUDGETS)})")
    start, final = check_record(data)
    assert is_object(data)
    best, stats = search_best(start, chosen, seed, candidates=[final])
    decisions = player_losses(start, final, chosen.coach, seed)
    bound = start.score_bound(PLAYER) if isinstance(start, ScoreBounded) else None
    return Analysis(
        dict(data),
        final,
        best,
        decisions,
        budget,
        chosen,
        seed,
        stats.states,
        stats.completions,
        bound,
    )


def _view_json(state: State[Action], seat: int | None) -> JsonObject:
    """The game's part of the view JSON of ``state`` for ``seat`` (``{}`` without one)."""
    return state.view_json(seat) if isinstance(state, Presented) else {}


def _names(record: JsonObject) -> Sequence[JsonValue]:
    names = record.get("players")
    return names if isinstance(names, list) else ["player"]
