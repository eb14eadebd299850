"""The JSON shapes of Next Station's public documents, as typed dicts: the game's part of a view
(built by :func:`metrogames.games.nextstation.present.view_json`) and the score sheet
breakdown inside it (:meth:`metrogames.games.nextstation.scoring.Breakdown.to_json`).

Contract: ``docs/web-api.md``, "Views", and ``docs/notation.md`` (the ``score --json``
breakdown). The registry hands :class:`NextStationViewPart` out as the game's ``view_type``;
the web table publishes it in its JSON Schema (``docs/web-schema.json``). Only typing here: the
module costs nothing to import.
"""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict


class LineJson(TypedDict):
    """One line of a map as drawn: ``sections`` (``[a, b]`` station pairs, link order),
    ``ends`` (its end stations: none before its first section) and the station ``circled`` on
    it (``None``: none)."""

    sections: list[list[str]]
    ends: list[str]
    circled: str | None


class PowerJson(TypedDict):
    """A seat's pencil power (``id``) and whether it can still be used (``available``)."""

    id: str
    available: bool


class SheetLineJson(TypedDict):
    """A line's score: districts crossed, most stations in one district, river (London:
    ``thames``, Paris: ``river``) and monument counts where the city has them, the station
    circled on it, and the line's ``score`` in points."""

    districts: int
    max_in_district: int
    thames: NotRequired[int]
    river: NotRequired[int]
    monuments: NotRequired[int]
    circled: NotRequired[str]
    score: int


class CountedPoints(TypedDict):
    """Boxes ticked and the points they are worth (London's tourist sites)."""

    boxes: int
    points: int


class BridgesJson(TypedDict):
    """Paris bridges crossed once (``single``) and twice (``double``) and their points."""

    single: int
    double: int
    points: int


class SheetJson(TypedDict):
    """The ``score --json`` breakdown of one map (``docs/notation.md``): each line's score
    by colour, the tourist sites (London), interchanges (counts by size, as strings, and
    ``points``), bridges (Paris), shared objectives (met or not, by objective id, and
    ``points``) and the ``total``."""

    lines: dict[str, SheetLineJson]
    tourist: NotRequired[CountedPoints]
    interchanges: dict[str, int]
    bridges: NotRequired[BridgesJson]
    objectives: dict[str, bool | int]
    total: int


class PlayerJson(TypedDict):
    """One seat's sheet in a view: its ``colour`` this round, whether it ``acted`` in the
    current turn, its ``lines`` by colour, its ``power``, its ``sheet`` scored as if the game
    ended now, and the scores of its lines of the rounds already scored (``line_scores``, by
    colour, in round order)."""

    seat: int
    colour: str
    acted: bool
    lines: dict[str, LineJson]
    power: PowerJson | None
    sheet: SheetJson
    line_scores: dict[str, int]


class RoundEndJson(TypedDict):
    """How many round-ending cards have been flipped this round, of the ``count`` that end it."""

    flipped: int
    count: int


class LastRoundJson(TypedDict):
    """The round scored last (1-based) and each seat's score of the line it drew in it (keyed
    by seat, as a string)."""

    round: int
    lines: dict[str, SheetLineJson]


class NextStationViewPart(TypedDict):
    """Next Station's part of a view: the ``round`` (1–4), ``turn``, the ``card`` flipped
    (``None`` before the first), the cards ``flipped`` this round, the round's end, whether the
    switch effect applies (``branch``), the shared ``objectives``, the seats' sheets
    (``players``), the single sections of the viewer's legal moves by start station
    (``targets``), the round scored last (``last_round``) and the ``scores`` (points per
    seat)."""

    scores: list[int]
    round: int
    turn: int
    card: str | None
    flipped: list[str]
    round_end: RoundEndJson
    branch: bool
    objectives: list[str]
    players: list[PlayerJson]
    targets: dict[str, list[str]]
    last_round: LastRoundJson | None
