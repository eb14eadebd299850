"""Playing a custom map (docs/maps.md): the game ``nextstation`` from a map file or object,
every bot level to the end, records carrying the map and its hash that replay only on it, and
invalid maps that can never be played."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from metrogames.core.errors import OptionError, RecordError
from metrogames.games import game_names, game_type, load_game, replay_record
from metrogames.sim.runner import Task, run_task

TINY_PATH = Path(__file__).parent / "maps" / "tinytown.json"
TINY: dict[str, Any] = json.loads(TINY_PATH.read_text(encoding="utf-8"))


def _record(level: str, seed: int = 3) -> dict[str, Any]:
    result = run_task(Task("nextstation", (level,), seed, {"map": TINY}, None, True))
    assert result.record is not None
    return json.loads(json.dumps(result.record))


def test_the_game_is_made_from_a_path_or_an_object() -> None:
    by_path = load_game("nextstation", map=str(TINY_PATH))
    by_object = load_game("nextstation", players=2, map=TINY)
    assert by_path.name == by_object.name == "nextstation"
    state = by_path.new_game(seed=1)
    # the action index counts one id per directed link and the pass: 2 × 49 + 1
    assert by_path.num_distinct_actions == 2 * len(TINY["links"]) + 1
    assert state.game.city.title == TINY["title"]  # type: ignore[attr-defined]
    again = load_game(by_object.name, players=2, **by_object.options_json())
    assert again.options_json() == by_object.options_json()
    assert "nextstation" not in game_names()  # not offered by the web table's lists
    assert "nextstation" in game_names(unlisted=True)
    assert game_type("nextstation").options["map"].help


def test_a_game_needs_a_valid_map() -> None:
    with pytest.raises(OptionError, match="a custom map is needed"):
        load_game("nextstation")
    bad = copy.deepcopy(TINY)
    bad["links"].append(["A1", "E1"])
    with pytest.raises(OptionError, match="invalid map: link A1-E1 passes through station C1"):
        load_game("nextstation", map=bad)
    with pytest.raises(OptionError, match="unknown option for london: map"):
        load_game("london", map=TINY)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_every_bot_level_plays_the_map_to_the_end_and_the_record_replays(level: str) -> None:
    record = _record(level)
    assert record["game"] == "nextstation"
    assert record["map"] == TINY
    assert record["map_hash"] == load_game("nextstation", map=TINY).city.hash  # type: ignore[attr-defined]
    state = replay_record(record)
    assert state.is_over()
    assert state.scores()[0] > 0
    # 4 rounds, each ended by the 5th underground card of London's deck
    assert len(record["rounds"]) == 4


def test_a_record_replays_only_on_its_own_map() -> None:
    record = _record("medium")
    modified = copy.deepcopy(record)
    modified["map"]["scoring"]["objective_points"] = 20
    with pytest.raises(RecordError, match="map hash mismatch: the record says sha256:"):
        replay_record(modified)
    as_london = dict(record, game="london")
    with pytest.raises(RecordError, match="a london record carries no map"):
        replay_record(as_london)
    no_map = {k: v for k, v in record.items() if k != "map"}
    with pytest.raises(RecordError, match="needs its map and map_hash"):
        replay_record(no_map)
    bad = copy.deepcopy(record)
    bad["map"]["links"].append(["A1", "E1"])
    bad["map_hash"] = load_game("london").city.hash  # type: ignore[attr-defined]
    with pytest.raises(RecordError, match="map hash mismatch"):
        replay_record(bad)
