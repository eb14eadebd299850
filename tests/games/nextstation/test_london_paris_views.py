"""Next Station (London, Paris): hidden information in the engine — views, resampling — and
position snapshots.

Source: ``src/metrogames/core/protocol.py`` (``view``, ``resample``, ``snapshot``) and
``docs/notation.md``, "Position snapshot: Next Station". What a view must hide is checked
against states built independently (the full state before the hidden action), and resampled
states are checked by replaying their whole history with checked ``apply``.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pytest

from metrogames.core.errors import IllegalActionError, NotationError
from metrogames.core.protocol import CHANCE, SPECTATOR
from metrogames.core.rng import Rng
from metrogames.games.nextstation.actions import PASS
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.state import HIDDEN, NextStationGame, NextStationState
from support.nextstation_games import CONFIGS, POWERS, make_game, random_states

LONDON = load_city("london")


def _same(a: NextStationState, b: NextStationState) -> None:
    """Everything the protocol shows of two states is equal (and their maps, derived masks
    included)."""
    assert a.snapshot() == b.snapshot()
    assert a.viewer == b.viewer
    assert a.to_move() == b.to_move()
    assert a.is_over() == b.is_over()
    for p in [CHANCE, *range(a.num_players)]:
        assert a.legal_actions(p) == b.legal_actions(p)
    assert a.chance_outcomes() == b.chance_outcomes()
    assert a.scores() == b.scores()
    for p in range(a.num_players):
        assert a.breakdown(p) == b.breakdown(p)
        assert a.maps[p].same_as(b.maps[p])
        assert a.line_scores[p] == b.line_scores[p]
    assert a.tourist_boxes == b.tourist_boxes
    assert a.power_used == b.power_used


def _mid_turn(players: int = 3, options: dict[str, object] | None = None) -> NextStationState:
    """A London game (seed 8) after the first card, before anyone acts."""
    game = make_game("london", players, options or {})
    state = game.new_game(8)
    return state.apply(CHANCE, state.legal_actions(CHANCE)[0])


def test_a_clone_has_every_slot_and_plays_on_apart() -> None:
    state = _mid_turn(2, {"powers": POWERS})
    state.apply_in_place(0, state.legal_actions(0)[1])
    before = state.snapshot()
    copy = state.clone()
    for name in NextStationState.__slots__:
        if name != "maps":  # PlayerMap has no ==: _same compares them
            assert getattr(copy, name) == getattr(state, name), name
    _same(copy, state)
    copy.random_playout([Rng(1, "a"), Rng(2, "b")])
    assert copy.is_over() and not state.is_over()
    assert state.snapshot() == before


# -- views ---------------------------------------------------------------------------------
def test_a_view_hides_another_player_s_action_until_the_turn_ends() -> None:
    before = _mid_turn()
    action = before.legal_actions(0)[1]
    after = before.apply(0, action)  # player 0 acted; players 1 and 2 have not
    view = after.view(1)
    assert view.viewer == 1
    assert view.to_move() == after.to_move() == frozenset({1, 2})  # who acted is public
    assert view.maps[0].same_as(before.maps[0])
    assert not view.maps[0].same_as(after.maps[0])
    assert view.scores() == before.scores() != after.scores()
    assert view.history()[-1] == (0, HIDDEN)
    assert view.history()[:-1] == after.history()[:-1]
    player_0 = 10  # player 0's field of the snapshot
    assert view.snapshot().split()[player_0] == before.snapshot().split()[player_0]
    assert after.snapshot().split()[player_0] != before.snapshot().split()[player_0]
    own = after.view(0)
    assert own.maps[0].same_as(after.maps[0]) and own.history() == after.history()
    spectator = after.view(None)
    assert spectator.viewer == SPECTATOR
    assert spectator.maps[0].same_as(before.maps[0])
    assert spectator.history()[-1] == (0, HIDDEN)
    # the turn ends: everything is visible
    done = after.apply(1, PASS).apply(2, PASS)
    assert done.view(1).maps[0].same_as(done.maps[0])
    assert done.view(None).history() == done.history()


def test_a_view_hides_power_use_too() -> None:
    powers = {
        "blue": "circle-station",
        "pink": "joker",
        "purple": "switch",
        "green": "double-section",
    }
    state = _mid_turn(2, {"powers": powers, "colour_cycle": ["blue", "pink", "purple", "green"]})
    assert state.power_available(0) == "circle-station"
    circle = next(a for a in state.legal_actions(0) if a.circle is not None)  # type: ignore[union-attr]
    after = state.apply(0, circle)
    assert after.power_available(0) is None
    view = after.view(1)
    assert view.power_available(0) == "circle-station"
    assert view.maps[0].circled == state.maps[0].circled
    assert view.breakdown(0) == state.breakdown(0)


def test_a_view_s_cards_are_the_round_s_remaining_set() -> None:
    state = _mid_turn(2)
    game = state.game
    # another deal with the same first card and another order for the rest
    deck = state.deal.decks[0]
    assert deck is not None
    other_deck = (deck[0], *reversed(deck[1:]))
    other = game.from_deal(replace(state.deal, decks=(other_deck, *state.deal.decks[1:])))
    other = other.apply(CHANCE, deck[0])
    state = state.apply(0, PASS).apply(1, PASS)
    other = other.apply(0, PASS).apply(1, PASS)
    assert state.legal_actions(CHANCE) != other.legal_actions(CHANCE)
    for seat in (0, 1, None):
        view = state.view(seat)
        assert view.snapshot() == other.view(seat).snapshot()  # the order is not derivable
        assert view.deal.decks == (None,) * 4
        remaining = [c.id for c in LONDON.deck if c.id != deck[0]]
        outcomes = view.chance_outcomes()
        assert [c for c, _ in outcomes] == remaining
        assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)


def test_a_view_is_read_only() -> None:
    state = _mid_turn(2)
    view = state.view(0)
    for check in (True, False):
        with pytest.raises(IllegalActionError) as info:
            view.apply_in_place(0, PASS, check=check)
        assert info.value.reason == "hidden-information"
    with pytest.raises(IllegalActionError, match="player 0's view"):
        view.apply(0, PASS)
    with pytest.raises(ValueError, match="resample a view first"):
        view.random_playout([Rng(1), Rng(2)])
    assert view.snapshot() == state.view(0).snapshot()  # unchanged
    assert view.legal_actions(0) == state.legal_actions(0)


@pytest.mark.parametrize("seat", [-1, 3, True, "0", 1.0])
def test_view_refuses_a_bad_seat(seat: object) -> None:
    with pytest.raises(ValueError, match="no seat"):
        _mid_turn().view(seat)  # type: ignore[arg-type]


def test_a_view_narrows_to_the_spectator_only() -> None:
    state = _mid_turn()
    after = state.apply(1, state.legal_actions(1)[1]).apply(0, state.legal_actions(0)[1])
    view = after.view(1)
    assert view.view(1).snapshot() == view.snapshot()
    assert view.view(None).snapshot() == after.view(None).snapshot()
    with pytest.raises(ValueError, match="player 1's view"):
        view.view(0)
    with pytest.raises(ValueError, match="spectator's view"):
        after.view(None).view(2)


def test_views_along_random_games_match_the_full_state_before_the_hidden_actions() -> None:
    """At every step: a seat's view shows each other acted player's map as it was when the
    card was flipped (the state right after the flip), and its own as it is."""
    for city, players, options in (CONFIGS[3], CONFIGS[4], CONFIGS[7]):
        game = make_game(city, players, options)
        flip_state = None
        for state in random_states(game, 31):
            history = state.history()
            if history and history[-1][0] == CHANCE:
                flip_state = state
            for seat in [None, *range(players)]:
                view = state.view(seat)
                assert view.to_move() == state.to_move()
                in_turn = not state.is_over() and CHANCE not in state.to_move()
                for p in range(players):
                    if in_turn and p not in state.to_move() and p != seat:
                        assert flip_state is not None
                        assert view.maps[p].same_as(flip_state.maps[p])
                        assert view.power_used[p] == flip_state.power_used[p]
                    else:
                        assert view.maps[p].same_as(state.maps[p])
                hidden = [i for i, (p, a) in enumerate(view.history()) if a == HIDDEN]
                assert all(view.history()[i][0] != seat for i in hidden)
                assert len(view.history()) == len(history)


# -- resampling ----------------------------------------------------------------------------
def _replayed(state: NextStationState) -> NextStationState:
    """``state``'s history replayed with checked ``apply`` from its deal with unknown decks:
    every action of it is legal where it was played."""
    game = state.game
    out = game.from_deal(replace(state.deal, decks=(None,) * 4))
    for p, action in state.history():
        out = out.apply(p, action)
    return out


@pytest.mark.parametrize(("city", "players", "options"), [CONFIGS[3], CONFIGS[4], CONFIGS[7]])
def test_resample_is_consistent_with_the_view_and_plays_to_the_end(
    city: str, players: int, options: dict[str, object]
) -> None:
    game = make_game(city, players, options)
    resampled = 0
    for k, state in enumerate(random_states(game, 41)):
        if k % 4:
            continue
        seat = k % players
        view = state.view(seat)
        sample = state.resample(seat, Rng(k, "a"))
        from_view = view.resample(seat, Rng(k, "a"))
        assert sample.snapshot() == from_view.snapshot()  # from the state or its own view
        assert sample.viewer is None
        assert sample.view(seat).snapshot() == view.snapshot()
        assert sample.view(seat).history() == view.history()
        assert sample.maps[seat].same_as(state.maps[seat])
        assert sample.to_move() == state.to_move()
        if not state.is_over():
            deck = sample.deal.decks[state.round]
            assert deck is not None and deck[: len(state.flipped)] == state.flipped
            assert sorted(deck) == sorted(c.id for c in state.city.deck)
            for later in sample.deal.decks[state.round + 1 :]:
                assert later is not None and sorted(later) == sorted(deck)
        assert all(a != HIDDEN for _, a in sample.history())
        replayed = _replayed(sample)
        for p in range(players):
            assert replayed.maps[p].same_as(sample.maps[p])
        sample.random_playout([Rng(k, f"play:{p}") for p in range(players)])
        assert sample.is_over()
        resampled += 1
    assert resampled > 10


def test_resample_draws_the_hidden_action_and_the_next_card_at_random() -> None:
    state = _mid_turn(3, {"powers": POWERS})
    state = state.apply(0, state.legal_actions(0)[1]).apply(2, PASS)
    view = state.view(1)
    cards = set()
    actions = set()
    for k in range(60):
        sample = view.resample(1, Rng(k, "draw"))
        sample = sample.apply(1, PASS)
        cards.add(sample.legal_actions(CHANCE)[0])
        (p0, a0), (p2, a2), last = sample.history()[-3:]  # 0 and 2 were both hidden
        assert (p0, p2, last) == (0, 2, (1, PASS))
        actions.add((a0, a2))
    assert cards == set(view.remaining_cards())  # every remaining card comes up
    assert len(actions) > 5


def test_resample_plays_on_with_apply() -> None:
    game = make_game("london", 2, {"powers": "random"})
    state = _mid_turn(2, {"powers": "random"})
    state = state.apply(1, state.legal_actions(1)[-1])
    sample = state.resample(0, Rng(3))
    rng = Rng(4)
    while not sample.is_over():
        p = min(sample.to_move())
        legal = sample.legal_actions(p)
        sample = sample.apply(p, legal[0] if p == CHANCE else rng.choice(legal))
    assert len(sample.scores()) == 2 and sample.winners()
    assert game == sample.game


def test_resample_refuses_another_seat_s_view_and_bad_seats() -> None:
    state = _mid_turn()
    with pytest.raises(ValueError, match="player 0's view"):
        state.view(0).resample(1, Rng(1))
    with pytest.raises(ValueError, match="spectator's view"):
        state.view(None).resample(1, Rng(1))
    for seat in (-1, 3, None, True):
        with pytest.raises(ValueError, match="no seat"):
            state.resample(seat, Rng(1))  # type: ignore[arg-type]


# -- snapshots -----------------------------------------------------------------------------
@pytest.mark.parametrize(("city", "players", "options"), CONFIGS)
def test_snapshots_round_trip_at_every_step(
    city: str, players: int, options: dict[str, object]
) -> None:
    game = make_game(city, players, options)
    for k, state in enumerate(random_states(game, 7 + players)):
        for shown in (state, *(state.view(s) for s in [None, *range(players)])):
            text = shown.snapshot()
            assert text.isascii() and "\n" not in text
            assert text.startswith(f"{city}/1 {players} ")
            read = game.from_snapshot(text)
            _same(read, shown)
            assert read.history() == []
        if k % 15 == 0:  # the read state plays on identically
            read = game.from_snapshot(state.snapshot())
            ahead = state.clone()
            ahead.random_playout([Rng(k, f"on:{p}") for p in range(players)])
            read.random_playout([Rng(k, f"on:{p}") for p in range(players)])
            _same(read, ahead)
            assert read.winners() == ahead.winners()
        if k % 15 == 7 and players > 1:  # a view's resamples too
            view = state.view(k % players)
            again = game.from_snapshot(view.snapshot())
            assert (
                again.resample(k % players, Rng(k)).snapshot()
                == view.resample(k % players, Rng(k)).snapshot()
            )


def test_a_read_snapshot_keeps_what_the_others_must_not_see() -> None:
    state = _mid_turn()
    after = state.apply(0, state.legal_actions(0)[2])
    read = after.game.from_snapshot(after.snapshot())
    assert read.view(1).snapshot() == after.view(1).snapshot()
    assert read.view(1).maps[0].same_as(state.maps[0])
    sample = read.resample(1, Rng(2))  # the hidden action happened before the history began
    assert sample.view(1).snapshot() == read.view(1).snapshot()
    assert sample.history() == []
    sample.random_playout([Rng(3, f"play:{p}") for p in range(sample.num_players)])
    assert sample.is_over()


def test_the_documented_example_reads() -> None:
    """docs/notation.md's example: a 2-player London game with powers, mid-turn."""
    text = _doc_example()
    powers = {
        "blue": "circle-station",
        "pink": "joker",
        "purple": "switch",
        "green": "double-section",
    }
    game = NextStationGame("london", 2, Options.from_json(LONDON, {"powers": powers}))
    state = game.from_snapshot(text)
    assert state.snapshot() == text
    assert state.to_move() == frozenset({1})
    assert state.card == "street-circle"


def _doc_example() -> str:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "notation.md").read_text(encoding="utf-8")
    match = re.search(r"^`(london/1 [^`]+)`$", doc, re.MULTILINE)
    assert match is not None
    return match[1]


def _london2(**options: object) -> NextStationGame:
    return NextStationGame("london", 2, Options.from_json(LONDON, options))


def _mutate(text: str, field: int, value: str) -> str:
    parts = text.split(" ")
    parts[field] = value
    return " ".join(parts)


@pytest.fixture(scope="module")
def mid() -> str:
    """A snapshot of a 2-player London game mid-turn (player 0 has drawn, player 1 not)."""
    state = _mid_turn(2)
    state = state.apply(0, state.legal_actions(0)[1])
    return state.snapshot()


BAD_SNAPSHOTS = [
    (lambda s: s.replace("london/1", "paris/1", 1), "not a london snapshot"),
    (lambda s: s.replace("london/1", "london/2", 1), "version '2' is not supported"),
    (lambda s: s.replace("london/1", "london", 1), "not a london snapshot"),
    (lambda s: _mutate(s, 1, "3"), "for '3' players, not 2"),
    (lambda s: s + " -0,0,0,0", "has 12 space-separated fields"),
    (lambda s: s.rsplit(" ", 1)[0], "has 12 space-separated fields"),
    (lambda s: s.replace(" ", "  ", 1), "for '' players"),
    (lambda s: _mutate(s, 2, "5"), "viewer must be"),
    (lambda s: _mutate(s, 3, "0012"), "repeats a digit"),
    (lambda s: _mutate(s, 3, "012"), "lists the 4 colours"),
    (lambda s: _mutate(s, 4, "01"), "objectives .* do not match"),
    (lambda s: _mutate(s, 5, "0123"), "pencil powers on do not match"),
    (lambda s: _mutate(s, 6, "?,?,?"), "4 decks"),
    (lambda s: _mutate(s, 6, "0123456789f,?,?,?"), "digits 0-a expected"),
    (lambda s: _mutate(s, 6, "0123456789,?,?,?"), "must list the 11 cards"),
    (lambda s: _mutate(s, 7, "5"), "round must be 0 to 4"),
    (lambda s: _mutate(s, 8, "f"), "digits 0-a expected"),
    (lambda s: _mutate(s, 9, "2.1.2.-"), "turn is 2, the cards say 1"),
    (lambda s: _mutate(s, 9, "1.0.2.-"), "ends is 0, the cards say 1"),
    (lambda s: _mutate(s, 9, "1.1.2.b"), "switch effect is True"),
    (lambda s: _mutate(s, 9, "1.1.0.-"), "waiting for a card is False"),
    (lambda s: _mutate(s, 9, "1.1.2.o"), "game over is True"),
    (lambda s: _mutate(s, 9, "1.1.6.-"), "not all seats"),
    (lambda s: _mutate(s, 9, "1.1.2."), "bad turn field"),
    (lambda s: _mutate(s, 8, "5a"), "flipped cards are not the first cards"),
    (lambda s: _mutate(s, 2, "1"), "a view's decks are unknown"),
    (lambda s: _mutate(s, 10, "-0,0,0,0/-1"), "turn start is not an earlier state"),
    (lambda s: _mutate(s, 11, "-0,0,0,0/-0"), "only for a player who acted"),
    (lambda s: _mutate(s, 11, "+0,0,0,0"), "used a power with no power"),
    (lambda s: _mutate(s, 11, "-0,0,0,1" + "0" * 60), "is not a link"),
    (lambda s: _mutate(s, 11, "-0,0,0,G"), "bad line"),
    (lambda s: _mutate(s, 11, "-0,0,0,01"), "bad line"),
    (lambda s: _mutate(s, 11, "-0,0@E4,0,0"), "circle without the circle-station"),
    (lambda s: _mutate(s, 11, "-0,0,0,0@E4"), "drawn before its round"),
    (lambda s: _mutate(s, 11, "-0,0,0"), "4 lines expected"),
    (lambda s: s.replace("london", "l\u00f6ndon", 1), "printable ASCII"),
    (lambda s: s + "\n", "printable ASCII"),
    (lambda s: s + " " * 5000, "at most 4096 characters"),
]


@pytest.mark.parametrize(("mutate", "message"), BAD_SNAPSHOTS)
def test_bad_snapshots_are_refused(mid: str, mutate: object, message: str) -> None:
    game = _london2(colour_cycle=["green", "blue", "pink", "purple"])
    assert game.from_snapshot(mid).snapshot() == mid
    with pytest.raises(NotationError, match=message):
        game.from_snapshot(mutate(mid))  # type: ignore[operator]


def test_snapshots_of_other_options_and_content_are_refused(mid: str) -> None:
    with pytest.raises(NotationError, match="colour cycle green blue pink purple is not"):
        _london2(colour_cycle=["blue", "green", "pink", "purple"]).from_snapshot(mid)
    with pytest.raises(NotationError, match="objectives none do not match"):
        _london2(objectives="random").from_snapshot(mid)
    with pytest.raises(NotationError, match="pencil powers off do not match"):
        _london2(powers="random").from_snapshot(mid)
    with pytest.raises(NotationError, match="for '2' players, not 3"):
        NextStationGame("london", 3).from_snapshot(mid)
    with pytest.raises(NotationError, match="not a paris snapshot"):
        NextStationGame("paris", 2).from_snapshot(mid)
    for bad in (None, 42, b"london/1"):
        with pytest.raises(NotationError, match="must be text"):
            _london2().from_snapshot(bad)  # type: ignore[arg-type]


def _line(*pairs: tuple[str, str]) -> str:
    return f"{sum(1 << LONDON.link_by_names(a, b) for a, b in pairs):x}"


def test_lines_off_the_departure_or_out_of_their_round_are_refused(mid: str) -> None:
    game = _london2()
    state = game.from_snapshot(mid)
    colour = state.colour(1)
    later = state.colour(1, 1)

    def player1(line: str, c: int) -> str:
        lines = ["0"] * 4
        lines[c] = line
        return _mutate(mid, 11, "-" + ",".join(lines))

    departure = LONDON.departures[colour]
    first = (
        LONDON.stations[departure].name,
        LONDON.stations[LONDON.adjacency[departure][0][1]].name,
    )
    read = game.from_snapshot(player1(_line(first), colour))  # a legal line reads
    assert read.maps[1].stations[colour].bit_count() == 2
    with pytest.raises(NotationError, match="is not joined to the departure station"):
        game.from_snapshot(player1(_line(("A1", "B1")), colour))
    with pytest.raises(NotationError, match="drawn before its round"):
        game.from_snapshot(player1(_line(first), later))


def _extensions(state: NextStationState, player: int, colour: int) -> dict[str, list[int]]:
    """Links that keep ``colour``'s line of ``player`` a connected set: by what adding them
    breaks (another line has it, it crosses a drawn link, it closes a loop)."""
    board = state.maps[player]
    on_line = board.stations[colour]
    drawn = board.drawn
    out: dict[str, list[int]] = {"two lines": [], "crossing": [], "loop": []}
    for j, (a, b) in enumerate(LONDON.links):
        touches = ((on_line >> a) & 1) + ((on_line >> b) & 1)
        if touches == 2 and not (board.sections[colour] >> j) & 1:
            out["loop"].append(j)
        elif touches == 1 and (drawn >> j) & 1:
            out["two lines"].append(j)
        elif touches == 1 and LONDON.conflicts[j] & drawn:
            out["crossing"].append(j)
    return out


def test_lines_that_break_the_drawing_rules_are_refused() -> None:
    game = make_game("london", 1, {})
    *_, final = random_states(game, 3)
    text = final.snapshot()
    checked = 0
    for colour in range(4):
        if not final.maps[0].sections[colour]:
            continue
        for problem, message in (
            ("two lines", "is on two lines"),
            ("crossing", "crosses"),
            ("loop", "visits a station twice"),
        ):
            links = _extensions(final, 0, colour)[problem]
            if not links:
                continue
            lines = text.split(" ")[10][1:].split(",")
            lines[colour] = f"{final.maps[0].sections[colour] | 1 << links[0]:x}"
            with pytest.raises(NotationError, match=message):
                game.from_snapshot(_mutate(text, 10, "-" + ",".join(lines)))
            checked += 1
    assert checked >= 6


def test_a_snapshot_state_cannot_be_recorded_but_plays(mid: str) -> None:
    game = _london2()
    state = game.from_snapshot(mid)
    assert not state.history_from_deal
    state = state.apply(1, PASS)
    assert state.history() == [(1, PASS)]
    assert CHANCE in state.to_move()
    nxt = state.legal_actions(CHANCE)[0]
    assert state.apply(CHANCE, nxt).card == nxt
