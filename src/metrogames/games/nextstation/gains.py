"""The greedy rule's measure of a Next Station turn: what each legal action adds to the player's
total at once, counted from what it changes rather than by scoring a clone of the state.

Source: the scoring of ``docs/engine-rules-london.md`` ("Scoring a line", "End of game") and
``docs/engine-rules-paris.md`` ("Scoring"), as :func:`.scoring.breakdown` counts it for a game
that would end now. An action changes one line of one map: that line's score (recounted), the
tourist boxes it crosses, the interchange points of the stations it newly reaches (by the other
lines through each), the bridge points of the bridges it newly uses, and the objectives (checked
again on the map after it, when they are in play). The other players' totals never change (maps
never interact; a round or game the action ends scores every line as it stands), so the gain is
also the greedy rule's gain minus the best opponent's (``tests/games/nextstation/
test_greedy_gains.py`` checks both against the engine's full route at every decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from metrogames.games.nextstation.actions import TurnAction
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CityMap, bits
from metrogames.games.nextstation.objectives import objective_met, other_lines
from metrogames.games.nextstation.scoring import line_tourist_boxes, score_line

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationAction, NextStationState


def draw_action(city: CityMap, board: PlayerMap, colour: int, action: TurnAction) -> None:
    """Draw a legal ``action`` on line ``colour`` of ``board``: its sections, its circle."""
    for s, t in action.sections:
        board.add_section(city, colour, s, t, city.link_of[(s, t)])
    if action.circle is not None:
        board.circled[colour] = action.circle


def greedy_gains(
    state: NextStationState, player: int, actions: Sequence[NextStationAction]
) -> list[int]:
    """Per action of ``actions`` (turn actions legal for ``player``, who is to move in a game
    not over), the points ``player``'s total (``state.scores()``) gains were it applied now."""
    city = state.city
    colour = state.colour(player)
    board = state.maps[player]
    stations, sections = board.stations[colour], board.sections[colour]
    line = score_line(city, stations, sections, board.circled[colour]).score
    boxes = state.tourist_boxes[player] + line_tourist_boxes(city, stations, sections)
    tourist = city.tourist_points
    cap = len(tourist) - 1
    objectives = state.deal.objectives
    met = _objectives_met(city, board, objectives)
    inter = _interchange_gains(city, board, colour)
    gains = []
    for action in actions:
        assert isinstance(action, TurnAction)  # a player's action, never a card id
        if not action.sections and action.circle is None:
            gains.append(0)  # a pass, or a power alone: nothing drawn
            continue
        after = board.copy()
        draw_action(city, after, colour, action)
        now_stations, now_sections = after.stations[colour], after.sections[colour]
        gain = score_line(city, now_stations, now_sections, after.circled[colour]).score - line
        for t in bits(now_stations & ~stations):
            gain += inter[t]
        if city.bridges:
            gain += _bridge_gain(city, board, colour, now_sections & ~sections)
        if tourist:
            now = state.tourist_boxes[player] + line_tourist_boxes(city, now_stations, now_sections)
            gain += tourist[min(now, cap)] - tourist[min(boxes, cap)]
        if objectives:
            now_met = _objectives_met(city, after, objectives)
            gain += city.objective_points * (now_met - met)
        gains.append(gain)
    return gains


def _objectives_met(city: CityMap, board: PlayerMap, objectives: tuple[str, ...]) -> int:
    return sum(1 for o in objectives if objective_met(city, o, board))


def _interchange_gains(city: CityMap, board: PlayerMap, colour: int) -> list[int]:
    """Per station, the interchange points line ``colour`` adds by reaching it (the points of
    one line more through it than the other lines' count)."""
    lines = other_lines(board, colour, len(city.stations))
    points = city.interchange_points
    return [points.get(k + 1, 0) - points.get(k, 0) for k in lines]


def _bridge_gain(city: CityMap, board: PlayerMap, colour: int, new_links: int) -> int:
    """Bridge points line ``colour`` gains by drawing the links of mask ``new_links`` (the
    bridges it did not use yet; each bridge counts the distinct lines on its two links)."""
    if not new_links:
        return 0
    gain = 0
    points = city.bridge_points
    own = board.sections[colour]
    for a, b in city.bridges:
        pair = (1 << a) | (1 << b)
        if new_links & pair and not own & pair:
            used = sum(1 for mask in board.sections if mask & pair)
            gain += points.get(min(used + 1, 2), 0) - points.get(min(used, 2), 0)
    return gain
