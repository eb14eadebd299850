"""Board drawing data (docs/web-api.md, "Boards") agrees with the engine's data."""

from __future__ import annotations

import json

from metrogames.games import game_names
from metrogames.games.metro import load_metro
from metrogames.games.nextstation.citymap import load_city
from metrogames.web.rooms.boards import board, games_list


def test_games_list_names_each_game_with_players_and_options() -> None:
    games = {g["game"]: g for g in games_list()}
    assert list(games) == game_names() == ["london", "paris", "metro"]
    assert games["london"]["players"] == [1, 4]
    assert games["metro"]["players"] == [2, 6]
    assert "powers" in games["london"]["options"] and "powers" not in games["paris"]["options"]
    assert games["metro"]["options"]["turn_mode"]["values"] == ["draw", "hand", "official-hand"]
    assert {"greedy", "random"} <= set(games["paris"]["bots"])
    json.dumps(games_list())


def test_next_station_board_matches_the_city() -> None:
    for name in ("london", "paris"):
        city = load_city(name)
        b = board(name)
        assert b is not None
        assert len(b["stations"]) == len(city.stations)
        ids = {link["id"] for link in b["links"]}
        assert len(ids) == len(city.links)
        assert sum(link["river"] for link in b["links"]) == city.river_mask.bit_count()
        for bridge in b["bridges"]:
            assert set(bridge["links"]) <= ids
        assert {s["symbol"] for s in b["stations"]} <= {
            "square",
            "circle",
            "triangle",
            "pentagon",
            "any",
        }
        assert len(b["cards"]) == 11
        json.dumps(b)
    assert board("london")["river"]["name"] == "Thames"  # type: ignore[index]
    assert board("paris")["river"] is None  # type: ignore[index]


def test_metro_board_matches_the_tiles() -> None:
    data = load_metro()
    b = board("metro")
    assert b is not None
    assert len(b["squares"]) == 64 and sum(s["central"] for s in b["squares"]) == 4
    assert sum(t["count"] for t in b["tiles"]) == 60
    for tile, conn in zip(b["tiles"], data.conn, strict=True):
        for x, y in tile["tracks"]:
            assert conn[x] == y
    assert [s["number"] for s in b["stations"]] == list(range(1, 33))
    assert b["stations"][0] == {
        "number": 1,
        "square": "H1",
        "side": "north",
        "departure": 0,
        "arrival": 1,
    }
    assert len(b["central_stations"]) == 8
    assert len(b["allocations"]["2"]) == 2


def test_unknown_game_has_no_board() -> None:
    assert board("chess") is None
