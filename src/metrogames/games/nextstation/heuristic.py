"""Next Station's position estimate for search bots: a fast greedy playout of one player's map.

Source: the scoring of ``docs/engine-rules-london.md`` ("Scoring a line", "End of game") and
``docs/engine-rules-paris.md`` ("Scoring"). Players' maps never interact (rules, "Structure of a
game"), so one player's final score depends only on their own map and the cards: the estimate
plays the rest of the game for that player alone, on the deal's known card order, and returns
the final total the engine's own scoring gives.

The playout policy, each turn: the section with the best *immediate gain* in points — the line's
route points (districts × most stations in one district), river crossings, monuments, tourist
boxes, interchanges and bridges it adds — plus two small terms for what comes later: 0.3 points
per section left open from the new station (a line that can go on) and -0.3 per link the
section newly blocks by crossing it (room for the later lines; not for a line's first
section). The weights were tuned on the playout's own mean score over 300 deals (London 129.6
-> 132.6 points, Paris 147.6 -> 148.5). Remaining ties go to the first in the engine's order. A
pass only when nothing is legal. Turns where a pencil power is still usable, and Paris's free
entry, are chosen among the engine's own legal actions by the same immediate gain (a power is
thus used when it pays at once). Objectives do not steer the playout; they are scored at the end.

The state's ``heuristic`` (the ``Evaluated`` capability, :mod:`metrogames.core.capabilities`)
is :func:`greedy_final_score` of a full state. Its ``deep_heuristic`` (``DeepEvaluated``) plays
the same policy but looks one card ahead: among the :data:`LOOKAHEAD_WIDTH` sections of best
key it takes the one whose key plus the best key of the round's next card drawn after it is
highest (the deal's card order is known to the playout; the last card of a round, and a turn
whose next card is Paris's free entry, are plain greedy). Its own game scores 142.4 points in London over
300 deals where the greedy playout scores 129.9, at about three times the cost.

Cost: a few hundred microseconds for a whole game (no state is cloned; the map is copied once),
about 1 ms for the deep estimate. Both are deterministic: the same full state gives the same
value.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from metrogames.games.nextstation.actions import PASS, TurnAction, single_sections
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CUSTOM_KEPT, SYMBOLS, CityMap
from metrogames.games.nextstation.deal import FIRST_EFFECTIVE_SWITCH, ROUNDS
from metrogames.games.nextstation.objectives import lines_through, other_lines
from metrogames.games.nextstation.scoring import line_tourist_boxes, score_line, sheet_total

if TYPE_CHECKING:
    from metrogames.games.nextstation.state import NextStationState

OPEN_WEIGHT = 0.3
"""Points a tie-break counts per section left open from the new station."""
BLOCK_WEIGHT = 0.3
"""Points a tie-break takes off per link the section newly blocks (it crosses them)."""
LOOKAHEAD_WIDTH = 3
"""Sections of best greedy key the deep estimate looks one card beyond (its own game: 140.2
points in London over 300 deals with 2, 142.4 with 3, 142.4 with all)."""


INTERCHANGE_CACHE = 4096
"""Interchange gains kept per city (by colour and the other lines' stations) before the
store is emptied."""


class _Tables:
    """Per-city lookups of the playout: station -> district, link -> bridge pair, the
    interchange points by number of lines (index 0..4), the tourist table, station -> its
    number of links."""

    def __init__(self, city: CityMap) -> None:
        self.district_of = tuple(s.district for s in city.stations)
        self.bridge_of: dict[int, tuple[int, int]] = {}
        for a, b in city.bridges:
            self.bridge_of[a] = self.bridge_of[b] = (a, b)
        self.interchange = tuple(city.interchange_points.get(k, 0) for k in range(5))
        self.bridge_points = tuple(city.bridge_points.get(k, 0) for k in range(3))
        self.tourist = city.tourist_points
        self.tourist_cap = len(city.tourist_points) - 1
        self.degree = tuple(mask.bit_count() for mask in city.link_mask_of_station)
        self.interchange_gains: dict[tuple[int, ...], tuple[int, ...]] = {}


@lru_cache(maxsize=CUSTOM_KEPT)  # bounded: custom maps come and go
def _tables(city: CityMap) -> _Tables:
    return _Tables(city)


def greedy_final_score(state: NextStationState, player: int, lookahead: int = 0) -> int:
    """``player``'s final total (points) after the rest of the game is played on their map by
    the greedy policy of the module docstring, with the cards of ``state``'s deal; with
    ``lookahead`` > 0, each section is chosen among the ``lookahead`` of best key by its key
    plus the best key of the next card after it (the deep estimate).

    A turn in progress that ``player`` has not acted in yet is played first.

    Raises:
        ValueError: ``state`` is a view or its deal leaves a round to play unknown (resample
            a view first).
    """
    if state.over:
        return state.breakdown(player).total
    if state.viewer is not None or None in state.deal.decks[state.round :]:
        raise ValueError("the greedy estimate needs a known deal (resample a view first)")
    city = state.city
    board = state.maps[player].copy()
    lines = state.line_scores[player][:]
    boxes = state.tourist_boxes[player]
    power_used = state.power_used[player]
    for r in range(state.round, ROUNDS):
        colour = state.colour(player, r)
        deck = state.deal.decks[r]
        assert deck is not None  # checked above
        if r == state.round:
            turns = _turns(state, deck, len(state.flipped), state.ends_flipped, state.turn)
            if not state.awaiting_card and (state._pending >> player) & 1:
                face = city.card_by_id[state.flipped[-1]].face
                turns.insert(0, (face, state.branch, state.turn))
        else:
            turns = _turns(state, deck, 0, 0, 0)
            power_used = False
        power = None if state.deal.powers is None or power_used else state.deal.powers[colour]
        _play_round(state, board, colour, turns, power, boxes, lookahead)
        c_stations, c_sections = board.stations[colour], board.sections[colour]
        lines[colour] = score_line(city, c_stations, c_sections, board.circled[colour])
        boxes += line_tourist_boxes(city, c_stations, c_sections)
    return sheet_total(city, board, lines, boxes, state.deal.objectives)


def greedy_action(state: NextStationState, player: int) -> TurnAction:
    """The playout policy's action for ``player`` in the turn in progress. It reads only the
    player's own map and the card, so ``state`` may be the player's view.

    Raises:
        ValueError: ``player`` is not to move.
    """
    if player < 0 or player not in state.to_move():
        raise ValueError(f"player {player} is not to move")
    turn = [(state.city.card_by_id[state.flipped[-1]].face, state.branch, state.turn)]
    board = state.maps[player].copy()
    power = state.power_available(player)
    colour = state.colour(player)
    return _play_round(state, board, colour, turn, power, state.tourist_boxes[player])[0]


def _turns(
    state: NextStationState, deck: tuple[str, ...], flipped: int, ends: int, turn: int
) -> list[tuple[str, bool, int]]:
    """The turns ``(face, switch effect, turn number)`` still to come in a round whose deck
    is ``deck``, ``flipped`` cards of it already flipped (``ends`` of them round-ending) and
    ``turn`` turns begun; empty when the round's end card is already out."""
    city = state.city
    out: list[tuple[str, bool, int]] = []
    if ends >= city.round_end_count:
        return out
    branch = False
    for k in range(flipped, len(deck)):
        card = city.card_by_id[deck[k]]
        if card.face == "switch":
            branch = branch or k + 1 >= FIRST_EFFECTIVE_SWITCH
            continue
        turn += 1
        out.append((card.face, branch, turn))
        branch = False
        ends += card.ends_round
        if ends >= city.round_end_count:
            break
    return out


def _play_round(
    state: NextStationState,
    board: PlayerMap,
    colour: int,
    turns: list[tuple[str, bool, int]],
    power: str | None,
    boxes: int,
    lookahead: int = 0,
) -> list[TurnAction]:
    """Play ``turns`` on line ``colour`` of ``board`` in place, greedily (looking one card
    ahead among ``lookahead`` sections when > 0), and return the actions taken; ``boxes``:
    tourist boxes of the finished rounds."""
    city = state.city
    singles = single_sections(city)
    n_stations = len(city.stations)
    taken: list[TurnAction] = []
    tb = _tables(city)
    inter = _interchange_gains(tb, board, colour)
    for k, (face, branch, turn) in enumerate(turns):
        if power is not None or face == "free-entry":
            action = _best_engine_action(state, board, colour, face, branch, turn, power, boxes)
            for s, t in action.sections:
                board.add_section(city, colour, s, t, city.link_of[(s, t)])
            if action.circle is not None:
                board.circled[colour] = action.circle
            if action.powers_used:
                power = None
            taken.append(action)
            continue
        targets = city.symbol_mask[face] if face in SYMBOLS else city.all_stations_mask
        nxt = turns[k + 1] if lookahead and k + 1 < len(turns) else None
        if nxt is not None and nxt[0] != "free-entry":
            move = _lookahead_section(
                state, tb, board, colour, targets, branch, boxes, inter, nxt, lookahead
            )
        else:
            move = _greedy_section(state, tb, board, colour, targets, branch, boxes, inter)[1]
        if move is None:
            taken.append(PASS)
            continue
        board.add_section(city, colour, *move)
        single = singles[move[0] * n_stations + move[1]]
        assert single is not None  # a link joins the section's stations
        taken.append(single)
    return taken


def _greedy_section(
    state: NextStationState,
    tb: _Tables,
    board: PlayerMap,
    colour: int,
    targets: int,
    branch: bool,
    boxes: int,
    inter: tuple[int, ...],
    collect: list[tuple[float, tuple[int, int, int]]] | None = None,
) -> tuple[float, tuple[int, int, int] | None]:
    """The greedy section of line ``colour`` for a card reaching ``targets`` with its key:
    :func:`_first_section` while the line is empty, else :func:`_best_section`."""
    if not board.sections[colour]:
        return _first_section(state, tb, board, colour, targets, boxes, inter, collect)
    return _best_section(state, tb, board, colour, targets, branch, boxes, inter, collect)


def _best_section(
    state: NextStationState,
    tb: _Tables,
    board: PlayerMap,
    colour: int,
    targets: int,
    branch: bool,
    boxes: int,
    inter: tuple[int, ...],
    collect: list[tuple[float, tuple[int, int, int]]] | None = None,
) -> tuple[float, tuple[int, int, int] | None]:
    """The greedy section ``(start, target, link)`` of line ``colour`` (not empty) for a
    card reaching ``targets`` with its key, or ``(-1, None)`` when none is legal;
    ``collect``: a list that receives every legal section with its key."""
    city = state.city
    district_of = tb.district_of
    links_by_target, neighbours = city.links_by_target, city.neighbours
    link_mask, conflicts = city.link_mask_of_station, city.conflicts
    special = city.tourist_mask | city.monument_mask
    river_mask, river_points = city.river_mask, city.river_points
    bridge_of, degree = tb.bridge_of, tb.degree
    open_weight, block_weight = OPEN_WEIGHT, BLOCK_WEIGHT
    stations, _, ends, blocked = board.line(colour)
    starts = stations if branch else ends
    open_targets = targets & ~stations
    counts = [(stations & m).bit_count() for m in city.district_masks]
    districts = len(counts) - counts.count(0)
    best = max(counts)
    base = districts * best
    line_boxes = boxes + (stations & city.tourist_mask).bit_count()
    best_key = -1.0
    best_move: tuple[int, int, int] | None = None
    while starts:
        sbit = starts & -starts
        starts ^= sbit
        s = sbit.bit_length() - 1
        table = links_by_target[s]
        cand = neighbours[s] & open_targets
        while cand:
            tbit = cand & -cand
            cand ^= tbit
            _, t, link, lbit = table[tbit]
            if blocked & lbit:
                continue
            n = counts[district_of[t]]
            gain = (districts + (n == 0)) * (best if best > n else n + 1) - base
            gain += inter[t]
            if tbit & special:
                gain += _site_gain(city, tb, tbit, line_boxes)
            if lbit & river_mask:
                gain += river_points
            if link in bridge_of:
                gain += _bridge_gain(tb, board, colour, link)
            newly = (conflicts[link] & ~blocked).bit_count()
            # the key's open-links term is at most the station's degree: a section that cannot
            # beat the best key even so is not counted further (the same choice, found sooner)
            if collect is None and gain + open_weight * degree[t] - block_weight * newly <= best_key:
                continue
            after = blocked | conflicts[link]
            key = gain + open_weight * _open_links(
                links_by_target, neighbours, link_mask, t, after | lbit, stations
            ) - block_weight * newly
            if collect is not None:
                collect.append((key, (s, t, link)))
            if key > best_key:
                best_key, best_move = key, (s, t, link)
    return best_key, best_move


def _first_section(
    state: NextStationState,
    tb: _Tables,
    board: PlayerMap,
    colour: int,
    targets: int,
    boxes: int,
    inter: tuple[int, ...],
    collect: list[tuple[float, tuple[int, int, int]]] | None = None,
) -> tuple[float, tuple[int, int, int] | None]:
    """The greedy first section of line ``colour`` (from its departure station, which joins
    the line too) with its key, or ``(-1, None)`` when none is legal; ``collect`` as in
    :func:`_best_section`."""
    city = state.city
    s = city.departures[colour]
    sbit = 1 << s
    best_key = -1.0
    best_move = None
    for _, t, link, lbit in board.moves(city, colour, sbit, targets):
        tbit = 1 << t
        gain = score_line(city, sbit | tbit, lbit).score + inter[s] + inter[t]
        gain += _site_gain(city, tb, (tbit | sbit) & city.tourist_mask, boxes)  # no monuments
        if link in tb.bridge_of:
            gain += _bridge_gain(tb, board, colour, link)
        after = board.blocked | lbit | city.conflicts[link]
        key = gain + OPEN_WEIGHT * _open_links(
            city.links_by_target, city.neighbours, city.link_mask_of_station, t, after, sbit
        )
        if collect is not None:
            collect.append((key, (s, t, link)))
        if key > best_key:
            best_key, best_move = key, (s, t, link)
    return best_key, best_move


def _lookahead_section(
    state: NextStationState,
    tb: _Tables,
    board: PlayerMap,
    colour: int,
    targets: int,
    branch: bool,
    boxes: int,
    inter: tuple[int, ...],
    nxt: tuple[str, bool, int],
    width: int,
) -> tuple[int, int, int] | None:
    """The section of line ``colour`` for a card reaching ``targets`` whose greedy key plus
    the best greedy key of the next turn ``nxt`` after it is highest, among the ``width``
    sections of best greedy key; ``None`` when none is legal."""
    city = state.city
    cands: list[tuple[float, tuple[int, int, int]]] = []
    _greedy_section(state, tb, board, colour, targets, branch, boxes, inter, cands)
    if len(cands) <= 1:
        return cands[0][1] if cands else None
    cands.sort(key=lambda c: -c[0])
    face, next_branch, _ = nxt
    next_targets = city.symbol_mask[face] if face in SYMBOLS else city.all_stations_mask
    best_key = -1e9
    best_move = cands[0][1]
    for key, move in cands[:width]:
        after = board.copy()
        after.add_section(city, colour, *move)
        later = _best_section(state, tb, after, colour, next_targets, next_branch, boxes, inter)[0]
        total = key + max(later, 0.0)
        if total > best_key:
            best_key, best_move = total, move
    return best_move


def _open_links(
    links_by_target: tuple[dict[int, tuple[int, int, int, int]], ...],
    neighbours: tuple[int, ...],
    link_mask: tuple[int, ...],
    t: int,
    blocked: int,
    line: int,
) -> int:
    """Links from station ``t`` still drawable once ``blocked`` links are out, to stations
    not on the line (``line``: its stations besides ``t``)."""
    free = (link_mask[t] & ~blocked).bit_count()
    back = neighbours[t] & line
    while back:  # links back to the line's own stations lead nowhere
        ubit = back & -back
        back ^= ubit
        if not blocked & links_by_target[t][ubit][3]:
            free -= 1
    return free


def _site_gain(city: CityMap, tb: _Tables, new: int, boxes: int) -> int:
    """Points the stations of mask ``new`` bring a line at once as monuments and tourist
    sites (``boxes``: tourist boxes crossed so far)."""
    gain = city.monument_points * (new & city.monument_mask).bit_count()
    sites = (new & city.tourist_mask).bit_count()
    if sites and tb.tourist:
        cap = tb.tourist_cap
        gain += tb.tourist[min(boxes + sites, cap)] - tb.tourist[min(boxes, cap)]
    return gain


def _interchange_gains(tb: _Tables, board: PlayerMap, colour: int) -> tuple[int, ...]:
    """Per station, the interchange points line ``colour`` adds by reaching it (kept per
    colour and other lines' stations: the estimates of one decision share their earlier
    rounds' lines)."""
    key = (colour, *(mask for c, mask in enumerate(board.stations) if c != colour))
    known = tb.interchange_gains.get(key)
    if known is not None:
        return known
    lines = other_lines(board, colour, len(tb.district_of))
    points = tb.interchange
    gains = tuple(points[k + 1] - points[k] if k else 0 for k in lines)
    if len(tb.interchange_gains) >= INTERCHANGE_CACHE:
        tb.interchange_gains.clear()
    tb.interchange_gains[key] = gains
    return gains


def _bridge_gain(tb: _Tables, board: PlayerMap, colour: int, link: int) -> int:
    """Bridge points line ``colour`` gains by drawing ``link``, one of a bridge's links."""
    a, b = tb.bridge_of[link]
    pair = (1 << a) | (1 << b)
    if board.sections[colour] & pair:
        return 0
    used = sum(1 for m in board.sections if m & pair)
    return tb.bridge_points[min(used + 1, 2)] - tb.bridge_points[min(used, 2)]


def _best_engine_action(
    state: NextStationState,
    board: PlayerMap,
    colour: int,
    face: str,
    branch: bool,
    turn: int,
    power: str | None,
    boxes: int,
) -> TurnAction:
    """The legal action (the engine's list) with the best immediate gain on line ``colour``:
    its score as it stands plus the end-of-game items (interchanges, bridges, tourist); on a
    tie, one that draws a section, then one that keeps the pencil power."""
    city = state.city
    tb = _tables(city)
    best, best_key = PASS, (-1, False, False)
    for action in state._actions_on(board, colour, face, branch, turn, power):
        assert isinstance(action, TurnAction)  # a player's action, never a card id
        after = board.copy()
        for s, t in action.sections:
            after.add_section(city, colour, s, t, city.link_of[(s, t)])
        if action.circle is not None:
            after.circled[colour] = action.circle
        value = _map_value(city, tb, after, colour, boxes)
        key = (value, bool(action.sections), not action.powers_used)
        if key > best_key:
            best, best_key = action, key
    return best


def _map_value(city: CityMap, tb: _Tables, board: PlayerMap, colour: int, boxes: int) -> int:
    """Line ``colour``'s score as it stands plus the map's interchange and bridge points and
    the tourist points (``boxes``: of the finished rounds) — the total of the sheet but for
    the finished lines' scores and the objectives."""
    stations, sections = board.stations[colour], board.sections[colour]
    value = score_line(city, stations, sections, board.circled[colour]).score
    two, three, four = lines_through(board)
    points = tb.interchange
    value += (
        points[2] * (two & ~three).bit_count()
        + points[3] * (three & ~four).bit_count()
        + points[4] * four.bit_count()
    )
    for a, b in city.bridges:
        pair = (1 << a) | (1 << b)
        used = sum(1 for m in board.sections if m & pair)
        value += tb.bridge_points[min(used, 2)]
    if tb.tourist:
        sites = boxes + line_tourist_boxes(city, stations, sections)
        value += tb.tourist[min(sites, tb.tourist_cap)]
    return value
