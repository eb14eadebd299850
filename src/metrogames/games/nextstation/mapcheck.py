"""The map checker: every problem of a Next Station map, one precise sentence each.

Source: ``docs/maps.md`` ("The checker"). :func:`check_map` runs the format's model
(:mod:`.mapformat`: types, sizes, names), then the facts between fields (stations on the grid
and on their own cell, districts connected and holding their stations, links between known
stations, departures, symbols the deck reaches, the deck a known variant, objectives the map
can meet), then the geometry (:class:`~.citymap.CityMap`: links straight and through no
station, marked crossings, the river's sections, bridges). :func:`custom_city` gives a map
that passes to the engine, known by its content hash.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from metrogames.core.errors import DataError
from metrogames.core.geometry import Point, segments_cross
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.data import load_json
from metrogames.games.nextstation.citymap import (
    CITY_FILES,
    SYMBOLS,
    CityMap,
    known_city,
    map_hash,
    remember,
)
from metrogames.games.nextstation.mapformat import MapModel, StationModel
from metrogames.games.nextstation.mapproblems import MAX_SHOWN, Problem, schema_problems
from metrogames.games.nextstation.objectives import OBJECTIVES
from metrogames.i18n import Message, msg

MAX_BYTES = 1_000_000
"""The largest map file read (London's is about 18 kB)."""
POWERS = ("double-section", "joker", "switch", "circle-station")
"""The pencil powers the engine implements (``docs/engine-rules-london.md``, module 2)."""
NEEDS: dict[str, tuple[str, str]] = {
    "all-tourist-sites": ("tourist_sites", "a tourist site"),
    "central-district": ("central_district_stations", "a central district"),
    "thames-6": ("river_sections", "a river with sections"),
    "double-bridges-2": ("bridges", "a bridge"),
    "monuments-6": ("monuments", "a monument"),
}
"""Objective -> the count it needs above zero and what that count is, in words."""


@dataclass(frozen=True)
class MapReport:
    """What :func:`check_map` found.

    Attributes:
        found: the problems (:class:`~.mapproblems.Problem`: a code and a translatable
            sentence each), in checking order (empty: the map is valid).
        counts: the map's counts once it could be built (``stations``, ``links``,
            ``crossing_link_pairs``, ``districts``...): what a designer checks against the
            drawing; empty when the map could not be built.
        hash: the map's content hash (:func:`~.citymap.map_hash`), ``None`` when not JSON.
        city: the built map (valid or not, once it could be built), else ``None``.
    """

    found: list[Problem]
    counts: dict[str, int] = field(default_factory=dict)
    hash: str | None = None
    city: CityMap | None = None

    @property
    def ok(self) -> bool:
        return not self.found

    @property
    def problems(self) -> list[str]:
        """One English sentence per problem."""
        return [str(p) for p in self.found]

    def to_json(self) -> JsonObject:
        """``{"valid", "problems", "codes", "counts", "hash", "messages"}``: ``problems`` in
        English (``map check --json``), ``codes`` each one's code, ``messages`` each one as
        ``{"code", "template", "params"}`` (:meth:`~.mapproblems.Problem.to_json`), for a
        reader in another language."""
        return {
            "valid": self.ok,
            "problems": self.problems,
            "codes": [p.code for p in self.found],
            "counts": dict(self.counts),
            "hash": self.hash,
            "messages": [p.to_json() for p in self.found],
        }


def read_map(source: object) -> JsonValue:
    """The decoded map of ``source``: a JSON object as it is, or the path (``str`` or
    :class:`~pathlib.Path`) of a JSON file of at most :data:`MAX_BYTES` bytes.

    Raises:
        DataError: another type, a file that cannot be read, too large, or not JSON.
    """
    if is_object(source):
        return source
    if not isinstance(source, str | Path):
        raise DataError(f"a map is a JSON object or a file's path, not {type(source).__name__}")
    path = Path(source)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DataError(f"map {path}: {size} bytes, more than {MAX_BYTES}")
        decoded: JsonValue = json.loads(path.read_text(encoding="utf-8"))
        return decoded
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(
            f"map {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"map {path}: not JSON: {exc}") from None


def check_map(data: object) -> MapReport:
    """Every problem of the decoded map ``data`` (``docs/maps.md``, "The checker"); never
    raises on bad input."""
    try:
        digest = map_hash(data)
        model = MapModel.model_validate_json(json.dumps(data))
    except DataError as exc:
        return MapReport([_p("not-json", msg("a map must be JSON: {error}", error=_after(exc)))])
    except ValidationError as exc:
        return MapReport(schema_problems(exc), hash=digest)
    found = _names(model)
    if found:
        return MapReport(found[:MAX_SHOWN], hash=digest)
    assert isinstance(data, dict)
    try:
        city = CityMap(data, validate=False)
    except DataError as exc:
        built = msg("the map cannot be built: {error}", error=str(exc))
        return MapReport([_p("not-built", built)], hash=digest)
    counts = city.counts()
    found = _facts(model, city, counts) + city.problems() + _geometry(model, city)
    return MapReport(found[:MAX_SHOWN], counts, digest, city)


def custom_city(source: object) -> CityMap:
    """The custom map of ``source`` (a decoded map or a file's path: :func:`read_map`),
    checked and known to :func:`~.citymap.load_city` by its content hash (``city.key``); a
    map whose hash is still known is not checked again.

    Raises:
        DataError: a map that cannot be read, or that fails the checker (the message lists
            every problem).
    """
    data = read_map(source)
    known = known_city(map_hash(data))
    if known is not None:  # checked before, and still held: the same content, the same map
        return known
    report = check_map(data)
    if not report.ok or report.city is None or report.hash is None:
        listed = "; ".join(report.problems)
        raise DataError(f"invalid map: {listed}")
    return remember(report.city, report.hash)


def adopt(data: object, report: Mapping[str, object]) -> CityMap:
    """The custom map ``data``, built without the checker and known by its content hash:
    ``report`` is :func:`check_map`'s on it (its JSON, from another process), valid and of
    this very map (the same content hash). The geometry is built (the engine needs it), the
    checks are not run twice.

    Raises:
        DataError: ``report`` is not valid, or is a report of another map.
    """
    digest = map_hash(data)
    if report.get("valid") is not True or report.get("hash") != digest:
        raise DataError("invalid map: its check is missing or of another map")
    known = known_city(digest)
    if known is not None:
        return known
    if not isinstance(data, dict):
        raise DataError("invalid map: a map is a JSON object")
    return remember(CityMap(data, validate=False), digest)


def _p(code: str, text: Message) -> Problem:
    return Problem(code, text)


def _after(exc: DataError) -> str:
    """A :func:`~.citymap.map_hash` refusal's reason (after ``a map must be JSON: ``)."""
    return str(exc).partition(": ")[2] or str(exc)


# -- cells ---------------------------------------------------------------------------------


def cell_of(name: str) -> tuple[int, int]:
    """The 0-based ``(column, row)`` of a cell name (``"C10"``: ``(2, 9)``)."""
    return ord(name[0]) - ord("A"), int(name[1:]) - 1


def cell_name(col: int, row: int) -> str:
    """The name of cell ``(col, row)`` (0-based): ``(2, 9)`` is ``"C10"``."""
    return f"{chr(ord('A') + col)}{row + 1}"


def cells_of_range(text: str) -> list[tuple[int, int]]:
    """The cells of ``"B1:C3"`` (a rectangle between two corners, in either order) or
    ``"B1"``."""
    first, _, last = text.partition(":")
    (c1, r1), (c2, r2) = cell_of(first), cell_of(last or first)
    return [
        (c, r)
        for r in range(min(r1, r2), max(r1, r2) + 1)
        for c in range(min(c1, c2), max(c1, c2) + 1)
    ]


def _station_cells(station: StationModel) -> list[tuple[int, int]]:
    if station.cells:
        return [(c, r) for c, r in station.cells]
    return [(int(station.col), int(station.row))]


def _parts(cells: set[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The 4-connected parts of ``cells``, each sorted, in order of their first cell."""
    left = set(cells)
    parts = []
    while left:
        start = min(left, key=lambda c: (c[1], c[0]))
        part, todo = {start}, [start]
        left.discard(start)
        while todo:
            c, r = todo.pop()
            for step in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if step in left:
                    left.discard(step)
                    part.add(step)
                    todo.append(step)
        parts.append(sorted(part, key=lambda c: (c[1], c[0])))
    return parts


# -- facts between fields -----------------------------------------------------------------


def _names(model: MapModel) -> list[Problem]:
    """Names every table refers to: stations, districts, links, departures, aliases."""
    names = Counter(s.name for s in model.stations)
    found = [
        _p("station-twice", msg("station {name} is listed {n} times", name=n, n=k))
        for n, k in names.items()
        if k > 1
    ]
    known = set(names) | set(model.aliases)
    for alias, target in model.aliases.items():
        if alias in names or target not in names:
            found.append(
                _p(
                    "bad-alias",
                    msg(
                        "alias {alias}: it must name no station and point to one ({target})",
                        alias=alias,
                        target=target,
                    ),
                )
            )
    found += _district_names(model, set(names))
    found += _link_names(model, known)
    found += _departures(model, known)
    return found


def _district_names(model: MapModel, names: set[str]) -> list[Problem]:
    districts = Counter(d.name for d in model.districts)
    found = [
        _p("district-twice", msg("district {name} is listed {n} times", name=n, n=k))
        for n, k in districts.items()
        if k > 1
    ]
    listed: dict[str, str] = {}
    for d in model.districts:
        for name in d.stations:
            if name not in names:
                found.append(
                    _p(
                        "district-unknown-station",
                        msg(
                            "district {district} lists {name}, which is no station",
                            district=d.name,
                            name=name,
                        ),
                    )
                )
            elif name in listed:
                found.append(
                    _p(
                        "station-two-districts",
                        msg(
                            "station {name} is in districts {first} and {second}",
                            name=name,
                            first=listed[name],
                            second=d.name,
                        ),
                    )
                )
            listed.setdefault(name, d.name)
    for st in model.stations:
        if st.district not in districts:
            found.append(
                _p(
                    "unknown-district",
                    msg(
                        "station {name}: unknown district {district}",
                        name=st.name,
                        district=repr(st.district),
                    ),
                )
            )
        elif st.name not in listed:
            found.append(
                _p(
                    "station-not-listed",
                    msg(
                        "station {name}: district {district} does not list it",
                        name=st.name,
                        district=st.district,
                    ),
                )
            )
        elif listed[st.name] != st.district:
            found.append(
                _p(
                    "station-other-district",
                    msg(
                        "station {name} says district {district} but {other} lists it",
                        name=st.name,
                        district=st.district,
                        other=listed[st.name],
                    ),
                )
            )
    if model.central_district is not None and model.central_district not in districts:
        found.append(
            _p(
                "unknown-central-district",
                msg(
                    "central_district: unknown district {district}",
                    district=repr(model.central_district),
                ),
            )
        )
    return found


def _link_names(model: MapModel, known: set[str]) -> list[Problem]:
    found = []
    seen: set[frozenset[str]] = set()
    for a, b in model.links:
        link = f"{a}-{b}"
        found += [
            _p("link-unknown-station", msg("link {link}: {name} is no station", link=link, name=n))
            for n in (a, b)
            if n not in known
        ]
        if a == b:
            found.append(_p("link-loop", msg("link {link} joins a station to itself", link=link)))
        elif frozenset((a, b)) in seen:
            found.append(_p("link-twice", msg("link {link} is listed twice", link=link)))
        seen.add(frozenset((a, b)))
    pairs = [p for b in model.bridges for p in b.links]
    pairs += model.river.sections if model.river else []
    pairs += [p for c in model.crossings for p in c]
    found += [
        _p("not-a-link", msg("{link} is named as a link but is none", link="-".join(pair)))
        for pair in _missing(pairs, seen)
    ]
    for key in model.link_geometry:
        ends = key.split(" ")
        if len(ends) != 2 or frozenset(ends) not in seen:
            found.append(
                _p(
                    "bad-link-geometry",
                    msg(
                        "link_geometry {key}: not a link ('A5 E5': two station names)",
                        key=repr(key),
                    ),
                )
            )
    return found


def _missing(pairs: Iterable[tuple[str, str]], links: set[frozenset[str]]) -> list[tuple[str, str]]:
    out = []
    for a, b in pairs:
        if frozenset((a, b)) not in links and (a, b) not in out:
            out.append((a, b))
    return out


def _departures(model: MapModel, known: set[str]) -> list[Problem]:
    found = []
    if len(set(model.colours)) != len(model.colours):
        found.append(
            _p(
                "colour-twice",
                msg("colours: each colour once ({colours})", colours=", ".join(model.colours)),
            )
        )
    for colour in model.colours:
        if colour not in model.departures:
            found.append(
                _p(
                    "no-departure",
                    msg("departures: colour {colour} has no departure", colour=colour),
                )
            )
    for colour, station in model.departures.items():
        if colour not in model.colours:
            found.append(
                _p(
                    "departure-colour",
                    msg("departures: {colour} is not one of the map's colours", colour=colour),
                )
            )
        if station not in known:
            found.append(
                _p(
                    "departure-unknown-station",
                    msg("departure {colour}: {name} is no station", colour=colour, name=station),
                )
            )
    shared = Counter(model.departures.values())
    found += [
        _p("shared-departure", msg("departures: {n} colours start at {name}", n=n, name=s))
        for s, n in shared.items()
        if n > 1
    ]
    return found


def _facts(model: MapModel, city: CityMap, counts: Mapping[str, int]) -> list[Problem]:
    """The grid, districts' areas, symbols, deck, scoring and objectives."""
    found = _grid(model) + _areas(model)
    symbols: Counter[str] = Counter(s.symbol for s in model.stations)
    faces: Counter[str] = Counter(c.face for c in model.deck)
    for symbol in SYMBOLS:
        if faces[symbol] and not symbols[symbol] and not symbols["any"]:
            found.append(
                _p(
                    "symbol-unreachable",
                    msg(
                        "symbol {symbol}: no station has it, so the deck's {n} {symbol} "
                        "card(s) can never be played",
                        symbol=symbol,
                        n=faces[symbol],
                    ),
                )
            )
    found += _variant(model)
    if faces["free-entry"] and not counts["monuments"]:
        found.append(
            _p(
                "free-entry-no-monument",
                msg("deck: the free-entry card leads to a monument, and the map has none"),
            )
        )
    if counts["tourist_sites"] and not model.scoring.tourist_points:
        found.append(
            _p(
                "no-tourist-table",
                msg("scoring.tourist_points: the map has tourist sites but no tourist table"),
            )
        )
    for o in model.objectives:
        if o.id not in OBJECTIVES:
            found.append(
                _p(
                    "unknown-objective",
                    msg(
                        "objective {id}: unknown (known: {known})",
                        id=repr(o.id),
                        known=", ".join(OBJECTIVES),
                    ),
                )
            )
        elif o.id in NEEDS and not counts[NEEDS[o.id][0]]:
            found.append(
                _p(
                    "objective-unmet",
                    msg(
                        "objective {id} needs {what}, and the map has none",
                        id=o.id,
                        what=NEEDS[o.id][1],
                    ),
                )
            )
    if len(model.objectives) == 1:
        found.append(
            _p(
                "one-objective",
                msg("objectives: a game draws 2 of them; list none or at least 2"),
            )
        )
    for p in model.powers:
        if p.id not in POWERS:
            found.append(
                _p(
                    "unknown-power",
                    msg(
                        "power {id}: unknown (known: {known})",
                        id=repr(p.id),
                        known=", ".join(POWERS),
                    ),
                )
            )
    if model.powers and len(model.powers) < len(model.colours):
        found.append(
            _p(
                "few-powers",
                msg(
                    "powers: one per colour is drawn; list none or at least {n}",
                    n=len(model.colours),
                ),
            )
        )
    return found


def _grid(model: MapModel) -> list[Problem]:
    columns, rows = model.grid.columns, model.grid.rows
    found = []
    covered: dict[tuple[int, int], str] = {}
    for s in model.stations:
        cells = _station_cells(s)
        outside = [c for c in cells if not (0 <= c[0] < columns and 0 <= c[1] < rows)]
        if outside or not (0 <= s.col <= columns - 1 and 0 <= s.row <= rows - 1):
            found.append(
                _p(
                    "station-outside-grid",
                    msg(
                        "station {name} is outside the {columns}×{rows} grid (col {col:g}, "
                        "row {row:g})",
                        name=s.name,
                        columns=columns,
                        rows=rows,
                        col=s.col,
                        row=s.row,
                    ),
                )
            )
            continue
        if cell_of(s.name) != (int(s.col), int(s.row)):
            col, row = cell_of(s.name)
            found.append(
                _p(
                    "station-misnamed",
                    msg(
                        "station {name} sits at col {col:g}, row {row:g}, but its name is cell "
                        "col {named_col}, row {named_row}",
                        name=s.name,
                        col=s.col,
                        row=s.row,
                        named_col=col,
                        named_row=row,
                    ),
                )
            )
        for c in cells:
            if c in covered:
                found.append(
                    _p(
                        "cell-two-stations",
                        msg(
                            "cell {cell} holds two stations: {first} and {second}",
                            cell=cell_name(*c),
                            first=covered[c],
                            second=s.name,
                        ),
                    )
                )
            covered.setdefault(c, s.name)
    return found


def _areas(model: MapModel) -> list[Problem]:
    columns, rows = model.grid.columns, model.grid.rows
    found = []
    owner: dict[tuple[int, int], str] = {}
    for d in model.districts:
        cells = {c for text in d.cells for c in cells_of_range(text)}
        outside = sorted(c for c in cells if c[0] >= columns or c[1] >= rows)
        if outside:
            found.append(
                _p(
                    "district-outside-grid",
                    msg(
                        "district {district}: cell {cell} is outside the grid",
                        district=d.name,
                        cell=cell_name(*outside[0]),
                    ),
                )
            )
        parts = _parts(cells)
        if len(parts) > 1:
            starts = ", ".join(cell_name(*p[0]) for p in parts)
            found.append(
                _p(
                    "district-not-connected",
                    msg(
                        "district {district} is not a set of connected cells: {n} separate "
                        "parts (from {starts})",
                        district=d.name,
                        n=len(parts),
                        starts=starts,
                    ),
                )
            )
        for c in sorted(cells):
            if c in owner:
                found.append(
                    _p(
                        "districts-overlap",
                        msg(
                            "cell {cell} is in districts {first} and {second}",
                            cell=cell_name(*c),
                            first=owner[c],
                            second=d.name,
                        ),
                    )
                )
            owner.setdefault(c, d.name)
    for s in model.stations:
        for c in _station_cells(s):
            if owner.get(c, s.district) != s.district or c not in owner:
                found.append(
                    _p(
                        "station-outside-district",
                        msg(
                            "station {name} lies on cell {cell}, outside its district {district}",
                            name=s.name,
                            cell=cell_name(*c),
                            district=s.district,
                        ),
                    )
                )
                break
    return found


@cache
def _variants() -> dict[str, tuple[object, object]]:
    """City -> its deck (sorted) and round end: the rules variants a map may use."""
    out: dict[str, tuple[object, object]] = {}
    for city, file in CITY_FILES.items():
        data = load_json(file)
        out[city] = (sorted(json.dumps(c, sort_keys=True) for c in data["deck"]), data["round_end"])
    return out


def _variant(model: MapModel) -> list[Problem]:
    deck = sorted(json.dumps(c.model_dump(), sort_keys=True) for c in model.deck)
    mine = (deck, model.round_end.model_dump())
    if mine in _variants().values():
        return []
    return [
        _p(
            "unknown-variant",
            msg(
                "deck and round_end: not a known variant: London's 11 cards (street and "
                "underground, a joker and a switch; a round ends on the 5th underground card) "
                "or Paris's (street and metro, a free entry and a switch; the 5th metro card), "
                "as in their files"
            ),
        )
    ]


# -- geometry ----------------------------------------------------------------------------


def _geometry(model: MapModel, city: CityMap) -> list[Problem]:
    """Links straight, departures linked, crossings as marked, river sections, bridges."""
    found = []
    for j, (a, b) in enumerate(city.segments):
        dx, dy = abs(b[0] - a[0]), abs(b[1] - a[1])
        if dx and dy and dx != dy:
            found.append(
                _p(
                    "link-not-straight",
                    msg(
                        "link {link} is not straight: it runs {dx:g} column(s) and {dy:g} "
                        "row(s) (a link follows a row, a column or a diagonal)",
                        link=city.link_name(j),
                        dx=dx,
                        dy=dy,
                    ),
                )
            )
    for colour, station in zip(city.colours, city.departures, strict=True):
        if not city.link_mask_of_station[station]:
            found.append(
                _p(
                    "departure-no-link",
                    msg(
                        "departure {colour}: station {name} has no link",
                        colour=colour,
                        name=city.stations[station].name,
                    ),
                )
            )
    marked = {
        frozenset((city.link_by_names(*x), city.link_by_names(*y))) for x, y in model.crossings
    }
    for i, j in city.crossing_pairs():
        if frozenset((i, j)) not in marked:
            at = _meeting(city.segments[i], city.segments[j])
            found.append(
                _p(
                    "crossing-unmarked",
                    msg(
                        "links {first} and {second} cross at ({x:g}, {y:g}) but the map does "
                        "not mark that crossing",
                        first=city.link_name(i),
                        second=city.link_name(j),
                        x=at[0],
                        y=at[1],
                    ),
                )
            )
    actual = {frozenset(p) for p in city.crossing_pairs()}
    for pair in marked - actual:
        i, j = sorted(pair) if len(pair) == 2 else (min(pair), min(pair))
        found.append(
            _p(
                "crossing-not-there",
                msg(
                    "crossing {first} × {second} is marked but those links do not cross",
                    first=city.link_name(i),
                    second=city.link_name(j),
                ),
            )
        )
    found += _river(model, city) + _bridges(model, city)
    return found


def _meeting(s: tuple[Point, Point], t: tuple[Point, Point]) -> Point:
    """Where the lines of two crossing segments meet."""
    (x1, y1), (x2, y2) = s
    (x3, y3), (x4, y4) = t
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    u = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / den
    return round(x1 + u * (x2 - x1), 6), round(y1 + u * (y2 - y1), 6)


def _river(model: MapModel, city: CityMap) -> list[Problem]:
    if model.river is None:
        return []
    course = city.river_course
    name = model.river.name
    found = []
    for j, (a, b) in enumerate(city.segments):
        crosses = any(segments_cross(a, b, p, q) for p, q in itertools.pairwise(course))
        section = bool((city.river_mask >> j) & 1)
        if crosses and not section:
            found.append(
                _p(
                    "river-section-missing",
                    msg(
                        "river: link {link} crosses the {river}'s course but is not one of its "
                        "sections",
                        link=city.link_name(j),
                        river=name,
                    ),
                )
            )
        elif section and not crosses:
            found.append(
                _p(
                    "river-section-not-crossing",
                    msg(
                        "river: section {link} does not cross the {river}'s course",
                        link=city.link_name(j),
                        river=name,
                    ),
                )
            )
    return found


def _bridges(model: MapModel, city: CityMap) -> list[Problem]:
    found = []
    for bridge, (i, j) in zip(model.bridges, city.bridges, strict=True):
        s, t = city.segments[i], city.segments[j]
        at = (bridge.at[0], bridge.at[1])
        if not segments_cross(*s, *t) or _meeting(s, t) != (round(at[0], 6), round(at[1], 6)):
            found.append(
                _p(
                    "bridge-not-crossing",
                    msg(
                        "bridge at ({x:g}, {y:g}): links {first} and {second} do not cross there",
                        x=at[0],
                        y=at[1],
                        first=city.link_name(i),
                        second=city.link_name(j),
                    ),
                )
            )
    return found
