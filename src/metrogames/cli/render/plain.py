"""The plain terminal renderer: any game, through the protocol alone.

Used for a game family that has no renderer of its own (a game registered by a plug-in or a
test): it shows the scores, whose turn it is, the legal moves in the game's text notation and
the position snapshot (``state.snapshot()``, ``docs/notation.md``, "Position snapshot"). It
knows nothing of any game, so it assumes a seat's screen may hold secrets and has people at one
terminal hand it over behind a cleared screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from metrogames.cli.lang import _
from metrogames.cli.render import Command, Seats, plain_verdict
from metrogames.core.protocol import Action, JsonObject, State
from metrogames.games import game_type
from metrogames.i18n import N_

HELP = N_("Type your move in the game's text notation, then Enter (moves lists every legal move).")


def _scores(state: State[Action], seats: Seats, current: int | None) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("")
    table.add_column("player")
    table.add_column("score", justify="right")
    for p, (name, score) in enumerate(zip(seats.names, state.scores(), strict=True)):
        table.add_row("▶" if p == current else " ", name, str(score))
    return table


class PlainRenderer:
    """:class:`~metrogames.cli.render.TerminalRenderer` for any game."""

    @property
    def notation_help(self) -> str:
        return _(HELP)

    def intro(self, state: State[Action], seats: Seats, seed: int | None) -> RenderableType:
        title = game_type(state.game.name).title
        head = title + (f" · seed {seed}" if seed is not None else "")
        return Text(f"{head} · {', '.join(seats.names)}", style="bold")

    def position(self, state: State[Action]) -> str:
        return f"action {sum(1 for p, _ in state.history() if p >= 0) + 1}"

    def private(self, state: State[Action]) -> bool:
        return True

    def turn_screen(
        self, view: State[Action], seat: int, seats: Seats, *, width: int
    ) -> RenderableType:
        """Whose turn, the scores, the legal moves and the position snapshot."""
        return Group(
            Rule(f"{seats.names[seat]}: your turn", style="bold"),
            _scores(view, seats, seat),
            Text("Position: ", style="bold").append(view.snapshot(), style="not bold"),
            Text("Legal moves: ", style="bold").append_text(self._moves(view, seat)),
        )

    def prompt(self, view: State[Action], seat: int, seats: Seats) -> str:
        return f"{seats.names[seat]} > "

    def moves(self, view: State[Action], seat: int) -> RenderableType:
        return self._moves(view, seat)

    def _moves(self, view: State[Action], seat: int) -> Text:
        legal = view.legal_actions(seat)
        return Text("  ".join(view.action_to_string(seat, a) for a in legal))

    def commands(self, view: State[Action], seat: int) -> dict[str, Command]:
        return {}

    def complete(self, view: State[Action], seat: int, action: Action) -> Action:
        return action

    def announce(
        self,
        before: State[Action],
        after: State[Action],
        moves: Sequence[tuple[int, Action]],
        seats: Seats,
    ) -> list[RenderableType]:
        """One line per move: ``bot:random plays B2``."""
        return [Text(f"{seats.names[p]} plays {after.action_to_string(p, a)}") for p, a in moves]

    def game_over(self, state: State[Action], seats: Seats) -> RenderableType:
        title = game_type(state.game.name).title
        return Group(
            Rule(f"{title}: game over", style="bold"),
            Text("Position: ", style="bold").append(state.snapshot(), style="not bold"),
            _scores(state, seats, None),
        )

    def verdict(self, state: State[Action], seats: Seats) -> RenderableType:
        return Group(*plain_verdict(state, seats))

    def final_map(self, state: State[Action], seat: int, title: str) -> RenderableType:
        """``title``, the position snapshot and ``seat``'s score."""
        return Group(
            Text(title, style="bold"),
            Text(state.snapshot()),
            Text(f"score {state.scores()[seat]}"),
        )

    def sheet(self, game: str, result: JsonObject) -> RenderableType:
        """The result's items, one row each (JSON values as written)."""
        table = Table(title=f"{game_type(game).title}: score sheet", title_style="bold")
        table.add_column("")
        table.add_column("points", justify="right")
        for key, value in result.items():
            table.add_row(key, str(value))
        return table


RENDERER = PlainRenderer()
