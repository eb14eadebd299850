"""Metro options (``docs/notation.md``, "Options"; ``docs/engine-rules-metro.md``, "A turn", "Placing a tile").

* ``turn_mode``: ``"draw"`` (default, the seed's rule: draw the top tile and place it),
  ``"hand"`` (the seed's variant: hold one tile, draw a second, place one of the two) or
  ``"official-hand"`` (the publisher's rule: place the held tile then draw a replacement, or draw
  a new tile and place that one).
* ``one_tile_routes``: ``"allowed"`` (default) or ``"forbidden"`` (a placement making a one-tile
  route is illegal unless the tile has no other legal square).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from metrogames.core.errors import NotationError
from metrogames.i18n import N_, msg, plural

TURN_MODES = (N_("draw"), N_("hand"), N_("official-hand"))
ONE_TILE_ROUTES = (N_("allowed"), N_("forbidden"))
PHASES = ("deal", "draw", "place", "replace", "over")
"""The phase names of a turn (``MetroState.phase``, a snapshot's phase field), by phase
number."""


@dataclass(frozen=True)
class MetroOptions:
    """The Metro options, defaults first in each tuple above.

    Raises:
        NotationError: (on construction) a value not in :data:`TURN_MODES` or
            :data:`ONE_TILE_ROUTES`.
    """

    turn_mode: str = "draw"
    one_tile_routes: str = "allowed"

    def __post_init__(self) -> None:
        if self.turn_mode not in TURN_MODES:
            raise NotationError(
                msg(
                    N_("unknown {option} {value} (expected {known})"),
                    option="turn_mode",
                    value=_short(self.turn_mode),
                    known=", ".join(TURN_MODES),
                )
            )
        if self.one_tile_routes not in ONE_TILE_ROUTES:
            raise NotationError(
                msg(
                    N_("unknown {option} {value} (expected {known})"),
                    option="one_tile_routes",
                    value=_short(self.one_tile_routes),
                    known=", ".join(ONE_TILE_ROUTES),
                )
            )

    @property
    def hand(self) -> bool:
        """True in both hand modes (players hold tiles)."""
        return self.turn_mode != "draw"

    @property
    def one_tile_forbidden(self) -> bool:
        """True with ``one_tile_routes: "forbidden"``."""
        return self.one_tile_routes == "forbidden"

    @classmethod
    def from_json(cls, value: Any) -> MetroOptions:
        """Read the ``"options"`` object of a record or sheet (``None`` or ``{}``: defaults).

        Raises:
            NotationError: not an object, unknown keys, unknown values.
        """
        if value is None:
            return cls()
        if not isinstance(value, dict):
            raise NotationError(
                msg(N_("options must be an object, not {value}"), value=_short(value))
            )
        unknown = set(value) - {"turn_mode", "one_tile_routes"}
        if unknown:
            raise NotationError(
                plural(
                    "unknown option {names} (expected turn_mode, one_tile_routes)",
                    "unknown options {names} (expected turn_mode, one_tile_routes)",
                    len(unknown),
                    names=_short(sorted(map(str, unknown))),
                )
            )
        return cls(value.get("turn_mode", "draw"), value.get("one_tile_routes", "allowed"))

    def to_json(self) -> dict[str, str]:
        """``{"turn_mode": ..., "one_tile_routes": ...}`` (both keys, always)."""
        return {"turn_mode": self.turn_mode, "one_tile_routes": self.one_tile_routes}


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
