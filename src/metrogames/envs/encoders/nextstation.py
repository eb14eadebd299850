"""Next Station (London, Paris) observations, built from one seat's view.

The encoder reads the view's position snapshot (``docs/notation.md``, "Position snapshot: Next
Station") and the city's drawing data (``board_json``: the order of colours, stations, links,
cards, objectives and powers — the data files' order, which is also the dense indices' order).
Seats are *relative*: index 0 is the observing seat, index ``k`` the seat ``(seat + k) %
players``. Every field is listed in ``docs/research.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from metrogames.core.protocol import Action, Game, State
from metrogames.games import game_type

COLOURS = 4
ROUNDS = 4
SCORE_LOW, SCORE_HIGH = -999, 999
"""Bounds of the ``scores`` field (a Next Station sheet never goes near them)."""


def _bits(value: int) -> list[int]:
    out = []
    while value:
        low = value & -value
        out.append(low.bit_length() - 1)
        value ^= low
    return out


class NextStationEncoder:
    """Observation encoder of one Next Station game (a city, its options, a player count).

    Attributes:
        space: the observation space (a :class:`gymnasium.spaces.Dict` of named fields).
        colours, station_names, cards, objectives, powers: the index orders of the fields.
        link_ends: ``(station a, station b)`` of each link, in link index order.
    """

    def __init__(self, game: Game[Action]) -> None:
        board = cast(dict[str, Any], game_type(game.name).board_json())
        self.players = game.num_players
        self.colours: list[str] = list(board["colours"])
        self.station_names: list[str] = [s["name"] for s in board["stations"]]
        index = {name: i for i, name in enumerate(self.station_names)}
        aliases = cast(Mapping[str, str], board.get("aliases") or {})
        for alias, target in aliases.items():
            index[alias] = index[target]
        self._station = index
        self.link_ends: list[tuple[int, int]] = [
            (index[link["a"]], index[link["b"]]) for link in board["links"]
        ]
        self.departures = [index[board["departures"][c]] for c in self.colours]
        self.cards: list[str] = [c["id"] for c in board["cards"]]
        self.objectives: list[str] = [o["id"] for o in board["objectives"]]
        self.powers: list[str] = [p["id"] for p in board["powers"]]
        p, n_links, n_stations = self.players, len(self.link_ends), len(self.station_names)
        n_cards = len(self.cards)
        fields: dict[str, spaces.Space[Any]] = {
            "lines": spaces.MultiBinary((p, COLOURS, n_links)),
            "stations": spaces.MultiBinary((p, COLOURS, n_stations)),
            "ends": spaces.MultiBinary((p, COLOURS, n_stations)),
            "circled": spaces.MultiBinary((p, COLOURS, n_stations)),
            "colour": spaces.MultiBinary((p, COLOURS)),
            "power_used": spaces.MultiBinary(p),
            "scores": spaces.Box(SCORE_LOW, SCORE_HIGH, (p,), np.int16),
            "round": spaces.MultiBinary(ROUNDS),
            "card": spaces.MultiBinary(n_cards),
            "branch": spaces.MultiBinary(1),
            "flipped": spaces.MultiBinary(n_cards),
            "cards_left": spaces.MultiBinary(n_cards),
            "objectives": spaces.MultiBinary(len(self.objectives)),
        }
        if self.powers:
            fields["powers"] = spaces.MultiBinary((COLOURS, len(self.powers)))
        self.space = spaces.Dict(fields)

    def colour_of(self, cycle: list[int], seat: int, round_index: int) -> int:
        """The colour index ``seat`` draws with in ``round_index`` (``docs/next-station-*.md``,
        "Colour rotation": position ⌊4k/n⌋ of the cycle, one step forward each round)."""
        return cycle[(COLOURS * seat // self.players + round_index) % COLOURS]

    def encode(self, view: State[Action], seat: int) -> dict[str, np.ndarray]:
        """The observation of ``seat`` from ``view`` — ``state.view(seat)``; a full state
        would show the seat what its view hides, so it is refused.

        Raises:
            ValueError: ``view`` is not ``seat``'s view.
        """
        if view.viewer != seat:
            raise ValueError(f"encode needs seat {seat}'s view (state.view({seat}))")
        fields = view.snapshot().split(" ")
        cycle = [int(ch, 16) for ch in fields[3]]
        round_index = int(fields[7])
        flipped = [] if fields[8] == "-" else [int(ch, 16) for ch in fields[8]]
        flags = fields[9].split(".")[3]
        players = fields[10:]
        p, n_links, n_stations = self.players, len(self.link_ends), len(self.station_names)
        n_cards = len(self.cards)
        lines = np.zeros((p, COLOURS, n_links), np.int8)
        stations = np.zeros((p, COLOURS, n_stations), np.int8)
        ends = np.zeros((p, COLOURS, n_stations), np.int8)
        circled = np.zeros((p, COLOURS, n_stations), np.int8)
        colour = np.zeros((p, COLOURS), np.int8)
        power_used = np.zeros(p, np.int8)
        all_scores = view.scores()
        scores = np.zeros(p, np.int16)
        for rel in range(p):
            other = (seat + rel) % p
            text = players[other]
            power_used[rel] = text[0] == "+"
            scores[rel] = all_scores[other]
            current = -1
            if round_index < ROUNDS:
                current = self.colour_of(cycle, other, round_index)
                colour[rel, current] = 1
            for c, line in enumerate(text[1:].split("/")[0].split(",")):
                hex_part, _, circle = line.partition("@")
                if circle:
                    circled[rel, c, self._station[circle]] = 1
                degree: dict[int, int] = {}
                for j in _bits(int(hex_part, 16)):
                    lines[rel, c, j] = 1
                    for s in self.link_ends[j]:
                        degree[s] = degree.get(s, 0) + 1
                for s, d in degree.items():
                    stations[rel, c, s] = 1
                    if d == 1:
                        ends[rel, c, s] = 1
                if not degree and c == current:
                    ends[rel, c, self.departures[c]] = 1
        round_onehot = np.zeros(ROUNDS, np.int8)
        if round_index < ROUNDS:
            round_onehot[round_index] = 1
        card = np.zeros(n_cards, np.int8)
        seen = np.zeros(n_cards, np.int8)
        if flipped:
            card[flipped[-1]] = 1
            seen[flipped] = 1
        objectives = np.zeros(len(self.objectives), np.int8)
        if fields[4] != "-":
            objectives[[int(ch, 16) for ch in fields[4]]] = 1
        out: dict[str, np.ndarray] = {
            "lines": lines,
            "stations": stations,
            "ends": ends,
            "circled": circled,
            "colour": colour,
            "power_used": power_used,
            "scores": scores,
            "round": round_onehot,
            "card": card,
            "branch": np.array([int("b" in flags)], np.int8),
            "flipped": seen,
            "cards_left": (1 - seen).astype(np.int8),
            "objectives": objectives,
        }
        if self.powers:
            powers = np.zeros((COLOURS, len(self.powers)), np.int8)
            if fields[5] != "-":
                for c, ch in enumerate(fields[5]):
                    powers[c, int(ch, 16)] = 1
            out["powers"] = powers
        return out
