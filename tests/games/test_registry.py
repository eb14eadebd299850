"""The game registry (``metrogames.games``): names, games from options, clear refusals."""

from __future__ import annotations

import subprocess
import sys

import pytest

from metrogames.core.errors import OptionError, RecordError
from metrogames.games import (
    game_from_options,
    game_names,
    game_type,
    load_game,
    record_start,
    replay_record,
)


def test_built_in_games_in_order() -> None:
    assert game_names() == ["london", "paris", "metro"]
    assert [game_type(n).players for n in game_names()] == [range(1, 5), range(1, 5), range(2, 7)]
    assert game_type("london").dynamics == "simultaneous"
    assert game_type("metro").dynamics == "sequential"


def test_games_from_options() -> None:
    metro = load_game("metro", players=3, turn_mode="hand")
    assert (metro.name, metro.num_players) == ("metro", 3)
    assert metro.options_json() == {"turn_mode": "hand"}
    london = load_game("london", players=2, objectives="random", powers="random")
    assert london.num_players == 2 and london.options_json()["powers"] == "random"
    assert load_game("paris").num_players == 1  # the fewest the game takes
    assert load_game("metro").num_players == 2
    assert game_from_options("metro", 4, None).options_json() == {}
    # the same options give the same (frozen) game
    assert load_game("london", players=2) == load_game("london", players=2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: load_game("chess"), "unknown game 'chess' (expected one of london, paris, metro)"),
        (lambda: load_game("london", players=5), "london takes 1 to 4 players, not 5"),
        (lambda: load_game("metro", players=1), "metro takes 2 to 6 players, not 1"),
        (lambda: load_game("metro", players=True), "metro takes 2 to 6 players, not True"),
        (lambda: load_game("london", players="2"), "london takes 1 to 4 players, not '2'"),
        (lambda: load_game("paris", powers="random"), "unknown option for paris: powers"),
        (lambda: load_game("metro", turn_mode="sideways"), "turn_mode"),
        (lambda: load_game("london", objectives=["thames-6"]), "objectives"),
        (lambda: load_game("london", objectives=["no-such", "thames-6"]), "no-such"),
        (lambda: game_from_options("metro", 2, ["hand"]), "options must be a JSON object"),
        (lambda: game_from_options(None, 2, {}), "unknown game None"),
    ],
)
def test_refusals_name_the_problem(call: object, message: str) -> None:
    with pytest.raises(OptionError) as info:
        call()  # type: ignore[operator]
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)  # callers that catch ValueError keep working


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a record must be a JSON object"),
        ({"players": []}, 'a record needs "game"'),
        ({"game": "chess"}, "unknown game 'chess'"),
    ],
)
def test_records_of_no_known_game_are_refused(data: object, message: str) -> None:
    for read in (replay_record, record_start):
        with pytest.raises(RecordError, match=message.replace("(", r"\(")):
            read(data)


def test_importing_the_registry_loads_no_engine() -> None:
    """Listing the games imports the registry and the plug-in loader (which found no installed
    plug-in here), no engine."""
    code = (
        "import sys, metrogames.games as g; g.game_names();"
        "print(sorted(m for m in sys.modules if m.startswith('metrogames.games.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "['metrogames.games.known', 'metrogames.games.plugins', 'metrogames.games.registry']"
    )


@pytest.mark.parametrize(
    ("name", "players", "options", "score_range", "length"),
    [
        ("london", 1, {"powers": "random", "objectives": "random"}, (0, 437), 44),
        ("paris", 4, {"objectives": "random"}, (0, 473), 44),
        ("metro", 2, {"turn_mode": "official-hand"}, (0, 480), 120),
        ("metro", 6, {}, (0, 480), 120),
    ],
)
def test_score_range_and_game_length_hold_in_played_games(
    name: str, players: int, options: dict[str, object], score_range: tuple[int, int], length: int
) -> None:
    """The games' facts for learners: every final score within ``score_range`` (above the
    deal's own upper bound where the game has one), at most ``max_game_length`` decisions
    (a simultaneous turn counted once)."""
    from metrogames.bots import make_bot
    from metrogames.core.capabilities import ScoreBounded
    from metrogames.core.protocol import CHANCE

    kind = game_type(name)
    assert (kind.score_range, kind.max_game_length) == (score_range, length)
    low, high = score_range
    game = load_game(name, players, **options)
    for seed in range(4):
        state = game.new_game(seed)
        if isinstance(state, ScoreBounded):
            bounds = [state.score_bound(p) for p in range(players)]
            assert all(b is not None and b["total"] <= high for b in bounds)
        bots = [make_bot("greedy" if p % 2 else "random", seed + p) for p in range(players)]
        decisions = 0
        while not state.is_over():
            movers = state.to_move()
            if CHANCE in movers:
                state.apply_in_place(CHANCE, state.chance_outcomes()[0][0])
                continue
            decisions += 1
            for p in sorted(movers):
                view = state.view(p)
                state.apply_in_place(p, bots[p].decide(view, p, view.legal_actions(p)))
        assert decisions <= length
        assert all(low <= s <= high for s in state.scores())


CAPABILITIES = {
    "london": {"Boards", "ScoreSheets", "OptionText", "Presented", "SoloRated", "Evaluated",
               "DeepEvaluated", "ScoreBounded", "Observable", "ValueFeatured"},
    "paris": {"Boards", "ScoreSheets", "OptionText", "Presented", "SoloRated", "Evaluated",
              "DeepEvaluated", "ScoreBounded", "Observable", "ValueFeatured"},
    "metro": {"Boards", "ScoreSheets", "Presented", "Evaluated", "Observable"},
}  # fmt: skip
"""What each built-in game provides (docs/design.md, "Capabilities"): Metro has no solo game,
no deep estimate, no score bound, no value features, and its options' text is the value as
written."""


ALL_STATE = (
    "Presented",
    "SoloRated",
    "Evaluated",
    "DeepEvaluated",
    "ScoreBounded",
    "Observable",
    "ValueFeatured",
)
"""The state capabilities."""


@pytest.mark.parametrize("name", list(CAPABILITIES))
def test_each_game_provides_its_capabilities(name: str) -> None:
    """The engine and the states (full, a view, a determinization) answer the capability
    checks as the games' documentation says, and the facts hold no behaviour."""
    import dataclasses

    from metrogames.core import capabilities
    from metrogames.core.rng import Rng
    from metrogames.games import game_engine

    engine = game_engine(name)
    state = load_game(name, players=2).new_game(3)
    view = state.view(0)
    for kind_of, protocols in (
        (engine, ("Boards", "ScoreSheets", "OptionText")),
        (
            state,
            ALL_STATE,
        ),
        (
            view,
            ALL_STATE,
        ),
        (view.resample(0, Rng(1)), ("Evaluated", "DeepEvaluated", "ScoreBounded", "ValueFeatured")),
    ):
        found = {p for p in protocols if isinstance(kind_of, getattr(capabilities, p))}
        assert found == CAPABILITIES[name] & set(protocols), (name, kind_of)
    facts = dataclasses.asdict(game_type(name))
    # a type is a fact (the shape of the view's JSON: view_type), not behaviour
    assert not [
        key for key, value in facts.items() if callable(value) and not isinstance(value, type)
    ]
