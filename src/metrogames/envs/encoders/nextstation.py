"""Next Station (London, Paris) observations, built from one seat's view.

The encoder reads the game's observation facts of the view (``view.observe``: lines,
colours, flipped cards… as indices) and the city's drawing data (``board_json``: the order of
colours, stations, links, cards, objectives and powers — the data files' order, which is also
the dense indices' order); the ``scores`` field is bounded by the game's ``score_range``.
Seats are *relative*: index 0 is the observing seat, index ``k`` the seat ``(seat + k) %
players``. Every field is listed in ``docs/research.md``.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

import numpy as np
from gymnasium import spaces

from metrogames.core.protocol import Action, Game, State
from metrogames.envs.common import encoder_facts, observation_facts

COLOURS = 4
ROUNDS = 4


class Named(TypedDict):
    """A station of the drawing data (what the encoder reads of it: its ``name``)."""

    name: str


class Identified(TypedDict):
    """A card, objective or power of the drawing data (its ``id``)."""

    id: str


class LinkFact(TypedDict):
    """A link of the drawing data: its end stations ``a`` and ``b`` (by name)."""

    a: str
    b: str


class CityBoard(TypedDict):
    """What the encoder reads of a city's drawing data (``board_json``, ``docs/web-api.md``,
    "Boards"), in the data files' order."""

    colours: list[str]
    stations: list[Named]
    aliases: NotRequired[dict[str, str] | None]
    links: list[LinkFact]
    departures: dict[str, str]
    cards: list[Identified]
    objectives: list[Identified]
    powers: list[Identified]


class LineFact(TypedDict):
    """One colour's line of a seat: its links, stations and ends (indices), the circled
    station (``None``: none)."""

    links: list[int]
    stations: list[int]
    ends: list[int]
    circled: int | None


class SeatFact(TypedDict):
    """A seat's sheet: whether its power is used, its colour this round (``None``: over), its
    lines by colour."""

    power_used: bool
    colour: int | None
    lines: list[LineFact]


class CityFacts(TypedDict):
    """A view's observation facts (``observe``; ``docs/research.md``): the round (4: over), the
    cards flipped this round, whether the flipped card is the branch, the objectives, each
    colour's power (``None``: powers off), every seat's sheet."""

    round: int
    flipped: list[int]
    branch: bool
    objectives: list[int]
    powers: list[int] | None
    seats: list[SeatFact]


class NextStationEncoder:
    """Observation encoder of one Next Station game (a city, its options, a player count).

    Attributes:
        space: the observation space (a :class:`gymnasium.spaces.Dict` of named fields).
        colours, station_names, cards, objectives, powers: the index orders of the fields.
        link_ends: ``(station a, station b)`` of each link, in link index order.
        departures: each colour's departure station.

    Raises:
        ValueError: (on construction) a game without observations, board data or score range.
    """

    def __init__(self, game: Game[Action]) -> None:
        facts, (low, high) = encoder_facts(game)
        board = cast(CityBoard, facts)  # the game's documented document, not checked per game
        self.players = game.num_players
        self.colours: list[str] = list(board["colours"])
        self.station_names: list[str] = [s["name"] for s in board["stations"]]
        index = {name: i for i, name in enumerate(self.station_names)}
        aliases = board.get("aliases") or {}
        for alias, target in aliases.items():
            index[alias] = index[target]
        self.link_ends: list[tuple[int, int]] = [
            (index[link["a"]], index[link["b"]]) for link in board["links"]
        ]
        self.departures = [index[board["departures"][c]] for c in self.colours]
        self.cards: list[str] = [c["id"] for c in board["cards"]]
        self.objectives: list[str] = [o["id"] for o in board["objectives"]]
        self.powers: list[str] = [p["id"] for p in board["powers"]]
        p, n_links, n_stations = self.players, len(self.link_ends), len(self.station_names)
        n_cards = len(self.cards)
        fields: dict[str, spaces.Space[np.ndarray]] = {
            "lines": spaces.MultiBinary((p, COLOURS, n_links)),
            "stations": spaces.MultiBinary((p, COLOURS, n_stations)),
            "ends": spaces.MultiBinary((p, COLOURS, n_stations)),
            "circled": spaces.MultiBinary((p, COLOURS, n_stations)),
            "colour": spaces.MultiBinary((p, COLOURS)),
            "power_used": spaces.MultiBinary(p),
            "scores": spaces.Box(low, high, (p,), np.int16),
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

    def encode(self, view: State[Action], seat: int) -> dict[str, np.ndarray]:
        """The observation of ``seat`` from ``view`` — ``state.view(seat)``; a full state
        would show the seat what its view hides, so it is refused.

        Raises:
            ValueError: ``view`` is not ``seat``'s view.
        """
        facts = cast(CityFacts, observation_facts(view, seat))  # not checked: a step's cost
        p = self.players
        n_cards = len(self.cards)
        colour = np.zeros((p, COLOURS), np.int8)
        power_used = np.zeros(p, np.int8)
        all_scores = view.scores()
        scores = np.zeros(p, np.int16)
        for rel in range(p):
            other = (seat + rel) % p
            part = facts["seats"][other]
            power_used[rel] = part["power_used"]
            scores[rel] = all_scores[other]
            if part["colour"] is not None:
                colour[rel, part["colour"]] = 1
        lines, stations, ends, circled = self._sheets(facts, seat)
        round_onehot = np.zeros(ROUNDS, np.int8)
        if facts["round"] < ROUNDS:
            round_onehot[facts["round"]] = 1
        card = np.zeros(n_cards, np.int8)
        seen = np.zeros(n_cards, np.int8)
        flipped = facts["flipped"]
        if flipped:
            card[flipped[-1]] = 1
            seen[flipped] = 1
        objectives = np.zeros(len(self.objectives), np.int8)
        objectives[facts["objectives"]] = 1
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
            "branch": np.array([int(facts["branch"])], np.int8),
            "flipped": seen,
            "cards_left": (1 - seen).astype(np.int8),
            "objectives": objectives,
        }
        if self.powers:
            powers = np.zeros((COLOURS, len(self.powers)), np.int8)
            if facts["powers"] is not None:
                powers[range(COLOURS), facts["powers"]] = 1
            out["powers"] = powers
        return out

    def _sheets(self, facts: CityFacts, seat: int) -> list[np.ndarray]:
        """``lines``, ``stations``, ``ends`` and ``circled`` of every seat (relative order):
        the 1s' flat positions gathered first, then set in one NumPy call per field."""
        p, n_links, n_stations = self.players, len(self.link_ends), len(self.station_names)
        links: list[int] = []
        on: list[int] = []
        ends: list[int] = []
        circled: list[int] = []
        for rel in range(p):
            for c, line in enumerate(facts["seats"][(seat + rel) % p]["lines"]):
                row = rel * COLOURS + c
                links += [row * n_links + j for j in line["links"]]
                at = row * n_stations
                on += [at + k for k in line["stations"]]
                ends += [at + k for k in line["ends"]]
                if line["circled"] is not None:
                    circled.append(at + line["circled"])
        out = []
        for ones, size in (
            (links, n_links),
            (on, n_stations),
            (ends, n_stations),
            (circled, n_stations),
        ):
            field = np.zeros(p * COLOURS * size, np.int8)
            field[ones] = 1
            out.append(field.reshape(p, COLOURS, size))
        return out


ENCODER = NextStationEncoder
"""The family's encoder (:func:`metrogames.envs.common.encoder_for`)."""
