"""A bot's streams over plain HTTP (``docs/web-api.md``, "Bot accounts"): its events and each
game's views, as NDJSON (one JSON object a line; an empty line every
:data:`KEEPALIVE_SECONDS` when nothing else went) or, when the client asks
``Accept: text/event-stream``, as server-sent events (``event: {type}``, ``data: {json}``; a
comment line as keep-alive).

The event stream opens with the bot's pending invitations (``challenge``) and its seated
games (``gameStart``), then follows the account's events (:mod:`~metrogames.web.infra.events`:
``challenge``, ``challengeCanceled``, ``gameStart``) and, for each of its games, listens to
the room as a seat's socket does (so the seat reads connected, on every worker): ``turn``
``{"room", "seat", "step"}`` when its seat is to move, once per step, and ``gameFinish``.
The game stream sends ``{"type": "view", "room", "seat", "view", "position"}`` at once and
after every change that changes it: ``view`` is the seat's view (exactly what a person's
browser gets for the seat), ``position`` the seat's view of the state as a position snapshot
(``docs/notation.md``, "Position snapshot": ``{"game", "players", "options", "snapshot",
"seat"}``, built from the engine's ``state.view(seat)``: nothing the seat may not see).
The token is checked against the database again at every event and keep-alive: a revoked
token's stream ends within :data:`KEEPALIVE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import cast

from metrogames.core.protocol import JsonObject
from metrogames.web.infra.events import AccountEvents
from metrogames.web.infra.pubsub import Inbox
from metrogames.web.rooms.scheduler import position_job
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Table

KEEPALIVE_SECONDS = 10.0
"""The longest a stream stays silent (and goes without checking its token)."""
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"


def line(event: JsonObject, sse: bool) -> str:
    """One event as an NDJSON line or a server-sent event."""
    text = json.dumps(event, separators=(",", ":"))
    return f"event: {event.get('type', 'message')}\ndata: {text}\n\n" if sse else text + "\n"


def keepalive(sse: bool) -> str:
    """A keep-alive: an empty NDJSON line, or an SSE comment."""
    return ": keep-alive\n\n" if sse else "\n"


def game_view(table: Table, seat: int, rooms: RoomService) -> JsonObject:
    """The game stream's ``view`` event for ``seat`` of ``table``."""
    state = table.progress.state
    return {
        "type": "view",
        "room": table.id,
        "seat": seat,
        "view": rooms.view(table, seat),
        "position": cast(JsonObject, position_job(state.view(seat), seat)),
    }


def turn_events(table: Table, seat: int, told: dict[str, int]) -> list[JsonObject]:
    """``turn`` (the seat is to move at a step not told yet) or ``gameFinish`` for ``seat``;
    ``told``: the last step told per room (changed in place)."""
    if table.status == "finished":
        return [{"type": "gameFinish", "room": table.id, "seat": seat}]
    step = table.progress.step
    mine = table.status == "playing" and seat in table.progress.state.to_move()
    if not mine or table.seats[seat].bot is not None or told.get(table.id) == step:
        return []
    told[table.id] = step
    return [{"type": "turn", "room": table.id, "seat": seat, "step": step}]


def _once_key(event: JsonObject) -> tuple[str, str] | None:
    """What makes ``event`` the same as another (a game's start by its room, a challenge by
    its invitation), or ``None`` for an event told each time it happens."""
    kind = event.get("type")
    if kind == "gameStart":
        return "gameStart", str(event.get("room"))
    invitation = event.get("invitation")
    if kind == "challenge" and isinstance(invitation, dict):
        return "challenge", str(invitation.get("id"))
    return None


class Watches:
    """The rooms a bot's stream listens to: each held in memory and listened to as its seat,
    its events offered to ``inbox``."""

    def __init__(self, rooms: RoomService, inbox: Inbox[JsonObject]) -> None:
        self.rooms = rooms
        self.inbox = inbox
        self.stack = contextlib.AsyncExitStack()
        self.rooms_seen: dict[str, Callable[[], None]] = {}
        self.told: dict[str, int] = {}

    async def watch(self, room: str, seat: int) -> None:
        """Listen to ``room`` as ``seat`` (once) and offer its current events."""
        if room in self.rooms_seen:
            return
        table = await self.stack.enter_async_context(self.rooms.held(room))
        finished = False

        async def changed() -> None:
            nonlocal finished
            for event in turn_events(table, seat, self.told):
                if event["type"] == "gameFinish":
                    if finished:
                        continue
                    finished = True
                self.inbox.offer(event)

        key = self.rooms.listen(table, seat, changed)
        self.rooms_seen[room] = lambda: self.rooms.unlisten(table, key)
        await changed()

    async def close(self) -> None:
        """Stop listening and let the rooms go."""
        for stop in self.rooms_seen.values():
            stop()
        await self.stack.aclose()


async def event_stream(
    rooms: RoomService,
    events: AccountEvents,
    account: str,
    opening: Callable[[], Awaitable[list[JsonObject]]],
    seated: Callable[[str], Awaitable[int | None]],
    live: Callable[[], Awaitable[bool]],
    sse: bool,
    keepalive_seconds: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[str]:
    """The text of a bot's event stream: the ``opening()`` events, then the account's and its
    games' events, until its client leaves, its token stops being ``live()`` or its queue
    overflowed. ``seated(room)``: the bot's seat in ``room`` (``None``: none).

    The stream listens before ``opening()`` reads what is pending and where the bot sits, so
    nothing that happens between the two is missed; what both tell (a seating, a challenge)
    is told once."""
    inbox = events.subscribe(account)
    watches = Watches(rooms, inbox)
    told: set[tuple[str, str]] = set()
    try:
        for event in await opening():
            inbox.offer(event)
        while True:
            try:
                event = await asyncio.wait_for(inbox.queue.get(), keepalive_seconds)
            except TimeoutError:
                if not await live():
                    return
                yield keepalive(sse)
                continue
            if inbox.dropped or not await live():
                return
            once = _once_key(event)
            if once is not None:
                if once in told:
                    continue
                told.add(once)
            yield line(event, sse)
            if event.get("type") == "gameStart":
                room = str(event["room"])
                seat = await seated(room)
                if seat is not None:
                    await watches.watch(room, seat)
    finally:
        events.unsubscribe(inbox)
        await watches.close()


async def game_stream(
    rooms: RoomService,
    room: str,
    seat: int,
    live: Callable[[], Awaitable[bool]],
    sse: bool,
    keepalive_seconds: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[str]:
    """The text of a bot's game stream for ``seat`` of ``room``: its view now and after
    each change (an unchanged view is not sent again), until the game is over and told, its
    client leaves or its token stops being ``live()``."""
    changes: asyncio.Queue[None] = asyncio.Queue(1)

    async def changed() -> None:
        with contextlib.suppress(asyncio.QueueFull):
            changes.put_nowait(None)

    async with rooms.held(room) as table:
        key = rooms.listen(table, seat, changed)
        try:
            last = ""
            while True:
                text = line(game_view(table, seat, rooms), sse)
                if text != last:
                    last = text
                    yield text
                if table.status == "finished":
                    return
                try:
                    await asyncio.wait_for(changes.get(), keepalive_seconds)
                except TimeoutError:
                    yield keepalive(sse)
                if not await live():
                    return
        finally:
            rooms.unlisten(table, key)
