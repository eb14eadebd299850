"""The in-process cache of checked custom maps is bounded (``docs/maps.md``, "Limits"): past
``CUSTOM_KEPT`` maps the least recently used unheld ones are forgotten, while a map a live game
holds stays known however many others were checked since, and a forgotten map is checked again
when asked for; a map checked in another process is adopted only with a valid report of that
very map."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from metrogames.core.errors import DataError
from metrogames.core.rng import Rng
from metrogames.games import load_game
from metrogames.games.nextstation import citymap
from metrogames.games.nextstation.citymap import CUSTOM_KEPT, city_known, map_hash
from metrogames.games.nextstation.mapcheck import adopt, check_map, custom_city

TINYTOWN = Path(__file__).parent / "maps" / "tinytown.json"


def variant(i: int) -> dict[str, Any]:
    """Tinytown under another title: another content hash, the same valid map."""
    data: dict[str, Any] = json.loads(TINYTOWN.read_text(encoding="utf-8"))
    data["title"] = f"Tinytown {i}"
    return data


def test_the_cache_keeps_at_most_custom_kept_unheld_maps() -> None:
    held = load_game("nextstation", players=1, map=variant(-1))
    state = held.new_game(seed=5)
    first_hash = map_hash(variant(0))
    for i in range(CUSTOM_KEPT + 10):
        custom_city(variant(i))
    gc.collect()
    assert len(citymap._CUSTOM) == CUSTOM_KEPT
    assert not city_known(first_hash)  # the least recently used, held by nothing: forgotten
    assert city_known(map_hash(variant(CUSTOM_KEPT + 9)))  # the most recent: kept
    assert city_known(map_hash(variant(-1)))  # a live game's map: known
    state.random_playout([Rng(1)])  # the held map still plays
    assert state.is_over()
    again = custom_city(variant(0))  # checked again, known again
    assert again.key == first_hash and city_known(first_hash)


def test_a_map_is_adopted_only_with_a_valid_report_of_that_very_map() -> None:
    data = variant(1000)
    report = check_map(data).to_json()
    other = variant(1001)
    with pytest.raises(DataError, match="of another map"):
        adopt(other, report)  # a valid report, of another map
    broken = variant(1002)
    del broken["departures"]["green"]
    with pytest.raises(DataError, match="of another map"):
        adopt(broken, check_map(broken).to_json())  # its own report, invalid
    city = adopt(data, report)
    assert city.key == report["hash"] and city_known(city.key)
    assert custom_city(data) is city  # known: not checked again


def test_a_custom_map_s_snapshots_and_tables_are_its_own() -> None:
    data = variant(2000)
    data["city"] = "london"  # a custom map may reuse a city's id: nothing of London's is used
    game = load_game("nextstation", players=1, map=data)
    state = game.new_game(seed=3)
    state.random_playout([Rng(2)])  # the playout's per-map tables
    assert state.is_over()
    text = state.snapshot()  # the snapshot's card positions, of the map's own deck
    assert game.from_snapshot(text).snapshot() == text
    london = load_game("london", players=1).new_game(seed=3)
    london.random_playout([Rng(2)])
    assert london.is_over() and london.snapshot() != text
    own = load_game("nextstation", players=1, map=variant(2001)).new_game(seed=3)
    assert own.game.from_snapshot(own.snapshot()).snapshot() == own.snapshot()  # city tinytown
