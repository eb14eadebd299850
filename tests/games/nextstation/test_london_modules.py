"""London advanced modules: shared objectives and pencil powers (rules, "Advanced module 1/2")."""

from __future__ import annotations

import pytest

from metrogames.core.errors import IllegalActionError
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.objectives import objective_met
from support.nextstation_states import LONDON, deck, flip_next, london, play

POWERS = {"green": "double-section", "blue": "joker", "pink": "switch", "purple": "circle-station"}


def game(first_colour, *cards, powers=POWERS):
    cycle = {
        "green": ("green", "blue", "pink", "purple"),
        "blue": ("blue", "pink", "purple", "green"),
        "pink": ("pink", "purple", "green", "blue"),
        "purple": ("purple", "green", "blue", "pink"),
    }
    return london(decks=[deck(*cards)], cycle=cycle[first_colour], powers=powers)


def refuse(state, text, reason):
    with pytest.raises(IllegalActionError) as info:
        play(state, 0, text)
    assert info.value.reason == reason, str(info.value)
    return info.value


# -- pencil powers ----------------------------------------------------------------------------
def test_double_section_draws_two_sections_of_the_flipped_symbol():
    """double-section: exactly two sections to the flipped symbol; the second may start from
    the first's new end or any other end."""
    state = flip_next(game("green", "street-triangle"))
    after = play(state, 0, "D3-E4 E4-E1 +double-section")
    green = LONDON.colour_index("green")
    assert set(LONDON.names(after.maps[0].stations[green])) == {"D3", "E4", "E1"}
    play(state, 0, "D3-E4 D3-B1 +double-section")
    refuse(state, "D3-E4 +double-section", "wrong-section-count")
    refuse(state, "D3-E4 E4-F5 +double-section", "wrong-symbol")
    refuse(state, "D3-E4 E4-E1", "wrong-section-count")
    legal = state.legal_actions(0)
    doubles = [a for a in legal if a.power == "double-section"]
    assert doubles and all(len(a.sections) == 2 for a in doubles)


def test_double_section_on_a_joker_card_needs_one_symbol():
    """Decision: after a joker card both sections reach one chosen symbol ("?" matches)."""
    state = flip_next(game("green", "street-joker"))
    play(state, 0, "D3-E4 E4-E1 +double-section")  # triangle, triangle
    play(state, 0, "D3-E4 E4-F4 +double-section")  # triangle, "?"
    err = refuse(state, "D3-E4 E4-C4 +double-section", "wrong-symbol")
    assert "C4" in str(err)


def test_power_usable_once_per_round():
    """Powers: the holder may use the pencil's power once in that round."""
    state = flip_next(game("green", "street-triangle", "street-circle"))
    state = flip_next(play(state, 0, "D3-E4 E4-E1 +double-section"))
    assert state.power_available(0) is None
    err = refuse(state, "E1-F1 D3-A3 +double-section", "power-used")
    assert "already used this round" in str(err)


def test_power_resets_with_the_next_round_and_pencil():
    """Powers: each round the player holds another pencil with its own power."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(
        decks=[deck("street-triangle", *under)],
        cycle=("green", "blue", "pink", "purple"),
        powers=POWERS,
    )
    state = play(flip_next(state), 0, "D3-E4 E4-E1 +double-section")
    for _ in range(5):
        state = play(flip_next(state), 0, "pass")
    assert state.round == 1 and state.power_available(0) == "joker"


def test_only_the_holders_power():
    """Powers: only the power of the pencil held this round; none without the module."""
    state = flip_next(game("green", "street-triangle"))
    err = refuse(state, "D3-E4 +joker", "wrong-power")
    assert "green pencil's power is double-section" in str(err)
    state = flip_next(game("green", "street-triangle", powers=None))
    refuse(state, "D3-E4 +joker", "no-powers")


def test_joker_power_treats_the_card_as_a_joker():
    """joker power: this turn's card is a joker; not usable on a joker card."""
    state = flip_next(game("blue", "street-circle"))
    refuse(state, "F8-F5", "wrong-symbol")
    after = play(state, 0, "F8-F5 +joker")
    assert after.power_used[0]
    state = flip_next(game("blue", "street-joker"))
    refuse(state, "F8-F5 +joker", "power-not-usable")
    assert not any(a.power == "joker" for a in state.legal_actions(0))


def test_switch_power_branches_but_not_in_turns_1_2_or_with_a_switch():
    """switch power: the section may start from any station of the line; not in turns 1-2,
    nor in a turn that already has a switch effect."""
    cards = (
        "street-circle",
        "street-square",
        "street-pentagon",
        "street-switch",
        "street-triangle",
    )
    state = flip_next(game("pink", *cards))
    state = play(state, 0, "H4-G4")  # turn 1, circle
    state = flip_next(state)
    refuse(state, "G4-G3 +switch", "power-not-usable")  # turn 2
    state = flip_next(play(state, 0, "G4-F5"))  # turn 3, pentagon: line H4-G4-F5
    refuse(state, "G4-F4", "not-an-end")
    after = play(state, 0, "G4-F4 +switch")
    pink = LONDON.colour_index("pink")
    assert set(LONDON.names(after.maps[0].ends[pink])) == {"H4", "F5", "F4"}
    state = flip_next(play(state, 0, "H4-I5"))  # the switch: the next card follows at once
    assert state.branch and state.awaiting_card and state.turn == 3
    state = flip_next(state)
    assert state.turn == 4
    refuse(state, "G4-J7 +switch", "power-not-usable")
    play(state, 0, "G4-J7")


def test_circle_station_counts_twice_for_its_line_only():
    """circle-station: a circled station counts as 2 stations of its district for this line's
    route points only; the departure station is on the line once a section leaves it."""
    under = [f"underground-{f}" for f in ("square", "circle", "triangle", "pentagon", "joker")]
    state = london(
        decks=[deck("street-square", *under)],
        cycle=("purple", "green", "blue", "pink"),
        powers=POWERS,
    )
    state = flip_next(state)
    err = refuse(state, "@C6", "circle-not-on-line")
    assert "C6" in str(err)
    state = play(state, 0, "C6-C5 @C6")
    state = flip_next(state)
    refuse(state, "@C5", "power-used")
    for _ in range(5):
        state = play(state, 0, "pass")
        if state.round == 0:
            state = flip_next(state)
    line = state.line_score(0, LONDON.colour_index("purple"))
    assert (line.districts, line.max_in_district, line.score) == (1, 3, 3)
    assert state.breakdown(0).interchanges == {2: 0, 3: 0, 4: 0}


def test_circle_with_a_pass():
    """circle-station: usable on any turn, a pass included, on a station already on the line."""
    state = flip_next(game("purple", "street-square", "street-triangle"))
    state = flip_next(play(state, 0, "C6-C5"))
    after = play(state, 0, "@C5")
    assert after.maps[0].circled[LONDON.colour_index("purple")] == LONDON.station("C5")


# -- shared objectives ------------------------------------------------------------------------
def board_with(lines):
    board = PlayerMap()
    for c, stations in enumerate(lines):
        board.stations[c] = sum(1 << LONDON.station(n) for n in stations)
    return board


def test_objective_interchanges_8():
    """interchanges-8: at least 8 interchange stations."""
    eight = ["A1", "B1", "C1", "E1", "F1", "H1", "J1", "B2"]
    assert objective_met(LONDON, "interchanges-8", board_with([eight, eight, [], []]))
    assert not objective_met(LONDON, "interchanges-8", board_with([eight, eight[:7], [], []]))


def test_objective_all_districts():
    """all-districts: a station in each of the 13 districts."""
    one_each = [LONDON.stations[(d.mask & -d.mask).bit_length() - 1].name for d in LONDON.districts]
    assert objective_met(LONDON, "all-districts", board_with([one_each[:7], one_each[7:], [], []]))
    assert not objective_met(LONDON, "all-districts", board_with([one_each[:12], [], [], []]))


def test_objective_all_tourist_sites():
    """all-tourist-sites: G2, A4, F4, J7, E10 on the map's lines."""
    assert objective_met(
        LONDON, "all-tourist-sites", board_with([["G2", "A4"], ["F4", "J7", "E10"], [], []])
    )
    assert not objective_met(
        LONDON, "all-tourist-sites", board_with([["G2", "A4", "F4", "J7"], [], [], []])
    )


def test_objective_central_district():
    """central-district: all 9 stations of D4-G7, "?" included."""
    central = ["E4", "F4", "G4", "E5", "F5", "E6", "D7", "E7", "G7"]
    assert objective_met(LONDON, "central-district", board_with([central, [], [], []]))
    assert not objective_met(LONDON, "central-district", board_with([central[1:], [], [], []]))


def test_objective_thames_6():
    """thames-6: at least 6 sections crossing the Thames, over all lines."""
    board = PlayerMap()
    river = [j for j in range(len(LONDON.links)) if (LONDON.river_mask >> j) & 1]
    board.drawn = sum(1 << j for j in river[:6])
    assert objective_met(LONDON, "thames-6", board)
    board.drawn = sum(1 << j for j in river[:5])
    assert not objective_met(LONDON, "thames-6", board)


def test_objectives_score_ten_each():
    """Module 1: each objective met scores +10."""
    state = london(objectives=("central-district", "thames-6"))
    state.maps[0] = board_with([["E4", "F4", "G4", "E5", "F5", "E6", "D7", "E7", "G7"], [], [], []])
    sheet = state.breakdown(0)
    assert sheet.objectives == {"central-district": True, "thames-6": False}
    assert sheet.objective_points == 10
