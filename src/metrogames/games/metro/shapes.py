"""The JSON shapes of Metro's part of a view, as typed dicts (built by
:func:`metrogames.games.metro.present.view_json`).

Contract: ``docs/web-api.md``, "Views"; a route is the ``score --json`` route shape of
``docs/notation.md``. The registry hands :class:`MetroViewPart` out as the game's
``view_type``; the web table publishes it in its JSON Schema (``docs/web-schema.json``). Only
typing here: the module costs nothing to import.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

Side = Literal["north", "east", "south", "west"]


class PlacementJson(TypedDict):
    """A tile on the board: its ``square`` (``C5``), its ``tile`` code and the seat that
    placed it (``by``; ``None`` when the state does not know: a position read from a
    snapshot)."""

    square: str
    tile: str
    by: int | None


class TrainJson(TypedDict):
    """Where an open route's train waits: the edge ``station`` (1–32), its ``seat`` (``None``:
    an unallocated station), the empty ``square`` it enters, the ``side`` it enters by, the
    exact track end (``endpoint`` 0–7, as the board's ``endpoints`` number them) and the
    ``tiles`` it has crossed so far."""

    station: int
    seat: int | None
    square: str
    side: Side
    endpoint: int
    tiles: int


class RouteJson(TypedDict):
    """A completed route: the edge ``station``, its ``player`` (``None``: unallocated), the
    ``tiles`` crossed (a tile crossed twice counts twice), whether it ends at a ``central``
    station, and its ``points``."""

    station: int
    player: int | None
    tiles: int
    central: bool
    points: int


class LastJson(TypedDict):
    """The last placement: its ``square``, ``tile``, the seat that placed it (``by``) and the
    ``routes`` it completed."""

    square: str
    tile: str
    by: int
    routes: list[RouteJson]


class MetroViewPart(TypedDict):
    """Metro's part of a view: the ``scores`` (points per seat), the tiles on the ``board``,
    the tiles left in the ``pile``, the viewer's held tiles (``hand``: hand modes), the tile
    drawn to be placed now (``drawn``), the open routes' ``trains``, the completed ``routes``,
    each seat's ``longest`` completed route (tiles) and the ``last`` placement."""

    scores: list[int]
    board: list[PlacementJson]
    pile: int
    hand: list[str]
    drawn: str | None
    trains: list[TrainJson]
    routes: list[RouteJson]
    longest: list[int]
    last: LastJson | None
