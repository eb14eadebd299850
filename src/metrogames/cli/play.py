"""``metrogames play``: any registered game in the terminal, hot-seat and against bots.

Humans take the first seats, bots the last ones. The loop holds the game only through the
protocol and the registry; what it shows comes from the game's terminal renderer
(:func:`~metrogames.cli.render.renderer_for`). Chance takes the deal's outcome. Before a
human's move the screen shows that seat's view (``state.view(seat)``); the move typed is read
with ``string_to_action`` and played with the checked ``apply`` — a refusal is explained and
the move asked again; ``moves``, ``map``, ``hint`` (the coach, :mod:`metrogames.cli.hints`),
``help`` and ``quit`` work at every prompt, and a
move that is the only legal one and the game's pass is played without asking. Bots decide on
their seat's view. When several people share the terminal and a seat's screen shows secrets
(Metro's held tiles), the screen is cleared and the next player asked to press Enter. The
record (``game.to_record``, seed included) is saved at the end, on ``quit`` and on end of
input; ``metrogames play --resume FILE`` continues it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.text import Text

from metrogames.bots import Bot, make_bot
from metrogames.cli.files import read_json
from metrogames.cli.hints import HINT_HELP, HINT_WORD, hint_command
from metrogames.cli.lang import _, tr
from metrogames.cli.options import default_record_path, save_record
from metrogames.cli.prompt import QuitGame, read_line, read_move, refusal_text
from metrogames.cli.render import Seats, TerminalRenderer, renderer_for
from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.core.protocol import CHANCE, Action, JsonObject, JsonValue, State, is_object
from metrogames.games import game_from_options, game_type, replay_record

BOT_PREFIX = "bot:"
"""Seat names of bots start with this, then the bot's code (``bot:greedy``)."""


def deal_outcome(state: State[Action]) -> Action:
    """The chance outcome the deal fixes now.

    Raises:
        RecordError: the deal does not fix it (a record without its seed's deal).
    """
    outcomes = state.legal_actions(CHANCE)
    if len(outcomes) != 1:
        raise RecordError("the deal does not fix what chance brings next")
    return outcomes[0]


class TerminalTable:
    """One game at the terminal: the state, who sits where, the renderer and the console."""

    def __init__(
        self,
        state: State[Action],
        *,
        seats: Seats,
        bots: Mapping[int, Bot],
        seed: int,
        console: Console,
        input_fn: Callable[[str], str],
    ) -> None:
        self.state = state
        self.public = state.view(None)
        self.seats = seats
        self.bots = bots
        self.seed = seed
        self.console = console
        self.input_fn = input_fn
        self.renderer: TerminalRenderer = renderer_for(game_type(state.game.name))
        self.shown_to: int | None = None

    # -- the game loop -------------------------------------------------------------------
    def run(self) -> None:
        """Play until the game ends; raise :class:`QuitGame` when a human stops."""
        while not self.state.is_over():
            movers = sorted(self.state.to_move())
            if CHANCE in movers:
                self.state.apply_in_place(CHANCE, deal_outcome(self.state))
                self._announce([])
                continue
            for p in movers:
                if p not in self.bots and p in self.state.to_move():
                    self._human_turn(p)
            played = []
            for p in movers:
                bot = self.bots.get(p)
                if bot is not None and p in self.state.to_move():
                    legal = self.state.legal_actions(p)
                    seen = self.state.view(p) if bot.sees_state else self.state
                    action = bot.decide(seen, p, legal)
                    self.state.apply_in_place(p, action)
                    played.append((p, action))
            if played:
                self._announce(played)

    def _announce(self, moves: Sequence[tuple[int, Action]]) -> None:
        before, self.public = self.public, self.state.view(None)
        for item in self.renderer.announce(before, self.public, moves, self.seats):
            self.console.print(item)

    def _handoff(self, seat: int) -> None:
        """Several people, secret screens: clear the screen and wait for ``seat``'s player."""
        if len(self.seats.humans) < 2 or self.shown_to == seat:
            return
        if not self.renderer.private(self.state):
            return
        name = self.seats.names[seat]
        self.console.clear()
        self.console.print(Rule(tr("{name}, your turn", name=name), style="bold"))
        prompt = tr("{name}: press Enter when only you can see the screen", name=name)
        read_line(self.input_fn, f"{prompt} > ")
        self.shown_to = seat

    def _human_turn(self, seat: int) -> None:
        self._handoff(seat)
        r = self.renderer
        view = self.state.view(seat)
        width = self.console.width

        def screen() -> RenderableType:
            return r.turn_screen(view, seat, self.seats, width=width)

        self.console.print(screen())
        legal = view.legal_actions(seat)
        forced = view.game.pass_action
        if forced is not None and list(legal) == [forced]:  # the screen said so
            self.state = self.state.apply(seat, forced)
            self._announce([])
            return
        extra = r.commands(view, seat)
        commands = {"moves": lambda: r.moves(view, seat), "map": screen}
        commands.update({word: show for word, (_, show) in extra.items()})
        words = [_("moves (every legal move)"), _("map (the screen again)")]
        words += [f"{word} ({text})" for word, (text, _show) in extra.items()]
        words.append(_(HINT_HELP))
        commands_line = tr(
            "Commands: {words} · help · quit (save and stop)", words=" · ".join(words)
        )
        help_text = f"{r.notation_help}\n{commands_line}"
        again = tr(
            "Type a legal move, {words}, help or quit.",
            words=", ".join(["moves", "map", *extra, HINT_WORD]),
        )

        def read(text: str) -> Action:
            return r.complete(view, seat, view.string_to_action(seat, text))

        coach = {HINT_WORD: hint_command(view, seat, self.seed + len(view.history()), read)}
        while True:
            text = read_move(self.input_fn, r.prompt(view, seat, self.seats), self.console,
                             help_text, commands, coach)  # fmt: skip
            try:
                action = read(text)
                self.state = self.state.apply(seat, action)
            except (NotationError, IllegalActionError) as exc:
                self.console.print(Text(f"✘ {refusal_text(exc)}", style="bold red"))
                self.console.print(Text(again, style="dim"))
                continue
            self._announce([(seat, action)])
            return

    # -- records ------------------------------------------------------------------------
    def record(self) -> JsonObject:
        """The game's record so far, with its seed (the whole deal once the game is over)."""
        state = self.state
        return state.game.to_record(state, self.seats.names, seed=self.seed, reveal=state.is_over())

    def play(self, path: Path, *, resumed: bool = False) -> JsonObject:
        """Introduce the game, play it to the end or to a quit, save its record at ``path``
        and return it."""
        console = self.console
        console.print(self.renderer.intro(self.state, self.seats, self.seed))
        if self.seats.humans:
            console.print(
                Text(_("Type help for the notation, quit to save and stop."), style="dim")
            )
        if resumed:
            where = self.renderer.position(self.state)
            console.print(Text(tr("Resumed at {where}.", where=where), style="bold #ffd23f"))
        try:
            self.run()
        except QuitGame:
            record = self.record()
            save_record(path, record)
            console.print(
                Text(
                    tr(
                        "Game stopped. Record so far saved to {path} "
                        "(metrogames play --resume {path} continues it)",
                        path=path,
                    ),
                    style="bold #ffd23f",
                )
            )
            return record
        console.print(self.renderer.game_over(self.state, self.seats))
        console.print(self.renderer.verdict(self.state, self.seats))
        record = self.record()
        save_record(path, record)
        console.print(Text(tr("Record saved to {path}", path=path), style="bold"))
        return record


def play_game(
    game: str,
    players: int,
    bots: Sequence[str],
    options: Mapping[str, JsonValue] | None,
    seed: int | None,
    out: Path | None,
    console: Console,
    input_fn: Callable[[str], str],
) -> JsonObject:
    """Play a game of ``game`` (a registry name) in the terminal and save its record.

    Args:
        players: seats (the player counts the game takes). Humans take the first
            ``players - len(bots)`` seats, named ``Player 1`` …
        bots: bot codes (``"greedy"``, ``"random"``) for the last seats, named ``bot:<code>``;
            the bot of seat ``p`` is seeded ``seed + p``. All seats may be bots.
        options: the game's options in their JSON form (``docs/notation.md``, "Options").
        seed: the deal's seed; ``None`` draws one from ``os.urandom``.
        out: where to save the record; ``None`` is ``var/records/metrogames-<game>-<seed>.json``
            (the folder is created).
        console: where everything is printed.
        input_fn: reads one line given a prompt; ``EOFError`` (or ``quit``) saves and returns.

    Returns:
        The record written (finished, or partial when a player quit).

    Raises:
        OptionError: an unknown game, a player count it does not take, bad options.
        ValueError: more bots than seats, an unknown bot code, a seed out of range.
    """
    rules = game_from_options(game, players, dict(options or {}))
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    state = rules.new_game(seed)
    humans = players - len(bots)
    seated = {humans + k: make_bot(code, seed + humans + k) for k, code in enumerate(bots)}
    names = [tr("Player {n}", n=p + 1) for p in range(humans)] + [
        BOT_PREFIX + code for code in bots
    ]
    path = out if out is not None else default_record_path(rules.name, seed)
    seats = Seats(tuple(names), tuple(range(humans)))
    table = TerminalTable(
        state, seats=seats, bots=seated, seed=seed, console=console, input_fn=input_fn
    )
    return table.play(path)


def resume_game(path: Path, console: Console, input_fn: Callable[[str], str]) -> JsonObject:
    """Continue the game saved in the record ``path`` (a record naming its seed, as this
    command writes them: what chance brings next is then known), saving it there again.
    Seats named ``bot:<code>`` are played by that bot.

    Returns:
        The record written (finished, or partial when a player quit again).

    Raises:
        RecordError: not a record, one without a seed, or a finished game.
        NotationError, IllegalActionError: the record does not replay.
        ValueError: a seat named after an unknown bot.
    """
    data = read_json(path)
    seed = data.get("seed") if is_object(data) else None
    if not is_object(data) or not isinstance(seed, int):
        raise RecordError(f"{path} has no seed: what chance brings next is unknown")
    state = replay_record(data)
    if state.is_over():
        raise RecordError(f"{path} is a finished game")
    players = data["players"]  # a list of names: replay_record checked it
    names = tuple(str(n) for n in players) if isinstance(players, list) else ()
    bots = {
        p: make_bot(name.removeprefix(BOT_PREFIX), seed + p)
        for p, name in enumerate(names)
        if name.startswith(BOT_PREFIX)
    }
    seats = Seats(names, tuple(p for p in range(len(names)) if p not in bots))
    table = TerminalTable(
        state, seats=seats, bots=bots, seed=seed, console=console, input_fn=input_fn
    )
    return table.play(path, resumed=True)


__all__ = ["TerminalTable", "play_game", "resume_game"]
