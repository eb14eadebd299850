"""Views: what one seat (or a spectator) may see of a game, as JSON.

Contract: ``docs/web-api.md``, "Views". A view never holds what its seat may not see, because it
is built from the engine's own view of the state (``state.view(seat)``: no unflipped card or
undrawn tile, no other seat's held tile, no other seat's action in a simultaneous turn still in
progress). This module adds the room-level facts and the legal actions; the game's part comes
from the state's ``view_json`` (the ``Presented`` capability), a finished solo game's rating
from its ``solo_result`` (``SoloRated``). The functions here only read engine states; the room
service decides who the viewer is.

Views go out as JSON text: :func:`encode` writes it (``orjson``), and :class:`ViewCache` keeps
the last view message of each (room, seat), so every socket of a seat — and every spectator of
a room — gets the same text, built once per change of the room.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson
from cachetools import LRUCache

from metrogames.core.capabilities import Presented, SoloRated
from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import CHANCE, HIDDEN, Action, State


@dataclass(frozen=True)
class Frame:
    """The room-level facts every view repeats.

    Attributes:
        room: the room id.
        game: the game name (``london``, ``paris``, ``metro``).
        status: ``waiting``, ``playing`` or ``finished``.
        step: actions so far, chance included.
        seats: ``[{"seat", "name", "kind", "connected"}, ...]``.
        deadline: the turn clock's deadline (epoch seconds) or ``None``.
        timed_out: what the turn clock played for the viewing seat when its time last ran
            out (``{"step", "actions"}``, until the seat acts again) or ``None``.
    """

    room: str
    game: str
    status: str
    step: int
    seats: list[dict[str, Any]]
    deadline: float | None = None
    timed_out: dict[str, Any] | None = None


def build_view(
    frame: Frame, state: State[Action], you: int | None, *, reveal: bool = False
) -> dict[str, Any]:
    """The view of ``state`` for seat ``you`` (``None``: a spectator).

    Args:
        frame: the room-level facts.
        state: the full engine state (never sent as is: only its view for ``you``).
        you: the viewing seat or ``None``.
        reveal: show the full state (replays of a finished game hide nothing).

    Returns:
        The view dict of ``docs/web-api.md``.
    """
    seen = state if reveal else state.view(you)
    playing = frame.status == "playing"
    to_move = sorted(p for p in seen.to_move() if p != CHANCE) if playing else []
    legal: list[Any] = []
    if you is not None and you in to_move:
        legal = [seen.action_to_json(you, a) for a in seen.legal_actions(you)]
    view: dict[str, Any] = {
        "room": frame.room,
        "game": frame.game,
        "status": frame.status,
        "step": frame.step,
        "you": you,
        "seats": frame.seats,
        "to_move": to_move,
        "clock": {"deadline": frame.deadline} if frame.deadline is not None and playing else None,
        "timed_out": frame.timed_out,
        "winners": seen.winners() if seen.is_over() else [],
    }
    if isinstance(seen, Presented):
        view.update(seen.view_json(you))
    if seen.is_over() and seen.num_players == 1 and isinstance(seen, SoloRated):
        view["solo"] = seen.solo_result()
    view["legal"] = legal
    return view


def move_log(state: State[Action], you: int | None) -> list[dict[str, Any]]:
    """``GET /api/rooms/{room}/moves``: every step of the game as seat ``you`` (``None``: a
    spectator) may know it, oldest first: ``[{"step": n (1-based), "player": seat | null
    (chance: a card flipped, a tile drawn), "move": notation}]``. What the seat may not know
    (a tile another seat drew, an action of a simultaneous turn in progress) is ``"?"``; a
    finished game hides nothing.
    """
    seen = state if state.is_over() else state.view(you)
    out: list[dict[str, Any]] = []
    for step, (player, action) in enumerate(seen.history(), start=1):
        try:
            text = HIDDEN if action == HIDDEN else seen.action_to_string(player, action)
        except MetrogamesError:
            text = HIDDEN
        out.append({"step": step, "player": None if player == CHANCE else player, "move": text})
    return out


def encode(message: Any) -> str:
    """``message`` as compact JSON text (non-ASCII characters as they are), the form every
    WebSocket message takes. Written by ``orjson``; what it cannot write (an integer beyond
    64 bits) by the standard library.

    Raises:
        TypeError: a value JSON cannot hold.
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


_Cached = tuple[Frame, int, str]
VIEW_CACHE_BYTES = 32 * 1024 * 1024
"""View messages kept as JSON text (a Next Station view of four seats: about 20 KB)."""


class ViewCache:
    """The last view message (``{"type": "view", "view": ...}`` as JSON text) of each
    (room, seat), reused while the room's frame is equal and its state the same object: a
    room's state is replaced, never changed, by each action it stores, and the frame's
    ``step`` pins the position (a step's stored action is unique). Only the state's ``id`` is
    kept, not the state. At most ``max_bytes`` of text, the least recently used dropped
    first. Used on the event loop only."""

    def __init__(self, max_bytes: int = VIEW_CACHE_BYTES) -> None:
        self._texts: LRUCache[tuple[str, int | None], _Cached]
        self._texts = LRUCache(max_bytes, getsizeof=lambda entry: len(entry[2]))

    def message(self, frame: Frame, state: State[Action], you: int | None) -> str:
        """The view message of ``state`` for seat ``you`` (``None``: a spectator)."""
        key = (frame.room, you)
        hit = self._texts.get(key)
        if hit is not None and hit[1] == id(state) and hit[0] == frame:
            return hit[2]
        text = encode({"type": "view", "view": build_view(frame, state, you)})
        self._texts[key] = (frame, id(state), text)
        return text
