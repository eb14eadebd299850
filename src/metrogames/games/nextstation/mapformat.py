"""The Next Station map format (``metrogames/city/1``) as a pydantic model: shapes and sizes.

Source: ``docs/maps.md`` ("The format"); the JSON Schema ``docs/map-schema.json`` is generated
from :class:`MapModel` (:func:`map_schema`). The model checks each field's type, size and
syntax; the facts between fields (a link's stations exist, districts are connected, the deck
is a known variant...) are the checker's (:mod:`.mapcheck`). London's and Paris's data files
(``metrogames/data``) are instances.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import JsonSchemaValue

MAX_GRID = 26
"""The most columns (letters A–Z) and rows of a grid."""
MAX_STATIONS = 200
MAX_LINKS = 1000
MAX_DISTRICTS = 64
MAX_NAME = 40
MAX_TEXT = 200

CELL = r"^[A-Z]([1-9]|1[0-9]|2[0-6])$"
"""A cell's name: its column letter and its row number from 1 (``C10``)."""
RANGE = r"^[A-Z]([1-9]|1[0-9]|2[0-6])(:[A-Z]([1-9]|1[0-9]|2[0-6]))?$"
"""A cell or a rectangle of cells between two corners (``A1``, ``B1:C3``)."""
NAME = r"^[A-Za-z0-9][A-Za-z0-9 '._-]*$"

Cell = Annotated[str, Field(pattern=CELL)]
Name = Annotated[str, Field(pattern=NAME, max_length=MAX_NAME)]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
Coord = Annotated[float, Field(ge=-1, le=MAX_GRID)]
Point = tuple[Coord, Coord]
Pair = tuple[Cell, Cell]
Points = Annotated[int, Field(ge=0, le=100)]
Colour = Literal["blue", "pink", "purple", "green", "orange"]
"""The colours the table draws and names in its four languages (London's and Paris's)."""


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Grid(_Strict):
    columns: Annotated[int, Field(ge=2, le=MAX_GRID)]
    rows: Annotated[int, Field(ge=2, le=MAX_GRID)]


class StationModel(_Strict):
    """A station on the cell ``name``; ``col``/``row`` its centre (0-based; a half for a
    station over several cells, with those ``cells``)."""

    name: Cell
    col: Coord
    row: Coord
    symbol: Literal["square", "circle", "triangle", "pentagon", "any"]
    district: Name
    tourist_site: bool = False
    monument: bool = False
    central_platform: bool = False
    cells: Annotated[list[tuple[int, int]], Field(min_length=2, max_length=9)] | None = None


class DistrictModel(_Strict):
    """A district: its stations and the cells of its area (ranges like ``B1:C3``)."""

    name: Name
    kind: Literal["main", "outer", "platform"]
    stations: Annotated[list[Cell], Field(min_length=1, max_length=MAX_STATIONS)]
    cells: Annotated[
        list[Annotated[str, Field(pattern=RANGE)]], Field(min_length=1, max_length=100)
    ]


class LinkGeometry(_Strict):
    """Where a link to a many-celled station ends: the cells it runs between."""

    from_cell: tuple[int, int]
    to_cell: tuple[int, int]


class BridgeModel(_Strict):
    """An overhead crossing at ``at``: the two links cross there without blocking each other."""

    at: Point
    links: tuple[Pair, Pair]


class RiverModel(_Strict):
    """The river: its ``sections`` (the links crossing it), its ``course`` (for drawing and
    checking) and the points each section crossing it scores."""

    name: Name
    sections: Annotated[list[Pair], Field(max_length=MAX_LINKS)]
    course: Annotated[list[Point], Field(min_length=2, max_length=100)]
    points_per_crossing: Points


class CardModel(_Strict):
    id: Name
    kind: Literal["street", "underground", "metro"]
    face: Literal["square", "circle", "triangle", "pentagon", "joker", "switch", "free-entry"]


class RoundEnd(_Strict):
    kind: Literal["underground", "metro"]
    count: Annotated[int, Field(ge=1, le=11)]


class Scoring(_Strict):
    """Points: tourist sites (by count on a line), interchanges (by lines meeting: ``"2"``…),
    each objective met, each monument, each bridge (by lines using it: ``"1"``, ``"2"``)."""

    tourist_points: Annotated[list[Points], Field(max_length=MAX_STATIONS + 1)] = []
    interchange_points: dict[Literal["2", "3", "4"], Points]
    objective_points: Points
    monument_points: Points = 0
    bridge_points: dict[Literal["1", "2"], Points] = {}


class Described(_Strict):
    """An objective or a pencil power: its id (one the engine implements) and a line of text."""

    id: Name
    text: Text


class SoloRating(_Strict):
    module_penalty: Annotated[int, Field(ge=0, le=1000)]
    bands: Annotated[list[tuple[int, int | None, int | None]], Field(min_length=1, max_length=20)]
    top_phrase: Text


class ReferenceScores(_Strict):
    bot: Name
    games: Annotated[int, Field(ge=1)]
    seeds: Text
    histogram: dict[Annotated[str, Field(pattern=r"^[0-9]{1,4}$")], Annotated[int, Field(ge=0)]]


class MapModel(_Strict):
    """A Next Station map (``docs/maps.md``): grid, colours and departures, stations, links,
    districts, river or bridges, deck and round end, scoring, objectives and powers."""

    format: Literal["metrogames/city/1"]
    city: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=MAX_NAME)]
    title: Text
    source: Text | None = None
    grid: Grid
    colours: Annotated[list[Colour], Field(min_length=4, max_length=4)]
    departures: dict[Colour, Cell]
    aliases: Annotated[dict[Cell, Cell], Field(max_length=20)] = {}
    stations: Annotated[list[StationModel], Field(min_length=4, max_length=MAX_STATIONS)]
    links: Annotated[list[Pair], Field(min_length=1, max_length=MAX_LINKS)]
    link_geometry: Annotated[
        dict[Annotated[str, Field(pattern=r"^[A-Z][0-9]{1,2} [A-Z][0-9]{1,2}$")], LinkGeometry],
        Field(max_length=MAX_LINKS),
    ] = {}
    crossings: Annotated[list[tuple[Pair, Pair]], Field(max_length=MAX_LINKS * 10)]
    bridges: Annotated[list[BridgeModel], Field(max_length=MAX_LINKS)] = []
    districts: Annotated[list[DistrictModel], Field(min_length=1, max_length=MAX_DISTRICTS)]
    central_district: Name | None = None
    river: RiverModel | None = None
    deck: Annotated[list[CardModel], Field(min_length=1, max_length=20)]
    round_end: RoundEnd
    scoring: Scoring
    objectives: Annotated[list[Described], Field(max_length=20)]
    powers: Annotated[list[Described], Field(max_length=20)] = []
    solo_rating: SoloRating | None = None
    check_values: Annotated[dict[Name, Annotated[int, Field(ge=0)]], Field(max_length=30)] = {}
    reference_scores: ReferenceScores | None = None


def map_schema() -> JsonSchemaValue:
    """The JSON Schema of the map format (``docs/map-schema.json`` is this, written out)."""
    schema = MapModel.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def map_schema_text() -> str:
    """``docs/map-schema.json`` as committed: :func:`map_schema` as indented JSON."""
    return json.dumps(map_schema(), indent=1, ensure_ascii=False) + "\n"
