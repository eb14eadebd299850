"""Next Station turn actions and their notation (``docs/notation.md``, "Next Station turn action").

An action is one player's whole turn: ``pass``, or one or two sections, possibly with a pencil
power and a circled station. It has three faces that round-trip:

* the value :class:`TurnAction` (stations as map indices, so it needs its :class:`CityMap` to be
  read or written);
* the typed text ``D3-E4 E4-E1 +double-section`` (:func:`parse_action`, :func:`format_action`);
* the JSON ``{"sections": [["D3", "E4"], ["E4", "E1"]], "power": "double-section"}``
  (:func:`action_from_json`, :func:`action_to_json`).
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import TypeAlias

from metrogames.core.errors import NotationError
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.games.nextstation.citymap import CityMap
from metrogames.i18n import N_, msg

POWERS_IN_ACTION = ("double-section", "joker", "switch")
"""Powers written with ``+power``; the circle-station power is written ``@STATION``."""

CIRCLE_POWER = "circle-station"
MAX_TEXT = 200
"""Longest action text accepted (characters); a real turn is far shorter."""


@dataclass(frozen=True, slots=True)
class TurnAction:
    """One player's turn.

    Attributes:
        sections: ``((from, to), ...)`` station indices, 0–2 sections in drawing order.
        power: ``"double-section"``, ``"joker"``, ``"switch"`` or ``None``.
        circle: index of the station circled with the circle-station power, or ``None``.
    """

    sections: tuple[tuple[int, int], ...] = ()
    power: str | None = None
    circle: int | None = None

    @property
    def is_pass(self) -> bool:
        """True for ``pass``: no section, no power, no circle."""
        return not self.sections and self.power is None and self.circle is None

    @property
    def powers_used(self) -> tuple[str, ...]:
        """The pencil powers this action uses (0 or 1 of them)."""
        if self.power is not None:
            return (self.power,)
        return (CIRCLE_POWER,) if self.circle is not None else ()


PASS = TurnAction()

NextStationAction: TypeAlias = TurnAction | str
"""A Next Station action: a player's :class:`TurnAction`, or a chance outcome (a card id)."""

_DASHES = re.compile(r"\s*[-\u2013\u2014]\s*")
"""A hyphen or en/em dash with any spaces around it: ``D3 – G3`` reads as ``D3-G3``."""

_SINGLES: weakref.WeakKeyDictionary[CityMap, tuple[TurnAction | None, ...]] = (
    weakref.WeakKeyDictionary()
)
"""Per map object: a custom map may reuse a city's id; a forgotten map's entry goes too."""


def single_sections(city: CityMap) -> tuple[TurnAction | None, ...]:
    """Shared :class:`TurnAction` values for every one-section turn of ``city``:
    entry ``start * len(city.stations) + target`` (``None`` where no link joins them)."""
    table = _SINGLES.get(city)
    if table is None:
        n = len(city.stations)
        table = tuple(
            TurnAction(((i // n, i % n),)) if link >= 0 else None
            for i, link in enumerate(city.pair_link)
        )
        _SINGLES[city] = table
    return table


def format_action(city: CityMap, action: TurnAction) -> str:
    """The text form of ``action``: ``pass``, ``D3-G3``, ``D3-E4 E4-E1 +double-section``,
    ``F5-E4 @E4`` or ``@E4``."""
    if action.is_pass:
        return "pass"
    names = [s.name for s in city.stations]
    parts = [f"{names[a]}-{names[b]}" for a, b in action.sections]
    if action.power is not None:
        parts.append(f"+{action.power}")
    if action.circle is not None:
        parts.append(f"@{names[action.circle]}")
    return " ".join(parts)


def parse_action(city: CityMap, text: str) -> TurnAction:
    """Read the typed text form (case-insensitive; spaces or commas between parts).

    Raises:
        NotationError: bad syntax, an unknown station or power, a part given twice.
    """
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise NotationError(f"action text longer than {MAX_TEXT} characters")
    tokens = _DASHES.sub("-", text.replace(",", " ")).split()
    if not tokens:
        raise NotationError(msg(N_("empty action: type a section like D3-G3, or pass")))
    if len(tokens) == 1 and tokens[0].lower() == "pass":
        return PASS
    sections: list[tuple[int, int]] = []
    power: str | None = None
    circle: int | None = None
    for token in tokens:
        low = token.lower()
        if low == "pass":
            raise NotationError(msg(N_("'pass' cannot be combined with other parts")))
        if low.startswith("+"):
            if power is not None:
                raise NotationError(msg(N_("only one power per turn")))
            power = _power(token)
        elif low.startswith("@"):
            if circle is not None:
                raise NotationError(msg(N_("only one circled station per turn")))
            circle = _station(city, token[1:])
        else:
            sections.append(_section(city, token))
    return _make(sections, power, circle)


def _power(token: str) -> str:
    """The power of a ``+power`` token (one written in an action: not the circle power)."""
    power = token[1:].lower()
    if power == CIRCLE_POWER:
        raise NotationError(msg(N_("write the circle-station power as @STATION, e.g. @E4")))
    if power not in POWERS_IN_ACTION:
        raise NotationError(
            msg(
                N_("unknown power {power} (expected +double-section, +joker or +switch)"),
                power=repr(token),
            )
        )
    return power


def _section(city: CityMap, token: str) -> tuple[int, int]:
    """The stations of a ``D3-G3`` token."""
    ends = token.split("-")
    if len(ends) != 2 or not ends[0] or not ends[1]:
        raise NotationError(
            msg(N_("cannot read {text}: a section is written like D3-G3"), text=repr(token))
        )
    return _station(city, ends[0]), _station(city, ends[1])


def _station(city: CityMap, name: object) -> int:
    """``city.station(name)``, with the name shortened in the error (hostile input may be huge)."""
    if not isinstance(name, str) or len(name) > 16:
        raise NotationError(
            msg(N_("unknown station {name} on the {map} map"), name=_short(name), map=city.title)
        )
    return city.station(name)


def _make(sections: list[tuple[int, int]], power: str | None, circle: int | None) -> TurnAction:
    if len(sections) > 2:
        raise NotationError(
            msg(N_("a turn draws at most 2 sections, not {n}"), n=len(sections))
        )
    if not sections and power is not None:
        raise NotationError(f"the power {power} needs a section")
    if power is not None and circle is not None:
        # A pencil holds one power: +power and a circle would be two (and the engine checks
        # only the first of them).
        raise NotationError(f"only one power per turn: {power} and the circle-station power")
    return TurnAction(tuple(sections), power, circle)


def action_to_json(city: CityMap, action: TurnAction) -> JsonValue:
    """The JSON form: ``"pass"`` or ``{"sections": [[a, b], ...], "power"?: p, "circle"?: s}``."""
    if action.is_pass:
        return "pass"
    names = [s.name for s in city.stations]
    out: JsonObject = {"sections": [[names[a], names[b]] for a, b in action.sections]}
    if action.power is not None:
        out["power"] = action.power
    if action.circle is not None:
        out["circle"] = names[action.circle]
    return out


def action_from_json(city: CityMap, value: object) -> TurnAction:
    """Read the JSON form. ``"power": "circle-station"`` is accepted beside ``"circle"``.

    Raises:
        NotationError: wrong types, unknown keys, stations or powers.
    """
    if value == "pass":
        return PASS
    if not is_object(value):
        raise NotationError(f'an action must be "pass" or an object, not {_short(value)}')
    unknown = set(value) - {"sections", "power", "circle"}
    if unknown:
        keys = ", ".join(sorted(f"{k!s:.40}" for k in unknown))
        raise NotationError(f"unknown key(s) in action: {keys}")
    raw_sections = value.get("sections")
    if not isinstance(raw_sections, list):
        raise NotationError('an action needs "sections": a list of [from, to] pairs')
    if len(raw_sections) > 2:
        raise NotationError(f"a turn draws at most 2 sections, not {len(raw_sections)}")
    sections = []
    for pair in raw_sections:
        if not (isinstance(pair, list) and len(pair) == 2):
            raise NotationError(f"a section is a [from, to] pair, not {_short(pair)}")
        sections.append((_station(city, pair[0]), _station(city, pair[1])))
    circle_name = value.get("circle")
    circle = None if circle_name is None else _station(city, circle_name)
    power = value.get("power")
    if power == CIRCLE_POWER:
        if circle is None:
            raise NotationError('the circle-station power needs "circle": the station circled')
        power = None
    elif power is not None and (not isinstance(power, str) or power not in POWERS_IN_ACTION):
        raise NotationError(f"unknown power {_short(power)}")
    return _make(sections, power, circle)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
