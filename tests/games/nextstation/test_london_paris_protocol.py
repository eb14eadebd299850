"""Next Station (London, Paris) implements the game protocol: options, the dense action index,
chance outcomes, legality checks, score components, notation and records.

Source: ``src/metrogames/core/protocol.py`` and ``docs/notation.md`` ("Dense action index",
"Options", "Game record"). Expected values are derived here from the data files and the
documented layout (brute force over links and stations), not from the engine's index code.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from metrogames.core.errors import NotationError, OptionError, RecordError
from metrogames.core.protocol import CHANCE, Game, State
from metrogames.core.rng import Rng
from metrogames.data import load_json
from metrogames.games.nextstation.actions import PASS, TurnAction
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.record import parse_record, replay
from metrogames.games.nextstation.state import (
    HIDDEN,
    NextStationAction,
    NextStationGame,
    NextStationState,
)
from support.nextstation_games import CONFIGS, POWERS, make_game, random_states

LONDON = load_city("london")
PARIS = load_city("paris")


def _station(city_name: str, name: str) -> int:
    return load_city(city_name).station(name)


# -- the protocol's shape (mypy checks these assignments too) ------------------------------
def test_the_engine_is_a_protocol_game_and_state() -> None:
    game: Game[NextStationAction] = NextStationGame("london", 2)
    state: State[NextStationAction] = game.new_game(3)
    assert state.game == game
    assert state.viewer is None
    assert game.pass_action is PASS
    assert hash(NextStationGame("london", 2)) == hash(game)  # frozen and hashable


@pytest.mark.parametrize("players", [0, 5, -1, True, "2", 2.0, None])
def test_player_counts_outside_1_to_4_raise_option_error(players: object) -> None:
    with pytest.raises(OptionError, match="1 to 4 players"):
        NextStationGame("london", players)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # OptionError is a ValueError: old callers still work
        NextStationGame("paris", players)  # type: ignore[arg-type]


def test_unknown_city_raises_option_error() -> None:
    with pytest.raises(OptionError, match="unknown Next Station city 'rome'"):
        NextStationGame("rome")


# -- options -------------------------------------------------------------------------------
OPTION_CASES = [
    ("london", {}),
    ("london", {"objectives": "random"}),
    ("london", {"powers": "random", "objectives": ["thames-6", "all-districts"]}),
    ("london", {"powers": POWERS, "colour_cycle": ["green", "blue", "pink", "purple"]}),
    ("paris", {"objectives": ["districts-7", "monuments-6"]}),
    ("paris", {"colour_cycle": ["purple", "green", "blue", "orange"], "objectives": "random"}),
]


@pytest.mark.parametrize(("city", "options"), OPTION_CASES)
def test_options_json_is_the_options_as_given(city: str, options: dict[str, object]) -> None:
    game = make_game(city, 2, options)
    assert game.options_json() == options  # non-default keys only, as given
    assert Options.from_json(load_city(city), game.options_json()) == game.options


# -- the dense action index ----------------------------------------------------------------
def _directed_sections(city_name: str) -> list[tuple[int, int]]:
    """Directed links in the documented order, from the raw data file: link j's two
    directions (data order, then reversed) at 2j and 2j+1."""
    city = load_city(city_name)
    out = []
    for a, b in load_json(f"{city_name}.json")["links"]:
        out += [(city.station(a), city.station(b)), (city.station(b), city.station(a))]
    return out


def _free_entry_actions(city_name: str) -> list[TurnAction]:
    """Brute force over every station triple: s→t, t→t2 with t a monument and t2 != s."""
    city = load_city(city_name)
    n = len(city.stations)
    if not any(c.face == "free-entry" for c in city.deck):
        return []
    monuments = [i for i in range(n) if city.stations[i].monument]
    return [
        TurnAction(((s, t), (t, t2)))
        for t in monuments
        for s in range(n)
        for t2 in range(n)
        if (s, t) in city.link_of and (t, t2) in city.link_of and t2 != s
    ]


def _expected_size(city_name: str, powers: bool) -> int:
    d = len(_directed_sections(city_name))
    n = len(load_city(city_name).stations)
    size = 1 + d + len(_free_entry_actions(city_name))
    return size + (2 * d + d * d + n * (1 + d) if powers else 0)  # joker, switch, pairs, circles


@pytest.mark.parametrize(
    ("city", "options"),
    [("london", {}), ("london", {"powers": "random"}), ("paris", {})],
)
def test_the_index_is_a_bijection_over_its_whole_range(
    city: str, options: dict[str, object]
) -> None:
    game = make_game(city, 1, options)
    size = game.num_distinct_actions
    assert size == _expected_size(city, "powers" in options)
    actions = [game.action_from_index(i) for i in range(size)]
    assert len(set(actions)) == size
    assert all(game.action_index(a) == i for i, a in enumerate(actions))


def test_index_sizes() -> None:
    assert make_game("london", 1, {}).num_distinct_actions == 311
    assert make_game("london", 1, {"powers": "random"}).num_distinct_actions == 113_514
    assert make_game("paris", 1, {}).num_distinct_actions == 453


def test_the_index_follows_the_documented_layout() -> None:
    game = make_game("london", 1, {"powers": POWERS})
    directed = _directed_sections("london")
    d, n = len(directed), len(LONDON.stations)
    s = {name: _station("london", name) for name in ("D3", "G3", "E4", "E1", "F8", "F5")}
    d3g3 = directed.index((s["D3"], s["G3"]))
    g3d3 = directed.index((s["G3"], s["D3"]))
    d3e4, e4e1 = directed.index((s["D3"], s["E4"])), directed.index((s["E4"], s["E1"]))
    assert game.action_index(PASS) == 0
    assert game.action_index(TurnAction(((s["D3"], s["G3"]),))) == 1 + d3g3
    assert game.action_index(TurnAction(((s["G3"], s["D3"]),))) == 1 + g3d3
    assert abs(d3g3 - g3d3) == 1
    assert game.action_index(TurnAction(((s["D3"], s["G3"]),), "joker")) == 1 + d + d3g3
    assert game.action_index(TurnAction(((s["D3"], s["G3"]),), "switch")) == 1 + 2 * d + d3g3
    double = TurnAction(((s["D3"], s["E4"]), (s["E4"], s["E1"])), "double-section")
    assert game.action_index(double) == 1 + 3 * d + d3e4 * d + e4e1
    circle_base = 1 + 3 * d + d * d
    assert game.action_index(TurnAction((), None, s["E4"])) == circle_base + s["E4"] * (1 + d)
    circled = TurnAction(((s["D3"], s["G3"]),), None, s["G3"])
    assert game.action_index(circled) == circle_base + s["G3"] * (1 + d) + 1 + d3g3
    assert game.num_distinct_actions == circle_base + n * (1 + d)


def test_paris_free_entry_pairs_follow_the_singles() -> None:
    game = make_game("paris", 1, {})
    d = len(_directed_sections("paris"))
    pairs = _free_entry_actions("paris")
    assert {game.action_index(a) for a in pairs} == set(range(1 + d, 1 + d + len(pairs)))
    f7 = _station("paris", "F7")
    first = min(pairs, key=game.action_index)
    assert first.sections[0][1] == min(
        i for i in range(len(PARIS.stations)) if PARIS.stations[i].monument
    )
    assert all(a.sections[0][1] == a.sections[1][0] for a in pairs)
    assert any(a.sections[0][1] == f7 for a in pairs)


@pytest.mark.parametrize(
    ("city", "options", "action", "message"),
    [
        ("london", {}, "street-square", "chance outcomes"),
        ("london", {}, ((0, 1),), "not a Next Station turn action"),
        ("london", {}, TurnAction(((0, 52),)), "no link joins"),
        ("london", {}, TurnAction(((0, 99),)), "pair of station indices"),
        ("london", {}, TurnAction(([0, 1],)), "pair of station indices"),  # type: ignore[arg-type]
        ("london", {}, TurnAction(((0, 1),), "joker"), "powers are not in play"),
        ("london", {}, TurnAction((), None, 4), "powers are not in play"),
        ("london", {"powers": "random"}, TurnAction(((0, 1),), "double-section"), "2 sections"),
        ("london", {"powers": "random"}, TurnAction(((0, 1), (1, 2)), "joker"), "1 section"),
        ("london", {"powers": "random"}, TurnAction(((0, 1),), "teleport"), "unknown power"),
        ("london", {"powers": "random"}, TurnAction(((0, 1),), "joker", 3), "one power"),
        ("london", {}, TurnAction(((0, 1), (1, 2))), "no free-entry card"),
        ("paris", {}, TurnAction(((0, 1), (1, 2), (2, 3))), "at most 2 sections"),
    ],
)
def test_action_index_refuses_what_the_game_cannot_produce(
    city: str, options: dict[str, object], action: object, message: str
) -> None:
    game = make_game(city, 1, options)
    with pytest.raises(NotationError, match=message):
        game.action_index(action)  # type: ignore[arg-type]


def test_action_index_refuses_a_paris_pair_that_is_no_free_entry() -> None:
    game = make_game("paris", 1, {})
    b3, b4, d6 = (_station("paris", x) for x in ("B3", "B4", "D6"))
    game.action_index(TurnAction(((b3, b4), (b4, d6))))  # B4 is a monument
    not_monument = next(
        (s, t, t2)
        for (s, t) in PARIS.link_of
        for t2 in range(len(PARIS.stations))
        if not PARIS.stations[t].monument and (t, t2) in PARIS.link_of and t2 != s
    )
    s, t, t2 = not_monument
    with pytest.raises(NotationError, match="not a free entry"):
        game.action_index(TurnAction(((s, t), (t, t2))))


@pytest.mark.parametrize("index", [-1, 311, True, "3", 1.0, None])
def test_action_from_index_refuses_bad_indices(index: object) -> None:
    with pytest.raises(NotationError, match="action index"):
        make_game("london", 1, {}).action_from_index(index)  # type: ignore[arg-type]


@pytest.mark.parametrize(("city", "players", "options"), CONFIGS)
def test_every_legal_action_of_random_games_has_an_index(
    city: str, players: int, options: dict[str, object]
) -> None:
    game = make_game(city, players, options)
    seen = 0
    for seed in (1, 2):
        for state in random_states(game, seed):
            for p in state.to_move() - {CHANCE}:
                legal = state.legal_actions(p)
                assert len(set(legal)) == len(legal)
                for action in legal:
                    i = game.action_index(action)
                    assert 0 <= i < game.num_distinct_actions
                    assert game.action_from_index(i) == action
                seen += len(legal)
    assert seen > 100


# -- chance outcomes -----------------------------------------------------------------------
@pytest.mark.parametrize("city", ["london", "paris"])
def test_chance_outcome_index_is_the_deck_data_order(city: str) -> None:
    game = NextStationGame(city)
    ids = [card["id"] for card in load_json(f"{city}.json")["deck"]]
    assert game.max_chance_outcomes == len(ids) == 11
    for i, card in enumerate(ids):
        assert game.chance_outcome_index(card) == i
        assert game.chance_outcome_from_index(i) == card


@pytest.mark.parametrize("bad", ["metro-joker", "", None, 3, PASS, ["street-square"]])
def test_chance_outcome_index_refuses_unknown_cards(bad: object) -> None:
    with pytest.raises(NotationError, match="unknown card"):
        NextStationGame("london").chance_outcome_index(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 11, True, "0", 0.0])
def test_chance_outcome_from_index_refuses_bad_indices(bad: object) -> None:
    with pytest.raises(NotationError, match="chance outcome index"):
        NextStationGame("paris").chance_outcome_from_index(bad)  # type: ignore[arg-type]


def test_chance_outcomes_of_a_known_deck_and_of_an_unknown_one() -> None:
    game = make_game("london", 2, {})
    deck_order = [c["id"] for c in load_json("london.json")["deck"]]
    states = list(random_states(game, 5))
    checked = 0
    for state in states:
        outcomes = state.chance_outcomes()
        if CHANCE not in state.to_move():
            assert outcomes == []
            continue
        deck = state.deal.decks[state.round]
        assert deck is not None
        assert outcomes == [(deck[len(state.flipped)], 1.0)]
        unknown = game.from_deal(replace(state.deal, decks=(None,) * 4))
        for p, a in state.history():
            unknown.apply_in_place(p, a)
        remaining = [c for c in deck_order if c not in state.flipped]
        out = unknown.chance_outcomes()
        assert [c for c, _ in out] == remaining
        assert all(prob == 1 / len(remaining) for _, prob in out)
        assert math.fsum(prob for _, prob in out) == pytest.approx(1.0, abs=1e-12)
        checked += 1
    assert checked > 30


def _member(action: object, legal: list[NextStationAction]) -> bool:
    """``action in legal`` for values that may be unhashable, and strict on types (``0.0``
    and ``True`` equal ``0`` and ``1`` but are no station indices)."""
    return any(action == a and repr(action) == repr(a) for a in legal)


# -- is_legal ------------------------------------------------------------------------------
GARBAGE: list[object] = [
    None,
    "pass",
    [],
    {"sections": []},
    ("a", "b"),
    TurnAction([[0, 1]]),  # type: ignore[arg-type]
    TurnAction(((0, 1, 2),)),  # type: ignore[arg-type]
    TurnAction(((0, 10**9),)),
    TurnAction(((-1, 0),)),
    TurnAction(((0.0, 1),)),  # type: ignore[arg-type]
    TurnAction(((True, 1),)),
    TurnAction(((0, 1),), ["joker"]),  # type: ignore[arg-type]
    TurnAction(((0, 1),), "circle-station"),
    TurnAction((), None, 99),
    TurnAction((), None, "E4"),  # type: ignore[arg-type]
    TurnAction(((0, 1), (1, 2), (2, 3))),
]


def test_is_legal_agrees_with_legal_actions_and_apply_and_never_raises() -> None:
    rng = Rng(11, "is-legal")
    for city, players, options in (CONFIGS[2], CONFIGS[3], CONFIGS[7]):
        game = make_game(city, players, options)
        for k, state in enumerate(random_states(game, 9)):
            if k % 3:
                continue
            for p in [CHANCE, *range(players), players, -2]:
                legal = state.legal_actions(p)
                sampled = [
                    game.action_from_index(rng.below(game.num_distinct_actions)) for _ in range(15)
                ]
                cards = [c.id for c in state.city.deck]
                for action in [*legal, *sampled, *cards, *GARBAGE]:
                    verdict = state.is_legal(p, action)
                    assert verdict == _member(action, legal), (p, action)
                    if (
                        isinstance(action, TurnAction | str)
                        and p >= CHANCE
                        and (verdict or rng.below(4) == 0)
                    ):
                        try:
                            state.apply(p, action)
                            applied = True
                        except Exception:  # any refusal: IllegalActionError and its kinds
                            applied = False
                        assert applied == verdict, (p, action)
            for bad_player in (None, "0", True, 1.5, [0]):
                assert state.is_legal(bad_player, PASS) is False  # type: ignore[arg-type]


def test_is_legal_works_on_views() -> None:
    game = make_game("london", 3, {"powers": POWERS})
    for state in random_states(game, 4):
        for seat in (None, 0, 1, 2):
            view = state.view(seat)
            for p in [CHANCE, 0, 1, 2]:
                legal = view.legal_actions(p)
                if p == seat:  # the viewer's own actions are the full state's
                    assert legal == state.legal_actions(p)
                for action in [*legal, *GARBAGE, PASS, "street-switch"]:
                    assert view.is_legal(p, action) == _member(action, legal)


# -- score components ----------------------------------------------------------------------
@pytest.mark.parametrize(("city", "players", "options"), CONFIGS[2:4] + CONFIGS[6:])
def test_score_components_add_up_to_the_score(
    city: str, players: int, options: dict[str, object]
) -> None:
    game = make_game(city, players, options)
    *_, final = random_states(game, 21)
    for p in range(players):
        parts = final.score_components(p)
        sheet = final.breakdown(p)
        keys = ["lines", "tourist", "interchanges", "objectives", "total"]
        if city == "paris":
            keys = ["lines", "interchanges", "bridges", "objectives", "total"]
        if not final.deal.objectives:
            keys.remove("objectives")
        assert list(parts) == keys
        assert parts["total"] == final.scores()[p] == sheet.total
        assert sum(v for k, v in parts.items() if k != "total") == parts["total"]
        assert parts["lines"] == sum(ls.score for ls in sheet.lines.values())
        assert parts["interchanges"] == sheet.interchange_points


# -- notation ------------------------------------------------------------------------------
def test_actions_round_trip_through_text_and_json() -> None:
    game = make_game("london", 2, {"powers": POWERS})
    for state in random_states(game, 13):
        for p in state.to_move():
            for action in state.legal_actions(p):
                text = state.action_to_string(p, action)
                assert state.string_to_action(p, text) == action
                assert state.action_from_json(p, state.action_to_json(p, action)) == action
    state = game.new_game(1)
    assert state.action_to_string(CHANCE, "street-joker") == "street-joker"
    assert state.string_to_action(CHANCE, " street-joker ") == "street-joker"
    assert state.action_to_json(CHANCE, "underground-joker") == "underground-joker"
    e4 = _station("london", "E4")
    assert state.action_to_string(0, TurnAction((), None, e4)) == "@E4"


@pytest.mark.parametrize(
    ("call", "player", "value", "message"),
    [
        ("action_to_string", CHANCE, "metro-joker", "unknown card"),  # a Paris card
        ("action_to_string", CHANCE, PASS, "unknown card"),
        ("action_to_string", 0, "street-joker", "not a turn action"),
        ("action_to_string", 0, HIDDEN, "not a turn action"),
        ("action_to_string", 0, TurnAction(((0, 99),)), "pairs of station indices"),
        ("action_to_string", 5, PASS, "no player 5"),
        ("action_to_json", CHANCE, "street-teleport", "unknown card"),
        ("string_to_action", CHANCE, "street-free-entry", "unknown card"),
        ("string_to_action", 0, "Z9-A1", "unknown station"),
        ("string_to_action", 2, "pass", "no player 2"),
        ("action_from_json", CHANCE, {"card": "street-joker"}, "unknown card"),
        ("action_from_json", 1, {"sections": [["D3"]]}, "pair"),
    ],
)
def test_notation_refuses_what_is_not_an_action(
    call: str, player: int, value: object, message: str
) -> None:
    state = make_game("london", 2, {}).new_game(1)
    with pytest.raises(NotationError, match=message):
        getattr(state, call)(player, value)


# -- records -------------------------------------------------------------------------------
def test_to_record_replays_to_the_same_position() -> None:
    game = make_game("london", 3, {"powers": "random", "objectives": "random"})
    for k, state in enumerate(random_states(game, 17)):
        if k % 25:
            continue
        record = game.to_record(state, ["a", "b", "c"], seed=17, reveal=state.is_over())
        again = replay(parse_record(record))
        assert again.snapshot() == state.snapshot()
        # the record lists a turn's actions by seat, not in the order they were played
        assert sorted(map(repr, again.history())) == sorted(map(repr, state.history()))


def test_to_record_of_a_view_writes_hidden_actions_as_not_played() -> None:
    game = make_game("london", 3, {})
    state = game.new_game(8)
    state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
    state = state.apply(0, state.legal_actions(0)[1])
    state = state.apply(2, PASS)
    record: Any = game.to_record(state.view(1), ["a", "b", "c"])  # JSON: indexed freely here
    assert record["rounds"][-1]["turns"][-1] == [None, None, None]
    assert "deck" not in record["rounds"][-1]
    own: Any = game.to_record(state.view(0), ["a", "b", "c"])
    assert own["rounds"][-1]["turns"][-1][0] is not None
    assert own["rounds"][-1]["turns"][-1][1:] == [None, None]
    seen = replay(parse_record(record))  # a game in progress: the hidden actions still to come
    assert seen.to_move() == frozenset({0, 1, 2})
    assert seen.maps[0].same_as(state.view(1).maps[0])


def test_to_record_refuses_snapshots_other_games_and_wrong_names() -> None:
    game = make_game("london", 2, {})
    state = game.new_game(4)
    read = game.from_snapshot(state.snapshot())
    assert read.history() == [] and not read.history_from_deal
    with pytest.raises(RecordError, match="snapshot"):
        game.to_record(read, ["a", "b"])
    with pytest.raises(RecordError, match="not a state of this game"):
        game.to_record(make_game("paris", 2, {}).new_game(4), ["a", "b"])
    with pytest.raises(RecordError, match="2 player names"):
        game.to_record(state, ["a"])


def test_deal_record_is_the_seed_s_deal() -> None:
    game = make_game("paris", 2, {"objectives": "random"})
    record: Any = game.deal_record(99)
    assert record["players"] == ["p0", "p1"]
    assert record["meta"] == {"seed": 99}
    parsed = parse_record(record)
    assert parsed.is_deal
    dealt = game.new_game(99)
    assert parsed.new_state().deal == dealt.deal
    assert [r["deck"] for r in record["rounds"]] == [list(d or ()) for d in dealt.deal.decks]


def test_history_pairs_players_with_actions() -> None:
    game = make_game("london", 2, {})
    *_, final = random_states(game, 2)
    history = final.history()
    assert all(isinstance(p, int) for p, _ in history)
    assert all(isinstance(a, str) for p, a in history if p == CHANCE)
    assert all(isinstance(a, TurnAction) for p, a in history if p != CHANCE)
    assert isinstance(final, NextStationState)
