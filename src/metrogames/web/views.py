"""Views: what one seat (or a spectator) may see of a game, as JSON.

Contract: ``docs/web-api.md``, "Views". A view never holds what its seat may not see:

* no unflipped card and no undrawn tile (only the engine's public state is read);
* no other seat's held Metro tiles — a seat's hand comes from ``state.view(seat)``, and a
  spectator sees no hand at all;
* no other seat's action in the current simultaneous Next Station turn before the turn is
  complete: the maps, sheets and scores of the *other* seats that have already acted are read
  from ``turn_start``, the state right after the turn's card was flipped.

The functions here only read engine states; the room service decides who the viewer is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    MetroAction,
    MetroState,
    metro_action_to_json,
    square_name,
)
from metrogames.games.nextstation.actions import action_to_json
from metrogames.games.nextstation.citymap import bits
from metrogames.games.nextstation.deal import ROUNDS
from metrogames.games.nextstation.state import NextStationState

SIDE_NAMES = ("north", "east", "south", "west")


@dataclass(frozen=True)
class Frame:
    """The room-level facts every view repeats.

    Attributes:
        room: the room id.
        game: ``london``, ``paris`` or ``metro``.
        status: ``waiting``, ``playing`` or ``finished``.
        step: actions so far, chance included.
        seats: ``[{"seat", "name", "kind", "connected"}, ...]``.
        deadline: the turn clock's deadline (epoch seconds) or ``None``.
    """

    room: str
    game: str
    status: str
    step: int
    seats: list[dict[str, Any]]
    deadline: float | None = None


def build_view(
    frame: Frame,
    state: Any,
    you: int | None,
    *,
    turn_start: Any = None,
    last_routes: int = 0,
    reveal: bool = False,
) -> dict[str, Any]:
    """The view of ``state`` for seat ``you`` (``None``: a spectator).

    Args:
        frame: the room-level facts.
        state: the full engine state (never sent as is).
        you: the viewing seat or ``None``.
        turn_start: Next Station: the state right after the current turn's card was flipped
            (others' current-turn actions are read from it); ``None`` means ``state``.
        last_routes: Metro: how many routes were complete before the last placement.
        reveal: show every seat's map as it stands (replays of a finished game).

    Returns:
        The view dict of ``docs/web-api.md``.
    """
    playing = frame.status == "playing"
    to_move = sorted(p for p in state.to_move() if p != CHANCE) if playing else []
    view: dict[str, Any] = {
        "room": frame.room,
        "game": frame.game,
        "status": frame.status,
        "step": frame.step,
        "you": you,
        "seats": frame.seats,
        "to_move": to_move,
        "clock": {"deadline": frame.deadline} if frame.deadline is not None and playing else None,
        "winners": state.winners() if state.is_over() else [],
    }
    if isinstance(state, NextStationState):
        start = state if reveal or turn_start is None else turn_start
        view.update(_next_station(state, start, you, to_move))
    else:
        view.update(_metro(state, you, to_move, last_routes))
    return view


def _ns_source(
    state: NextStationState, start: NextStationState, seat: int, you: int | None
) -> NextStationState:
    """Whose copy of ``seat``'s map the viewer may see: the live one for the viewer's own seat
    and once the turn is complete, else the turn's start."""
    if seat == you or state.is_over() or state.awaiting_card:
        return state
    return start


def _ns_lines(state: NextStationState, seat: int) -> dict[str, Any]:
    city = state.city
    board = state.maps[seat]
    names = [s.name for s in city.stations]
    out: dict[str, Any] = {}
    for c, colour in enumerate(city.colours):
        out[colour] = {
            "sections": [
                [names[city.links[j][0]], names[city.links[j][1]]] for j in bits(board.sections[c])
            ],
            "ends": city.names(board.ends[c]),
            "circled": names[board.circled[c]] if board.circled[c] >= 0 else None,
        }
    return out


def _ns_scored_rounds(state: NextStationState) -> int:
    """Rounds already scored (0–4)."""
    return ROUNDS if state.is_over() else state.round


def _next_station(
    state: NextStationState, start: NextStationState, you: int | None, to_move: Sequence[int]
) -> dict[str, Any]:
    city = state.city
    scored = _ns_scored_rounds(state)
    players = []
    scores = []
    for p in range(state.num_players):
        src = _ns_source(state, start, p, you)
        sheet = src.breakdown(p).to_json(city)
        scores.append(sheet["total"])
        power = src.power_of(p)
        line_scores = {
            city.colours[src.colour(p, r)]: src.line_score(p, src.colour(p, r)).score
            for r in range(scored)
        }
        players.append(
            {
                "seat": p,
                "colour": city.colours[state.colour(p)],
                "acted": not state.awaiting_card and not state.is_over() and p not in to_move,
                "lines": _ns_lines(src, p),
                "power": None
                if power is None
                else {"id": power, "available": src.power_available(p) is not None},
                "sheet": sheet,
                "line_scores": line_scores,
            }
        )
    legal: list[Any] = []
    targets: dict[str, list[str]] = {}
    if you is not None and you in to_move:
        names = [s.name for s in city.stations]
        for action in state.turn_actions(you):
            legal.append(action_to_json(city, action))
            if len(action.sections) == 1 and action.power is None and action.circle is None:
                a, b = action.sections[0]
                targets.setdefault(names[a], []).append(names[b])
    last_round = None
    if scored:
        r = scored - 1
        last_round = {
            "round": scored,
            "lines": {
                str(p): state.breakdown(p).to_json(city)["lines"][city.colours[state.colour(p, r)]]
                for p in range(state.num_players)
            },
        }
    return {
        "scores": scores,
        "round": min(state.round + 1, ROUNDS),
        "turn": state.turn,
        "card": state.card,
        "flipped": list(state.flipped),
        "round_end": {"flipped": state.ends_flipped, "count": city.round_end_count},
        "branch": state.branch,
        "objectives": list(state.deal.objectives),
        "players": players,
        "legal": legal,
        "targets": targets,
        "last_round": last_round,
    }


def _metro(
    state: MetroState, you: int | None, to_move: Sequence[int], last_routes: int
) -> dict[str, Any]:
    board = state.board
    placed_by: dict[int, int] = {}
    last_square = -1
    for who, action in state.history():
        if who != CHANCE and isinstance(action, MetroAction) and not action.is_draw:
            placed_by[action.square] = who
            last_square = action.square
    tiles = [
        {"square": square_name(sq), "tile": board.tile_at(sq), "by": by}
        for sq, by in sorted(placed_by.items())
    ]
    routes = state.routes()
    last = None
    if last_square >= 0:
        last = {
            "square": square_name(last_square),
            "tile": board.tile_at(last_square),
            "by": placed_by[last_square],
            "routes": [r.to_json() for r in routes[last_routes:]],
        }
    trains = []
    for pos, k in sorted(board.waiting.items(), key=lambda item: item[1]):
        owner = board.owners[k]
        trains.append(
            {
                "station": k + 1,
                "seat": owner if owner >= 0 else None,
                "square": square_name(pos >> 3),
                "side": SIDE_NAMES[(pos & 7) // 2],
                "tiles": board.route_len[k],
            }
        )
    seen = state.view(you) if you is not None else None
    hand = list(seen.hand(you)) if seen is not None and you is not None else []
    drawn = state.drawn_tile  # a drawn tile is placed at once, face up (never a held one)
    legal: list[Any] = []
    if you is not None and you in to_move:
        legal = [metro_action_to_json(a) for a in state.legal_actions(you)]
    return {
        "scores": state.scores(),
        "board": tiles,
        "pile": state.pile_size,
        "hand": hand,
        "drawn": drawn,
        "trains": trains,
        "routes": [r.to_json() for r in routes],
        "longest": state.longest_routes(),
        "legal": legal,
        "last": last,
    }
