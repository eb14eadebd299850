"""The ``hint`` command of terminal play: the coach's best moves (:mod:`metrogames.bots.coach`)
printed in the game's notation with their figures.

``hint`` shows the best three moves; ``hint MOVE`` also rates the move the player is about to
make. The figure shown first is the game's (expected final score in points, or the win
probability in Metro); with several players the other one follows in brackets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.console import Group, RenderableType
from rich.text import Text

from metrogames.bots.coach import Hint, Hints, hints
from metrogames.cli.lang import _, decimal, ntr, tr
from metrogames.cli.prompt import refusal_text
from metrogames.core.errors import IllegalActionError, NotationError
from metrogames.core.protocol import Action, CoachFigure, State
from metrogames.i18n import N_

HINT_WORD = "hint"
HINT_HELP = N_("hint [MOVE] (the coach's best three moves; with a move, its estimate too)")


def figures(hint: Hint, figure: str, players: int) -> str:
    """``95.6 points`` / ``57% to win`` with the other figure in brackets when several play."""
    points = tr("{points} points", points=decimal(hint.score, "0.0"))
    win = tr("{percent}% to win", percent=decimal(100 * hint.win, "0"))
    if players == 1:
        return points
    return f"{win} ({points})" if figure == "win" else f"{points} ({win})"


def hints_text(found: Hints, players: int) -> RenderableType:
    """The coach's answer as lines: the moves, best first, then the move about to be made."""
    what = _("win probability") if found.figure == "win" else _("expected final score")
    lines: list[Text] = [
        Text(tr("Coach (the expert's estimates, {what}):", what=what), style="bold")
    ]
    for i, h in enumerate(found.best, 1):
        line = Text(f"  {i}. ")
        line.append(h.text, style="bold #2ec4b6")
        line.append(f"  {figures(h, found.figure, players)}")
        line.append("  · " + ntr("{n} playout", "{n} playouts", h.playouts), style="dim")
        lines.append(line)
    if found.about is not None:
        line = Text("  " + _("Your move") + " ")
        line.append(found.about.text, style="bold #ffd23f")
        line.append(f": {figures(found.about, found.figure, players)}")
        line.append("  · " + ntr("{n} playout", "{n} playouts", found.about.playouts), style="dim")
        lines.append(line)
    return Group(*lines)


FIGURES: dict[str, CoachFigure] = {"score": "score", "win": "win"}
"""The coach's figures by name (``GameType.coach_figure``)."""


def hints_from_json(data: Mapping[str, object]) -> Hints:
    """The coach's answer from the server's JSON (``docs/web-api.md``, the hint endpoint;
    the actions stay JSON).

    Raises:
        KeyError, TypeError, ValueError: not such an answer.
    """

    def hint(item: object) -> Hint:
        if not isinstance(item, Mapping):
            raise TypeError(f"a move is an object, not {item!r}")
        score, win, playouts = item["score"], item["win"], item["playouts"]
        if not isinstance(score, int | float) or not isinstance(win, int | float):
            raise TypeError("a move's score and win are numbers")
        if not isinstance(playouts, int):
            raise TypeError("a move's playouts are a whole number")
        return Hint(item["action"], str(item["text"]), float(score), float(win), playouts)

    figure, moves = data["figure"], data["moves"]
    chosen = FIGURES.get(figure) if isinstance(figure, str) else None
    if chosen is None:
        raise ValueError(f"unknown figure {figure!r}")
    if not isinstance(moves, list):
        raise TypeError("moves are a list")
    about = data.get("about")
    return Hints(chosen, [hint(m) for m in moves], None if about is None else hint(about))


def hint_command(
    view: State[Action],
    seat: int,
    seed: int,
    read: Callable[[str], Action],
) -> Callable[[str], RenderableType]:
    """The ``hint [MOVE]`` command for ``seat`` at ``view`` (its own view): ``read`` turns the
    typed move into an action (as the prompt reads moves). A move that does not read or is not
    legal is explained instead."""

    def command(rest: str) -> RenderableType:
        about = None
        try:
            if rest.strip():
                about = read(rest)
            found = hints(view, seat, about=about, seed=seed)
        except (NotationError, IllegalActionError) as exc:
            detail = refusal_text(exc)
            return Text(
                "✘ " + tr("no hint for that move: {detail}", detail=detail), style="bold red"
            )
        return hints_text(found, view.num_players)

    return command
