"""The terminal renderer of Next Station (London, Paris and any city of the family).

Part of :mod:`metrogames.cli.render`, the one place in ``cli/`` that may know a game's
internals: it takes the protocol states it is handed back as :class:`NextStationState`
(:meth:`NextStationState.of`, checked) and draws them with :mod:`.nextstation_map`. Rules source: ``docs/engine-rules-london.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from metrogames.cli.lang import _, tr
from metrogames.cli.render import Command, Seats, help_text, plain_verdict
from metrogames.cli.render.nextstation_map import (
    MOVES_HELP,
    MapView,
    colour_text,
    final_table,
    fitted_map,
    line_score_text,
    map_legend,
    moves_text,
    sheets_table,
    turn_view,
)
from metrogames.core.protocol import Action, JsonObject, State
from metrogames.games.nextstation.actions import PASS
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import ROUNDS
from metrogames.games.nextstation.shapes import SheetJson
from metrogames.games.nextstation.state import NextStationState


def _ns(state: State[Action]) -> NextStationState:
    return NextStationState.of(state)


class NextStationRenderer:
    """:class:`~metrogames.cli.render.TerminalRenderer` of the Next Station family."""

    @property
    def notation_help(self) -> str:
        return help_text(MOVES_HELP)

    def intro(self, state: State[Action], seats: Seats, seed: int | None) -> RenderableType:
        """The city and seed, the players, the colour order, objectives and pencil powers."""
        ns = _ns(state)
        city = ns.city
        deal = ns.deal
        head = Text(
            city.title + (" · " + tr("seed {seed}", seed=seed) if seed is not None else "") + " · "
        )
        head.stylize("bold")
        head.append(", ".join(seats.names))
        lines: list[RenderableType] = [head]
        cycle = " → ".join(_(city.colours[c]) for c in deal.colour_cycle)
        lines.append(Text(tr("Colour order: {cycle}", cycle=cycle), style="dim"))
        for o in deal.objectives:
            lines.append(
                Text(tr("Objective {o}: {text}", o=o, text=_(city.objective_text.get(o, ""))))
            )
        if deal.powers is not None:
            pairs = ", ".join(
                f"{_(c)} {_(p)}" for c, p in zip(city.colours, deal.powers, strict=True)
            )
            lines.append(Text(tr("Pencil powers: {pairs}", pairs=pairs)))
        return Group(*lines)

    def position(self, state: State[Action]) -> str:
        ns = _ns(state)
        return tr("round {round}, turn {turn}", round=ns.round + 1, turn=ns.turn)

    def private(self, state: State[Action]) -> bool:
        return False  # the maps are public; a turn's moves show once every player has moved

    def turn_screen(
        self, view: State[Action], seat: int, seats: Seats, *, width: int
    ) -> RenderableType:
        """The map with the card's targets highlighted (the departure too before the line's
        first section) beside the table panel; a notice when the card allows no section."""
        ns = _ns(view)
        name = seats.names[seat]
        legal = ns.turn_actions(seat)
        colour = ns.colour(seat)
        parts: list[RenderableType] = []
        if len(seats.humans) > 1:
            parts.append(Rule(tr("{name}: your turn", name=name), style="bold"))
        fresh = not ns.maps[seat].sections[colour]
        parts.append(turn_view(ns, seat, name, legal, width=width, show_departure=fresh))
        if legal == [PASS]:
            card = ns.city.card_by_id[ns.card or ""]
            parts.append(
                Text(
                    tr(
                        "No legal section for the {kind} {face} card: {name} passes automatically.",
                        kind=_(card.kind),
                        face=_(card.face),
                        name=name,
                    ),
                    style="#ffd23f",
                )
            )
        return Group(*parts)

    def prompt(self, view: State[Action], seat: int, seats: Seats) -> str:
        ns = _ns(view)
        city = ns.city
        card = city.card_by_id[ns.card or ""]
        line = city.colours[ns.colour(seat)]
        line_text = tr("{colour} line", colour=_(line))
        return f"{seats.names[seat]} · {line_text} · {_(card.kind)} {_(card.face)} > "

    def moves(self, view: State[Action], seat: int) -> RenderableType:
        ns = _ns(view)
        return moves_text(ns.city, ns.turn_actions(seat), full=True)

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
        """People's moves one per line, the bots' on one line (when people play); the line
        scores and the players' maps at a round's end; the new round's lines at its first
        card."""
        old, new = _ns(before), _ns(after)
        out: list[RenderableType] = []
        label = _("Bots:") + " "
        bots = Text(label, style="bold")
        for k, (p, action) in enumerate(m for m in moves if m[0] not in seats.humans):
            bots.append(("  ·  " if k else "") + f"{seats.names[p]} ")
            bots.append(after.action_to_string(p, action), style="bold")
        for p, action in moves:
            if p in seats.humans:
                shown = after.action_to_string(p, action)
                out.append(
                    Text(tr("{name} plays {move}", name=seats.names[p], move=shown), style="green")
                )
        if seats.humans and len(bots) > len(label):
            out.append(bots)
        if new.round != old.round or (new.is_over() and not old.is_over()):
            out.extend(self._round_scores(old, new, seats))
        if new.flipped and (not old.flipped or new.round != old.round) and not new.is_over():
            out.extend(self._round_intro(new, seats))
        return out

    def _round_intro(self, state: NextStationState, seats: Seats) -> list[RenderableType]:
        city = state.city
        out: list[RenderableType] = [
            Text(""),
            Rule(
                city.title
                + " · "
                + tr("round {round} of {rounds}", round=state.round + 1, rounds=ROUNDS),
                style="bold",
            ),
        ]
        for p, name in enumerate(seats.names):
            colour = state.colour(p)
            before, _sep, after = tr(
                "{name} draws the {colour} line from {station}",
                name=name,
                colour="\0",
                station=city.stations[city.departures[colour]].name,
            ).partition("\0")
            line = Text(before)
            line.append_text(colour_text(city, colour))
            line.append(after)
            power = state.power_of(p)
            if power is not None:
                line.append(" · " + tr("pencil power: {power}", power=_(power)), style="#ffd23f")
            out.append(line)
        return out

    def _round_scores(
        self, before: NextStationState, after: NextStationState, seats: Seats
    ) -> list[RenderableType]:
        city = after.city
        scored = before.round
        out: list[RenderableType] = [
            Rule(tr("End of round {round}: line scores", round=scored + 1), style="bold")
        ]
        for p, name in enumerate(seats.names):
            colour = after.colour(p, scored)
            line = Text(f"{name} · ")
            line.append_text(line_score_text(city, colour, after.line_score(p, colour)))
            if city.tourist_points:
                sites = after.tourist_boxes[p] - before.tourist_boxes[p]
                line.append("  · " + tr("tourist sites on the line: {n}", n=sites), style="dim")
            out.append(line)
        for p in seats.humans:
            view = MapView(current=after.colour(p, scored), title=seats.names[p])
            out.append(fitted_map(city, after.maps[p], view))
        return out

    def game_over(self, state: State[Action], seats: Seats) -> RenderableType:
        """Every player's map, the legend and the score sheets side by side."""
        ns = _ns(state)
        city = ns.city
        parts: list[RenderableType] = [
            Text(""),
            Rule(tr("{title}: game over", title=city.title), style="bold"),
        ]
        for p, name in enumerate(seats.names):
            parts.append(Text(name, style="bold"))
            parts.append(fitted_map(city, ns.maps[p]))
        parts.append(map_legend(city))
        parts.append(final_table(ns, seats.names))
        return Group(*parts)

    def verdict(self, state: State[Action], seats: Seats) -> RenderableType:
        return Group(*plain_verdict(state, seats))

    def final_map(self, state: State[Action], seat: int, title: str) -> RenderableType:
        """``seat``'s map with ``title`` above it."""
        ns = _ns(state)
        return fitted_map(ns.city, ns.maps[seat], MapView(title=title))

    def sheet(self, game: str, result: JsonObject) -> RenderableType:
        """A ``score --json`` breakdown as the score sheet table (rows: lines, tourist sites,
        interchanges, bridges, objectives, total)."""
        city = load_city(game)
        return sheets_table(
            city, [_("points")], [cast(SheetJson, result)], tr("{title}: score sheet", title=city.title)
        )


RENDERER = NextStationRenderer()
