"""The text output of ``metrogames analyse``: both maps side by side, the best found score with
its caveat, and the costliest turns (``docs/notation.md``, "Analysis")."""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from rich.columns import Columns
from rich.console import Console
from rich.text import Text

from metrogames.bots.analysis import Analysis
from metrogames.cli.lang import _, ntr, tr
from metrogames.cli.render import renderer_for
from metrogames.games import game_type


class TurnDoc(TypedDict):
    """A costly turn of the analysis document: where (``round``, ``turn``, ``card`` when the
    game gives them, else the ``step``), the moves and their estimates."""

    step: int
    round: NotRequired[int]
    turn: NotRequired[int]
    card: NotRequired[str]
    played: str
    better: str
    loss: float
    played_estimate: float
    better_estimate: float


class BestDoc(TypedDict):
    """The best line found: its ``score`` and ``gain`` over the player's."""

    score: int
    gain: int


class SearchDoc(TypedDict):
    """The search's budget and counts."""

    budget: str
    width: int
    coach_playouts: int
    seed: int
    states: int
    completions: int


class AnalysisDoc(TypedDict):
    """What the text reads of the ``analyse --json`` document (``docs/notation.md``,
    "Analysis"), as :meth:`~metrogames.bots.analysis.Analysis.to_json` builds it."""

    game: str
    player: str
    score: int
    best_found: BestDoc
    upper_bound: dict[str, int] | None
    costly_turns: list[TurnDoc]
    decisions: int
    estimated_loss: float
    search: SearchDoc


def turn_text(turn: TurnDoc) -> str:
    """``round 2, turn 5 (street-circle): played F4-H6, better C6-E6 — 9.6 points lost
    (estimates 106.4 and 116.0)``; the where-part holds what the game gives."""
    parts = []
    if "round" in turn:
        parts.append(tr("round {round}", round=turn["round"]))
    if "turn" in turn:
        parts.append(tr("turn {turn}", turn=turn["turn"]))
    where = ", ".join(parts) or tr("step {step}", step=turn["step"])
    if "card" in turn:
        where += f" ({turn['card']})"
    return tr(
        "{where}: played {played}, better {better} — {loss} points lost (estimates {estimate} "
        "and {better_estimate})",
        where=where,
        played=turn["played"],
        better=turn["better"],
        loss=turn["loss"],
        estimate=turn["played_estimate"],
        better_estimate=turn["better_estimate"],
    )


def print_analysis(console: Console, analysis: Analysis) -> None:
    """Print ``analysis`` for people (the JSON document's content, maps drawn)."""
    doc = cast(AnalysisDoc, analysis.to_json())  # its document, built by the same package
    best = doc["best_found"]
    kind = game_type(doc["game"])
    renderer = renderer_for(kind)
    name = str(doc["player"])
    console.print(
        Text(tr("{title}: hindsight on {name}'s game", title=kind.title, name=name), style="bold")
    )
    console.print(
        Columns(
            [
                renderer.final_map(
                    analysis.final,
                    0,
                    f"{name}: " + ntr("{n} point", "{n} points", int(doc["score"])),
                ),
                renderer.final_map(
                    analysis.best.state,
                    0,
                    ntr("Best found: {n} point", "Best found: {n} points", int(best["score"])),
                ),
            ],
            padding=(0, 4),
        )
    )
    gain = best["gain"]
    line = Text(
        tr("Your score {score} · best found {best}", score=doc["score"], best=best["score"]),
        style="bold",
    )
    line.append(f" ({'+' if gain >= 0 else ''}{gain})")
    console.print(line)
    note = _(
        "That is the best score found by a search with the whole deck known, not a proven optimum."
    )
    console.print(Text(note, style="dim"))
    bound = doc["upper_bound"]
    if bound is not None:
        parts = ", ".join(f"{k} {v}" for k, v in bound.items() if k != "total" and v)
        console.print(
            Text(
                tr(
                    "Upper bound on this deal: {total} ({parts}): every game of the deal "
                    "scores at most this, a loose bound (each component bounded on its own).",
                    total=bound["total"],
                    parts=parts,
                ),
                style="dim",
            )
        )
    search = doc["search"]
    turns = doc["costly_turns"]
    if turns:
        console.print(Text(tr("Costliest turn: {turn}", turn=turn_text(turns[0])), style="bold"))
        for turn in turns[1:]:
            console.print(Text(tr("Also: {turn}", turn=turn_text(turn))))
    else:
        console.print(Text(_("No turn lost points against the expert's estimate.")))
    console.print(
        Text(
            " ".join(
                [
                    ntr(
                        "Estimates: mean final scores of Monte Carlo playouts on your view "
                        "({playouts} a decision, {n} decision; the deck unknown, as you played).",
                        "Estimates: mean final scores of Monte Carlo playouts on your view "
                        "({playouts} a decision, {n} decisions; the deck unknown, as you "
                        "played).",
                        int(doc["decisions"]),
                        playouts=search["coach_playouts"],
                    ),
                    tr(
                        "Estimated loss over the game: {points} points.",
                        points=doc["estimated_loss"],
                    ),
                    tr(
                        "Search: budget {budget}, beam width {width}, {states} states, "
                        "{completions} completions, seed {seed}.",
                        budget=search["budget"],
                        width=search["width"],
                        states=search["states"],
                        completions=search["completions"],
                        seed=search["seed"],
                    ),
                ]
            ),
            style="dim",
        )
    )
