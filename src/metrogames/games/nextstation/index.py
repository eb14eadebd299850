"""The dense integer index of Next Station player actions, and of chance outcomes (cards).

Source: ``docs/notation.md``, "Dense action index" (the layout, which never changes for a city
and its options). With ``L`` links a city has ``D = 2L`` *directed links*: ``d = 2 * link +
direction``, direction 0 going from ``city.links[link][0]`` to ``city.links[link][1]``. The
index is computed arithmetically; the only table is the small list of Paris's free-entry pairs,
built once per city.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from metrogames.core.errors import NotationError
from metrogames.games.nextstation.actions import PASS, TurnAction, single_sections
from metrogames.games.nextstation.citymap import CUSTOM_KEPT, CityMap, load_city

Section = tuple[int, int]


@dataclass(frozen=True)
class Sections:
    """Where each part of the index starts (``-1``: absent for this city and options)."""

    singles: int
    joker: int
    switch: int
    double: int
    circle: int
    free_entry: int
    size: int


class ActionIndex:
    """The dense index of one city's player actions, with or without pencil powers.

    Build it with :func:`action_index_for` (cached). ``size`` is the number of indices.
    """

    def __init__(self, city: CityMap, powers: bool) -> None:
        self.city = city
        self.powers = powers
        self.directed = 2 * len(city.links)
        self.free_pairs = _free_entry_pairs(city)
        self.free_position = {pair: k for k, pair in enumerate(self.free_pairs)}
        d = self.directed
        n = len(city.stations)
        start = 1 + d
        joker = switch = double = circle = free = -1
        if powers:
            joker = start
            switch = joker + d
            double = switch + d
            circle = double + d * d
            start = circle + n * (1 + d)
        if self.free_pairs:
            free, start = start, start + len(self.free_pairs)
        self.parts = Sections(1, joker, switch, double, circle, free, start)

    @property
    def size(self) -> int:
        """The number of indices (``num_distinct_actions``)."""
        return self.parts.size

    # -- directed links ------------------------------------------------------------------
    def directed_of(self, section: object) -> int:
        """The directed link of a ``(from, to)`` section of station indices.

        Raises:
            NotationError: not a pair of station indices, or no link joins them.
        """
        city = self.city
        n = len(city.stations)
        if not (
            isinstance(section, tuple)
            and len(section) == 2
            and all(type(x) is int and 0 <= x < n for x in section)
        ):
            raise NotationError(f"a section is a pair of station indices, not {_short(section)}")
        s, t = section
        link = city.link_of.get((s, t))
        if link is None:
            names = city.stations
            raise NotationError(f"no link joins {names[s].name} and {names[t].name}")
        return 2 * link + (0 if city.links[link][0] == s else 1)

    def section_of(self, directed: int) -> Section:
        """The ``(from, to)`` section of a directed link."""
        a, b = self.city.links[directed >> 1]
        return (a, b) if directed & 1 == 0 else (b, a)

    # -- action -> index -----------------------------------------------------------------
    def index(self, action: object) -> int:
        """The index of ``action``.

        Raises:
            NotationError: not a :class:`TurnAction` this city and these options can produce
                (the message names what is wrong).
        """
        if isinstance(action, str):
            raise NotationError(
                f"{_short(action)} is not a player action (card ids are chance outcomes, "
                "indexed by chance_outcome_index)"
            )
        if not isinstance(action, TurnAction):
            raise NotationError(f"{type(action).__name__} is not a Next Station turn action")
        if not isinstance(action.sections, tuple):
            raise NotationError(f"sections must be a tuple, not {_short(action.sections)}")
        directed = [self.directed_of(s) for s in action.sections]
        if action.circle is not None:
            return self._circle_index(action, directed)
        if action.power is not None:
            return self._power_index(action.power, directed)
        if not directed:
            return 0
        if len(directed) == 1:
            return self.parts.singles + directed[0]
        return self._free_entry_index(directed)

    def _require_powers(self, what: str) -> None:
        if not self.powers:
            raise NotationError(f"{what}: pencil powers are not in play in this game")

    def _power_index(self, power: object, directed: list[int]) -> int:
        parts = self.parts
        if power == "double-section":
            self._require_powers("the double-section power")
            if len(directed) != 2:
                raise NotationError(
                    f"the double-section power draws 2 sections, not {len(directed)}"
                )
            return parts.double + directed[0] * self.directed + directed[1]
        if power in ("joker", "switch"):
            self._require_powers(f"the {power} power")
            if len(directed) != 1:
                raise NotationError(f"the {power} power draws 1 section, not {len(directed)}")
            return (parts.joker if power == "joker" else parts.switch) + directed[0]
        raise NotationError(f"unknown power {_short(power)}")

    def _circle_index(self, action: TurnAction, directed: list[int]) -> int:
        self._require_powers("the circle-station power")
        circle = action.circle
        if type(circle) is not int or not 0 <= circle < len(self.city.stations):
            raise NotationError(
                f"the circled station must be a station index, not {_short(circle)}"
            )
        if action.power is not None:
            raise NotationError(f"one power per turn: {action.power} and a circle")
        if len(directed) > 1:
            raise NotationError(f"a circle goes with at most 1 section, not {len(directed)}")
        within = 1 + directed[0] if directed else 0
        return self.parts.circle + circle * (1 + self.directed) + within

    def _free_entry_index(self, directed: list[int]) -> int:
        if len(directed) != 2:
            raise NotationError(f"a turn draws at most 2 sections, not {len(directed)}")
        if not self.free_pairs:
            raise NotationError(
                f"two sections without a power are a free entry's, and {self.city.title} "
                "has no free-entry card"
            )
        k = self.free_position.get((directed[0], directed[1]))
        if k is None:
            names = self.city.stations
            (s, t), (s2, t2) = (self.section_of(d) for d in directed)
            raise NotationError(
                f"{names[s].name}-{names[t].name} {names[s2].name}-{names[t2].name} is not a "
                "free entry to a monument followed by a section leaving it"
            )
        return self.parts.free_entry + k

    # -- index -> action -----------------------------------------------------------------
    def action(self, index: object) -> TurnAction:
        """The action of ``index``.

        Raises:
            NotationError: not an int, or out of ``0..size-1``.
        """
        if type(index) is not int or not 0 <= index < self.size:
            raise NotationError(
                f"action index must be an int from 0 to {self.size - 1}, not {_short(index)}"
            )
        parts = self.parts
        d = self.directed
        if index == 0:
            return PASS
        if index < 1 + d:
            return self._single(index - 1)
        if parts.free_entry >= 0 and index >= parts.free_entry:
            pair = self.free_pairs[index - parts.free_entry]
            return TurnAction((self.section_of(pair[0]), self.section_of(pair[1])))
        return self._power_action(index)

    def _power_action(self, index: int) -> TurnAction:
        """The action of an index in the pencil-power parts (``1 + D <= index``)."""
        parts = self.parts
        d = self.directed
        if index < parts.switch:
            return TurnAction((self.section_of(index - parts.joker),), "joker")
        if index < parts.double:
            return TurnAction((self.section_of(index - parts.switch),), "switch")
        if index < parts.circle:
            first, second = divmod(index - parts.double, d)
            return TurnAction((self.section_of(first), self.section_of(second)), "double-section")
        station, within = divmod(index - parts.circle, 1 + d)
        sections = () if within == 0 else (self.section_of(within - 1),)
        return TurnAction(sections, None, station)

    def _single(self, directed: int) -> TurnAction:
        s, t = self.section_of(directed)
        action = single_sections(self.city)[s * len(self.city.stations) + t]
        assert action is not None
        return action


def _free_entry_pairs(city: CityMap) -> tuple[tuple[int, int], ...]:
    """Directed-link pairs ``(s→t, t→t2)`` with ``t`` a monument and ``t2 != s``, when the deck
    has a free-entry card (else none): by monument index, then first, then second link."""
    if not any(card.face == "free-entry" for card in city.deck):
        return ()
    out: list[tuple[int, int]] = []
    for t in range(len(city.stations)):
        if not (city.monument_mask >> t) & 1:
            continue
        incoming = sorted(2 * j + (0 if city.links[j][1] == t else 1) for j, _ in city.adjacency[t])
        outgoing = sorted(2 * j + (0 if city.links[j][0] == t else 1) for j, _ in city.adjacency[t])
        out.extend((d1, d2) for d1 in incoming for d2 in outgoing if d1 >> 1 != d2 >> 1)
    return tuple(out)


@lru_cache(maxsize=CUSTOM_KEPT)  # bounded: custom maps come and go
def action_index_for(city_name: str, powers: bool) -> ActionIndex:
    """The (shared) :class:`ActionIndex` of a city, with or without pencil powers."""
    return ActionIndex(load_city(city_name), powers)


@lru_cache(maxsize=CUSTOM_KEPT)  # bounded: custom maps come and go
def card_positions(city_name: str) -> dict[str, int]:
    """Card id -> its position in the city's deck data order (the chance-outcome index)."""
    return {card.id: i for i, card in enumerate(load_city(city_name).deck)}


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
