"""London game records (docs/notation.md, "Game record"): played records round-trip and replay
to the same game; tampered, malformed and hostile records are refused with the right error,
reason and place."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from metrogames.bots import make_bot
from metrogames.cli import files
from metrogames.core.errors import IllegalActionError, RecordError
from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import action_from_json, action_to_json
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.record import (
    deal_record,
    parse_record,
    replay,
    to_record,
)
from metrogames.games.nextstation.state import NextStationGame, NextStationState
from support.london_records import (
    CROSSING_MESSAGE,
    LONDON,
    ROUND_1_PINK,
    Turn,
    hand_record,
    play_london,
    play_london_state,
)

POWERS = {"blue": "circle-station", "pink": "joker", "purple": "switch", "green": "double-section"}


def run(record: Any) -> NextStationState:
    return replay(parse_record(record))


def refused(record: Any) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as info:
        run(record)
    return info.value


def bad_record(record: Any, message: str) -> None:
    with pytest.raises(RecordError) as info:
        run(record)
    assert message in str(info.value)


# -- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "bots", "options"),
    [
        (7, ("greedy", "random"), None),
        (11, ("greedy",), None),
        (12, ("random",) * 4, None),
        (13, ("greedy", "greedy", "random"), {"objectives": "random", "powers": "random"}),
    ],
    ids=["2p", "solo", "4p", "3p-modules"],
)
def test_played_record_round_trips_and_replays_to_the_same_game(
    seed: int, bots: tuple[str, ...], options: Any
) -> None:
    state = play_london_state(seed, bots, options)
    names = [f"bot:{b}" for b in bots]
    record = to_record(state, names, seed=seed, reveal_decks=True)
    text = json.dumps(record)
    again = replay(parse_record(json.loads(text)))
    assert again.is_over()
    assert again.scores() == state.scores()
    assert again.winners() == state.winners()
    assert to_record(again, names, seed=seed, reveal_decks=True) == record
    # the record holds the drawn module values, not "random"
    assert record["options"]["colour_cycle"] and isinstance(record["options"]["objectives"], list)


def test_modules_record_uses_powers(make_record: Callable[..., dict[str, Any]]) -> None:
    record = make_record(
        13, ("greedy", "greedy", "random"), {"objectives": "random", "powers": "random"}
    )
    assert len(record["options"]["objectives"]) == 2
    assert sorted(record["options"]["powers"].values()) == sorted(LONDON.powers)


def test_record_without_seed_replays_from_its_decks(london_record: dict[str, Any]) -> None:
    scores = run(london_record).scores()
    del london_record["seed"]
    assert run(london_record).scores() == scores
    for rnd in london_record["rounds"]:  # and from the cards alone
        del rnd["deck"]
    state = run(london_record)
    assert state.is_over()
    assert state.scores() == scores


def test_record_without_seed_needs_a_colour_cycle(london_record: dict[str, Any]) -> None:
    del london_record["seed"]
    del london_record["options"]["colour_cycle"]
    with pytest.raises(RecordError, match="colour_cycle must be given"):
        run(london_record).scores()


def test_deal_record_parses_as_a_deal() -> None:
    state = NextStationGame("london", 2).new_game(5)
    deal = deal_record(state, ["a", "b"], {"seed": 5})
    parsed = parse_record(json.loads(json.dumps(deal)))
    assert parsed.is_deal
    assert [r["deck"] for r in parsed.rounds] == [list(d) for d in state.deal.decks]  # type: ignore[arg-type]
    start = replay(parsed)
    assert not start.is_over()
    assert start.scores() == [0, 0]
    # a deal needs all four decks, and a played record is no deal
    short = copy.deepcopy(deal)
    short["rounds"] = short["rounds"][:3]
    assert not parse_record(short).is_deal
    assert not parse_record(play_london(7)).is_deal


def test_in_progress_record_replays_to_the_unfinished_state() -> None:
    state = NextStationGame("london", 2).new_game(21)
    bots = [make_bot("greedy", 1), make_bot("random", 2)]
    # play into round 2, then stop in a turn where player 0 has acted and player 1 has not
    while not (state.round == 1 and state.turn == 3 and not state.awaiting_card):
        movers = state.to_move()
        if CHANCE in movers:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
        else:
            for p in sorted(movers):
                state.apply_in_place(p, bots[p].decide(state, p, state.legal_actions(p)))
    state.apply_in_place(0, bots[0].decide(state, 0, state.legal_actions(0)))
    record = to_record(state, ["a", "b"])
    assert "seed" not in record
    assert record["rounds"][-1]["turns"][-1][1] is None
    assert record["rounds"][-1]["turns"][-1][0] is not None
    again = run(json.loads(json.dumps(record)))
    assert not again.is_over()
    assert again.winners() == []
    assert again.scores() == state.scores()
    assert again.to_move() == frozenset({1})
    assert to_record(again, ["a", "b"]) == record


def test_null_action_in_a_finished_turn_is_refused(london_record: dict[str, Any]) -> None:
    london_record["rounds"][0]["turns"][0][0] = None
    bad_record(london_record, "round 1, turn 1: player 0 has no action in a finished turn")


# -- tampered actions ------------------------------------------------------------------------


def test_crossing_section_gives_the_spec_message(crossing_record: dict[str, Any]) -> None:
    error = refused(crossing_record)
    assert error.reason == "crosses-section"
    assert (error.where.round, error.where.turn, error.where.player) == (2, 4, 0)
    assert str(error) == CROSSING_MESSAGE
    # the same record up to turn 3 is a valid game in progress
    crossing_record["rounds"][1]["cards"].pop()
    crossing_record["rounds"][1]["turns"].pop()
    state = run(crossing_record)
    assert not state.is_over()
    assert state.round == 1


def _find_crossing(record: dict[str, Any]) -> tuple[int, int, int, list[list[str]]]:
    """The first (round, turn, player, sections) where a player of ``record`` could have drawn a
    section that crosses their own map: from an end, to a station of the card's symbol."""
    city = LONDON
    state = parse_record(record).new_state()
    for r, rnd in enumerate(record["rounds"]):
        t = 0
        for card in rnd["cards"]:
            state.apply_in_place(CHANCE, card)
            if state.awaiting_card:
                continue
            face = city.card_by_id[card].face
            targets = city.symbol_mask.get(face, city.all_stations_mask)
            for p, value in enumerate(rnd["turns"][t]):
                board = state.maps[p]
                colour = state.colour(p)
                for s in range(len(city.stations)):
                    if not (board.starts(city, colour, state.branch) >> s) & 1:
                        continue
                    for link, target in city.adjacency[s]:
                        if (
                            (targets >> target) & 1
                            and not (board.stations[colour] >> target) & 1
                            and not (board.drawn >> link) & 1
                            and city.conflicts[link] & board.drawn
                        ):
                            names = [city.stations[s].name, city.stations[target].name]
                            return r + 1, t + 1, p, [names]
                state.apply_in_place(p, action_from_json(city, value))
            t += 1
    raise AssertionError("no crossing section found")


def test_played_record_with_an_action_changed_to_a_crossing_section() -> None:
    record = play_london(7)
    rnd, turn, player, sections = _find_crossing(record)
    record["rounds"][rnd - 1]["turns"][turn - 1][player] = {"sections": sections}
    error = refused(record)
    assert error.reason == "crosses-section"
    assert (error.where.round, error.where.turn, error.where.player) == (rnd, turn, player)
    assert str(error).startswith(
        f"round {rnd}, turn {turn}, player {player}: section {sections[0][0]}-{sections[0][1]} crosses the "
    )


def _passes(*cards: str) -> list[Turn]:
    return [(c, ["pass", "pass"]) for c in cards]


SIMPLE_ROUND_1: list[Turn] = [
    ("street-square", ["H4-G3", "pass"]),
    *_passes(
        "underground-square", "underground-circle", "underground-pentagon", "underground-triangle"
    ),
    ("underground-joker", ["pass", "pass"]),
]
"""Player 0's pink line is H4-G3; the round ends at turn 6."""


@pytest.mark.parametrize(
    ("rounds", "where", "reason", "detail"),
    [
        (
            [[("street-circle", ["H4-G3", "pass"])]],
            (1, 1, 0),
            "wrong-symbol",
            "section H4-G3: G3 is a square, not the card's symbol",
        ),
        (
            [[*ROUND_1_PINK[:2], ("street-triangle", ["G3-J3", "pass"])]],
            (1, 3, 0),
            "not-an-end",
            "section G3-J3: G3 is not an end of the line",
        ),
        (
            [[("street-square", ["D3-G3", "pass"])]],
            (1, 1, 0),
            "not-an-end",
            "section D3-G3: the first section must leave the departure station H4",
        ),
        (
            [
                [
                    ("street-square", ["H4-G3", "pass"]),
                    ("street-circle", ["G3-G4", "pass"]),
                    ("underground-circle", ["G4-H4", "pass"]),
                ]
            ],
            (1, 3, 0),
            "revisits-station",
            "section G4-H4: H4 is already on the line",
        ),
        (
            [
                SIMPLE_ROUND_1,
                [("street-square", ["D3-G3", "pass"]), ("street-circle", ["G3-H4", "pass"])],
            ],
            (2, 2, 0),
            "doubled-section",
            "section G3-H4 is already drawn by the pink line",
        ),
        (
            [[("street-pentagon", ["H4-A1", "pass"])]],
            (1, 1, 0),
            "not-a-link",
            "section H4-A1: no link joins these stations",
        ),
        (
            [[("street-square", ["pass", "H4-G3"])]],
            (1, 1, 1),
            "not-an-end",
            "section H4-G3: the first section must leave the departure station F8",
        ),
    ],
    ids=[
        "wrong-symbol",
        "not-an-end",
        "first-not-departure",
        "revisits",
        "doubled",
        "not-a-link",
        "player-1",
    ],
)
def test_illegal_action_has_its_reason_and_place(
    rounds: list[list[Turn]], where: tuple[int, int, int], reason: str, detail: str
) -> None:
    error = refused(hand_record(rounds))
    assert error.reason == reason
    assert (error.where.round, error.where.turn, error.where.player) == where
    r, t, p = where
    assert str(error) == f"round {r}, turn {t}, player {p}: {detail} ({reason})"


def test_bad_notation_in_an_action_is_located() -> None:
    record = hand_record([[("street-square", ["H4-G3", "pass"])]])
    record["rounds"][0]["turns"][0][1] = {"sections": [], "colour": "blue"}
    error = refused(record)
    assert error.reason == "bad-notation"
    assert (error.where.round, error.where.turn, error.where.player) == (1, 1, 1)
    assert "unknown key(s) in action: colour" in str(error)


# -- powers ----------------------------------------------------------------------------------


def test_power_used_twice_in_a_round() -> None:
    record = hand_record(
        [
            [
                ("street-triangle", ["H4-G4 +joker", "pass"]),
                ("street-square", ["G4-F5 +joker", "pass"]),
            ]
        ],
        powers=POWERS,
    )
    error = refused(record)
    assert error.reason == "power-used"
    assert (error.where.round, error.where.turn, error.where.player) == (1, 2, 0)
    assert "the pink pencil's power joker was already used this round" in str(error)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("H4-G3 +switch", "the pink pencil's power is joker, not switch"),
        ("H4-G3 @G3", "the pink pencil's power is joker, not circle-station"),
        ("H4-G3 G3-G4 +double-section", "the pink pencil's power is joker, not double-section"),
    ],
)
def test_power_not_held(action: str, message: str) -> None:
    record = hand_record([[("street-square", [action, "pass"])]], powers=POWERS)
    error = refused(record)
    assert error.reason == "wrong-power"
    assert (error.where.round, error.where.turn, error.where.player) == (1, 1, 0)
    assert message in str(error)


def test_power_without_the_module() -> None:
    error = refused(hand_record([[("street-triangle", ["H4-G4 +joker", "pass"])]]))
    assert error.reason == "no-powers"


def test_powers_used_legally_replay_and_score() -> None:
    # player 0 (pink, joker) and player 1 (blue, circle-station) each use their power once;
    # the power is available again in the next round with the next pencil
    round_1: list[Turn] = [
        ("street-triangle", ["H4-G4 +joker", "pass"]),
        ("street-square", ["G4-F5", "F8-F5"]),
        ("underground-triangle", ["pass", "F5-E4 @E4"]),
        *_passes("underground-square", "underground-circle", "underground-pentagon"),
        ("underground-joker", ["pass", "pass"]),
    ]
    round_2: list[Turn] = [("street-triangle", ["D3-E4 E4-E1 +double-section", "pass"])]
    record = hand_record([round_1, round_2], powers=POWERS)
    state = run(record)
    blue = LONDON.colours.index("blue")
    assert state.line_score(1, blue).circled == LONDON.station("E4")
    assert to_record(state, record["players"]) == record


# -- cards -----------------------------------------------------------------------------------


def test_card_that_is_not_the_seeds(london_record: dict[str, Any]) -> None:
    rnd = london_record["rounds"][0]
    deck = rnd.pop("deck")
    unflipped = deck[len(rnd["cards"])]
    first = rnd["cards"][0]
    rnd["cards"][0] = unflipped
    error = refused(london_record)
    assert error.reason == "not-the-dealt-card"
    assert (error.where.round, error.where.turn, error.where.player) == (1, 1, None)
    assert str(error) == (
        f"round 1, turn 1: card {unflipped} is not the deal's next card {first} (not-the-dealt-card)"
    )


def test_cards_that_are_not_the_decks(london_record: dict[str, Any]) -> None:
    rnd = london_record["rounds"][0]
    rnd["cards"][0], rnd["cards"][1] = rnd["cards"][1], rnd["cards"][0]
    bad_record(london_record, "round 1: cards are not the deck's first cards")


def test_deck_that_is_not_the_seeds(london_record: dict[str, Any]) -> None:
    london_record["rounds"][0]["deck"] = london_record["rounds"][1]["deck"]
    london_record["rounds"][0]["cards"] = london_record["rounds"][1]["cards"]
    bad_record(london_record, "round 1: deck is not the seed's deck")


def test_other_seed_is_refused(london_record: dict[str, Any]) -> None:
    london_record["seed"] = 8
    bad_record(london_record, "deck is not the seed's deck")


def test_card_listed_twice(london_record: dict[str, Any]) -> None:
    cards = london_record["rounds"][2]["cards"]
    cards[3] = cards[1]
    bad_record(london_record, f"round 3: card {cards[1]} is flipped twice")


def test_cards_after_the_fifth_underground_card() -> None:
    record = hand_record([[*ROUND_1_PINK, ("street-circle", ["pass", "pass"])]])
    bad_record(record, "round 1: 1 card(s) after the round's end")
    record = hand_record([[*ROUND_1_PINK, ("street-circle", None)]])  # a card without a turn
    bad_record(record, "round 1: 1 card(s) after the round's end")


def test_turns_without_cards_and_cards_without_turns(london_record: dict[str, Any]) -> None:
    extra = copy.deepcopy(london_record)
    extra["rounds"][0]["turns"].append(["pass", "pass"])
    bad_record(extra, "round 1: 1 turn(s) without a card")
    london_record["rounds"][0]["turns"].pop()
    n = len(london_record["rounds"][0]["turns"])
    bad_record(london_record, f"round 1, turn {n + 1}: no actions for a flipped card")


def test_missing_round_in_the_middle(london_record: dict[str, Any]) -> None:
    del london_record["seed"]
    london_record["rounds"][1] = {}
    bad_record(london_record, "round 3: the previous round has not ended")


def test_unknown_card() -> None:
    bad_record(
        hand_record([[("street-hexagon", ["pass", "pass"])]]),
        "round 1: unknown card 'street-hexagon'",
    )


# -- structure -------------------------------------------------------------------------------


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.pop(key)


STRUCTURE = [
    ("unknown-top-key", _set(("colour",), "blue"), "unknown key(s) in record: colour"),
    ("unknown-round-key", _set(("rounds", 0, "card"), []), "round 1: unknown key(s) card"),
    ("format", _set(("format",), "metrogames/2"), "record format must be 'metrogames/1'"),
    ("no-format", _drop("format"), "record format must be 'metrogames/1'"),
    ("game", _set(("game",), "tokyo"), "unknown game 'tokyo'"),
    ("game-list", _set(("game",), ["london"]), "unknown game ['london']"),
    ("players-str", _set(("players",), "ab"), "players must be a list of 1 to 4 names"),
    ("players-dict", _set(("players",), {"a": 1}), "players must be a list of 1 to 4 names"),
    ("players-empty", _set(("players",), []), "players must be a list of 1 to 4 names"),
    ("players-5", _set(("players",), list("abcde")), "players must be a list of 1 to 4 names"),
    ("player-int", _set(("players", 1), 3), "bad player name 3"),
    ("player-empty", _set(("players", 1), ""), "bad player name ''"),
    (
        "player-count",
        _set(("players",), ["solo"]),
        "round 1, turn 1: one action per player expected",
    ),
    ("seed-str", _set(("seed",), "7"), "seed must be an integer from 0 to 2**64-1"),
    ("seed-negative", _set(("seed",), -1), "seed must be an integer from 0 to 2**64-1"),
    ("seed-bool", _set(("seed",), True), "seed must be an integer from 0 to 2**64-1"),
    ("seed-float", _set(("seed",), 7.0), "seed must be an integer from 0 to 2**64-1"),
    ("seed-huge", _set(("seed",), 2**64), "seed must be an integer from 0 to 2**64-1"),
    ("rounds-dict", _set(("rounds",), {}), "rounds: at most 4"),
    ("rounds-str", _set(("rounds",), "r"), "rounds: at most 4"),
    ("round-str", _set(("rounds", 0), "r"), "round 1 must be an object"),
    ("cards-str", _set(("rounds", 0, "cards"), "street-circle"), "round 1: bad cards"),
    ("card-int", _set(("rounds", 0, "cards", 0), 3), "round 1: unknown card 3"),
    ("turns-dict", _set(("rounds", 0, "turns"), {}), "round 1: bad turns"),
    (
        "turn-str",
        _set(("rounds", 0, "turns", 0), "pass"),
        "round 1, turn 1: one action per player expected",
    ),
    ("deck-int", _set(("rounds", 0, "deck"), 5), "round 1: deck must list the 11 cards once each"),
    (
        "deck-short",
        _set(("rounds", 0, "deck"), ["street-circle"]),
        "round 1: deck must list the 11 cards once each",
    ),
    ("meta-list", _set(("meta",), []), "meta must be an object"),
    ("options-list", _set(("options",), []), "options: options must be an object"),
    (
        "options-key",
        _set(("options", "colours"), []),
        "options: unknown option for london: colours",
    ),
    (
        "options-cycle",
        _set(("options", "colour_cycle"), ["blue"] * 4),
        "colour_cycle must list each of",
    ),
    (
        "options-objective",
        _set(("options", "objectives"), ["thames-7", "all-districts"]),
        "unknown objective 'thames-7'",
    ),
    (
        "options-powers",
        _set(("options", "powers"), {"blue": "joker"}),
        "powers: give one power for each of",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [s[1:] for s in STRUCTURE], ids=[s[0] for s in STRUCTURE]
)
def test_malformed_record_is_refused(
    london_record: dict[str, Any], edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    edit(london_record)
    bad_record(london_record, message)


def test_turn_with_three_actions_for_two_players(london_record: dict[str, Any]) -> None:
    london_record["rounds"][0]["turns"][0].append("pass")
    bad_record(london_record, "round 1, turn 1: one action per player expected")


@pytest.mark.parametrize("value", [None, [], "record", 3, [{"format": "metrogames/1"}]])
def test_record_that_is_not_an_object(value: Any) -> None:
    bad_record(value, "a record must be a JSON object")


def test_unknown_key_in_an_action_is_located(london_record: dict[str, Any]) -> None:
    london_record["rounds"][1]["turns"][2][1] = {"sections": [], "foo": 1}
    error = refused(london_record)
    assert (error.reason, error.where.round, error.where.turn, error.where.player) == (
        "bad-notation",
        2,
        3,
        1,
    )
    assert "unknown key(s) in action: foo" in str(error)


def test_meta_is_free_form(london_record: dict[str, Any]) -> None:
    london_record["meta"] = {"anything": [1, {"deep": None}], "event": "club night"}
    assert run(london_record).is_over()


# -- hostile sizes ---------------------------------------------------------------------------

BIG = "x" * 10_000_000


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set(("players", 0), BIG), "bad player name 'xxx"),
        (_set((BIG,), 1), "unknown key(s) in record: xxx"),
        (_set(("rounds", 0, BIG), 1), "round 1: unknown key(s) xxx"),
        (_set(("game",), BIG), "unknown game 'xxx"),
        (_set(("rounds", 0, "cards", 0), BIG), "round 1: unknown card 'xxx"),
        (_set(("rounds", 0, "turns", 0, 0), {"sections": [["C6", BIG]]}), "unknown station 'xxx"),
        (
            _set(("rounds", 0, "turns", 0, 0), {"sections": [], BIG: 1}),
            "unknown key(s) in action: xxx",
        ),
        (_set(("rounds", 0, "turns", 0, 0), BIG), "not 'xxx"),
    ],
    ids=["player", "top-key", "round-key", "game", "card", "station", "action-key", "action"],
)
def test_huge_strings_give_a_short_error(
    london_record: dict[str, Any], edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    edit(london_record)
    with pytest.raises((RecordError, IllegalActionError)) as info:
        run(london_record)
    assert message in str(info.value)
    assert len(str(info.value)) < 300


def test_many_rounds_turns_and_cards_are_refused_early(london_record: dict[str, Any]) -> None:
    london_record["rounds"] = [{}] * 1000
    bad_record(london_record, "rounds: at most 4")
    record = play_london(7)
    record["rounds"][0]["cards"] = ["street-circle"] * 100_000
    bad_record(record, "round 1: bad cards")
    record = play_london(7)
    record["rounds"][0]["turns"] = [["pass", "pass"]] * 100_000
    bad_record(record, "round 1: bad turns")


# -- reading records files (cli/files.py) ----------------------------------------------------


def test_records_file_over_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(play_london(7)) + "\n", encoding="utf-8")
    monkeypatch.setattr(files, "MAX_FILE", 1000)
    with pytest.raises(RecordError, match=r"games.jsonl: larger than 1000 bytes"):
        list(files.read_documents(path))


def test_document_over_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    record = play_london(7)
    record["meta"] = {"note": "x" * 10_000_000}
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(RecordError, match=r"big.json: larger than 4194304 bytes"):
        files.read_json(path)
    [(label, value)] = list(files.read_documents(path))
    assert label == f"{path}:1"
    assert isinstance(value, RecordError)
    assert "larger than 4194304 bytes" in str(value)


def test_deeply_nested_json(tmp_path: Path) -> None:
    depth = 100_000
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth, encoding="utf-8")
    with pytest.raises(RecordError, match="nested too deeply"):
        files.read_json(path)
    with pytest.raises(RecordError, match="nested too deeply"):
        list(files.read_documents(path))
    path.write_text(
        '{"meta": ' + "[" * depth + "]" * depth + "}\n" + json.dumps(play_london(7)) + "\n"
    )
    docs = list(files.read_documents(path))
    assert isinstance(docs[0][1], RecordError)
    assert "nested too deeply" in str(docs[0][1])
    assert docs[1][1] == play_london(7)


def test_json_lines_one_bad_line_does_not_hide_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = json.dumps(play_london(7))
    path.write_text(good + "\n\n{not json\n" + good + "\n", encoding="utf-8")
    docs = list(files.read_documents(path))
    assert [label for label, _ in docs] == [f"{path}:1", f"{path}:3", f"{path}:4"]
    assert isinstance(docs[1][1], RecordError)
    assert "games.jsonl:3: not valid JSON" in str(docs[1][1])
    assert docs[0][1] == docs[2][1] == play_london(7)


def test_pretty_printed_record_with_an_error_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    text = json.dumps(play_london(7), indent=2)
    path.write_text(text, encoding="utf-8")
    assert [value for _, value in files.read_documents(path)] == [play_london(7)]
    path.write_text(text.replace('"meta": {}', '"meta": {},'), encoding="utf-8")
    with pytest.raises(
        RecordError, match=r"game.json: not valid JSON \(line \d+, column \d+: .+\)"
    ):
        list(files.read_documents(path))


def test_key_given_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text('{"format": "metrogames/1", "seed": 1, "seed": 2}', encoding="utf-8")
    with pytest.raises(RecordError, match="key 'seed' given twice"):
        files.read_json(path)
    with pytest.raises(RecordError, match="key 'seed' given twice"):
        list(files.read_documents(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b"\xff\xfe{}", "cannot read"),
        (b"{", "not valid JSON"),
    ],
)
def test_unreadable_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        list(files.read_documents(path))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        list(files.read_documents(tmp_path / "nope.json"))
    with pytest.raises(RecordError, match="cannot read"):
        files.read_json(tmp_path / "nope.json")


def test_json_forms_of_actions_in_records_match_the_engine(london_record: dict[str, Any]) -> None:
    state = run(london_record)
    actions = [a for p, a in state.history() if p != CHANCE]
    written = [a for rnd in london_record["rounds"] for turn in rnd["turns"] for a in turn]
    assert [action_to_json(LONDON, a) for a in actions] == written


def test_options_random_resolve_from_the_seed() -> None:
    record = play_london(
        13, ("greedy", "greedy", "random"), {"objectives": "random", "powers": "random"}
    )
    resolved = copy.deepcopy(record["options"])
    record["options"] = {"objectives": "random", "powers": "random"}
    state = run(record)
    assert state.deal.options_json(LONDON) == resolved
    del record["seed"]
    bad_record(record, '"random" options need a seed')


def test_options_from_json_matches_record(london_record: dict[str, Any]) -> None:
    options = Options.from_json(LONDON, london_record["options"])
    assert options.colour_cycle == tuple(london_record["options"]["colour_cycle"])
