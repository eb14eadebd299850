"""Next Station: Paris — seeded random playouts checked against an independent model.

Rules: ``docs/engine-rules-paris.md`` (all of it) and docs/design.md, "Tests that earn their keep":
after every step the legal actions apply cleanly, the engine's legal actions equal a brute-force
enumeration written here from the rules, and the scores equal a full recount computed here from
the lines' station/section masks (not from the engine's scoring code).
"""

from __future__ import annotations

from collections import Counter

import pytest

from metrogames.core.geometry import segments_cross
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.nextstation.actions import PASS, TurnAction
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.state import NextStationGame, NextStationState

CITY = load_city("paris")
N = len(CITY.stations)
NAMES = [s.name for s in CITY.stations]
MONUMENTS = {CITY.station(n) for n in ("A2", "I2", "B4", "J5", "A6", "F7", "C10", "G10")}
SYMBOL = {s.index: s.symbol for s in CITY.stations}
DEPARTURE = {"orange": "D3", "blue": "H4", "green": "C7", "purple": "H8"}
SWITCH = "street-switch"


def _district(i: int) -> str:
    """The district of station ``i`` from its cell, by the rules' description."""
    col, row = CITY.stations[i].col, CITY.stations[i].row
    if (col, row) == (4.5, 4.5):
        return "centre"
    if (col in (0, 9)) and (row in (0, 9)):
        return f"corner-{col}-{row}"
    band = "north" if row <= 1 else "upper" if row <= 4 else "lower" if row <= 7 else "south"
    return f"{band}-{'west' if col <= 4 else 'east'}"


DISTRICT = [_district(i) for i in range(N)]
LINK_ENDS = {j: frozenset(ab) for j, ab in enumerate(CITY.links)}
BRIDGE_PAIRS = {frozenset(p) for p in CITY.bridges}


def _forbidden() -> dict[int, frozenset[int]]:
    """Per link, the links it may not be drawn beside: segments crossing at a point interior
    to both, unless they share a station or form a bridge."""
    out: dict[int, set[int]] = {j: set() for j in LINK_ENDS}
    for i, ends_i in LINK_ENDS.items():
        for j, ends_j in LINK_ENDS.items():
            if (
                i < j
                and not ends_i & ends_j
                and frozenset((i, j)) not in BRIDGE_PAIRS
                and segments_cross(*CITY.segments[i], *CITY.segments[j])
            ):
                out[i].add(j)
                out[j].add(i)
    return {j: frozenset(v) for j, v in out.items()}


FORBIDDEN = _forbidden()


def bitlist(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]


# -- the independent model --------------------------------------------------------------------
def line_ends(stations: int, sections: int) -> set[int]:
    """Stations of the line with at most one section of the line (London Decision)."""
    degree = Counter(s for j in bitlist(sections) for s in CITY.links[j])
    return {s for s in bitlist(stations) if degree[s] <= 1}


def recount_line(stations: int, sections: int) -> int:
    if not sections:
        return 0
    per_district = Counter(DISTRICT[s] for s in bitlist(stations))
    monuments = sum(1 for s in bitlist(stations) if s in MONUMENTS)
    return len(per_district) * max(per_district.values()) + 2 * monuments


def bridge_lines(board: PlayerMap) -> list[int]:
    return [
        sum(1 for sec in board.sections if (sec >> a) & 1 or (sec >> b) & 1)
        for a, b in CITY.bridges
    ]


def recount(board: PlayerMap, objectives: tuple[str, ...]) -> int:
    """A player's total from the masks alone: lines, interchanges, bridges, objectives."""
    lines = zip(board.stations, board.sections, strict=True)
    total = sum(recount_line(st, sec) for st, sec in lines)
    on_lines = Counter(s for st in board.stations for s in bitlist(st))
    total += sum({2: 2, 3: 5, 4: 9}.get(k, 0) for k in on_lines.values())
    used = bridge_lines(board)
    total += 2 * used.count(1) + 6 * used.count(2)
    met = {
        "triple-interchanges-3": sum(1 for k in on_lines.values() if k >= 3) >= 3,
        "districts-7": any(len({DISTRICT[s] for s in bitlist(st)}) >= 7 for st in board.stations),
        "double-bridges-2": used.count(2) >= 2,
        "monuments-6": len(MONUMENTS & set(on_lines)) >= 6,
    }
    return total + 10 * sum(met[o] for o in objectives)


def brute_force_actions(state: NextStationState, player: int) -> set[TurnAction]:
    """Every legal turn of ``player`` from the rules, by trying every link."""
    board = state.maps[player]
    colour = state.colour(player)
    face = CITY.card_by_id[state.flipped[-1]].face
    flipped = state.flipped
    branch = len(flipped) >= 4 and flipped[-2] == SWITCH  # a switch flipped 3rd or later

    def sections(
        stations: int, drawn: set[int], starts: set[int], wild: bool
    ) -> list[tuple[int, int, int]]:
        out = []
        for j, (a, b) in enumerate(CITY.links):
            for s, t in ((a, b), (b, a)):
                if s not in starts or (stations >> t) & 1 or j in drawn:
                    continue
                if not wild and SYMBOL[t] not in (face, "any"):
                    continue
                if FORBIDDEN[j] & drawn:
                    continue
                out.append((s, t, j))
        return out

    stations, secs = board.stations[colour], board.sections[colour]
    drawn = set(bitlist(board.drawn))
    if not secs:
        dep = CITY.station(DEPARTURE[CITY.colours[colour]])
        starts = {dep}
        stations = 1 << dep
    else:
        starts = set(bitlist(stations)) if branch else line_ends(stations, secs)
    wild = face in ("joker", "free-entry")
    out = {PASS}
    for s, t, j in sections(stations, drawn, starts, wild):
        out.add(TurnAction(((s, t),)))
        if face == "free-entry" and t in MONUMENTS:
            after = sections(stations | (1 << t), drawn | {j}, {t}, True)
            out.update(TurnAction(((s, t), (t, t2))) for _, t2, _ in after)
    return out


def check_lines(board: PlayerMap) -> None:
    """Each line is a tree from its departure; ends as the Decision says; nothing crosses."""
    for c, colour in enumerate(CITY.colours):
        st, sec = board.stations[c], board.sections[c]
        if not sec:
            assert st == 0 and board.ends[c] == 0
            continue
        assert st.bit_count() == sec.bit_count() + 1
        dep = CITY.station(DEPARTURE[colour])
        reached, frontier = {dep}, [dep]
        while frontier:
            s = frontier.pop()
            for j in bitlist(sec):
                if s in CITY.links[j]:
                    t = sum(CITY.links[j]) - s
                    if t not in reached:
                        reached.add(t)
                        frontier.append(t)
        assert reached == set(bitlist(st))
        assert set(bitlist(board.ends[c])) == line_ends(st, sec)
    drawn = bitlist(board.drawn)
    assert sum(s.bit_count() for s in board.sections) == len(drawn)
    for j in drawn:
        assert not FORBIDDEN[j] & set(drawn)


# -- the playouts -------------------------------------------------------------------------------
def playout(
    game: NextStationGame, seed: int, exhaustive: bool, seen: Counter[str] | None = None
) -> NextStationState:
    """Play one game with uniformly random non-pass actions (a pass only when none is legal),
    checking the engine against the model at every step when ``exhaustive``."""
    state = game.new_game(seed)
    rng = Rng(seed, "test-playout")
    turns_this_round = 0
    round_index = 0
    while not state.is_over():
        movers = sorted(state.to_move())
        if movers == [CHANCE]:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        turns_this_round += 1
        for p in movers:
            actions = state.legal_actions(p)
            assert actions[0] == PASS and len(set(actions)) == len(actions)
            if exhaustive:
                assert set(actions) == brute_force_actions(state, p)
                if seen is not None:
                    seen["branch"] += state.branch
                    seen["extra"] += sum(1 for a in actions if len(a.sections) == 2)
                    seen["no-section"] += len(actions) == 1
                for a in actions:
                    after = state.apply(p, a)
                    assert after.maps[p].drawn.bit_count() == (
                        state.maps[p].drawn.bit_count() + len(a.sections)
                    )
            choices = actions[1:] or actions
            action = choices[rng.below(len(choices))]
            checked = state.apply(p, action) if exhaustive else None
            state.apply_in_place(p, action, check=False)
            if checked is not None:
                assert checked.maps[p].sections == state.maps[p].sections
        if state.round != round_index:
            flips = [str(what) for who, what in state.history() if who == CHANCE]
            metro = sum(1 for card in flips if card.startswith("metro-"))
            assert metro == 5 * state.round
            assert 5 <= turns_this_round <= 10
            turns_this_round, round_index = 0, state.round
        if exhaustive:
            for p in range(game.players):
                check_lines(state.maps[p])
                assert state.scores()[p] == recount(state.maps[p], state.deal.objectives)
    return state


def _final_checks(state: NextStationState) -> None:
    for p, board in enumerate(state.maps):
        check_lines(board)
        assert state.scores()[p] == recount(board, state.deal.objectives)
        sheet = state.breakdown(p)
        for c, colour in enumerate(CITY.colours):
            assert sheet.lines[colour].score == recount_line(board.stations[c], board.sections[c])
        # Structure of a game: over the 4 rounds each player used each colour once
        assert sorted(state.colour(p, r) for r in range(4)) == [0, 1, 2, 3]


@pytest.mark.parametrize(("players", "games"), [(1, 150), (2, 75)])
def test_random_playouts_match_the_independent_model(players: int, games: int) -> None:
    """Every rule at once (Drawing, Cards, Scoring, Shared objectives): each legal action
    applies, the legal actions are exactly the brute-force ones (switch branches and free-entry
    extras included), and scores equal the recount after every turn."""
    game = NextStationGame("paris", players, Options(objectives="random"))
    seen: Counter[str] = Counter()
    for seed in range(games):
        _final_checks(playout(game, 1000 * players + seed, True, seen))
    assert seen["branch"] and seen["extra"] and seen["no-section"]


@pytest.mark.parametrize(("players", "games"), [(1, 400), (2, 200)])
def test_many_random_games_recount(players: int, games: int) -> None:
    """Scoring: over a few hundred seeded games, final totals equal the recount from masks,
    and the objectives, bridges and monuments all come up (the model is exercised)."""
    game = NextStationGame("paris", players, Options(objectives="random"))
    seen: Counter[str] = Counter()
    for seed in range(games):
        state = playout(game, seed, exhaustive=False)
        _final_checks(state)
        for p in range(players):
            sheet = state.breakdown(p)
            seen.update(o for o, met in sheet.objectives.items() if met)
            seen["bridge-2"] += sheet.bridges.get(1, 0)
            seen["bridge-6"] += sheet.bridges.get(2, 0)
            seen["monument"] += sum(ls.monuments for ls in sheet.lines.values())
            seen["interchange-3"] += sheet.interchanges[3]
    assert seen["bridge-2"] and seen["bridge-6"] and seen["monument"] and seen["interchange-3"]
    assert seen["districts-7"] and seen["monuments-6"]


def test_same_seed_same_game() -> None:
    """Design, "replay is exact": the same seed and choices give the same history and scores."""
    game = NextStationGame("paris", 2, Options(objectives="random"))
    a, b = playout(game, 7, False), playout(game, 7, False)
    assert a.history() == b.history() and a.scores() == b.scores()
    replay = game.new_game(7)
    for player, action in a.history():
        replay = replay.apply(player, action)
    assert replay.is_over() and replay.scores() == a.scores()
