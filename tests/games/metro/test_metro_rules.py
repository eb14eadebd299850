"""Metro rules on hand-built positions (docs/engine-rules-metro.md). Each test names the rule it checks.

Expected values are worked out by hand from the tile tracks (endpoints 0–7 clockwise from the
north side's west point; a train enters at an even endpoint and leaves at an odd one).
"""

from __future__ import annotations

import pytest

from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from metrogames.core.protocol import CHANCE
from metrogames.games.metro import (
    DRAW,
    MetroAction,
    MetroGame,
    MetroOptions,
    MetroState,
    parse_metro_action,
    parse_square,
    square_name,
)


def play(placements: list[str], players: int = 2, **options: str) -> MetroState:
    """Draw mode: each ``"code SQ"`` is drawn from the pile and placed by the player to move."""
    codes = [p.split()[0] for p in placements]
    state = MetroGame(players, MetroOptions(**options)).from_pile(codes)
    for text in placements:
        action = parse_metro_action(text)
        state = state.apply(CHANCE, action.tile)
        state = state.apply(state.to_move_player(), action)
    return state


def route_summary(state: MetroState) -> list[tuple[int, int | None, int, bool, int]]:
    return [(r.station, r.player, r.tiles, r.central, r.points) for r in state.routes()]


def assert_honest(state: MetroState) -> None:
    scores, longest, routes = state.recount()
    assert state.scores() == scores
    assert state.longest_routes() == longest
    assert sorted(state.routes(), key=lambda r: r.station) == routes


def test_check_value() -> None:
    """rules, "Check value": baac A1, aaaa B1, cbaa C1 completes station 6 (seat 2) into
    station 9's arrival after 3 tiles: scores [0, 3]."""
    state = play(["baac A1", "aaaa B1", "cbaa C1"])
    assert state.scores() == [0, 3]
    assert route_summary(state) == [(6, 1, 3, False, 3)]
    assert state.routes()[0].arrival == -9  # station 9's arrival
    assert_honest(state)


def test_score_is_immediate_and_owned_by_departure() -> None:
    """rules, "Routes and scoring": a completed route scores at once for the owner of its
    departure station, whoever placed the tile (here player 0 places the completing C1)."""
    state = play(["aaaa B1", "baac A1", "cbaa C1"])
    assert [who for who, _ in state.history() if who != CHANCE] == [0, 1, 0]
    assert state.scores() == [0, 3]


def test_own_station_u_turn() -> None:
    """A U-turn back into its own station: dddd on C1 sends station 6's train back into its
    arrival after 1 tile (allowed by default; "it only scores 1 point")."""
    state = play(["dddd C1"])
    assert route_summary(state) == [(6, 1, 1, False, 1)]
    assert state.scores() == [0, 1]


def test_own_station_loop_crossing_a_tile_twice() -> None:
    """A route may end at its own station's arrival (Decision) and a tile crossed twice
    counts twice: station 6 goes C1 (0→5), C2 (0→1, U-turn), C1 again (4→1): 3 tiles."""
    state = play(["aaaa C1", "dddd C2"])
    assert route_summary(state) == [(6, 1, 3, False, 3)]
    assert state.scores() == [0, 3]
    assert state.longest_routes() == [0, 3]
    assert_honest(state)


def test_tile_crossed_twice_into_a_neighbours_arrival() -> None:
    """Station 6: C1 acba (0→5), C2 dddd (0→1), C1 again (4→7), B1 acba (2→1) into station 7's
    arrival: 4 tiles, C1 counted twice; the train waits in between."""
    state = play(["acba C1", "dddd C2"])
    assert state.routes() == []
    assert state.board.route_len[5] == 3  # waiting on B1's east side after 3 crossings
    state = play(["acba C1", "dddd C2", "acba B1"])
    assert route_summary(state) == [(6, 1, 4, False, 4)]
    assert state.routes()[0].arrival == -7
    assert state.scores() == [0, 4]
    assert_honest(state)


def test_centre_doubling() -> None:
    """Doubling at the centre: station 5 (seat 1 of 2) runs D1, D2, D3 straight down into the
    central station below D3: 3 tiles, 6 points."""
    state = play(["aaaa D1", "aaaa D2", "aaaa D3"])
    assert route_summary(state) == [(5, 0, 3, True, 6)]
    assert state.scores() == [6, 0]
    assert state.longest_routes() == [3, 0]  # the tie-break counts tiles, not points
    assert_honest(state)


def test_corner_square_both_ways() -> None:
    """A corner square holds two stations (A1: 8 on top, 9 on the left). cccc sends 8 into
    9's arrival (seat 1 scores 1); aacb sends 9 into 8's arrival (seat 0 scores 1)."""
    state = play(["cccc A1"])
    assert route_summary(state) == [(8, 1, 1, False, 1)]
    assert state.board.waiting[parse_square("A2") * 8 + 0] == 8  # station 9 (index 8) waits
    state = play(["aacb A1"])
    assert route_summary(state) == [(9, 0, 1, False, 1)]


def test_unallocated_stations_score_for_nobody() -> None:
    """With 3 players stations 16 and 17 are unused: baac on A8 joins 16 to 17's arrival;
    the route completes but nobody scores."""
    state = play(["baac A8"], players=3)
    assert route_summary(state) == [(16, None, 1, False, 0)]
    assert state.scores() == [0, 0, 0]


def test_placement_rules() -> None:
    """rules, "Placing a tile": empty, non-central, touching the edge or a placed tile."""
    state = play(["aaaa D1"])
    state = state.apply(CHANCE, "aaaa")
    cases = {
        "aaaa D1": "square-occupied",
        "aaaa D4": "central-square",
        "aaaa C3": "not-adjacent",
        "aaaa E5": "central-square",
    }
    for text, reason in cases.items():
        with pytest.raises(IllegalActionError) as info:
            state.apply(1, parse_metro_action(text))
        assert info.value.reason == reason
        assert info.value.where.turn == 2 and info.value.where.player == 1
        assert text.split()[1] in info.value.detail
    state.apply(1, parse_metro_action("aaaa D2"))  # next to D1: fine
    state.apply(1, MetroAction(parse_square("H5"), "aaaa"))  # on the edge: fine
    with pytest.raises(IllegalActionError) as info:
        state.apply(1, MetroAction(64, "aaaa"))
    assert info.value.reason == "off-board"


def test_central_block_is_not_a_tile() -> None:
    """The central block does not count as a tile: C4 is not legal just for touching D4."""
    state = MetroGame(2).from_pile(["aaaa"]).apply(CHANCE, "aaaa")
    squares = {square_name(a.square) for a in state.legal_actions(0)}
    assert "C4" not in squares and "D3" not in squares
    assert len(squares) == 28


def test_legal_actions_first_turn_and_after() -> None:
    """At the start the 28 edge squares; a tile on D1 adds its inner neighbour D2."""
    state = play(["aaaa D1"]).apply(CHANCE, "cbaa")
    squares = {square_name(a.square) for a in state.legal_actions(1)}
    assert len(squares) == 28  # 27 free edge squares + D2
    assert "D2" in squares and "D1" not in squares
    assert all(a.tile == "cbaa" for a in state.legal_actions(1))
    assert state.legal_actions(0) == []


def test_wrong_tile_and_draw_mode_tile_may_be_omitted() -> None:
    """spec, "Metro turn action": in draw mode tile may be omitted; when given it must be the
    tile drawn."""
    state = MetroGame(2).from_pile(["cbaa"]).apply(CHANCE, "cbaa")
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_metro_action("aaaa C1"))
    assert info.value.reason == "wrong-tile"
    assert "aaaa" in info.value.detail and "cbaa" in info.value.detail
    after = state.apply(0, parse_metro_action("C1"))
    assert after.board.tile_at(parse_square("C1")) == "cbaa"


def test_errors_leave_the_state_unchanged() -> None:
    state = play(["aaaa D1", "cbaa A1"]).apply(CHANCE, "dddd")
    before = (bytes(state.board.tiles), state.scores(), state.history(), state.to_move())
    for bad_player, action in [(0, "dddd D1"), (1, "dddd C1"), (0, "aaaa C1"), (0, "dddd D5")]:
        with pytest.raises(IllegalActionError):
            state.apply_in_place(bad_player, parse_metro_action(action))
    with pytest.raises(IllegalActionError):
        state.apply_in_place(CHANCE, "aaaa")
    assert (bytes(state.board.tiles), state.scores(), state.history(), state.to_move()) == before


def test_turn_errors() -> None:
    state = MetroGame(2).from_pile(["cbaa", "aaaa"])
    with pytest.raises(NotYourTurnError) as info:
        state.apply(0, parse_metro_action("cbaa C1"))
    assert info.value.reason == "not-your-turn"
    drawn = state.apply(CHANCE, "cbaa")
    with pytest.raises(NotYourTurnError):
        drawn.apply(1, parse_metro_action("cbaa C1"))
    with pytest.raises(NotYourTurnError):
        drawn.apply(CHANCE, "aaaa")
    with pytest.raises(IllegalActionError) as info2:
        state.apply(CHANCE, "aaaa")
    assert info2.value.reason == "wrong-tile"  # the pile's next tile is cbaa
    with pytest.raises(IllegalActionError) as info3:
        state.apply(CHANCE, "zzzz")
    assert info3.value.reason == "not-an-action"
    with pytest.raises(IllegalActionError) as info4:
        drawn.apply(0, "cbaa C1")
    assert info4.value.reason == "not-an-action"
    with pytest.raises(IllegalActionError) as info5:
        drawn.apply(0, DRAW)
    assert info5.value.reason == "no-draw"


def test_game_over_and_tie_break() -> None:
    """rules, "End": after 60 placements nothing more; highest score, then longest route."""
    game = MetroGame(6, MetroOptions(turn_mode="official-hand"))
    state = game.new_game(7)
    while not state.is_over():
        p = state.to_move_player()
        acts = state.legal_actions(p)
        state.apply_in_place(p, acts[0] if p == CHANCE else acts[len(acts) // 2])
    assert state.board.placed == 60
    assert state.to_move() == frozenset()
    # golden: seats 0 and 2 tie on 49; seat 2's longest route (17) beats seat 0's (16)
    assert state.scores() == [49, 18, 49, 31, 22, 21]
    assert state.longest_routes()[:3] == [16, 9, 17]
    assert state.winners() == [2]
    with pytest.raises(GameOverError) as info:
        state.apply(0, MetroAction(0, "aaaa"))
    assert info.value.reason == "game-over"
    assert state.legal_actions(CHANCE) == [] and state.legal_actions(0) == []


def middle_policy(state: MetroState) -> MetroState:
    """Play to the end choosing the middle legal action (a fixed, deterministic policy)."""
    while not state.is_over():
        p = state.to_move_player()
        acts = state.legal_actions(p)
        state.apply_in_place(p, acts[0] if p == CHANCE else acts[len(acts) // 2])
    return state


def test_shared_win_when_still_tied() -> None:
    """Golden: seed 189, 2 players, middle policy: 96-96 and longest routes 17-17: shared."""
    state = MetroGame(2).new_game(189)
    assert state.winners() == []
    middle_policy(state)
    assert state.scores() == [96, 96] and state.longest_routes() == [17, 17]
    assert state.winners() == [0, 1]


# -- one-tile routes ---------------------------------------------------------------------
FORBID = {"one_tile_routes": "forbidden"}


def test_forbidden_one_tile_route() -> None:
    """Option one_tile_routes: "forbidden": cccc on the corner A1 makes a one-tile route
    (station 8 into 9) while other squares exist: illegal."""
    state = MetroGame(2, MetroOptions(**FORBID)).from_pile(["cccc"]).apply(CHANCE, "cccc")
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_metro_action("cccc A1"))
    assert info.value.reason == "one-tile-route"
    assert "A1" in info.value.detail and "station 8" in info.value.detail
    squares = {square_name(a.square) for a in state.legal_actions(0)}
    assert squares.isdisjoint({"A1", "H1", "A8", "H8"}) and len(squares) == 24
    allowed = MetroGame(2).from_pile(["cccc"]).apply(CHANCE, "cccc")
    assert len(allowed.legal_actions(0)) == 28


def test_forbidden_exception_when_no_other_square() -> None:
    """The exception: dddd U-turns on every edge square; on an empty board it has no other
    square, so it may go anywhere on the edge. Once B1 holds a tile, B2 is free: only B2."""
    state = MetroGame(2, MetroOptions(**FORBID)).from_pile(["dddd", "aaaa", "dddd"])
    s1 = state.apply(CHANCE, "dddd")
    assert len(s1.legal_actions(0)) == 28
    s1 = s1.apply(0, parse_metro_action("dddd A1"))
    assert s1.scores() == [1, 1]  # 8 and 9 each U-turn home: 1 point each seat
    s2 = s1.apply(CHANCE, "aaaa").apply(1, parse_metro_action("aaaa B1")).apply(CHANCE, "dddd")
    assert [square_name(a.square) for a in s2.legal_actions(0)] == ["B2"]
    with pytest.raises(IllegalActionError) as info:
        s2.apply(0, parse_metro_action("dddd C1"))
    assert info.value.reason == "one-tile-route"


def test_forbidden_applies_at_unallocated_stations() -> None:
    """ "The test is geometric": baac on A8 joins unused stations 16 and 17 (3 players)."""
    game = MetroGame(3, MetroOptions(**FORBID))
    state = game.from_pile(["baac"]).apply(CHANCE, "baac")
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_metro_action("baac A8"))
    assert info.value.reason == "one-tile-route"


def test_forbidden_exception_ignores_the_other_hand_tile() -> None:
    """Hand mode: the exception looks at the tile being placed only. Holding dddd and aaaa on
    an empty board, dddd may still go on the edge though aaaa has squares."""
    game = MetroGame(2, MetroOptions(turn_mode="hand", **FORBID))
    state = game.from_pile(["dddd", "cbaa", "aaaa"])
    for code in ["dddd", "cbaa", "aaaa"]:
        state = state.apply(CHANCE, code)
    assert state.hand(0) == ("dddd", "aaaa")
    acts = state.legal_actions(0)
    assert sum(a.tile == "dddd" for a in acts) == 28
    assert sum(a.tile == "aaaa" for a in acts) == 28
    state.apply(0, parse_metro_action("dddd C1"))


# -- turn modes ----------------------------------------------------------------------------
def test_hand_mode_turn() -> None:
    """turn_mode "hand": deal one each in seat order, draw a second, place one, keep one."""
    game = MetroGame(2, MetroOptions(turn_mode="hand"))
    state = game.from_pile(["aaaa", "cbaa", "dddd", "baac"])
    state = state.apply(CHANCE, "aaaa").apply(CHANCE, "cbaa")
    assert state.hand(0) == ("aaaa",) and state.hand(1) == ("cbaa",)
    assert state.to_move() == frozenset({CHANCE})
    state = state.apply(CHANCE, "dddd")
    assert state.hand(0) == ("aaaa", "dddd")
    assert {a.tile for a in state.legal_actions(0)} == {"aaaa", "dddd"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_metro_action("C1"))
    assert info.value.reason == "missing-tile"
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_metro_action("baac C1"))
    assert info.value.reason == "wrong-tile"
    state = state.apply(0, parse_metro_action("dddd C1"))
    assert state.hand(0) == ("aaaa",)
    assert state.to_move() == frozenset({CHANCE})
    state = state.apply(CHANCE, "baac")
    assert state.hand(1) == ("cbaa", "baac") and state.to_move() == frozenset({1})


def test_official_hand_turn() -> None:
    """turn_mode "official-hand": place the held tile then draw a replacement, or draw a new
    tile and place that one, keeping the held tile."""
    game = MetroGame(2, MetroOptions(turn_mode="official-hand"))
    state = game.from_pile(["aaaa", "cbaa", "dddd", "baac", "acba"])
    state = state.apply(CHANCE, "aaaa").apply(CHANCE, "cbaa")
    assert state.to_move() == frozenset({0})
    acts = state.legal_actions(0)
    assert acts[-1] == DRAW and {a.tile for a in acts[:-1]} == {"aaaa"}
    # option 1: place the held tile, then chance draws the replacement
    s1 = state.apply(0, parse_metro_action("aaaa C1"))
    assert s1.to_move() == frozenset({CHANCE}) and s1.hand(0) == ()
    s1 = s1.apply(CHANCE, "dddd")
    assert s1.hand(0) == ("dddd",) and s1.to_move() == frozenset({1})
    # option 2: draw, then place the drawn tile, keeping the held one
    s2 = state.apply(0, DRAW)
    assert s2.to_move() == frozenset({CHANCE})
    s2 = s2.apply(CHANCE, "dddd")
    assert s2.drawn_tile == "dddd"
    assert {a.tile for a in s2.legal_actions(0)} == {"dddd"}
    with pytest.raises(IllegalActionError) as info:
        s2.apply(0, parse_metro_action("aaaa C1"))
    assert info.value.reason == "wrong-tile"
    with pytest.raises(IllegalActionError):
        s2.apply(0, DRAW)
    s2 = s2.apply(0, parse_metro_action("dddd C1"))
    assert s2.hand(0) == ("aaaa",) and s2.to_move() == frozenset({1})


def test_hand_mode_end_skips_empty_hands() -> None:
    """When the pile is empty players place their held tile; a player with none is skipped;
    the game ends after 60 placements."""
    for mode in ("hand", "official-hand"):
        state = MetroGame(4, MetroOptions(turn_mode=mode)).new_game(3)
        movers: list[int] = []
        while not state.is_over():
            p = state.to_move_player()
            if p != CHANCE and state.pile_size == 0:
                movers.append(p)
            acts = state.legal_actions(p)
            state.apply_in_place(
                p, acts[0] if p == CHANCE else acts[-1] if mode == "hand" else acts[0]
            )
        assert state.board.placed == 60
        assert all(state.hand(p) == () for p in range(4))
        assert len(movers) >= 4 and sorted(movers[-4:]) == [0, 1, 2, 3]


def test_notation_errors_are_not_illegal_actions() -> None:
    with pytest.raises(NotationError):
        parse_metro_action("cbaa Z9")
