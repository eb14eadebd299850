"""London rules, one test (or a few) per rule and decision of docs/engine-rules-london.md."""

from __future__ import annotations

import itertools

import pytest

from metrogames.core.errors import IllegalActionError, NotYourTurnError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import PASS, parse_action
from metrogames.games.nextstation.deal import Options, resolve
from metrogames.games.nextstation.state import NextStationGame
from support.nextstation_states import LONDON, deck, first, flip_next, london, names, play


def refuse(state, player, text, reason):
    with pytest.raises(IllegalActionError) as info:
        play(state, player, text)
    assert info.value.reason == reason, str(info.value)
    return info.value


# -- Structure of a game --------------------------------------------------------------------
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_colour_rotation_each_player_uses_each_colour_once(players):
    """Colour rotation: player k starts at position ⌊4k/n⌋ and moves one step a round; every
    player uses each colour once, and no two players share a colour in a round."""
    state = NextStationGame("london", players).new_game(7)
    cycle = state.deal.colour_cycle
    for p in range(players):
        seen = [state.colour(p, r) for r in range(4)]
        assert sorted(seen) == [0, 1, 2, 3]
        assert seen[0] == cycle[(4 * p) // players]
        assert [cycle.index(c) for c in seen] == [((4 * p) // players + r) % 4 for r in range(4)]
    for r in range(4):
        assert len({state.colour(p, r) for p in range(players)}) == players


def test_colour_cycle_option_sets_the_order():
    """Decision: the option colour_cycle sets the cyclic order of the pencils."""
    options = Options.from_json(LONDON, {"colour_cycle": ["pink", "green", "blue", "purple"]})
    state = NextStationGame("london", 2, options).new_game(3)
    colours = LONDON.colours
    assert [colours[state.colour(0, r)] for r in range(4)] == ["pink", "green", "blue", "purple"]
    assert [colours[state.colour(1, r)] for r in range(4)] == ["blue", "purple", "pink", "green"]


def test_simultaneous_turns_wait_for_every_player():
    """A round, 2: every player reacts to the same card; the next card waits for all."""
    state = first("street-triangle", players=3)
    assert state.to_move() == frozenset({0, 1, 2})
    state = play(state, 1, "pass")
    assert state.to_move() == frozenset({0, 2})
    with pytest.raises(NotYourTurnError):
        play(state, 1, "pass")
    with pytest.raises(NotYourTurnError):
        state.apply(CHANCE, "street-circle")
    state = play(play(state, 0, "pass"), 2, "pass")
    assert state.to_move() == frozenset({CHANCE})


def test_apply_returns_a_new_state_and_leaves_the_old_one():
    """Protocol: apply() is checked and returns a new state; the old state is unchanged."""
    state = first("street-triangle")
    after = play(state, 0, "D3-E4")
    assert state.maps[0].drawn == 0 and after.maps[0].drawn != 0
    with pytest.raises(IllegalActionError):
        play(after, 0, "E4-E1")  # not its turn now... a card is due
    assert state.to_move() == frozenset({0})


# -- A round --------------------------------------------------------------------------------
def test_round_ends_with_the_fifth_underground_card():
    """A round, 4: the turn of the 5th underground card is the last; unflipped cards are unused."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(decks=[deck("street-square", *under)])
    for k in range(6):
        state = flip_next(state)
        assert state.round == 0 and state.turn == k + 1
        state = play(state, 0, "pass")
    assert state.round == 1 and state.turn == 0 and state.flipped == ()
    assert state.line_score(0, LONDON.colour_index("green")).score == 0


def test_rounds_have_five_to_ten_turns():
    """A round: 5 to 10 turns, by the position of the 5th underground card."""
    turns = set()
    for seed in range(300):
        state = NextStationGame("london").new_game(seed)
        last_round, count = 0, 0
        while not state.is_over():
            if CHANCE in state.to_move():
                state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
                continue
            count += 1
            state.apply_in_place(0, PASS)
            if state.round != last_round:
                turns.add(count)
                last_round, count = state.round, 0
    assert turns == set(range(5, 11))


def test_switch_gives_no_turn_and_lets_the_next_section_branch():
    """A round, 3: the switch flips the next card at once; that section may start from any
    station of the line. Decision: the branch adds a third end."""
    state = london(
        decks=[deck("street-triangle", "street-circle", "street-switch", "street-square")]
    )
    state = play(flip_next(state), 0, "D3-E4")
    state = play(flip_next(state), 0, "E4-F4")
    state = flip_next(state)  # the switch
    assert state.to_move() == frozenset({CHANCE}) and state.branch
    state = flip_next(state)
    assert state.turn == 3 and state.branch
    state = play(state, 0, "E4-F5")
    green = LONDON.colour_index("green")
    assert names(state, state.maps[0].ends[green]) == {"D3", "F4", "F5"}
    assert not state.branch


@pytest.mark.parametrize("position", [0, 1])
def test_switch_flipped_first_or_second_has_no_effect(position):
    """A round, 3: a switch flipped 1st or 2nd has no effect (seed 001)."""
    first = ["street-triangle", "street-circle"]
    first.insert(position, "street-switch")
    state = london(decks=[deck(*first, "street-square")])
    state = flip_next(state)
    if position == 0:
        assert not state.branch and state.to_move() == frozenset({CHANCE})
        state = flip_next(state)
    state = play(state, 0, "D3-E4")
    state = flip_next(state)
    if position == 1:
        assert not state.branch
        state = flip_next(state)
    state = play(state, 0, "E4-F4")
    state = flip_next(state)
    refuse(state, 0, "E4-F5", "not-an-end")


# -- Drawing a section ----------------------------------------------------------------------
def test_first_section_leaves_the_departure_station():
    """Drawing, first section: from the colour's departure station (green D3)."""
    state = first("street-triangle")
    err = refuse(state, 0, "E1-E4", "not-an-end")
    assert "departure station D3" in str(err)
    assert play(state, 0, "D3-E4").maps[0].stations[LONDON.colour_index("green")]


def test_departure_stations_and_their_symbols():
    """Components: green D3 triangle, pink H4 circle, purple C6 square, blue F8 pentagon."""
    expected = {
        "green": ("D3", "triangle"),
        "pink": ("H4", "circle"),
        "purple": ("C6", "square"),
        "blue": ("F8", "pentagon"),
    }
    for colour, (name, symbol) in expected.items():
        station = LONDON.stations[LONDON.departures[LONDON.colour_index(colour)]]
        assert (station.name, station.symbol) == (name, symbol)


def test_later_sections_start_from_an_end():
    """Drawing: later sections start from an end of the line."""
    state = london(decks=[deck("street-triangle", "street-circle", "street-square")])
    state = play(flip_next(state), 0, "D3-E4")
    state = play(flip_next(state), 0, "E4-F4")
    state = flip_next(state)
    err = refuse(state, 0, "E4-F5", "not-an-end")
    assert "E4 is not an end" in str(err)
    refuse(state, 0, "G3-H4", "not-on-line")
    play(state, 0, "F4-F5")


def test_target_must_show_the_flipped_symbol():
    """Drawing: T must show the flipped symbol."""
    state = first("street-circle")
    err = refuse(state, 0, "D3-E4", "wrong-symbol")
    assert "E4 is a triangle" in str(err)
    play(state, 0, "D3-F1")


def test_question_mark_station_matches_every_card():
    """Components: the "?" station F4 matches every card."""
    for face in ("square", "circle", "triangle", "pentagon"):
        state = london(decks=[deck("street-triangle", f"underground-{face}")])
        state = play(flip_next(state), 0, "D3-E4")
        play(flip_next(state), 0, "E4-F4")


def test_joker_card_reaches_any_symbol():
    """Drawing: a joker card lets the player choose any symbol."""
    state = first("street-joker")
    for text in ("D3-B1", "D3-F1", "D3-D2", "D3-C4", "D3-E4"):
        play(state, 0, text)
    assert len(state.legal_actions(0)) == 1 + len(LONDON.adjacency[LONDON.station("D3")])


def test_no_loops_target_not_on_the_line():
    """Drawing: T must not already be on the current line (no loops)."""
    state = london(decks=[deck("street-triangle", "street-joker", "underground-joker")])
    state = play(flip_next(state), 0, "D3-E4")
    state = play(flip_next(state), 0, "E4-C4")
    state = flip_next(state)
    err = refuse(state, 0, "C4-D3", "revisits-station")
    assert "D3 is already on the line" in str(err)


def test_no_doubled_sections_across_lines():
    """Drawing: a link drawn by any line of the map cannot be drawn again."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    # round 1 green D3-E4; round 2 blue from F8 ... to E4, then E4-D3 is the doubled link
    state = london(
        decks=[
            deck("street-triangle", *under),
            deck("street-square", "street-triangle", "street-joker"),
        ]
    )
    state = play(flip_next(state), 0, "D3-E4")
    for _ in range(5):
        state = play(flip_next(state), 0, "pass")
    assert LONDON.colours[state.colour(0)] == "blue"
    state = play(flip_next(state), 0, "F8-F5")
    state = play(flip_next(state), 0, "F5-E4")
    state = flip_next(state)
    err = refuse(state, 0, "E4-D3", "doubled-section")
    assert "green" in str(err)


def test_no_crossing_own_line():
    """Drawing: the link must not cross any link already drawn, its own line's included."""
    state = london(decks=[deck("street-square", "street-joker", "street-circle")])
    state = play(flip_next(state), 0, "D3-G3")
    state = play(flip_next(state), 0, "G3-F4")
    state = flip_next(state)
    err = refuse(state, 0, "F4-F1", "crosses-section")
    assert "crosses the green section D3-G3" in str(err)


def test_crossing_another_colour_error_names_round_turn_player():
    """Drawing: no crossing with another colour's line; the error names round, turn, player,
    the section, what it crosses and the rule code."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(
        players=2,
        decks=[
            deck("street-square", *under),
            deck("street-circle", "street-joker", "underground-circle"),
        ],
        cycle=("green", "pink", "blue", "purple"),
    )
    state = play(play(flip_next(state), 0, "D3-G3"), 1, "pass")
    for _ in range(5):
        state = play(play(flip_next(state), 0, "pass"), 1, "pass")
    assert state.round == 1 and LONDON.colours[state.colour(0)] == "pink"
    state = play(play(flip_next(state), 0, "H4-G4"), 1, "pass")
    state = play(play(flip_next(state), 0, "G4-F4"), 1, "pass")
    state = flip_next(state)
    with pytest.raises(IllegalActionError) as info:
        play(state, 0, "F4-F1")
    assert str(info.value) == (
        "round 2, turn 3, player 0: section F4-F1 crosses the green section D3-G3 (crosses-section)"
    )


def test_lines_share_stations_as_interchanges():
    """Drawing: different lines may share stations; a shared station is an interchange."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(
        decks=[deck("street-triangle", *under), deck("street-square", "street-triangle")]
    )
    state = play(flip_next(state), 0, "D3-E4")
    for _ in range(5):
        state = play(flip_next(state), 0, "pass")
    state = play(flip_next(state), 0, "F8-F5")
    state = play(flip_next(state), 0, "F5-E4")
    sheet = state.breakdown(0)
    assert sheet.interchanges == {2: 1, 3: 0, 4: 0} and sheet.interchange_points == 2


def test_passing_is_always_allowed_and_forced_when_nothing_is_legal():
    """A round, 2: passing is always allowed; with no legal section only pass is legal."""
    state = first("street-pentagon")
    assert state.legal_actions(0)[0] == PASS and len(state.legal_actions(0)) == 3  # C4, D7
    assert play(state, 0, "pass").maps[0].drawn == 0
    state = london(decks=[deck("street-circle", "underground-triangle", "street-triangle")])
    state = play(flip_next(state), 0, "D3-A3")
    state = play(flip_next(state), 0, "D3-B1")
    state = flip_next(state)  # ends B1 and A3: their only triangle neighbour D3 is on the line
    assert state.legal_actions(0) == [PASS]


# -- Scoring --------------------------------------------------------------------------------
def test_line_score_rulebook_example_20():
    """Scoring a line: 6 districts × 3 + 1 Thames crossing × 2 = 20 (rulebook example)."""
    from metrogames.games.nextstation.scoring import score_line

    line = ["F8", "F5", "E4", "F4", "G3", "H4", "J2", "J1"]
    stations = sum(1 << LONDON.station(n) for n in line)
    sections = sum(1 << LONDON.link_by_names(a, b) for a, b in itertools.pairwise(line))
    result = score_line(LONDON, stations, sections)
    assert (result.districts, result.max_in_district, result.river, result.score) == (6, 3, 1, 20)
    circled = score_line(LONDON, stations, sections, LONDON.station("E4"))
    assert (circled.max_in_district, circled.score) == (4, 26)


def test_empty_line_scores_zero_and_departure_is_not_on_it():
    """Decision: a line without sections is empty: 0 points, no interchange, no site."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(decks=[deck(*under)])
    for _ in range(5):
        state = play(flip_next(state), 0, "pass")
    green = LONDON.colour_index("green")
    assert state.line_score(0, green).score == 0
    assert state.maps[0].stations[green] == 0
    assert state.tourist_boxes[0] == 0


def test_tourist_sites_count_per_line_and_cap_at_ten():
    """Scoring: each tourist site on a line crosses one box (a site on two lines twice);
    points by boxes 0..10: 0,1,2,4,6,8,11,14,17,21,25."""
    from metrogames.games.nextstation.board import PlayerMap
    from metrogames.games.nextstation.scoring import EMPTY_LINE, breakdown

    assert LONDON.tourist_points == (0, 1, 2, 4, 6, 8, 11, 14, 17, 21, 25)
    board = PlayerMap()
    sheet = breakdown(LONDON, board, [EMPTY_LINE] * 4, 13, ())
    assert (sheet.tourist_boxes, sheet.tourist_points) == (10, 25)
    sheet = breakdown(LONDON, board, [EMPTY_LINE] * 4, 7, ())
    assert sheet.tourist_points == 14


def test_119_rulebook_total():
    """End of game: lines 87 + tourist 14 (7 boxes) + nine 2-line interchanges 18 = 119."""
    from metrogames.games.nextstation.scoring import Breakdown, LineScore

    lines = {
        c: LineScore(0, 0, 0, 0, -1, s)
        for c, s in zip(LONDON.colours, (20, 25, 22, 20), strict=True)
    }
    sheet = Breakdown(
        lines,
        7,
        LONDON.tourist_points[7],
        {2: 9, 3: 0, 4: 0},
        9 * LONDON.interchange_points[2],
        {},
        0,
        {},
        0,
    )
    assert sheet.total == 119


def test_interchange_points_2_5_9():
    """End of game: a station on 2 / 3 / 4 lines scores 2 / 5 / 9."""
    from metrogames.games.nextstation.board import PlayerMap
    from metrogames.games.nextstation.scoring import EMPTY_LINE, breakdown

    board = PlayerMap()
    e4, f4, g3 = LONDON.station("E4"), LONDON.station("F4"), LONDON.station("G3")
    board.stations = [
        1 << e4 | 1 << f4 | 1 << g3,
        1 << e4 | 1 << f4 | 1 << g3,
        1 << f4 | 1 << g3,
        1 << g3,
    ]
    sheet = breakdown(LONDON, board, [EMPTY_LINE] * 4, 0, ())
    assert sheet.interchanges == {2: 1, 3: 1, 4: 1}
    assert sheet.interchange_points == 2 + 5 + 9


def test_tie_break_full_tie_is_shared():
    """Tie-break: two players with identical maps share the victory."""
    state = london(players=2, cycle=("green", "blue", "pink", "purple"))
    # players 0 and 1 hold different pencils; both pass the whole game: 0 points each
    while not state.is_over():
        if CHANCE in state.to_move():
            state = flip_next(state)
        else:
            state = play(play(state, 0, "pass"), 1, "pass")
    assert state.scores() == [0, 0] and state.winners() == [0, 1]


def test_tie_break_by_constructed_sheets():
    """Tie-break: equal totals, the higher single line wins."""
    from metrogames.games.nextstation.scoring import Breakdown, LineScore

    def sheet(scores):
        lines = {
            c: LineScore(0, 0, 0, 0, -1, s) for c, s in zip(LONDON.colours, scores, strict=True)
        }
        return Breakdown(lines, 0, 0, {}, 0, {}, 0, {}, 0)

    a, b = sheet((30, 10, 10, 10)), sheet((20, 20, 10, 10))
    assert a.total == b.total == 60 and a.best_line() == 30 > b.best_line()


def test_deal_is_pinned_for_a_seed():
    """Determinism: the deal for a seed never changes between versions (golden values)."""
    deal = resolve(LONDON, Options("random", "random"), 20261129)
    assert [LONDON.colours[c] for c in deal.colour_cycle] == GOLDEN_CYCLE
    assert deal.objectives == GOLDEN_OBJECTIVES
    assert deal.powers == GOLDEN_POWERS
    assert deal.decks[0] == GOLDEN_ROUND_1
    assert resolve(LONDON, Options(), 1).decks[3] == GOLDEN_SEED_1_ROUND_4


def test_a_card_must_be_the_dealt_one():
    """Determinism: with a known deck, only the deal's next card may be flipped."""
    state = london(decks=[deck("street-circle")])
    with pytest.raises(IllegalActionError) as info:
        state.apply(CHANCE, "street-square")
    assert info.value.reason == "not-the-dealt-card"
    assert state.legal_actions(CHANCE) == ["street-circle"]


def test_solo_plays_against_parse_action_text():
    """Notation: a typed move applies like its JSON twin."""
    state = first("street-triangle")
    assert (
        play(state, 0, "d3-e4").maps[0].drawn
        == state.apply(0, parse_action(LONDON, "D3-E4")).maps[0].drawn
    )


GOLDEN_CYCLE = ["purple", "blue", "pink", "green"]
GOLDEN_OBJECTIVES = ("thames-6", "all-districts")
GOLDEN_POWERS = ("switch", "double-section", "joker", "circle-station")  # blue pink purple green
GOLDEN_ROUND_1 = (
    "street-pentagon",
    "street-circle",
    "underground-joker",
    "underground-square",
    "underground-triangle",
    "street-square",
    "street-triangle",
    "street-joker",
    "underground-pentagon",
    "underground-circle",
    "street-switch",
)
GOLDEN_SEED_1_ROUND_4 = (
    "underground-circle",
    "street-square",
    "underground-joker",
    "street-switch",
    "underground-pentagon",
    "underground-square",
    "street-pentagon",
    "street-triangle",
    "street-joker",
    "street-circle",
    "underground-triangle",
)


def test_solo_percentile_against_the_reference_games():
    """Solo percentile: the share of the greedy bot's reference games scoring less (equal
    scores count half)."""
    from metrogames.games.nextstation.scoring import percentile

    games = sum(LONDON.reference_scores.values())
    assert games == 2000 and LONDON.reference_bot == "greedy"
    low, high = min(LONDON.reference_scores), max(LONDON.reference_scores)
    assert percentile(LONDON, low - 1) == 0.0
    assert percentile(LONDON, high + 1) == 100.0
    expected = 100 * (LONDON.reference_scores[low] / 2) / games
    assert percentile(LONDON, low) == expected
    assert 40 < percentile(LONDON, 126) < 60
