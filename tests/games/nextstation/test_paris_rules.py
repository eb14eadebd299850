"""Next Station: Paris — rules on small hand-checked positions and real dealt rounds.

Rules: ``docs/engine-rules-paris.md`` (and London's rules where Paris shares them). Games are
solo unless said otherwise, with the colour cycle orange, blue, green, purple, so round 1 is
drawn in orange from D3, round 2 in blue from H4.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

import pytest

from metrogames.core.errors import IllegalActionError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import PASS, TurnAction, parse_action
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import SYMBOLS, load_city
from metrogames.games.nextstation.deal import Options, resolve
from metrogames.games.nextstation.objectives import objective_met
from metrogames.games.nextstation.scoring import (
    EMPTY_LINE,
    Breakdown,
    LineScore,
    breakdown,
    score_line,
)
from metrogames.games.nextstation.state import NextStationGame, NextStationState

CITY = load_city("paris")
CYCLE = ("orange", "blue", "green", "purple")
DEFAULT_DECK = tuple(c.id for c in CITY.deck)
LAST_METRO = (
    "metro-square",
    "metro-circle",
    "metro-triangle",
    "metro-pentagon",
    "metro-joker",
)


def S(name: str) -> int:  # noqa: N802 (a station, named like one)
    return CITY.station(name)


def names(mask: int) -> set[str]:
    return set(CITY.names(mask))


def deck_starting(*first: str) -> tuple[str, ...]:
    """A full deck: ``first`` in order, then the other cards in the data file's order."""
    rest = [c for c in DEFAULT_DECK if c not in first]
    deck = (*first, *rest)
    assert sorted(deck) == sorted(DEFAULT_DECK)
    return deck


def new_state(
    *decks: tuple[str, ...], players: int = 1, objectives: Iterable[str] = ()
) -> NextStationState:
    """A game on the given round decks (later rounds: the data order)."""
    options = Options(objectives=tuple(objectives), colour_cycle=CYCLE)
    full = {r: decks[r] if r < len(decks) else DEFAULT_DECK for r in range(4)}
    deal = resolve(CITY, options, None, full)
    return NextStationGame("paris", players, options).from_deal(deal)


def flip(state: NextStationState) -> str:
    """Flip the dealt card (a switch flips the next one too) and return the turn's card."""
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    while state.awaiting_card and not state.is_over():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    card = state.card
    assert card is not None
    return card


def play(state: NextStationState, text: str, player: int = 0) -> None:
    state.apply_in_place(player, parse_action(CITY, text))


def turn(state: NextStationState, *texts: str) -> str:
    """Flip, then every player plays its text (in player order); return the card."""
    card = flip(state)
    for p, text in enumerate(texts):
        play(state, text, p)
    return card


def reason_of(state: NextStationState, text: str, player: int = 0) -> str:
    with pytest.raises(IllegalActionError) as info:
        state.apply(player, parse_action(CITY, text))
    return info.value.reason


def draw(board: PlayerMap, colour: str, path: str) -> PlayerMap:
    """Draw the path ``"D3 D1 B1"`` on ``board`` with the engine's checks (any symbol; a
    section may start from any station of the line)."""
    c = CITY.colours.index(colour)
    stops = path.split()
    for a, b in pairwise(stops):
        s, t = S(a), S(b)
        starts = board.starts(CITY, c, True)
        link = board.check_section(CITY, c, s, t, starts, CITY.all_stations_mask)
        board.add_section(CITY, c, s, t, link)
    return board


def sheet(board: PlayerMap, objectives: tuple[str, ...] = ()) -> Breakdown:
    lines = [score_line(CITY, board.stations[c], board.sections[c]) for c in range(4)]
    return breakdown(CITY, board, lines, 0, objectives)


def targets(state: NextStationState) -> set[str]:
    """The stations the single sections legal now reach."""
    return {CITY.stations[a.sections[0][1]].name for a in state.legal_actions(0) if a.sections}


# -- matching every card --------------------------------------------------------------------
@pytest.mark.parametrize("symbol", SYMBOLS)
def test_monuments_and_platform_match_every_symbol_card(symbol: str) -> None:
    """Map: the central platform and the monuments match every card; other stations only
    their own symbol (D3-B3 is drawn; B3's neighbours include monuments A2 and B4)."""
    state = new_state(deck_starting("street-triangle", f"metro-{symbol}"))
    turn(state, "D3-B3")
    flip(state)
    ends_neighbours = {"B1", "D1", "E2", "F3", "C4", "D4", "E4", "A2", "B2", "B4"}
    expected = {n for n in ends_neighbours if CITY.stations[S(n)].symbol in (symbol, "any")}
    assert {"A2", "B4"} <= targets(state) == expected
    assert CITY.symbol_mask[symbol] & CITY.monument_mask == CITY.monument_mask
    assert (CITY.symbol_mask[symbol] >> S("E5")) & 1


def test_platform_reached_on_a_circle_card() -> None:
    """Map: the platform E5 matches every card; a circle card reaches it from D4, while the
    square B2 is refused with ``wrong-symbol``."""
    state = new_state(deck_starting("street-square", "metro-circle"))
    turn(state, "D3-D4")
    flip(state)
    assert "E5" in targets(state)
    assert reason_of(state, "D4-B2") == "wrong-symbol"
    play(state, "D4-F6")  # F6 is the platform
    assert names(state.maps[0].stations[0]) == {"D3", "D4", "E5"}


def test_metro_joker_reaches_any_symbol() -> None:
    """Cards: the metro joker lets the player choose any symbol."""
    state = new_state(deck_starting("metro-joker"))
    flip(state)
    assert targets(state) == {"B1", "D1", "E2", "B3", "F3", "C4", "D4", "E4"}


# -- line scoring ---------------------------------------------------------------------------
def test_seed_example_five_districts_three_stations_two_monuments() -> None:
    """Scoring, "Each line": 5 districts × 3 stations + 2 per monument (A2, B4) = 19, on a
    line drawn in a real round (the extra section after a free entry to B4 included)."""
    deck = (
        "street-triangle",
        "street-circle",
        "street-square",
        "metro-joker",
        "metro-triangle",
        "street-free-entry",
        "metro-circle",
        "metro-square",
        "street-pentagon",
        "street-switch",
        "metro-pentagon",
    )
    state = new_state(deck)
    for text in ("D3-D1", "D1-B1", "B1-A1", "A1-A2", "A2-B3", "B3-B4 B4-D6", "D6-E5"):
        turn(state, text)
    for _ in range(3):
        turn(state, "pass")
    assert state.round == 1 and state.turn == 0
    assert state.line_score(0, 0) == LineScore(5, 3, 0, 2, -1, 19)
    entry = state.breakdown(0).to_json(CITY)["lines"]["orange"]
    assert entry == {"districts": 5, "max_in_district": 3, "monuments": 2, "score": 19}


def test_platform_is_a_district_of_one_station() -> None:
    """Scoring: the central platform is its own district holding one station."""
    board = draw(PlayerMap(), "orange", "D3 D4 E5 G5")
    ls = score_line(CITY, board.stations[0], board.sections[0])
    assert (ls.districts, ls.max_in_district, ls.monuments, ls.score) == (3, 2, 0, 6)


def test_monument_points_count_each_monument_on_the_line() -> None:
    """Scoring: +2 per monument on the line (D3 B3 B4 A5 A2: 2 districts × 4 + 2 × 2 = 12)."""
    board = draw(PlayerMap(), "orange", "D3 B3 B4 A5 A2")
    assert score_line(CITY, board.stations[0], board.sections[0]) == LineScore(2, 4, 0, 2, -1, 12)


def test_empty_line_scores_nothing() -> None:
    """London Decision (applies to Paris): a line with no section scores 0."""
    state = new_state()
    while state.round == 0:
        turn(state, "pass")
    assert state.line_score(0, 0) == EMPTY_LINE
    assert state.maps[0].stations[0] == 0  # the departure D3 is not on an empty line


# -- bridges --------------------------------------------------------------------------------
def test_bridge_used_by_one_line_scores_2() -> None:
    """Scoring, "overhead crossings": a bridge used by one line scores 2."""
    board = draw(PlayerMap(), "orange", "D3 D1")
    out = sheet(board)
    assert (out.bridges, out.bridge_points) == ({1: 1}, 2)
    assert out.to_json(CITY)["bridges"] == {"single": 1, "double": 0, "points": 2}


def test_bridge_used_by_two_lines_scores_6() -> None:
    """Scoring: a bridge used by two lines (each on one of its links) scores 6; a second
    bridge used by one line adds 2."""
    board = draw(PlayerMap(), "orange", "D3 D1")
    draw(board, "blue", "H4 F2 E2 B2")  # E2-B2 passes over D3-D1 at the bridge (3, 1)
    out = sheet(board)
    assert (out.bridges, out.bridge_points) == ({2: 1}, 6)
    draw(board, "purple", "H8 H6")  # one link of the bridge at (7, 6)
    out = sheet(board)
    assert (out.bridges, out.bridge_points) == ({2: 1, 1: 1}, 8)
    assert out.to_json(CITY)["bridges"] == {"single": 1, "double": 1, "points": 8}


def test_one_line_on_both_links_of_a_bridge_scores_2() -> None:
    """Scoring, Decision: a bridge is scored by the distinct lines on its two links; one line
    using both links (crossing itself there) scores 2."""
    board = draw(PlayerMap(), "orange", "D3 D1 E2 B2")
    out = sheet(board)
    assert (out.bridges, out.bridge_points) == ({1: 1}, 2)


def test_bridge_points_in_a_real_game() -> None:
    """Scoring: the bridge is scored at the end of the game from lines drawn in different
    rounds (orange D3-D1 in round 1, blue H4-F2-E2-B2 over it in round 2): 6 points."""
    state = new_state(
        deck_starting("street-triangle"),
        deck_starting("street-circle", "street-pentagon", "street-square"),
    )
    turn(state, "D3-D1")
    while state.round == 0:
        turn(state, "pass")
    for text in ("H4-F2", "F2-E2", "E2-B2"):
        turn(state, text)
    while not state.is_over():
        turn(state, "pass")
    out = state.breakdown(0)
    assert out.bridges == {2: 1} and out.bridge_points == 6
    assert [ls.score for ls in out.lines.values()] == [2, 6, 0, 0]
    assert out.interchange_points == 0
    assert state.scores() == [14]


# -- crossing -------------------------------------------------------------------------------
def test_line_may_cross_itself_at_a_bridge() -> None:
    """Drawing: a line may cross another line — or itself — at an overhead crossing (D3-D1
    then D1-E2, E2-B2 over it at the bridge (3, 1))."""
    state = new_state(deck_starting("street-triangle", "street-pentagon", "street-square"))
    turn(state, "D3-D1")
    turn(state, "D1-E2")
    flip(state)
    assert "B2" in targets(state)
    play(state, "E2-B2")
    assert names(state.maps[0].stations[0]) == {"D3", "D1", "E2", "B2"}


def test_crossing_elsewhere_is_refused() -> None:
    """Drawing: every other crossing pair is forbidden, for the same line too: A1-B2 crosses
    A2-B1 (not a bridge) and is refused with ``crosses-section``."""
    state = new_state(deck_starting("metro-circle", "metro-joker", "street-square", "metro-square"))
    for text in ("D3-B1", "B1-A2", "A2-A1"):
        turn(state, text)
    flip(state)
    assert "B2" not in targets(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, parse_action(CITY, "A1-B2"))
    assert info.value.reason == "crosses-section"
    assert "orange section A2-B1" in str(info.value)


def test_crossing_another_line_is_refused_off_a_bridge() -> None:
    """Drawing: a section of another line crossing off a bridge is refused (green C7-A5
    crosses orange's C4-A6), while the blue E2-B2 over orange's D3-D1 bridge is allowed."""
    board = draw(PlayerMap(), "orange", "D3 C4 A6 ")
    with pytest.raises(IllegalActionError) as info:
        draw(board, "green", "C7 A5")
    assert info.value.reason == "crosses-section"
    assert "orange section" in str(info.value)
    board = draw(PlayerMap(), "orange", "D3 D1")
    draw(board, "blue", "H4 F2 E2 B2")
    assert board.drawn.bit_count() == 4


# -- free entry -----------------------------------------------------------------------------
def test_free_entry_to_a_monument_allows_one_extra_section() -> None:
    """Cards, "Free entry": a section to any symbol; ending on a monument, the player may draw
    one extra section from it to any station; the extra is optional."""
    state = new_state(deck_starting("street-triangle", "street-free-entry"))
    turn(state, "D3-B3")
    flip(state)
    actions = state.legal_actions(0)
    b3, b4, a2 = S("B3"), S("B4"), S("A2")
    extras_b4 = {
        CITY.stations[a.sections[1][1]].name
        for a in actions
        if len(a.sections) == 2 and a.sections[0] == (b3, b4)
    }
    extras_a2 = {
        CITY.stations[a.sections[1][1]].name
        for a in actions
        if len(a.sections) == 2 and a.sections[0] == (b3, a2)
    }
    assert extras_b4 == {"C4", "A5", "D6"}
    assert extras_a2 == {"A1", "B1", "B2", "A5"}
    assert all(a.sections[0][1] in (b4, a2) for a in actions if len(a.sections) == 2)
    assert TurnAction(((b3, b4),)) in actions  # the extra is optional
    # any symbol for the first section too: every free neighbour of the ends D3 and B3
    assert targets(state) == {"B1", "D1", "E2", "F3", "C4", "D4", "E4", "A2", "B2", "B4"}
    play(state, "B3-B4 B4-D6")
    board = state.maps[0]
    assert names(board.stations[0]) == {"D3", "B3", "B4", "D6"}
    assert names(board.ends[0]) == {"D3", "D6"}


def test_free_entry_to_an_ordinary_station_has_no_extra() -> None:
    """Cards, "Free entry": the extra section only follows a monument; a second section after
    an ordinary station is refused with ``no-extra-section``."""
    state = new_state(deck_starting("street-free-entry"))
    flip(state)
    assert not any(len(a.sections) == 2 for a in state.legal_actions(0))
    assert reason_of(state, "D3-D4 D4-E5") == "no-extra-section"
    play(state, "D3-C4")  # a pentagon: any symbol
    assert names(state.maps[0].stations[0]) == {"D3", "C4"}


def test_free_entry_extra_does_not_chain() -> None:
    """Cards, "Free entry": at most one extra section (no third section, and the extra must
    leave the monument)."""
    state = new_state(deck_starting("street-triangle", "street-free-entry"))
    turn(state, "D3-B3")
    flip(state)
    b3, b4, d6, a5, e5 = S("B3"), S("B4"), S("D6"), S("A5"), S("E5")
    for sections in (((b3, b4), (b4, d6), (b4, a5)), ((b3, b4), (b4, d6), (d6, e5))):
        with pytest.raises(IllegalActionError) as info:
            state.apply(0, TurnAction(sections))
        assert info.value.reason == "wrong-section-count"
    assert reason_of(state, "B3-B4 D3-D4") == "not-an-end"


def test_two_sections_need_a_free_entry_card() -> None:
    """Cards: a turn draws one section; two only after a free entry to a monument."""
    state = new_state(deck_starting("street-triangle", "metro-joker"))
    turn(state, "D3-B3")
    flip(state)
    assert reason_of(state, "B3-B4 B4-D6") == "wrong-section-count"


def test_free_entry_after_a_switch_branches_then_extra_leaves_the_monument() -> None:
    """Cards: after a switch, the free entry's first section may start from any station of the
    line; the extra section still starts at the monument."""
    deck = deck_starting("street-triangle", "metro-joker", "street-switch", "street-free-entry")
    state = new_state(deck)
    turn(state, "D3-B3")
    turn(state, "B3-A2")  # line D3-B3-A2: B3 is no end
    card = flip(state)
    assert card == "street-free-entry" and state.branch
    actions = state.legal_actions(0)
    b3, b4 = S("B3"), S("B4")
    assert TurnAction(((b3, b4), (b4, S("D6")))) in actions
    assert reason_of(state, "B3-B4 B3-C4") == "not-an-end"
    play(state, "B3-B4 B4-D6")
    assert names(state.maps[0].ends[0]) == {"D3", "A2", "D6"}


def test_free_entry_without_switch_starts_from_an_end() -> None:
    """Drawing: without a switch effect, sections start from an end of the line."""
    state = new_state(deck_starting("street-triangle", "metro-joker", "street-free-entry"))
    turn(state, "D3-B3")
    turn(state, "B3-A2")
    flip(state)
    assert reason_of(state, "B3-B4 B4-D6") == "not-an-end"
    assert TurnAction(((S("A2"), S("B2")),)) in state.legal_actions(0)


def test_switch_flipped_first_has_no_effect() -> None:
    """Switch (as in London): flipped 1st or 2nd in the round it has no effect."""
    state = new_state(deck_starting("street-switch", "metro-joker"))
    flip(state)
    assert state.card == "metro-joker" and not state.branch and state.turn == 1


# -- round end ------------------------------------------------------------------------------
def test_round_ends_on_the_fifth_metro_card() -> None:
    """Cards / A round: the turn in which the 5th metro card is flipped is the last; with the
    metro cards first the round has 5 turns and 6 cards stay unused."""
    state = new_state(deck_starting(*LAST_METRO))
    for t in range(1, 6):
        card = turn(state, "pass")
        assert card == LAST_METRO[t - 1]
        assert state.round == (1 if t == 5 else 0)
    assert state.flipped == () and state.turn == 0


def test_round_of_ten_turns_when_metro_cards_come_last() -> None:
    """A round: the switch makes no turn of its own, so with the 6 street cards first the
    round has 10 turns and ends on the 11th card."""
    streets = tuple(c for c in DEFAULT_DECK if c.startswith("street-"))
    state = new_state(deck_starting(*streets, *LAST_METRO))
    turns = 0
    while state.round == 0:
        turn(state, "pass")
        turns += 1
        if state.round == 0:
            assert state.ends_flipped < 5
    assert turns == 10


def test_street_joker_is_not_in_the_paris_deck() -> None:
    """Cards: Paris has a free entry card where London has a street joker."""
    state = new_state()
    with pytest.raises(IllegalActionError) as info:
        state.apply(CHANCE, "street-joker")
    assert info.value.reason == "unknown-card"


def test_four_rounds_then_game_over() -> None:
    """Structure of a game: 4 rounds, one colour each; passing is always allowed."""
    state = new_state()
    colours = []
    while not state.is_over():
        if state.turn == 0 and state.awaiting_card:
            colours.append(CITY.colours[state.colour(0)])
        turn(state, "pass")
    assert colours == list(CYCLE)
    assert state.scores() == [0]


def test_two_players_act_simultaneously_on_their_own_maps() -> None:
    """Structure: players' maps never interact; player 1 of 2 starts two colours along the
    cycle (green from C7) in round 1."""
    state = new_state(deck_starting("metro-triangle"), players=2)
    flip(state)
    assert state.to_move() == frozenset({0, 1})
    play(state, "D3-B3", 0)
    assert state.to_move() == frozenset({1})
    play(state, "C7-A5", 1)
    assert names(state.maps[0].stations[0]) == {"D3", "B3"}
    assert names(state.maps[1].stations[2]) == {"C7", "A5"}
    assert state.maps[0].stations[2] == 0 and state.maps[1].stations[0] == 0
    assert state.to_move() == frozenset({CHANCE}) and state.legal_actions(0) == []
    flip(state)
    assert state.legal_actions(1)[0] == PASS


# -- objectives -----------------------------------------------------------------------------
def _triples(with_purple: bool) -> PlayerMap:
    board = draw(PlayerMap(), "orange", "D3 D4 E5 G5 J5 J6 H6")
    draw(board, "blue", "H4 G5 H6 E5 D6")
    draw(board, "green", "C7 D6 E7 E5 G4 G5")
    if with_purple:
        draw(board, "purple", "H8 H6")
    return board


def test_triple_interchanges_3() -> None:
    """Shared objective ``triple-interchanges-3``: at least 3 stations where 3 or more lines
    meet (E5 and G5 on three lines: not met; purple H8-H6 makes H6 the third: met)."""
    assert not objective_met(CITY, "triple-interchanges-3", _triples(False))
    board = _triples(True)
    assert objective_met(CITY, "triple-interchanges-3", board)
    out = sheet(board, ("triple-interchanges-3", "monuments-6"))
    assert out.objectives == {"triple-interchanges-3": True, "monuments-6": False}
    assert out.objective_points == 10
    assert out.interchanges == {2: 1, 3: 3, 4: 0}  # D6 on two lines; G5, H6, E5 on three
    assert out.interchange_points == 2 + 15


def test_districts_7_counts_a_single_line() -> None:
    """Shared objective ``districts-7`` (Decision: a single line visits at least 7 districts):
    6 districts on orange plus another on blue is not enough; orange reaching E5 is."""
    board = draw(PlayerMap(), "orange", "D3 D1 G1 H1 J1 J2 I3 I8")
    draw(board, "blue", "H4 G5 E5")
    union = board.stations[0] | board.stations[1]
    assert sum(1 for d in CITY.districts if d.mask & union) == 7
    assert not objective_met(CITY, "districts-7", board)
    draw(board, "orange", "I8 E5")
    assert objective_met(CITY, "districts-7", board)


def test_double_bridges_2() -> None:
    """Shared objective ``double-bridges-2``: at least 2 overhead crossings used by two lines
    (one line on both links of a bridge is not a double)."""
    board = draw(PlayerMap(), "orange", "D3 D1")
    draw(board, "blue", "H4 F2 E2 B2")
    draw(board, "purple", "H8 H6")
    assert not objective_met(CITY, "double-bridges-2", board)
    draw(board, "green", "C7 D6 E5 I8")
    assert objective_met(CITY, "double-bridges-2", board)
    assert sheet(board).bridge_points == 12
    board = draw(PlayerMap(), "orange", "D3 D1 E2 B2")
    draw(board, "purple", "H8 H6")
    draw(board, "green", "C7 D6 E5 I8")
    assert not objective_met(CITY, "double-bridges-2", board)
    assert sheet(board).bridge_points == 2 + 6


def test_monuments_6_counts_different_monuments() -> None:
    """Shared objective ``monuments-6``: at least 6 different monuments on the map's lines (a
    monument on two lines counts once)."""
    board = draw(PlayerMap(), "orange", "D3 B3 B4 A5 A2")
    draw(board, "blue", "H4 G4 I2 J2 J4 J5")
    draw(board, "green", "C7 A5 A6")
    other = board.copy()
    draw(board, "purple", "H8 J6 J5")  # J5 again: still 5 different monuments
    assert not objective_met(CITY, "monuments-6", board)
    draw(other, "purple", "H8 F8 F7")
    assert objective_met(CITY, "monuments-6", other)
