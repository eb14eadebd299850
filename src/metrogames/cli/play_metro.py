"""``metrogames play metro``: Metro in the terminal, hot-seat and against bots.

Humans take the first seats, bots the last ones. On a human's turn the screen shows the board
(tracks, stations, trains on their way, the squares where the tile may go), the scores and the
player's own tile(s) — never another player's held tiles: in the hand modes, with two humans or
more, the screen is cleared and the next player asked to press Enter before their tiles show.
Moves are typed in the notation of ``spec/notation.md`` (``C5`` in draw mode, ``cbaa C5`` in the
hand modes, ``draw`` in official-hand mode); a wrong move prints the engine's reason and is asked
again. Bots' moves are printed one by one, and every route is printed as it scores. The record
is saved at the end, on ``quit`` and on end of input, and replays to the same scores.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from metrogames.bots import Bot, make_bot
from metrogames.cli.options import default_record_path, save_record
from metrogames.cli.prompt import QuitGame, read_line, read_move, refusal_text
from metrogames.cli.render_metro import (
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
from metrogames.core.errors import IllegalActionError, NotationError
from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    MetroAction,
    MetroGame,
    MetroOptions,
    MetroState,
    metro_record,
    parse_metro_action,
    square_name,
)

HELP = """\
Type your move in the notation, then Enter:
  C5          draw mode: place the drawn tile on C5
  cbaa C5     hand modes: place your tile cbaa on C5 (C5 alone when you hold one kind of tile)
  draw        official-hand mode: take a new tile from the pile and place it, keeping yours
A tile may go on an empty square that touches the board edge or a placed tile (named on the
board). Tiles are never rotated. A route scores 1 point per tile crossed, ×2 into the centre.
Commands: moves (every legal move) · map (the board again) · routes (every open route) ·
help · quit (save and stop)"""


class _Table:
    """One Metro game at the terminal: the state, who sits where, and the console."""

    def __init__(
        self,
        state: MetroState,
        *,
        names: list[str],
        bots: dict[int, Bot],
        console: Console,
        input_fn: Callable[[str], str],
    ) -> None:
        self.state = state
        self.names = names
        self.bots = bots
        self.humans = [p for p in range(len(names)) if p not in bots]
        self.console = console
        self.input_fn = input_fn
        self.private = state.game.options.hand and len(self.humans) > 1
        self.shown_to: int | None = None
        self.last: int | None = None
        self.last_text: Text | None = None

    # -- the game loop -------------------------------------------------------------------
    def run(self) -> None:
        """Play until the game ends; raise :class:`QuitGame` when a human stops."""
        state = self.state
        while not state.is_over():
            actor = state.to_move_player()
            if actor == CHANCE:
                state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
            elif actor in self.bots:
                legal = state.legal_actions(actor)
                action = self.bots[actor].decide(state.view(actor), actor, legal)
                self._play(actor, action)
            else:
                self._human_turn(actor)

    def _play(self, player: int, action: MetroAction) -> None:
        """Apply ``action`` (checked) and print it with the routes it completes."""
        state = self.state
        done_before = len(state.board.completed)
        if not action.is_draw and action.tile is None:
            action = MetroAction(action.square, state.drawn_tile)
        state.apply_in_place(player, action)
        line = Text()
        line.append(f"{SEAT_LETTERS[player]} ", style=seat_style(player))
        line.append(self.names[player], style="bold")
        if action.is_draw:
            line.append(" draws a new tile to place")
            self.console.print(line)
            return
        line.append(f" places {action.tile} on {square_name(action.square)}")
        self.console.print(line)
        self.last = action.square
        self.last_text = Text(
            f"Last: {self.names[player]} placed {action.tile} on {square_name(action.square)}",
            style="dim",
        )
        board = state.board
        for k in board.completed[done_before:]:
            route = board.route(k)
            if route is not None:
                self.console.print(route_text(state, route))

    def _handoff(self, player: int) -> None:
        """Hot-seat with hidden tiles: clear the screen and wait for ``player``."""
        if not self.private or self.shown_to == player:
            return
        self.console.clear()
        self.console.print(Rule(f"{self.names[player]}, your turn", style="bold"))
        self._ask(f"{self.names[player]}: press Enter when only you can see the screen > ")
        self.shown_to = player

    def _ask(self, prompt: str) -> str:
        return read_line(self.input_fn, prompt)

    def _screen(self, player: int) -> RenderableType:
        return turn_view(
            self.state,
            player,
            self.names,
            width=self.console.width,
            last=self.last,
            last_text=self.last_text,
        )

    def _show(self, player: int) -> None:
        self.console.print(self._screen(player))

    def _prompt(self, player: int) -> str:
        state = self.state
        name = self.names[player]
        drawn = state.drawn_tile
        if drawn is not None:
            return f"{name} · place {drawn} > "
        held = ", ".join(state.hand(player))
        if state.game.options.turn_mode == "official-hand":
            return f"{name} · place {held} or draw > "
        return f"{name} · tiles {held} > "

    def _human_turn(self, p: int) -> None:
        state = self.state
        self._handoff(p)
        title = seat_text(p, self.names[p])
        title.append(f": your turn · placement {state.turn} of 60")
        self.console.print(Rule(title, style="bold"))
        self._show(p)
        commands = {
            "moves": lambda: Group(Text("Legal moves:", style="bold"), moves_text(state, p)),
            "map": lambda: self._screen(p),
            "routes": lambda: Group(Text("Open routes:", style="bold"), open_routes_text(state)),
        }
        while True:
            text = read_move(self.input_fn, self._prompt(p), self.console, HELP, commands)
            try:
                action = self._complete(p, parse_metro_action(text))
                self._play(p, action)
            except (NotationError, IllegalActionError) as exc:
                self.console.print(Text(f"✘ {refusal_text(exc)}", style="bold red"))
                self.console.print(
                    Text("Type a legal move, moves, map, routes, help or quit.", style="dim")
                )
                continue
            return

    def _complete(self, player: int, action: MetroAction) -> MetroAction:
        """Fill in the tile of a bare square when only one kind of tile can be placed."""
        if action.is_draw or action.tile is not None or self.state.drawn_tile is not None:
            return action
        tiles = legal_by_tile(self.state, player)
        if len(tiles) == 1:
            return MetroAction(action.square, tiles[0][0])
        return action

    # -- the end ------------------------------------------------------------------------
    def show_result(self) -> None:
        """Print the final board, the scores, the longest routes and the winner(s)."""
        state = self.state
        c = self.console
        c.print()
        c.print(Rule("Metro: game over", style="bold"))
        c.print(render_board(state, last=self.last))
        c.print(legend())
        c.print(final_table(state, self.names))
        scores = state.scores()
        c.print(
            "Final scores: "
            + " · ".join(f"{n}: {s}" for n, s in zip(self.names, scores, strict=True))
        )
        longest = state.longest_routes()
        c.print(
            "Longest routes: "
            + " · ".join(
                f"{n}: {t} tile{'s' if t != 1 else ''}"
                for n, t in zip(self.names, longest, strict=True)
            )
        )
        winners = state.winners()
        who = ", ".join(self.names[w] for w in winners)
        verb = "wins" if len(winners) == 1 else "share the victory"
        text = f"{who} {verb} with {scores[winners[0]]} points"
        top = max(scores)
        if sum(1 for s in scores if s == top) > len(winners):
            text += f" (tie-break: longest route, {longest[winners[0]]} tiles)"
        elif len(winners) > 1:
            text += f" (still tied on the longest route, {longest[winners[0]]} tiles)"
        c.print(Text(text + ".", style="bold green"))

    def record(self) -> dict[str, Any]:
        """The game's record so far (seed and whole pile once the game is over)."""
        over = self.state.is_over()
        return metro_record(self.state, self.names, include_seed=over, reveal_pile=over)


def play_metro(
    players: int,
    bots: list[str],
    turn_mode: str,
    one_tile_routes: str,
    seed: int | None,
    out: Path | None,
    console: Console,
    input_fn: Callable[[str], str],
) -> dict[str, Any]:
    """Play a game of Metro in the terminal and save its record.

    Args:
        players: seats, 2–6. Humans take the first ``players - len(bots)`` seats.
        bots: bot codes (``"random"``, ``"greedy"``) for the last seats; all seats may be bots.
        turn_mode: ``"draw"``, ``"hand"`` or ``"official-hand"``.
        one_tile_routes: ``"allowed"`` or ``"forbidden"``.
        seed: the pile's seed; ``None`` draws one from ``os.urandom``.
        out: where to save the record; ``None`` is ``var/records/metrogames-metro-<seed>.json``
            (the folder is created).
        console: where everything is printed.
        input_fn: reads one line given a prompt; ``EOFError`` (or ``quit``) saves and returns.

    Returns:
        The record written (finished, or partial when a player quit).

    Raises:
        NotationError: an unknown turn mode or one-tile-routes value.
        ValueError: a bad player count, more bots than seats, an unknown bot code or a seed
            out of range.
    """
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    game = MetroGame(players, MetroOptions(turn_mode, one_tile_routes))
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    state = game.new_game(seed)
    humans = players - len(bots)
    seated = {humans + k: make_bot(code, seed + humans + k) for k, code in enumerate(bots)}
    names = [f"Player {p + 1}" for p in range(humans)] + [f"bot:{code}" for code in bots]
    path = out if out is not None else default_record_path("metro", seed)

    table = _Table(state, names=names, bots=seated, console=console, input_fn=input_fn)
    intro = Text(f"Metro · seed {seed} · {turn_mode} mode · one-tile routes {one_tile_routes}")
    intro.stylize("bold")
    console.print(intro)
    allocation = state.data.allocations[players]
    for p, name in enumerate(names):
        line = Text("  ")
        line.append_text(seat_text(p, name))
        line.append(f" · stations {' '.join(map(str, allocation[p]))}", style="dim")
        console.print(line)
    unused = state.data.unused[players]
    if unused:
        console.print(Text(f"  unused stations: {' '.join(map(str, unused))}", style="dim"))
    if humans:
        console.print(Text("Type help for the notation, quit to save and stop.", style="dim"))
    try:
        table.run()
    except QuitGame:
        record = table.record()
        save_record(path, record)
        console.print(Text(f"Game stopped. Record so far saved to {path}", style="bold #ffd23f"))
        return record
    table.show_result()
    record = table.record()
    save_record(path, record)
    console.print(Text(f"Record saved to {path}", style="bold"))
    return record


__all__ = ["HELP", "play_metro"]
