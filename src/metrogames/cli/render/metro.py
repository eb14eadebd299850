"""The terminal renderer of Metro.

Part of :mod:`metrogames.cli.render`, the one place in ``cli/`` that may know a game's
internals: it takes the protocol states it is handed back as :class:`MetroState`
(:meth:`MetroState.of`, checked) and draws them with
:mod:`.metro_board`. On a player's turn the screen shows the board (tracks, stations, trains on
their way, the squares where the tile may go), the scores and the player's own tile(s) — never
another player's held tiles (in the hand modes the table is handed over behind a cleared
screen: :meth:`MetroRenderer.private`). Placements are announced one by one with the routes
they complete. Rules source: ``docs/engine-rules-metro.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from metrogames.cli.lang import _, ntr, tr
from metrogames.cli.render import Command, Seats, help_text, scores_line, winners_line
from metrogames.cli.render.canvas import Fitted
from metrogames.cli.render.metro_board import (
    SEAT_LETTERS,
    final_table,
    legal_by_tile,
    legend,
    moves_text,
    open_routes_text,
    render_board,
    route_text,
    seat_style,
    seat_text,
    turn_view,
)
from metrogames.core.protocol import Action, JsonObject, State
from metrogames.games.metro import MetroAction, MetroState, square_name
from metrogames.i18n import N_

HELP: tuple[tuple[str, str], ...] = (
    ("C5", N_("draw mode: place the drawn tile on C5")),
    (
        "cbaa C5",
        N_("hand modes: place your tile cbaa on C5 (C5 alone when you hold one kind of tile)"),
    ),
    ("draw", N_("official-hand mode: take a new tile from the pile and place it, keeping yours")),
)
"""How a Metro move is typed: each example as typed and its meaning (English literals)."""
PLACING = N_(
    "A tile may go on an empty square that touches the board edge or a placed tile (named on "
    "the board). Tiles are never rotated. A route scores 1 point per tile crossed, ×2 into the "
    "centre."
)


def _metro(state: State[Action]) -> MetroState:
    return MetroState.of(state)


def _last_placement(state: MetroState) -> tuple[int, MetroAction] | None:
    """The last placement of the game and who made it (public in every mode)."""
    for player, action in reversed(state.history()):
        if isinstance(action, MetroAction) and not action.is_draw:
            return player, action
    return None


class MetroRenderer:
    """:class:`~metrogames.cli.render.TerminalRenderer` of Metro."""

    @property
    def notation_help(self) -> str:
        return help_text(HELP, PLACING)

    def intro(self, state: State[Action], seats: Seats, seed: int | None) -> RenderableType:
        """The seed and options, each seat's colour and stations, the unused stations."""
        metro = _metro(state)
        options = metro.game.options
        head = "Metro" + (" · " + tr("seed {seed}", seed=seed) if seed is not None else "")
        modes = tr(
            "{mode} mode · one-tile routes {routes}",
            mode=_(options.turn_mode),
            routes=_(options.one_tile_routes),
        )
        intro = Text(f"{head} · {modes}")
        intro.stylize("bold")
        lines: list[RenderableType] = [intro]
        players = metro.num_players
        allocation = metro.data.allocations[players]
        for p, name in enumerate(seats.names):
            line = Text("  ")
            line.append_text(seat_text(p, name))
            line.append(
                " · " + tr("stations {numbers}", numbers=" ".join(map(str, allocation[p]))),
                style="dim",
            )
            lines.append(line)
        unused = metro.data.unused[players]
        if unused:
            numbers = " ".join(map(str, unused))
            lines.append(
                Text("  " + tr("unused stations: {numbers}", numbers=numbers), style="dim")
            )
        return Group(*lines)

    def position(self, state: State[Action]) -> str:
        return tr("placement {n} of 60", n=min(_metro(state).turn, 60))

    def private(self, state: State[Action]) -> bool:
        return _metro(state).game.options.hand  # held tiles are secret in the hand modes

    def turn_screen(
        self, view: State[Action], seat: int, seats: Seats, *, width: int
    ) -> RenderableType:
        """The turn's title, then the board with the legal squares named beside the panel:
        scores, the player's own tile(s) and where they may go, the trains on their way."""
        metro = _metro(view)
        title = seat_text(seat, seats.names[seat])
        title.append(": " + tr("your turn · placement {n} of 60", n=metro.turn))
        last = _last_placement(metro)
        last_text = None
        if last is not None:
            who, action = last
            last_text = Text(
                tr(
                    "Last: {name} placed {tile} on {square}",
                    name=seats.names[who],
                    tile=action.tile,
                    square=square_name(action.square),
                ),
                style="dim",
            )
        screen = turn_view(
            metro,
            seat,
            seats.names,
            width=width,
            last=last[1].square if last is not None else None,
            last_text=last_text,
        )
        return Group(Rule(title, style="bold"), screen)

    def prompt(self, view: State[Action], seat: int, seats: Seats) -> str:
        metro = _metro(view)
        name = seats.names[seat]
        drawn = metro.drawn_tile
        if drawn is not None:
            return f"{name} · " + tr("place {tile}", tile=drawn) + " > "
        held = ", ".join(metro.hand(seat))
        if metro.game.options.turn_mode == "official-hand":
            return f"{name} · " + tr("place {tile} or draw", tile=held) + " > "
        return f"{name} · " + tr("tiles {tiles}", tiles=held) + " > "

    def moves(self, view: State[Action], seat: int) -> RenderableType:
        return Group(Text(_("Legal moves:"), style="bold"), moves_text(_metro(view), seat))

    def commands(self, view: State[Action], seat: int) -> dict[str, Command]:
        def routes() -> RenderableType:
            return Group(Text(_("Open routes:"), style="bold"), open_routes_text(_metro(view)))

        return {"routes": (_("every open route"), routes)}

    def complete(self, view: State[Action], seat: int, action: Action) -> Action:
        """A bare square names the tile when only one kind of tile can be placed."""
        if not isinstance(action, MetroAction) or action.is_draw or action.tile is not None:
            return action
        tiles = legal_by_tile(_metro(view), seat)
        return MetroAction(action.square, tiles[0][0]) if len(tiles) == 1 else action

    def announce(
        self,
        before: State[Action],
        after: State[Action],
        moves: Sequence[tuple[int, Action]],
        seats: Seats,
    ) -> list[RenderableType]:
        """Each move (``Y Ada places cbaa on C5``, ``… draws a new tile to place``), then the
        routes it completed as they score."""
        out: list[RenderableType] = []
        for player, action in moves:
            move = MetroAction.of(action)
            line = Text()
            line.append(f"{SEAT_LETTERS[player]} ", style=seat_style(player))
            line.append(seats.names[player], style="bold")
            if move.is_draw:
                line.append(" " + _("draws a new tile to place"))
            else:
                line.append(
                    " "
                    + tr(
                        "places {tile} on {square}", tile=move.tile, square=square_name(move.square)
                    )
                )
            out.append(line)
        board = _metro(after).board
        for k in board.completed[len(_metro(before).board.completed) :]:
            route = board.route(k)
            if route is not None:
                out.append(route_text(_metro(after), route))
        return out

    def game_over(self, state: State[Action], seats: Seats) -> RenderableType:
        """The final board, its legend and the final scores table."""
        metro = _metro(state)
        last = _last_placement(metro)
        return Group(
            Text(""),
            Rule(_("Metro: game over"), style="bold"),
            Fitted(render_board(metro, last=last[1].square if last is not None else None)),
            legend(),
            final_table(metro, seats.names),
        )

    def final_map(self, state: State[Action], seat: int, title: str) -> RenderableType:
        """The board (shared by every seat) under ``title``."""
        return Group(Text(title, style="bold"), Fitted(render_board(_metro(state))))

    def verdict(self, state: State[Action], seats: Seats) -> RenderableType:
        """The final scores, the longest routes and the winners with the tie-break used."""
        metro = _metro(state)
        names = seats.names
        longest = metro.longest_routes()
        routes = " · ".join(
            f"{n}: " + ntr("{n} tile", "{n} tiles", t) for n, t in zip(names, longest, strict=True)
        )
        scores = metro.scores()
        winners = metro.winners()
        detail = ""
        if sum(1 for s in scores if s == max(scores)) > len(winners):
            detail = " " + ntr(
                "(tie-break: longest route, {n} tile)",
                "(tie-break: longest route, {n} tiles)",
                longest[winners[0]],
            )
        elif len(winners) > 1:
            detail = " " + ntr(
                "(still tied on the longest route, {n} tile)",
                "(still tied on the longest route, {n} tiles)",
                longest[winners[0]],
            )
        return Group(
            scores_line(state, names),
            Text(tr("Longest routes: {routes}", routes=routes)),
            winners_line(state, names, detail),
        )

    def sheet(self, game: str, result: JsonObject) -> RenderableType:
        """A ``score --json`` result: the completed routes, then the scores per player."""
        table = Table(title=_("Metro: completed routes"), title_style="bold")
        for name in (_("station"), _("player"), _("tiles"), _("centre"), _("points")):
            table.add_column(name, justify="right")
        for route in cast(list[JsonObject], result["routes"]):
            player = "—" if route["player"] is None else str(route["player"])
            centre = "×2" if route["central"] else ""
            table.add_row(
                str(route["station"]), player, str(route["tiles"]), centre, str(route["points"])
            )
        scores = cast(list[int], result["scores"])
        shown = ", ".join(tr("player {p}: {score}", p=p, score=s) for p, s in enumerate(scores))
        return Group(table, Text(tr("scores: {scores}", scores=shown)))


RENDERER = MetroRenderer()
