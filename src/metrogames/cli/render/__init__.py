"""Drawing games in the terminal: one :class:`TerminalRenderer` per game family.

The terminal game loop (:mod:`metrogames.cli.play`), the daily client
(:mod:`metrogames.cli.daily`) and ``score`` (:mod:`metrogames.cli.report`) hold a game only
through the protocol and the registry; everything they show of a game comes from the renderer
:func:`renderer_for` picks by the game's ``GameType.family`` (``nextstation``, ``metro``).
The modules of this package are the one place in ``cli/`` that may import a game's internals:
:mod:`.nextstation` and :mod:`.metro` (with their pictures in :mod:`.nextstation_map` and
:mod:`.metro_board`) read the engines' states directly. A family without a renderer of its
own gets :class:`~metrogames.cli.render.plain.PlainRenderer` (scores, whose turn, the legal
moves in text notation, the position snapshot), so a newly registered game can be played in
the terminal at once. Renderer modules are imported only when first asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rich.console import RenderableType
from rich.text import Text

from metrogames.cli.lang import _, band_range, ntr, tr
from metrogames.core.capabilities import SoloRated
from metrogames.core.protocol import Action, GameType, JsonObject, State
from metrogames.i18n import N_

ENTER = N_("Type your move in the notation, then Enter:")


def help_text(examples: Sequence[tuple[str, str]], more: str = "", head: str = ENTER) -> str:
    """A ``help`` block in the terminal's language: ``head`` (an English literal), then one
    line per example, its notation as typed (never translated) and its meaning, then ``more``
    (an English literal or ``""``)."""
    width = max((len(move) for move, _meaning in examples), default=0)
    lines = [_(head)]
    lines += [f"  {move.ljust(width)} {_(meaning)}" for move, meaning in examples]
    return "\n".join(lines + ([_(more)] if more else []))


@dataclass(frozen=True)
class Seats:
    """Who sits at a terminal table: one display name per seat (``Player 1``, ``bot:greedy``)
    and the seats played by people at this terminal (the others are bots or remote)."""

    names: tuple[str, ...]
    humans: tuple[int, ...]


Command = tuple[str, Callable[[], RenderableType]]
"""A word a player may type instead of a move: its help text and what it prints."""


class TerminalRenderer(Protocol):
    """What the terminal shows of one game family.

    ``view`` arguments are ``state.view(seat)`` for the seat about to move: a renderer shows
    that seat nothing its view hides. ``before``/``after`` are public views
    (``state.view(None)``): announcements are read by everyone at the terminal. Game-over
    members get the finished (full) state.
    """

    @property
    def notation_help(self) -> str:
        """How a move is typed, with examples, in the terminal's language (``help`` prints it
        above the list of commands; see :func:`help_text`)."""
        ...

    def intro(self, state: State[Action], seats: Seats, seed: int | None) -> RenderableType:
        """The opening lines: the game, its seed and options, who sits where."""
        ...

    def position(self, state: State[Action]) -> str:
        """Where the game stands, for ``Resumed at …`` (``round 2, turn 5``)."""
        ...

    def private(self, state: State[Action]) -> bool:
        """Whether a seat's screen shows what other seats may not see (held tiles): several
        people at one terminal then hand it over behind a cleared screen."""
        ...

    def turn_screen(
        self, view: State[Action], seat: int, seats: Seats, *, width: int
    ) -> RenderableType:
        """The screen before ``seat``'s move (``width`` columns); it says so when the only
        legal move is the game's pass, which the loop then plays without asking."""
        ...

    def prompt(self, view: State[Action], seat: int, seats: Seats) -> str:
        """The input prompt of ``seat``'s move (ends with ``> ``)."""
        ...

    def moves(self, view: State[Action], seat: int) -> RenderableType:
        """Every legal move of ``seat`` in the text notation (the ``moves`` command)."""
        ...

    def commands(self, view: State[Action], seat: int) -> dict[str, Command]:
        """Commands of this game besides ``moves``, ``map``, ``help`` and ``quit``."""
        ...

    def complete(self, view: State[Action], seat: int, action: Action) -> Action:
        """``action`` as read by ``view.string_to_action`` with what the player may leave out
        filled in (Metro: the tile of a bare square when one kind can be placed)."""
        ...

    def announce(
        self,
        before: State[Action],
        after: State[Action],
        moves: Sequence[tuple[int, Action]],
        seats: Seats,
    ) -> list[RenderableType]:
        """What to print after the table went from ``before`` to ``after`` by ``moves`` (the
        players' moves to report, in order; chance steps are not listed): moves played, round
        intros and scores, completed routes."""
        ...

    def game_over(self, state: State[Action], seats: Seats) -> RenderableType:
        """The finished position and score sheets."""
        ...

    def verdict(self, state: State[Action], seats: Seats) -> RenderableType:
        """The final scores and who won; for a solo game, its rating (never "wins")."""
        ...

    def final_map(self, state: State[Action], seat: int, title: str) -> RenderableType:
        """``seat``'s part of the finished (full) ``state`` under ``title`` (``analyse`` shows
        two of them side by side)."""
        ...

    def sheet(self, game: str, result: JsonObject) -> RenderableType:
        """A ``score --json`` result of ``game`` as a table."""
        ...


_BUILTIN: dict[str, str] = {
    "nextstation": "metrogames.cli.render.nextstation",
    "metro": "metrogames.cli.render.metro",
}
"""Family -> the module holding its ``RENDERER``."""

_RENDERERS: dict[str, TerminalRenderer] = {}
"""Family -> its renderer, once imported."""


def renderer_for(kind: GameType) -> TerminalRenderer:
    """The renderer of ``kind``'s family (its name when it gives none); the plain renderer
    for a family that has none."""
    family = kind.family or kind.name
    found = _RENDERERS.get(family)
    if found is None:
        module = _BUILTIN.get(family, "metrogames.cli.render.plain")
        found = _RENDERERS[family] = importlib.import_module(module).RENDERER
    return found


# -- shared lines ----------------------------------------------------------------------------
def scores_line(state: State[Action], names: Sequence[str]) -> Text:
    """``Final scores: Player 1: 118 · bot:greedy: 97``."""
    scores = state.scores()
    listed = " · ".join(f"{n}: {s}" for n, s in zip(names, scores, strict=True))
    return Text(tr("Final scores: {scores}", scores=listed))


def winners_line(state: State[Action], names: Sequence[str], detail: str = "") -> Text:
    """``Ada wins with 118 points.`` (``share the victory`` when tied), ``detail`` before the
    full stop."""
    winners = state.winners()
    scores = state.scores()
    who = ", ".join(names[w] for w in winners)
    points = scores[winners[0]]
    text = (
        ntr(
            "{who} wins with {n} point{detail}.",
            "{who} wins with {n} points{detail}.",
            points,
            who=who,
            detail=detail,
        )
        if len(winners) == 1
        else ntr(
            "{who} share the victory with {n} point{detail}.",
            "{who} share the victory with {n} points{detail}.",
            points,
            who=who,
            detail=detail,
        )
    )
    return Text(text, style="bold green")


def solo_lines(result: JsonObject) -> list[Text]:
    """A state's ``solo_result`` (``SoloRated``) as printed: the rating (score, module penalty, band,
    range, phrase) and the percentile among the reference games, each when known."""
    out = []
    rating = result.get("rating")
    if isinstance(rating, dict):
        text = tr("Solo rating: {score}", score=result["score"])
        modules = result.get("modules")
        if isinstance(modules, int) and modules:
            count = ntr("{n} module", "{n} modules", modules)
            text += f" − {rating['penalty']} ({count})"
            text += f" = {rating['adjusted']}"
        text += " → " + tr("band {band} ({range})", band=rating["band"], range=band_range(rating))
        if rating.get("phrase"):
            text += f": “{_(str(rating['phrase']))}”"
        out.append(Text(text, style="bold green"))
    rank = result.get("percentile")
    reference = result.get("reference")
    if isinstance(rank, int | float) and isinstance(reference, dict):
        shown = f"{rank:.1f}" if rank < 1 or rank > 99 else f"{rank:.0f}"
        out.append(
            Text(
                tr(
                    "Percentile: {shown} — better than {shown}% of {games} solo games of the "
                    "{bot} bot",
                    shown=shown,
                    games=reference["games"],
                    bot=reference["bot"],
                ),
                style="bold green",
            )
        )
    return out


def plain_verdict(state: State[Action], seats: Seats) -> list[Text]:
    """The final scores line, then the winners — or, with one player, the solo rating and
    percentile of the state's ``solo_result`` (when the game has one: ``SoloRated``)."""
    out = [scores_line(state, seats.names)]
    if state.num_players > 1:
        out.append(winners_line(state, seats.names))
        return out
    result = state.solo_result() if isinstance(state, SoloRated) else None
    if result is not None:
        out.extend(solo_lines(result))
    return out


__all__ = [
    "Command",
    "Seats",
    "TerminalRenderer",
    "plain_verdict",
    "renderer_for",
    "scores_line",
    "solo_lines",
    "winners_line",
]
