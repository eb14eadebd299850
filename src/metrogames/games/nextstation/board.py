"""One player's map: the lines drawn so far, as bitsets, and the section rules.

Source: ``docs/engine-rules-london.md``, "Drawing a section" (shared by Paris, with its overhead
crossings handled by the city's conflict masks).

A line is three ints: the stations on it, the links (sections) drawn, and its *ends* — stations
with at most one section of that line (a branch after a switch adds an end). An empty line has no
stations: its departure station joins it with the first section.
"""

from __future__ import annotations

from metrogames.core.errors import IllegalActionError
from metrogames.games.nextstation.citymap import CityMap, bits
from metrogames.games.nextstation.words import term
from metrogames.i18n import N_, Message, msg


class PlayerMap:
    """The drawing on one player's map. Mutable; states copy it before changing it.

    Attributes:
        drawn: links drawn on the map by any line (bitset over links).
        blocked: links that can no longer be drawn: drawn, or crossing a drawn link.
        stations, sections, ends: per colour index, bitsets of the line's stations, sections
            and ends.
        circled: per colour index, the circled station or -1.
    """

    __slots__ = ("blocked", "circled", "drawn", "ends", "sections", "stations")

    def __init__(self, colours: int = 4) -> None:
        self.drawn = 0
        self.blocked = 0
        self.stations = [0] * colours
        self.sections = [0] * colours
        self.ends = [0] * colours
        self.circled = [-1] * colours

    @classmethod
    def from_lines(cls, city: CityMap, sections: list[int], circled: list[int]) -> PlayerMap:
        """The map whose line of colour ``c`` has the links of ``sections[c]`` and the circled
        station ``circled[c]`` (-1: none); stations, ends (stations with exactly one section of
        the line), drawn and blocked links are derived. The lines are not checked."""
        board = cls(len(sections))
        for c, mask in enumerate(sections):
            if not mask:
                continue
            stations = ends = 0
            for link in bits(mask):
                for station in city.links[link]:
                    stations |= 1 << station
            for station in bits(stations):
                if (mask & city.link_mask_of_station[station]).bit_count() == 1:
                    ends |= 1 << station
            board.stations[c] = stations
            board.sections[c] = mask
            board.ends[c] = ends
            board.drawn |= mask
            for link in bits(mask):
                board.blocked |= (1 << link) | city.conflicts[link]
        board.circled = list(circled)
        return board

    def same_as(self, other: PlayerMap) -> bool:
        """True when both maps hold the same lines, circles and derived masks."""
        return all(getattr(self, name) == getattr(other, name) for name in PlayerMap.__slots__)

    def copy(self) -> PlayerMap:
        """An independent copy."""
        other = PlayerMap.__new__(PlayerMap)
        other.drawn = self.drawn
        other.blocked = self.blocked
        other.stations = self.stations[:]
        other.sections = self.sections[:]
        other.ends = self.ends[:]
        other.circled = self.circled[:]
        return other

    # -- drawing ---------------------------------------------------------------------------
    def add_section(self, city: CityMap, colour: int, start: int, target: int, link: int) -> None:
        """Draw ``link`` from ``start`` to ``target`` on line ``colour``, unchecked."""
        bit_t = 1 << target
        if self.sections[colour]:
            bit_s = 1 << start
            ends = self.ends[colour]
            if ends & bit_s:
                ends ^= bit_s  # it had one section of the line: now two
            self.ends[colour] = ends | bit_t
            self.stations[colour] |= bit_t
        else:
            self.ends[colour] = (1 << start) | bit_t
            self.stations[colour] = (1 << start) | bit_t
        self.sections[colour] |= 1 << link
        self.drawn |= 1 << link
        self.blocked |= (1 << link) | city.conflicts[link]

    def starts(self, city: CityMap, colour: int, branch: bool) -> int:
        """Stations a section of line ``colour`` may start from: its ends, or every station
        of the line when ``branch`` (a switch effect); the departure station on an empty line."""
        if not self.sections[colour]:
            return 1 << city.departures[colour]
        return self.stations[colour] if branch else self.ends[colour]

    def moves(
        self, city: CityMap, colour: int, starts: int, targets: int
    ) -> list[tuple[int, int, int, int]]:
        """Every legal section ``(start, target, link, link bit)`` of line ``colour`` from a
        station of the ``starts`` mask to a station of the ``targets`` mask, in a fixed order."""
        return find_sections(city, starts, targets & ~self.stations[colour], self.blocked)

    def line(self, colour: int) -> tuple[int, int, int, int]:
        """Line ``colour``'s stations, sections and ends masks, and the map's blocked links:
        what drawing a section reads (fast paths keep them in local ints)."""
        return self.stations[colour], self.sections[colour], self.ends[colour], self.blocked

    def set_line(
        self, colour: int, stations: int, sections: int, ends: int, blocked: int
    ) -> None:
        """Store what :meth:`line` gives after sections were added to line ``colour`` (the
        drawn links follow)."""
        self.stations[colour] = stations
        self.sections[colour] = sections
        self.ends[colour] = ends
        self.drawn |= sections
        self.blocked = blocked

    def check_section(
        self, city: CityMap, colour: int, start: int, target: int, starts: int, targets: int
    ) -> int:
        """Check one section and return its link.

        Raises:
            IllegalActionError: with reason ``not-a-link``, ``not-an-end``, ``not-on-line``,
                ``wrong-symbol``, ``revisits-station``, ``doubled-section`` or
                ``crosses-section``, and a detail naming the section (and what it crosses).
        """
        names = city.stations
        pair = f"{names[start].name}-{names[target].name}"
        link = city.link_of.get((start, target))
        if link is None:
            raise IllegalActionError.of(
                "not-a-link",
                msg(N_("{section}: no link joins these stations"), section=_section(pair)),
            )
        if not (starts >> start) & 1:
            if not self.sections[colour]:
                dep = names[city.departures[colour]].name
                raise IllegalActionError.of(
                    "not-an-end",
                    msg(
                        N_(
                            "{section}: the first section must leave the departure station {station}"
                        ),
                        section=_section(pair),
                        station=dep,
                    ),
                )
            if (self.stations[colour] >> start) & 1:
                raise IllegalActionError.of(
                    "not-an-end",
                    msg(
                        N_("{section}: {station} is not an end of the line"),
                        section=_section(pair),
                        station=names[start].name,
                    ),
                )
            raise IllegalActionError.of(
                "not-on-line",
                msg(
                    N_("{section}: {station} is not on the {colour} line"),
                    section=_section(pair),
                    station=names[start].name,
                    colour=term(city.colours[colour]),
                ),
            )
        if not (targets >> target) & 1:
            raise IllegalActionError.of(
                "wrong-symbol",
                msg(
                    N_("{section}: {station} is a {symbol}, not the card's symbol"),
                    section=_section(pair),
                    station=names[target].name,
                    symbol=term(names[target].symbol),
                ),
            )
        if (self.stations[colour] >> target) & 1:
            raise IllegalActionError.of(
                "revisits-station",
                msg(
                    N_("{section}: {station} is already on the line"),
                    section=_section(pair),
                    station=names[target].name,
                ),
            )
        if (self.drawn >> link) & 1:
            raise IllegalActionError.of(
                "doubled-section",
                msg(
                    N_("{section} is already drawn by the {colour} line"),
                    section=_section(pair),
                    colour=term(self.colour_of(city, link)),
                ),
            )
        crossing = city.conflicts[link] & self.drawn
        if crossing:
            other = bits(crossing)[0]
            raise IllegalActionError.of(
                "crosses-section",
                msg(
                    N_("{section} crosses the {colour} section {link}"),
                    section=_section(pair),
                    colour=term(self.colour_of(city, other)),
                    link=city.link_name(other),
                ),
            )
        return link

    def colour_of(self, city: CityMap, link: int) -> str:
        """The colour of the line that drew ``link`` (``"?"`` if none did)."""
        for c, mask in enumerate(self.sections):
            if (mask >> link) & 1:
                return city.colours[c]
        return "?"


def _section(pair: str) -> Message:
    return msg(N_("section {link}"), link=pair)


def find_sections(
    city: CityMap, starts: int, open_targets: int, blocked: int
) -> list[tuple[int, int, int, int]]:
    """Sections ``(start, target, link, link bit)`` from a station of ``starts`` to a station
    of ``open_targets`` (targets not on the line) along a link not in ``blocked``; ordered by
    start, then target. The hot loop of move generation."""
    out = []
    neighbours = city.neighbours
    by_target = city.links_by_target
    while starts:
        low = starts & -starts
        starts ^= low
        s = low.bit_length() - 1
        cand = neighbours[s] & open_targets
        if cand:
            table = by_target[s]
            while cand:
                tbit = cand & -cand
                cand ^= tbit
                section = table[tbit]
                if not blocked & section[3]:
                    out.append(section)
    return out
