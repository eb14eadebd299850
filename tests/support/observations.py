"""Helpers of the environment tests: an independent reading of the observations from the
games' public view JSON (``docs/web-api.md``, "Views"), to compare with the encoders' arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from metrogames.core.capabilities import Boards, Presented
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.envs.encoders import NextStationEncoder
from metrogames.games import game_engine

SIDES = ("north", "east", "south", "west")
"""The sides of a Metro square, in the order of the train fields' last axis (docs/research.md)."""


def deal_chance(state: State[Action]) -> None:
    """Play the dealt chance outcomes (one each: a state dealt from a seed) in place."""
    while CHANCE in state.to_move():
        (outcome,) = state.legal_actions(CHANCE)
        state.apply_in_place(CHANCE, outcome)


def legal_indices(state: State[Action], seat: int) -> set[int]:
    game = state.game
    return {game.action_index(a) for a in state.legal_actions(seat)}


def check_nextstation_obs(
    encoder: NextStationEncoder, state: State[Action], seat: int, obs: dict[str, np.ndarray]
) -> None:
    """``obs`` (seat's observation of the full ``state``) against ``view_json`` of the view."""
    view = state.view(seat)
    assert isinstance(view, Presented)
    shown: dict[str, Any] = dict(view.view_json(seat))
    names = encoder.station_names
    n = encoder.players
    for rel in range(n):
        player = shown["players"][(seat + rel) % n]
        assert obs["scores"][rel] == shown["scores"][(seat + rel) % n]
        current = encoder.colours.index(player["colour"]) if not state.is_over() else -1
        assert list(np.flatnonzero(obs["colour"][rel])) == ([current] if current >= 0 else [])
        for c, colour in enumerate(encoder.colours):
            line = player["lines"][colour]
            drawn = {
                frozenset((names[encoder.link_ends[j][0]], names[encoder.link_ends[j][1]]))
                for j in np.flatnonzero(obs["lines"][rel, c])
            }
            assert drawn == {frozenset(s) for s in line["sections"]}
            visited = {s for section in line["sections"] for s in section}
            assert {names[i] for i in np.flatnonzero(obs["stations"][rel, c])} == visited
            ends = {names[i] for i in np.flatnonzero(obs["ends"][rel, c])}
            if line["sections"] or c != current:
                assert ends == set(line["ends"])
            else:  # an empty line of this round: it starts at its departure
                assert ends == {names[encoder.departures[c]]}
            circled = [names[i] for i in np.flatnonzero(obs["circled"][rel, c])]
            assert circled == ([line["circled"]] if line["circled"] else [])
        power = player["power"]
        assert obs["power_used"][rel] == (power is not None and not power["available"])
    card = [encoder.cards[i] for i in np.flatnonzero(obs["card"])]
    assert card == ([shown["card"]] if shown["card"] and shown["flipped"] else [])
    assert {encoder.cards[i] for i in np.flatnonzero(obs["flipped"])} == set(shown["flipped"])
    assert set(np.flatnonzero(obs["cards_left"])) == set(np.flatnonzero(1 - obs["flipped"]))
    assert obs["branch"][0] == shown["branch"]
    rounds = list(np.flatnonzero(obs["round"]))
    assert rounds == ([] if state.is_over() else [shown["round"] - 1])
    assert {encoder.objectives[i] for i in np.flatnonzero(obs["objectives"])} == set(
        shown["objectives"]
    )


def check_metro_obs(state: State[Action], seat: int, obs: dict[str, np.ndarray]) -> None:
    """``obs`` (seat's Metro observation of the full ``state``) against ``view_json`` of the
    view, read square by square and train by train: the tile letters of ``board_json`` (A–X,
    the data order), squares ``row × 8 + col`` (``A1`` 0, ``B1`` 1, ``A2`` 8), relative seats,
    index ``players`` for no owner."""
    view = state.view(seat)
    assert isinstance(view, Presented)
    shown: dict[str, Any] = dict(view.view_json(seat))
    engine = game_engine(state.game.name)
    assert isinstance(engine, Boards)
    board_data: dict[str, Any] = dict(engine.board_json())
    tiles = [t["code"] for t in board_data["tiles"]]
    players = state.game.num_players

    def square(name: str) -> int:
        return (int(name[1:]) - 1) * 8 + "ABCDEFGH".index(name[0])

    def rel(other: int | None) -> int:
        return players if other is None else (other - seat) % players

    placed = {(square(x["square"]), tiles.index(x["tile"])) for x in shown["board"]}
    board = obs["board"].reshape(64, len(tiles))
    assert {(int(a), int(b)) for a, b in zip(*np.nonzero(board), strict=True)} == placed
    expected_trains = np.zeros((players + 1, 64, 4), np.int64)
    expected_tiles = np.zeros((players + 1, 64, 4), np.int64)
    for train in shown["trains"]:
        at = (rel(train["seat"]), square(train["square"]), SIDES.index(train["side"]))
        expected_trains[at] += 1
        expected_tiles[at] += train["tiles"]
    assert np.array_equal(obs["trains"], expected_trains)
    assert np.array_equal(obs["train_tiles"], expected_tiles)
    done = {r["station"]: r["points"] for r in shown["routes"]}
    assert {i + 1 for i in np.flatnonzero(obs["route_done"])} == set(done)
    assert {i + 1: int(v) for i, v in enumerate(obs["route_points"]) if i + 1 in done} == done
    assert not obs["route_points"][[i for i in range(32) if i + 1 not in done]].any()
    owners = board_data["allocations"][str(players)]
    for station in range(1, 33):
        holder = next((s for s, numbers in enumerate(owners) if station in numbers), None)
        assert list(np.flatnonzero(obs["station_owner"][station - 1])) == [rel(holder)]
    assert obs["scores"].tolist() == [shown["scores"][(seat + k) % players] for k in range(players)]
