"""``metrogames play london|paris``: Next Station in the terminal, hot-seat and against bots.

Humans take the first seats, bots the last ones. Every turn each human in turn sees their own
map and the table and types a move in the notation of ``spec/notation.md`` (``D3-G3``,
``pass``, ``D3-E4 E4-E1 +double-section``, ``@E4``); a wrong move is explained and asked again.
Bots move after the humans and their moves are printed. Lines are scored at the end of each
round, the sheets at the end of the game; the record is saved at the end, on ``quit`` and on
end of input, and replays to the same scores.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from metrogames.bots import Bot, make_bot
from metrogames.cli.files import read_json
from metrogames.cli.options import default_record_path, game_options, save_record
from metrogames.cli.prompt import QuitGame, read_move, refusal_text
from metrogames.cli.render import (
    MOVES_HELP,
    MapView,
    colour_text,
    final_table,
    line_score_text,
    map_legend,
    moves_text,
    render_map,
    turn_view,
)
from metrogames.core.errors import IllegalActionError, NotationError, RecordError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import PASS, format_action, parse_action
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import ROUNDS, Options
from metrogames.games.nextstation.record import parse_record, replay, to_record
from metrogames.games.nextstation.scoring import percentile, solo_rating
from metrogames.games.nextstation.state import MAX_PLAYERS, NextStationGame, NextStationState

HELP = (
    MOVES_HELP
    + "\nCommands: moves (every legal move) · map (show the map again) · help · quit (save and stop)"
)


class _Table:
    """One game at the terminal: the state, who sits where, and the console."""

    def __init__(
        self,
        state: NextStationState,
        *,
        names: list[str],
        bots: dict[int, Bot],
        seed: int,
        console: Console,
        input_fn: Callable[[str], str],
    ) -> None:
        self.state = state
        self.city = state.city
        self.names = names
        self.bots = bots
        self.humans = [p for p in range(len(names)) if p not in bots]
        self.seed = seed
        self.console = console
        self.input_fn = input_fn

    # -- the game loop -------------------------------------------------------------------
    def run(self) -> None:
        """Play until the game ends; raise :class:`QuitGame` when a human stops."""
        while not self.state.is_over():
            state = self.state
            if CHANCE in state.to_move():
                if not state.flipped:
                    self._round_intro()
                state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            round_before = state.round
            boxes_before = state.tourist_boxes[:]
            for p in self.humans:
                if p in self.state.to_move():
                    self._human_turn(p)
            moves = []
            for p in sorted(self.bots):
                if p in self.state.to_move():
                    legal = self.state.legal_actions(p)
                    action = self.bots[p].decide(self.state, p, legal)
                    self.state.apply_in_place(p, action)
                    moves.append((p, action))
            if moves and self.humans:
                line = Text("Bots: ", style="bold")
                for k, (p, action) in enumerate(moves):
                    line.append(("  ·  " if k else "") + f"{self.names[p]} ")
                    line.append(format_action(self.city, action), style="bold")
                self.console.print(line)
            if self.state.round != round_before or self.state.is_over():
                self._round_scores(round_before, boxes_before)

    def _round_intro(self) -> None:
        state = self.state
        c = self.console
        c.print()
        c.print(Rule(f"{self.city.title} · round {state.round + 1} of {ROUNDS}", style="bold"))
        for p in range(len(self.names)):
            colour = state.colour(p)
            dep = self.city.stations[self.city.departures[colour]].name
            line = Text(f"{self.names[p]} draws the ")
            line.append_text(colour_text(self.city, colour))
            line.append(f" line from {dep}")
            power = state.power_of(p)
            if power is not None:
                line.append(f" · pencil power: {power}", style="#ffd23f")
            c.print(line)

    def _human_turn(self, p: int) -> None:
        state = self.state
        city = self.city
        legal = state.turn_actions(p)
        colour = state.colour(p)
        name = self.names[p]
        card = city.card_by_id[state.card or ""]
        if len(self.humans) > 1:
            self.console.print(Rule(f"{name}: your turn", style="bold"))
        show_departure = not state.maps[p].sections[colour]
        self.console.print(
            turn_view(
                state, p, name, legal, width=self.console.width, show_departure=show_departure
            )
        )
        if legal == [PASS]:
            self.console.print(
                Text(
                    f"No legal section for the {card.kind} {card.face} card: "
                    f"{name} passes automatically.",
                    style="#ffd23f",
                )
            )
            self.state = state.apply(p, PASS)
            return
        prompt = f"{name} · {city.colours[colour]} line · {card.kind} {card.face} > "
        commands = {
            "moves": lambda: moves_text(city, legal, full=True),
            "map": lambda: turn_view(
                state, p, name, legal, width=self.console.width, show_departure=show_departure
            ),
        }
        while True:
            text = read_move(self.input_fn, prompt, self.console, HELP, commands)
            try:
                action = parse_action(city, text)
                self.state = state.apply(p, action)
            except (NotationError, IllegalActionError) as exc:
                self.console.print(Text(f"✘ {refusal_text(exc)}", style="bold red"))
                self.console.print(Text("Type a legal move, moves, help or quit.", style="dim"))
                continue
            self.console.print(Text(f"{name} plays {format_action(city, action)}", style="green"))
            return

    def _round_scores(self, round_index: int, boxes_before: Sequence[int]) -> None:
        state = self.state
        c = self.console
        c.print(Rule(f"End of round {round_index + 1}: line scores", style="bold"))
        for p in range(len(self.names)):
            colour = state.colour(p, round_index)
            line = Text(f"{self.names[p]} · ")
            line.append_text(line_score_text(self.city, colour, state.line_score(p, colour)))
            sites = state.tourist_boxes[p] - boxes_before[p]
            if self.city.tourist_points:
                line.append(f"  · tourist sites on the line: {sites}", style="dim")
            c.print(line)
        for p in self.humans:
            colour = state.colour(p, round_index)
            c.print(
                render_map(
                    self.city,
                    state.maps[p],
                    MapView(current=colour, title=self.names[p]),
                )
            )

    # -- the end ------------------------------------------------------------------------
    def show_result(self) -> None:
        """Print every map, the score sheets, the winners and the solo rating."""
        state = self.state
        c = self.console
        city = self.city
        c.print()
        c.print(Rule(f"{city.title}: game over", style="bold"))
        for p, name in enumerate(self.names):
            c.print(Text(name, style="bold"))
            c.print(render_map(city, state.maps[p]))
        c.print(map_legend(city))
        c.print(final_table(state, self.names))
        scores = state.scores()
        c.print(
            "Final scores: "
            + " · ".join(f"{n}: {s}" for n, s in zip(self.names, scores, strict=True))
        )
        winners = state.winners()
        if len(self.names) > 1:
            who = ", ".join(self.names[w] for w in winners)
            verb = "wins" if len(winners) == 1 else "share the victory"
            c.print(Text(f"{who} {verb} with {scores[winners[0]]} points.", style="bold green"))
        else:
            modules = (1 if state.deal.objectives else 0) + (1 if state.deal.powers else 0)
            rating = solo_rating(city, scores[0], modules)  # rules: "Solo rating"
            if rating is not None:
                adjusted, band, span, phrase = rating
                penalty = int((city.solo_rating or {}).get("module_penalty", 0))
                text = f"Solo rating: {scores[0]}"
                if modules:
                    text += f" − {penalty * modules} ({modules} module{'s' if modules > 1 else ''})"
                    text += f" = {adjusted}"
                text += f" → band {band} ({span})"
                if phrase:
                    text += f": “{phrase}”"
                c.print(Text(text, style="bold green"))
            rank = percentile(city, scores[0]) if not modules else None
            if rank is not None:  # the reference games were played without modules
                shown = f"{rank:.1f}" if rank < 1 or rank > 99 else f"{rank:.0f}"
                c.print(
                    Text(
                        f"Percentile: {shown} — better than {shown}% of "
                        f"{sum(city.reference_scores.values())} solo games of the "
                        f"{city.reference_bot} bot",
                        style="bold green",
                    )
                )

    def record(self) -> dict[str, Any]:
        """The game's record so far (decks revealed once the game is over)."""
        return to_record(self.state, self.names, seed=self.seed, reveal_decks=self.state.is_over())


def play_next_station(
    city: str,
    players: int,
    bots: list[str],
    objectives: str | None,
    powers: str | None,
    seed: int | None,
    out: Path | None,
    console: Console,
    input_fn: Callable[[str], str],
) -> dict[str, Any]:
    """Play a game of Next Station (``city``: ``"london"``, ``"paris"``, any city
    :func:`load_city` knows) in the terminal and save its record.

    Args:
        players: seats, 1–4. Humans take the first ``players - len(bots)`` seats.
        bots: bot codes (``"greedy"``, ``"random"``) for the last seats; all seats may be bots.
        objectives: ``None`` (no module), ``"random"`` or ``"id1,id2"``.
        powers: ``None`` (no module), ``"random"`` or ``"blue=joker,pink=switch,..."``.
        seed: the deal's seed; ``None`` draws one from ``os.urandom``.
        out: where to save the record; ``None`` is ``var/records/metrogames-<city>-<seed>.json``
            (the folder is created).
        console: where everything is printed.
        input_fn: reads one line given a prompt; ``EOFError`` (or ``quit``) saves and returns.

    Returns:
        The record written (finished, or partial when a player quit).

    Raises:
        DataError: an unknown city.
        NotationError: bad objectives or powers.
        ValueError: a bad player count, more bots than seats, an unknown bot code or a seed
            out of range.
    """
    city_map = load_city(city)
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"Next Station takes 1 to {MAX_PLAYERS} players, not {players}")
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    options = Options.from_json(city_map, game_options(city, objectives, powers))
    state = NextStationGame(city, players, options).new_game(seed)
    humans = players - len(bots)
    seated = {humans + k: make_bot(code, seed + humans + k) for k, code in enumerate(bots)}
    names = [f"Player {p + 1}" for p in range(humans)] + [f"bot:{code}" for code in bots]
    path = out if out is not None else default_record_path(city, seed)

    table = _Table(state, names=names, bots=seated, seed=seed, console=console, input_fn=input_fn)
    _introduce(table, humans > 0)
    return _run(table, path)


def resume_next_station(
    path: Path, console: Console, input_fn: Callable[[str], str]
) -> dict[str, Any]:
    """Continue the London or Paris game saved in the record ``path`` (a record this command
    wrote: it names its seed, so the cards still to come are known), saving it there again.

    Returns:
        The record written (finished, or partial when a player quit again).

    Raises:
        RecordError: not a Next Station record, or one without a seed.
        IllegalActionError: the record does not replay.
    """
    record = parse_record(read_json(path))
    if record.seed is None:
        raise RecordError(f"{path} has no seed: the cards still to come are unknown")
    state = replay(record)
    if state.is_over():
        raise RecordError(f"{path} is a finished game")
    names = record.players
    seated = {
        p: make_bot(name[4:], record.seed + p)
        for p, name in enumerate(names)
        if name.startswith("bot:")
    }
    table = _Table(
        state, names=names, bots=seated, seed=record.seed, console=console, input_fn=input_fn
    )
    _introduce(table, len(seated) < len(names))
    console.print(
        Text(f"Resumed at round {state.round + 1}, turn {state.turn}.", style="bold #ffd23f")
    )
    return _run(table, path)


def _introduce(table: _Table, humans: bool) -> None:
    """Print the game's seed, players, colour order, objectives and powers."""
    console = table.console
    city_map = table.city
    state = table.state
    names = table.names
    seed = table.seed
    deal = state.deal
    intro = Text(f"{city_map.title} · seed {seed} · ", style="bold")
    intro.append(", ".join(names))
    console.print(intro)
    cycle = " → ".join(city_map.colours[c] for c in deal.colour_cycle)
    console.print(Text(f"Colour order: {cycle}", style="dim"))
    if deal.objectives:
        for o in deal.objectives:
            console.print(Text(f"Objective {o}: {city_map.objective_text.get(o, '')}"))
    if deal.powers is not None:
        console.print(
            Text(
                "Pencil powers: "
                + ", ".join(f"{c} {p}" for c, p in zip(city_map.colours, deal.powers, strict=True))
            )
        )
    if humans:
        console.print(Text("Type help for the notation, quit to save and stop.", style="dim"))


def _run(table: _Table, path: Path) -> dict[str, Any]:
    """Play ``table`` to the end or to a quit, save its record at ``path`` and return it."""
    console = table.console
    try:
        table.run()
    except QuitGame:
        record = table.record()
        save_record(path, record)
        console.print(
            Text(
                f"Game stopped. Record so far saved to {path} "
                f"(metrogames play --resume {path} continues it)",
                style="bold #ffd23f",
            )
        )
        return record
    table.show_result()
    record = table.record()
    save_record(path, record)
    console.print(Text(f"Record saved to {path}", style="bold"))
    return record


__all__ = ["play_next_station"]
