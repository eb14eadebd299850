"""Next Station's options as typed on a command line: the text of a flag -> the option's JSON.

Source: ``docs/notation.md``, "Options" (the JSON forms) and "Command line". ``objectives``:
``random`` or the comma-separated objective ids (``thames-6,all-districts``); ``powers``:
``random``, ``colour=power`` pairs separated by commas
(``blue=joker,pink=switch,purple=double-section,green=circle-station``) or the JSON object.
Only the syntax is read here: the values are checked by :meth:`.deal.Options.from_json`.
"""

from __future__ import annotations

import json

from metrogames.core.errors import NotationError
from metrogames.core.protocol import JsonValue
from metrogames.games.nextstation.citymap import CityMap


def objectives_from_text(text: str) -> str | list[str]:
    """``"random"`` or the comma-separated objective ids (blanks dropped)."""
    text = text.strip()
    return "random" if text == "random" else [o.strip() for o in text.split(",") if o.strip()]


def powers_from_text(city: CityMap, text: str) -> JsonValue:
    """``"random"``, ``colour=power`` pairs separated by commas, or a JSON object.

    Raises:
        NotationError: anything else, with the syntax in the message (an example from
            ``city``'s colours).
    """
    text = text.strip()
    if text == "random":
        return "random"
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        raise NotationError(f"not a JSON object: {text!r:.60}")
    pairs: dict[str, JsonValue] = {}
    example = f"{city.colours[0]}=joker,{city.colours[1]}=switch"
    for part in text.split(","):
        colour, sep, power = part.partition("=")
        if not sep or not colour.strip() or not power.strip():
            raise NotationError(
                f"write random, colour=power pairs ({example},...) or a JSON object, "
                f"not {part.strip()!r:.40}"
            )
        pairs[colour.strip()] = power.strip()
    return pairs
