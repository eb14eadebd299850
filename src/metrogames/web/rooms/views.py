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

The typed dicts here are the contract's shapes — a view's common keys (:class:`ViewCommon`), a
room summary (:class:`RoomSummary`, built by ``RoomService.summary``) and the WebSocket's
server messages; :mod:`~metrogames.web.api.schema` publishes them, with each family's part of a view (the
registry's ``view_type``), as the JSON Schema ``docs/web-schema.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias, cast

import orjson
from cachetools import LRUCache
from typing_extensions import TypedDict

from metrogames.core.capabilities import SoloRated, presented
from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import CHANCE, HIDDEN, Action, JsonObject, JsonValue, State
from metrogames.games import game_type

Status = Literal["waiting", "playing", "finished"]
Mode = Literal["solo", "bots", "hotseat", "online", "daily"]
SeatKind = Literal["human", "bot"]
# Free JSON in the typed dicts here: any JSON value (FreeJson), any JSON object (FreeObject).
if TYPE_CHECKING:
    FreeJson: TypeAlias = JsonValue
    FreeObject: TypeAlias = JsonObject
else:  # object at run time: pydantic, which builds docs/web-schema.json from these typed dicts,
    # cannot follow the recursive JsonValue alias; object is free JSON to it (``{}`` in the schema)
    FreeJson = object
    FreeObject = dict[str, object]
ActionJson = FreeJson
"""An action in the JSON notation of its game (``docs/notation.md``): any JSON value."""


class SeatView(TypedDict):
    """A seat as a view shows it: its number, name, ``kind`` and whether its player has a
    socket on the room (``connected``; a bot seat always has)."""

    seat: int
    name: str
    kind: SeatKind
    connected: bool


class ClockJson(TypedDict):
    """The turn clock: the current turn's ``deadline`` (epoch seconds, server clock)."""

    deadline: float


class TimedOutJson(TypedDict):
    """What the turn clock played for the viewing seat when its time last ran out: the
    ``step`` at which it did and the ``actions`` played (``["pass"]``, or a bot's)."""

    step: int
    actions: list[ActionJson]


class SoloRatingJson(TypedDict):
    """The rulebook's solo rating of a score: the score less the modules' ``penalty``
    (``adjusted``), its ``band`` (1–6), the band's scores in English words (``range``) and as
    numbers (``low``, ``high``; ``None`` at an open end), the top band's English ``phrase``
    (else empty)."""

    adjusted: int
    band: int
    range: str
    low: int | None
    high: int | None
    phrase: str
    penalty: int


class SoloReferenceJson(TypedDict):
    """The reference games a solo score is placed among: how many, played by which bot."""

    games: int
    bot: str


class SoloResultJson(TypedDict):
    """A finished solo game's result in a game with solo ratings: the ``score``, the advanced
    ``modules`` in play, the ``rating`` (``None``: the city prints none), the ``percentile``
    among the reference games (0–100, ties counting half; ``None`` with modules or without
    reference games) and the ``reference`` (``None``: a map without reference games)."""

    score: int
    modules: int
    rating: SoloRatingJson | None
    percentile: float | None
    reference: SoloReferenceJson | None


class ViewHead(TypedDict):
    """The room-level keys every view starts with (``docs/web-api.md``, "Views")."""

    room: str
    game: str
    family: str
    status: Status
    step: int
    you: int | None
    seats: list[SeatView]
    to_move: list[int]
    clock: ClockJson | None
    timed_out: TimedOutJson | None
    winners: list[int]
    spectators: int


class ViewCommon(ViewHead):
    """Every view's common keys: the room-level ones (:class:`ViewHead`), the ``scores``
    (points per seat, from the game's part), ``solo`` (a finished solo game of a game with
    solo ratings) and the viewer's ``legal`` actions (empty unless it is to move). The game's
    own keys come between them: its family's ``view_type``."""

    scores: list[float]
    solo: NotRequired[SoloResultJson]
    legal: list[ActionJson]


class SummarySeat(TypedDict):
    """A seat as a room summary shows it: its number, name, ``kind``, the ``bot`` playing it
    (``None``: a person), whether it is ``claimed`` and whether its player is ``connected``."""

    seat: int
    name: str
    kind: SeatKind
    bot: str | None
    claimed: bool
    connected: bool


class PresetJson(TypedDict):
    """The rule set a room's options match: its ``name`` and ``title``."""

    name: str
    title: str


class RoomSummary(TypedDict):
    """``GET /api/rooms/{room}`` (``docs/web-api.md``, "Rooms")."""

    room: str
    game: str
    mode: Mode
    options: FreeObject
    preset: PresetJson | None
    status: Status
    seats: list[SummarySeat]
    turn_clock: int | None
    created: float
    day_open: bool
    spectators: int


class ChatMessageJson(TypedDict):
    """A table chat message (``docs/web-api.md``, "Table chat")."""

    seq: int
    seat: int
    name: str
    text: str
    time: float


class ViewMessage(TypedDict):
    """WebSocket: a view, sent at once after a hello and after every change of the room."""

    type: Literal["view"]
    view: FreeObject


class ErrorMessage(TypedDict):
    """WebSocket: a refusal of the client's message (``docs/web-api.md``, "Errors"):
    ``item`` when the engine names the refused item, ``step`` when the message refused was
    an action (its ``step``)."""

    type: Literal["error"]
    error: str
    reason: str
    item: NotRequired[FreeJson]
    step: NotRequired[int]


class ChatPush(TypedDict):
    """WebSocket: a new table chat message."""

    type: Literal["chat"]
    message: ChatMessageJson


class Replay(TypedDict):
    """``GET /api/rooms/{room}/replay``, ``POST /api/replays``: one spectator view per step;
    a record of a custom map also gives its ``board`` (the drawing data of its map)."""

    game: str
    players: list[str]
    frames: list[FreeObject]
    board: NotRequired[FreeObject]


@dataclass(frozen=True)
class Frame:
    """The room-level facts every view repeats.

    Attributes:
        room: the room id.
        game: the game name (``london``, ``paris``, ``metro``).
        status: ``waiting``, ``playing`` or ``finished``.
        step: actions so far, chance included.
        seats: the seats (:class:`SeatView`).
        deadline: the turn clock's deadline (epoch seconds) or ``None``.
        timed_out: what the turn clock played for the viewing seat when its time last ran
            out (``{"step", "actions"}``, until the seat acts again) or ``None``.
        spectators: the room's spectator sockets now, on every worker (0 in a replay).
    """

    room: str
    game: str
    status: str
    step: int
    seats: list[SeatView]
    deadline: float | None = None
    timed_out: TimedOutJson | None = None
    spectators: int = 0


def build_view(
    frame: Frame, state: State[Action], you: int | None, *, reveal: bool = False
) -> JsonObject:
    """The view of ``state`` for seat ``you`` (``None``: a spectator).

    Args:
        frame: the room-level facts.
        state: the full engine state (never sent as is: only its view for ``you``).
        you: the viewing seat or ``None``.
        reveal: show the full state (replays of a finished game hide nothing).

    Returns:
        The view of ``docs/web-api.md``: the keys of :class:`ViewCommon` with the game's own
        (its ``view_json`` hook's) between ``winners`` and ``legal``.
    """
    seen = state if reveal else state.view(you)
    playing = frame.status == "playing"
    to_move = sorted(p for p in seen.to_move() if p != CHANCE) if playing else []
    legal: list[ActionJson] = []
    if you is not None and you in to_move:
        legal = [seen.action_to_json(you, a) for a in seen.legal_actions(you)]
    kind = game_type(frame.game)
    head: ViewHead = {
        "room": frame.room,
        "game": frame.game,
        "family": kind.family or kind.name,
        "status": cast(Status, frame.status),  # the room's status, or a replay frame's
        "step": frame.step,
        "you": you,
        "seats": frame.seats,
        "to_move": to_move,
        "clock": {"deadline": frame.deadline} if frame.deadline is not None and playing else None,
        "timed_out": frame.timed_out,
        "winners": seen.winners() if seen.is_over() else [],
        "spectators": frame.spectators,
    }
    # the head is typed JSON; the game's part may give the scores (with more than their sum)
    part = seen.view_json(you) if presented(seen) else {}
    scores: JsonValue = part["scores"] if "scores" in part else list(seen.scores())
    view: JsonObject = {**cast(JsonObject, head), "scores": scores, **part}
    if seen.is_over() and seen.num_players == 1 and isinstance(seen, SoloRated):
        view["solo"] = seen.solo_result()
    view["legal"] = legal
    return view


class MoveEntry(TypedDict):
    """One step of the move log: its ``step`` (1-based), the ``player`` (``None``: chance —
    a card flipped, a tile drawn) and the ``move`` in the game's notation (``"?"``: not known
    to the viewer)."""

    step: int
    player: int | None
    move: str


def move_log(state: State[Action], you: int | None) -> list[MoveEntry]:
    """``GET /api/rooms/{room}/moves``: every step of the game as seat ``you`` (``None``: a
    spectator) may know it, oldest first: ``[{"step": n (1-based), "player": seat | null
    (chance: a card flipped, a tile drawn), "move": notation}]``. What the seat may not know
    (a tile another seat drew, an action of a simultaneous turn in progress) is ``"?"``; a
    finished game hides nothing.
    """
    seen = state if state.is_over() else state.view(you)
    out: list[MoveEntry] = []
    for step, (player, action) in enumerate(seen.history(), start=1):
        try:
            text = HIDDEN if action == HIDDEN else seen.action_to_string(player, action)
        except MetrogamesError:
            text = HIDDEN
        out.append({"step": step, "player": None if player == CHANCE else player, "move": text})
    return out


def encode(message: object) -> str:
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
