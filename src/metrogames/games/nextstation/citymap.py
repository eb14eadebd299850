"""A Next Station city: its map, deck and scoring tables, loaded from a data file.

The map is indexed for bitset play: station ``i`` is bit ``1 << i`` of a stations mask and link
``j`` is bit ``1 << j`` of a links mask. Each link has a precomputed *conflict mask*: the links
whose drawn segments cross it at a point that is not a station (bridges excepted), so "does this
section cross anything on the map?" is one AND. Crossings are recomputed from geometry on load,
never listed by hand.

Source: ``docs/engine-rules-london.md`` (Components, Drawing a section) and
``docs/engine-rules-paris.md`` (Map).
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from metrogames.core.errors import DataError, NotationError
from metrogames.core.geometry import Point, on_segment, segments_cross
from metrogames.data import load_json
from metrogames.games.nextstation.mapproblems import Problem
from metrogames.i18n import N_, msg

SYMBOLS = ("square", "circle", "triangle", "pentagon")
ANY = "any"
"""The symbol of stations every card reaches (London's "?", Paris's monuments and platform)."""


@dataclass(frozen=True, slots=True)
class Station:
    """One station: ``index`` (bit number), cell ``name`` like ``"D3"``, cell ``col``/``row``
    (0-based), ``symbol`` (one of :data:`SYMBOLS` or :data:`ANY`), ``district`` index,
    and the tourist-site and monument flags."""

    index: int
    name: str
    col: float
    row: float
    symbol: str
    district: int
    tourist_site: bool
    monument: bool


@dataclass(frozen=True, slots=True)
class Card:
    """A station card: ``id`` such as ``"underground-joker"``, its ``kind`` (back: ``street``,
    ``underground`` or ``metro``), its ``face`` (a symbol, ``joker``, ``switch`` or
    ``free-entry``) and whether it counts toward the round's end."""

    id: str
    kind: str
    face: str
    ends_round: bool


@dataclass(frozen=True, slots=True)
class District:
    """A district: ``name``, ``kind`` (``main``/``outer``/``platform``) and its stations mask."""

    index: int
    name: str
    kind: str
    mask: int


def bits(mask: int) -> list[int]:
    """The set bit numbers of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class CityMap:
    """A validated, indexed Next Station city. Build with :func:`load_city`.

    Raises:
        DataError: (on construction) the data break a count or a geometric fact.
    """

    def __init__(self, data: Mapping[str, Any], *, validate: bool = True) -> None:
        try:
            self._build(data)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise DataError(f"malformed city data: {exc!r}") from exc
        self.key: str = self.city
        """The name :func:`load_city` knows the map by: the city for London and Paris, the
        content hash (:func:`map_hash`) for a custom map (:func:`.mapcheck.custom_city`)."""
        if validate:
            found = self.problems()
            if found:
                raise DataError(str(found[0]))

    # -- construction -------------------------------------------------------------------
    def _build(self, data: Mapping[str, Any]) -> None:
        self.city: str = data["city"]
        self.title: str = data["title"]
        self.columns: int = data["grid"]["columns"]
        self.rows: int = data["grid"]["rows"]
        self.colours: tuple[str, ...] = tuple(data["colours"])
        self._read_stations(data)
        self._read_links(data["links"])
        self._read_geometry(data)
        self._read_rules(data)
        self.raw: Mapping[str, Any] = data

    def _read_stations(self, data: Mapping[str, Any]) -> None:
        """Stations, districts, departures; station names and aliases."""
        district_list = data["districts"]
        district_of: dict[str, int] = {}
        for i, d in enumerate(district_list):
            for name in d["stations"]:
                if name in district_of:
                    raise DataError(f"station {name} is in two districts")
                district_of[name] = i
        stations = []
        for i, s in enumerate(data["stations"]):
            name = s["name"]
            if name not in district_of:
                raise DataError(f"station {name} is in no district")
            if s["symbol"] not in (*SYMBOLS, ANY):
                raise DataError(f"station {name} has unknown symbol {s['symbol']!r}")
            stations.append(
                Station(
                    i,
                    name,
                    float(s["col"]),
                    float(s["row"]),
                    s["symbol"],
                    district_of[name],
                    bool(s.get("tourist_site", False)),
                    bool(s.get("monument", False)),
                )
            )
        self.stations: tuple[Station, ...] = tuple(stations)
        self.station_cells: tuple[tuple[Point, ...], ...] = tuple(
            ((st.col, st.row), *((float(x), float(y)) for x, y in s.get("cells", ())))
            for st, s in zip(stations, data["stations"], strict=True)
        )
        """Per station, the points no other link may pass through: its position, and for a
        station covering several cells (Paris's central platform) each cell listed in ``cells``."""
        self.station_index: dict[str, int] = {s.name: s.index for s in stations}
        if len(self.station_index) != len(stations):
            raise DataError("two stations share a name")
        for alias, target in data.get("aliases", {}).items():
            self.station_index[alias] = self.station_index[target]
        self.districts: tuple[District, ...] = tuple(
            District(
                i,
                d["name"],
                d["kind"],
                sum(1 << self.station_index[n] for n in d["stations"]),
            )
            for i, d in enumerate(district_list)
        )
        self.district_masks: tuple[int, ...] = tuple(d.mask for d in self.districts)
        self.departures: tuple[int, ...] = tuple(
            self.station_index[data["departures"][c]] for c in self.colours
        )
        central = data.get("central_district")
        self.central_mask: int = next((d.mask for d in self.districts if d.name == central), 0)

    def _read_links(self, listed: Any) -> None:
        """Links (``[name, name]`` pairs) and the tables that follow from them."""
        stations = self.stations
        links: list[tuple[int, int]] = []
        self.link_of: dict[tuple[int, int], int] = {}
        for a_name, b_name in listed:
            a, b = self.station_index[a_name], self.station_index[b_name]
            if a == b or (a, b) in self.link_of:
                raise DataError(f"link {a_name}-{b_name} is a loop or listed twice")
            self.link_of[(a, b)] = self.link_of[(b, a)] = len(links)
            links.append((a, b))
        self.links: tuple[tuple[int, int], ...] = tuple(links)
        adjacency: list[list[tuple[int, int]]] = [[] for _ in stations]
        for j, (a, b) in enumerate(links):
            adjacency[a].append((j, b))
            adjacency[b].append((j, a))
        self.adjacency: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(sorted(adj, key=lambda x: x[1])) for adj in adjacency
        )
        self.link_mask_of_station: tuple[int, ...] = tuple(
            sum(1 << j for j, _ in adj) for adj in adjacency
        )
        self.neighbours: tuple[int, ...] = tuple(sum(1 << t for _, t in adj) for adj in adjacency)
        """Per station, the stations mask of its link neighbours."""
        self.links_by_target: tuple[dict[int, tuple[int, int, int, int]], ...] = tuple(
            {1 << t: (s, t, j, 1 << j) for j, t in adj} for s, adj in enumerate(adjacency)
        )
        """Per station ``s``, neighbour bit → ``(s, neighbour, link, link bit)``."""
        n = len(stations)
        pair_link = [-1] * (n * n)
        for j, (a, b) in enumerate(links):
            pair_link[a * n + b] = pair_link[b * n + a] = j
        self.pair_link: tuple[int, ...] = tuple(pair_link)
        """``pair_link[a * len(stations) + b]``: the link joining ``a`` and ``b``, or -1."""

    def _read_geometry(self, data: Mapping[str, Any]) -> None:
        """Where links run (segments, bridges, crossings), the river, the station masks."""
        stations = self.stations
        links = self.links
        geometry = data.get("link_geometry", {})
        self.segments: tuple[tuple[Point, Point], ...] = tuple(
            self._segment(j, geometry) for j in range(len(links))
        )
        self.bridges: tuple[tuple[int, int], ...] = tuple(
            (self.link_by_names(*b["links"][0]), self.link_by_names(*b["links"][1]))
            for b in data.get("bridges", [])
        )
        self.conflicts: tuple[int, ...] = self._conflicts()

        river = data.get("river")
        self.river_name: str | None = river["name"] if river else None
        self.river_mask: int = (
            sum(1 << self.link_by_names(a, b) for a, b in river["sections"]) if river else 0
        )
        self.river_course: tuple[Point, ...] = (
            tuple((float(x), float(y)) for x, y in river["course"]) if river else ()
        )
        self.river_points: int = river["points_per_crossing"] if river else 0
        self.tourist_mask: int = sum(1 << s.index for s in stations if s.tourist_site)
        self.monument_mask: int = sum(1 << s.index for s in stations if s.monument)
        any_mask = sum(1 << s.index for s in stations if s.symbol == ANY)
        self.wild_mask: int = any_mask
        self.symbol_mask: dict[str, int] = {
            sym: any_mask | sum(1 << s.index for s in stations if s.symbol == sym)
            for sym in SYMBOLS
        }
        self.all_stations_mask: int = (1 << len(stations)) - 1

    def _read_rules(self, data: Mapping[str, Any]) -> None:
        """Round end, deck, scoring, objectives, powers, solo rating and reference scores."""
        end = data["round_end"]
        self.round_end_kind: str = end["kind"]
        self.round_end_count: int = end["count"]
        self.deck: tuple[Card, ...] = tuple(
            Card(c["id"], c["kind"], c["face"], c["kind"] == self.round_end_kind)
            for c in data["deck"]
        )
        self.card_by_id: dict[str, Card] = {c.id: c for c in self.deck}
        scoring = data["scoring"]
        self.tourist_points: tuple[int, ...] = tuple(scoring.get("tourist_points", ()))
        self.interchange_points: dict[int, int] = {
            int(k): v for k, v in scoring["interchange_points"].items()
        }
        self.objective_points: int = scoring["objective_points"]
        self.monument_points: int = scoring.get("monument_points", 0)
        self.bridge_points: dict[int, int] = {
            int(k): v for k, v in scoring.get("bridge_points", {}).items()
        }
        self.objectives: tuple[str, ...] = tuple(o["id"] for o in data["objectives"])
        self.objective_text: dict[str, str] = {o["id"]: o["text"] for o in data["objectives"]}
        self.powers: tuple[str, ...] = tuple(p["id"] for p in data.get("powers", []))
        self.power_text: dict[str, str] = {p["id"]: p["text"] for p in data.get("powers", [])}
        self.solo_rating: Mapping[str, Any] | None = data.get("solo_rating")
        reference = data.get("reference_scores") or {}
        self.reference_bot: str | None = reference.get("bot")
        self.reference_scores: dict[int, int] = {
            int(k): int(v) for k, v in reference.get("histogram", {}).items()
        }
        """Greedy-bot solo scores (points → games), for a solo player's percentile."""

    def _segment(self, j: int, geometry: Mapping[str, Any]) -> tuple[Point, Point]:
        a, b = self.links[j]
        sa, sb = self.stations[a], self.stations[b]
        key = f"{sa.name} {sb.name}"
        rkey = f"{sb.name} {sa.name}"
        if key in geometry:
            g = geometry[key]
            return (tuple(g["from_cell"]), tuple(g["to_cell"]))
        if rkey in geometry:
            g = geometry[rkey]
            return (tuple(g["to_cell"]), tuple(g["from_cell"]))
        return ((sa.col, sa.row), (sb.col, sb.row))

    def _conflicts(self) -> tuple[int, ...]:
        bridge_pairs = {frozenset(p) for p in self.bridges}
        boxes = [_box(a, b) for a, b in self.segments]
        masks = [0] * len(self.links)
        by_left = sorted(range(len(self.links)), key=lambda j: boxes[j][0])
        for k, i in enumerate(by_left):
            _, right, low, high = boxes[i]
            a1, b1 = self.segments[i]
            for j in by_left[k + 1 :]:
                left_j, _, low_j, high_j = boxes[j]
                if left_j > right:
                    break  # this box and every later one start right of link i's
                if low_j > high or high_j < low:
                    continue  # apart vertically: segments apart too
                if set(self.links[i]) & set(self.links[j]):
                    continue  # links sharing a station meet there, never conflict
                if frozenset((i, j)) in bridge_pairs:
                    continue
                a2, b2 = self.segments[j]
                if segments_cross(a1, b1, a2, b2):
                    masks[i] |= 1 << j
                    masks[j] |= 1 << i
        return tuple(masks)

    def problems(self) -> list[Problem]:
        """Every fact of the map's geometry and tables that fails, one problem each
        (:class:`~.mapproblems.Problem`): a link through a station, a count that differs from
        ``check_values``, two cards of one id, fewer round-end cards than a round needs
        (``[]``: none)."""
        found = self._through_stations()
        found += self._check_values(self.raw.get("check_values", {}))
        if len(self.card_by_id) != len(self.deck):
            twice = msg("{city}: two cards share an id", city=self.city)
            found.append(Problem("card-twice", twice))
        if sum(c.ends_round for c in self.deck) < self.round_end_count:
            found.append(
                Problem(
                    "few-round-end-cards",
                    msg("{city}: fewer round-end cards than the round needs", city=self.city),
                )
            )
        return found

    def _through_stations(self) -> list[Problem]:
        found: list[Problem] = []
        boxes = [_box(a, b) for a, b in self.segments]
        for s in self.stations:
            for j, (a, b) in enumerate(self.links):
                if s.index in (a, b):
                    continue
                left, right, low, high = boxes[j]
                for p in self.station_cells[s.index]:
                    if (
                        left <= p[0] <= right
                        and low <= p[1] <= high
                        and on_segment(p, *self.segments[j])
                    ):
                        found.append(
                            Problem(
                                "link-through-station",
                                msg(
                                    "link {link} passes through station {name}",
                                    link=self.link_name(j),
                                    name=s.name,
                                ),
                            )
                        )
                        break
        return found

    def crossing_pairs(self) -> list[tuple[int, int]]:
        """The pairs of links ``(i, j)``, ``i < j``, whose drawn segments cross off a station
        (bridges excepted): the map's conflicts."""
        return [(i, j) for i, m in enumerate(self.conflicts) for j in bits(m) if i < j]

    def counts(self) -> dict[str, int]:
        """The map's counts (the keys ``check_values`` may state)."""
        return {
            "stations": len(self.stations),
            "links": len(self.links),
            "districts": len(self.districts),
            "river_sections": self.river_mask.bit_count(),
            "tourist_sites": self.tourist_mask.bit_count(),
            "monuments": self.monument_mask.bit_count(),
            "departures": len(set(self.departures)),
            "cards": len(self.deck),
            "crossing_link_pairs": len(self.crossing_pairs()),
            "objectives": len(self.objectives),
            "powers": len(self.powers),
            "bridges": len(self.bridges),
            "central_district_stations": self.central_mask.bit_count(),
        }

    def _check_values(self, check: Mapping[str, int]) -> list[Problem]:
        counts = self.counts()
        found: list[Problem] = []
        for key, expected in check.items():
            if key not in counts:
                found.append(
                    Problem("unknown-check-value", msg("unknown check value {key}", key=repr(key)))
                )
            elif counts[key] != expected:
                found.append(
                    Problem(
                        "check-value",
                        msg(
                            "{city}: {key} is {count}, expected {expected}",
                            city=self.city,
                            key=key,
                            count=counts[key],
                            expected=expected,
                        ),
                    )
                )
        return found

    @cached_property
    def hash(self) -> str:
        """The content hash of the map's data (:func:`map_hash`)."""
        return map_hash(self.raw)

    # -- names ---------------------------------------------------------------------------
    def station(self, name: str) -> int:
        """The index of the station named ``name`` (case-insensitive, e.g. ``"d3"``).

        Raises:
            NotationError: no station of that name on this map.
        """
        if isinstance(name, str):
            idx = self.station_index.get(name.strip().upper())
            if idx is not None:
                return idx
        raise NotationError(
            msg(N_("unknown station {name} on the {map} map"), name=repr(name), map=self.title)
        )

    def link_by_names(self, a: str, b: str) -> int:
        """The link index joining stations ``a`` and ``b``; ``KeyError`` if there is none."""
        return self.link_of[(self.station_index[a], self.station_index[b])]

    def link_name(self, link: int) -> str:
        """``"D3-G3"`` for a link, in the data file's order."""
        a, b = self.links[link]
        return f"{self.stations[a].name}-{self.stations[b].name}"

    def card(self, card_id: str) -> Card:
        """The card with this id. Raises ``NotationError`` for an unknown id."""
        try:
            return self.card_by_id[card_id]
        except (KeyError, TypeError):
            raise NotationError(f"unknown card {card_id!r} in the {self.title} deck") from None

    def colour_index(self, colour: str) -> int:
        """The index of ``colour`` in :attr:`colours`. Raises ``NotationError`` if unknown."""
        try:
            return self.colours.index(colour)
        except ValueError:
            raise NotationError(
                f"unknown colour {colour!r} (expected one of {', '.join(self.colours)})"
            ) from None

    def names(self, mask: int) -> list[str]:
        """Station names of a stations mask, in index order."""
        return [self.stations[i].name for i in bits(mask)]


def _box(a: Point, b: Point) -> tuple[float, float, float, float]:
    """The bounding box of segment ``a``–``b``: left, right, low, high."""
    return min(a[0], b[0]), max(a[0], b[0]), min(a[1], b[1]), max(a[1], b[1])


CITY_FILES: dict[str, str] = {"london": "london.json", "paris": "paris.json"}
CUSTOM_GAME = "nextstation"
"""The game name of a Next Station game on a custom map (``docs/maps.md``)."""
CUSTOM_KEPT = 64
"""How many custom maps a process keeps by content hash beyond those a live game holds (the
least recently used go first: ``docs/maps.md``, "Limits")."""
_CUSTOM: OrderedDict[str, CityMap] = OrderedDict()
"""Content hash -> a custom map checked by :func:`.mapcheck.custom_city`: the
:data:`CUSTOM_KEPT` most recently used, held."""
_LIVE: weakref.WeakValueDictionary[str, CityMap] = weakref.WeakValueDictionary()
"""Content hash -> every custom map still referenced (a game holds its map: a map in play is
never forgotten, however many others were checked since)."""


def map_hash(data: object) -> str:
    """``"sha256:<64 hex digits>"``: the SHA-256 of the map ``data`` written as canonical JSON
    (keys sorted, no spaces, UTF-8): equal for equal decoded maps, whatever their layout
    (``docs/maps.md``, "Content hash").

    Raises:
        DataError: ``data`` is not JSON (a value ``json`` cannot write).
    """
    try:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise DataError(f"a map must be JSON: {exc}") from None
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def remember(city: CityMap, key: str) -> CityMap:
    """Make the checked custom map ``city`` known to :func:`load_city` as ``key`` (its
    content hash); the map already known under ``key`` when there is one."""
    known = _LIVE.get(key)
    if known is None:
        city.key = key
        known = _LIVE[key] = city
    _keep(key, known)
    return known


def _keep(key: str, city: CityMap) -> None:
    """Hold ``city`` as the most recently used custom map, forgetting the least recently
    used beyond :data:`CUSTOM_KEPT` (a game still holding it keeps it in :data:`_LIVE`)."""
    _CUSTOM[key] = city
    _CUSTOM.move_to_end(key)
    while len(_CUSTOM) > CUSTOM_KEPT:
        _CUSTOM.popitem(last=False)


def known_city(key: str) -> CityMap | None:
    """The custom map remembered as ``key`` while it is still held (made the most recently
    used again), else ``None``."""
    found = _LIVE.get(key)
    if found is not None:
        _keep(key, found)
    return found


def city_known(key: str) -> bool:
    """Whether :func:`load_city` knows ``key``: London, Paris or a remembered custom map."""
    return key in CITY_FILES or key in _LIVE


def is_custom(key: str) -> bool:
    """Whether ``key`` names a custom map (a content hash), not London or Paris."""
    return key not in CITY_FILES


def load_city(city: str) -> CityMap:
    """The city ``city``: ``"london"``, ``"paris"`` (loaded and validated once; later calls
    share it) or a custom map's content hash (one :func:`remember` was given, still held: by
    a live game, or among the :data:`CUSTOM_KEPT` last remembered).

    Raises:
        DataError: unknown city or invalid data file.
    """
    if city in CITY_FILES:
        return _builtin(city)
    found = _LIVE.get(city)
    if found is None:
        raise DataError(f"unknown city {city!r}")
    return found


@cache
def _builtin(city: str) -> CityMap:
    return CityMap(load_json(CITY_FILES[city]))
