"""Metro turn actions and their notation (``docs/notation.md``, "Metro turn action").

An action places one tile: :class:`MetroAction` ``(square, tile)`` with the square as a board
index (``row * 8 + col``, ``C5`` = 34) and the tile as its type code (``"cbaa"``) or ``None`` in
the default draw mode (the drawn tile). Three faces that round-trip:

* the value ``MetroAction(34, "cbaa")``;
* the text ``cbaa C5`` (or ``C5``) — :func:`parse_metro_action`, :func:`format_metro_action`;
* the JSON ``{"square": "C5", "tile": "cbaa"}`` — :func:`metro_action_from_json`,
  :func:`metro_action_to_json`.

One more action exists only in the ``official-hand`` turn mode (``docs/engine-rules-metro.md``, "A turn"):
:data:`DRAW`, the choice to draw a new tile and place that one instead of the held tile (text and
JSON ``"draw"``). Records never show it: the tile played tells which choice was made.

:func:`metro_action_index` gives the dense integer index for action masks: ``tile * 64 +
square`` (0–1535), and 1536 for :data:`DRAW` (:data:`NUM_ACTIONS` = 1537).

:data:`MetroPlay` (``MetroAction | str``) is the engine's action type: player actions and chance
outcomes (tile type codes) together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from metrogames.core.errors import NotationError
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.games.metro.tiles import SQUARES, load_metro, parse_square, square_name
from metrogames.i18n import N_, msg

MAX_TEXT = 40
"""Longest action text accepted (characters)."""
DRAW_TEXT = "draw"


@dataclass(frozen=True, slots=True)
class MetroAction:
    """Place a tile.

    Attributes:
        square: board index 0–63 (``row * 8 + col``; ``A1`` = 0, ``H8`` = 63), or -1 for
            :data:`DRAW`.
        tile: tile type code such as ``"cbaa"``; ``None`` means "the drawn tile" (draw mode only).
    """

    square: int
    tile: str | None = None

    @classmethod
    def of(cls, action: object) -> MetroAction:
        """``action`` itself, checked to be a Metro player action: how Metro's own adapters
        (the terminal renderer) read back an action the protocol hands them.

        Raises:
            TypeError: anything else (a chance outcome, another game's action).
        """
        if not isinstance(action, MetroAction):
            raise TypeError(f"not a Metro player action: {action!r:.40}")
        return action

    @property
    def is_draw(self) -> bool:
        """True for :data:`DRAW` (official-hand mode: draw and place the new tile)."""
        return self.square == -1 and self.tile is None

    def __str__(self) -> str:
        return format_metro_action(self)


DRAW = MetroAction(-1, None)
"""Official-hand mode: draw a tile from the pile and place it, keeping the held tile."""

MetroPlay: TypeAlias = MetroAction | str
"""The action type of the Metro engine (``A`` of :class:`~metrogames.core.protocol.State`):
a player's :class:`MetroAction` (:data:`DRAW` included) or a chance outcome, a tile type code
such as ``"cbaa"``."""


def format_metro_action(action: MetroPlay) -> str:
    """The text form: ``cbaa C5``, ``C5`` (tile omitted) or ``draw``.

    Raises:
        NotationError: not a :class:`MetroAction` (a tile code is a chance outcome), or an
            action naming no square of the board or an unknown tile.
    """
    if not isinstance(action, MetroAction):
        raise NotationError(f"not a Metro action: {type(action).__name__}")
    if action.is_draw:
        return DRAW_TEXT
    name = square_name(action.square)
    if action.tile is None:
        return name
    load_metro().tile(action.tile)
    return f"{action.tile} {name}"


def parse_metro_action(text: object) -> MetroAction:
    """Read ``cbaa C5``, ``C5`` or ``draw`` (case-insensitive; tile first).

    Raises:
        NotationError: not text, too long, an unknown tile or square, or extra parts.
    """
    if not isinstance(text, str):
        raise NotationError(f"a Metro action must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise NotationError(f"Metro action text longer than {MAX_TEXT} characters")
    tokens = text.split()
    if len(tokens) == 1 and tokens[0].lower() == DRAW_TEXT:
        return DRAW
    if len(tokens) == 1:
        return MetroAction(parse_square(tokens[0]))
    if len(tokens) == 2:
        data = load_metro()
        code = data.tile_codes[data.tile(tokens[0])]
        return MetroAction(parse_square(tokens[1]), code)
    if not tokens:
        raise NotationError(msg(N_("empty Metro action: type a tile and a square, like cbaa C5")))
    raise NotationError(
        msg(N_("cannot read {text}: a Metro action is written like cbaa C5"), text=repr(text))
    )


def metro_action_to_json(action: MetroPlay) -> JsonValue:
    """The JSON form ``{"square": "C5", "tile": "cbaa"}`` (``tile`` left out when ``None``), or
    ``"draw"``.

    Raises:
        NotationError: not a :class:`MetroAction` (a tile code is a chance outcome), or an
            action naming no square of the board or an unknown tile.
    """
    if not isinstance(action, MetroAction):
        raise NotationError(f"not a Metro action: {type(action).__name__}")
    if action.is_draw:
        return DRAW_TEXT
    out: JsonObject = {"square": square_name(action.square)}
    if action.tile is not None:
        load_metro().tile(action.tile)
        out["tile"] = action.tile
    return out


def metro_action_from_json(value: object) -> MetroAction:
    """Read the JSON form (see :func:`metro_action_to_json`).

    Raises:
        NotationError: not an object or ``"draw"``, unknown keys, wrong types, unknown square
            or tile.
    """
    if value == DRAW_TEXT:
        return DRAW
    if not is_object(value):
        raise NotationError(f'a Metro action must be an object or "draw", not {_short(value)}')
    unknown = set(value) - {"square", "tile"}
    if unknown:
        raise NotationError(f"unknown key(s) in Metro action: {_short(sorted(map(str, unknown)))}")
    if "square" not in value:
        raise NotationError('a Metro action needs "square", like {"square": "C5"}')
    square = parse_square(value["square"])
    tile = value.get("tile")
    if tile is None:
        return MetroAction(square)
    data = load_metro()
    return MetroAction(square, data.tile_codes[data.tile(tile)])


NUM_ACTIONS = 24 * SQUARES + 1
"""Size of the dense action space: tile type × square, plus :data:`DRAW`."""


def metro_action_index(action: MetroAction) -> int:
    """The dense index ``tile_index * 64 + square`` (``NUM_ACTIONS - 1`` for :data:`DRAW`).

    Raises:
        NotationError: a placement without a tile, an unknown tile or a square off the board.
    """
    if action.is_draw:
        return NUM_ACTIONS - 1
    if action.tile is None:
        raise NotationError("an action index needs the tile (fill in the drawn tile)")
    square_name(action.square)
    return load_metro().tile(action.tile) * SQUARES + action.square


def metro_action_from_index(index: int) -> MetroAction:
    """The action of a dense index (inverse of :func:`metro_action_index`).

    Raises:
        NotationError: an index outside ``0..NUM_ACTIONS - 1``.
    """
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < NUM_ACTIONS:
        raise NotationError(f"no Metro action has index {index!r}")
    if index == NUM_ACTIONS - 1:
        return DRAW
    tile, square = divmod(index, SQUARES)
    return MetroAction(square, load_metro().tile_codes[tile])


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
