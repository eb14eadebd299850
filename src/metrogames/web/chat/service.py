"""The table chat of online rooms (``docs/web-api.md``, "Table chat").

Short messages (1–200 characters, the rules of names: :func:`~metrogames.web.checks.chat_text`)
from a seat of an online room — a seat token; spectators read but do not write —, stored with
the room (:class:`~metrogames.web.infra.models.ChatRow`: they survive a restart and stay readable once
the game is over), each seat limited by ``rate_chat`` (a message is counted before it is
stored, atomically, so messages sent at once cannot all pass the limit; one refused for its
rate or its text is not counted). Each message is written in one
transaction on the rooms' writer thread (which also numbers it: ``seq`` 1, 2, … per room) and
only once committed pushed to every WebSocket of the room as ``{"type": "chat", "message"}``: a
refused or failed write sends nothing and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import ChatRow
from metrogames.web.infra.ratelimit import RateLimits
from metrogames.web.rooms.access import seat_of
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Table
from metrogames.web.rooms.views import ChatMessageJson, ChatPush

SEQ_TRIES = 8
"""How many times a message tries for the room's next number when other workers store
messages of the room at the same time."""
RECENT = 100
"""How many messages ``GET /api/rooms/{room}/chat`` returns (the latest, oldest first)."""

Sink = Callable[[ChatPush], Awaitable[None]]
"""A WebSocket's send: called with each new ``{"type": "chat", "message"}``."""


def message_json(row: ChatRow) -> ChatMessageJson:
    """A stored message as ``{"seq", "seat", "name", "text", "time"}`` (epoch s)."""
    return {"seq": row.seq, "seat": row.seat, "name": row.name, "text": row.text, "time": row.time}


class Chat:
    """The rooms' chat: writing, reading and pushing messages to the rooms' sockets.

    Args:
        rooms: the room service (rooms, seat tokens, database sessions and writer thread).
        limits: the rate limits (``chat``: per seat of a room).
        blocked: whether a block stands between the account of ``room``'s ``seat`` and the
            account of another seat of the room (read on a worker thread; the app plugs in
            :meth:`~metrogames.web.accounts.friends.Friends.blocked_at_table`); default: never.
    """

    def __init__(
        self,
        rooms: RoomService,
        limits: RateLimits,
        blocked: Callable[[str, int], bool] | None = None,
    ) -> None:
        self.rooms = rooms
        self.limits = limits
        self.blocked = blocked
        self.sinks: dict[str, dict[int, Sink]] = {}
        """Per room, the sends of its WebSockets (by :meth:`listen`'s key)."""

    def listen(self, room: str, send: Sink) -> int:
        """Push the room's new messages to ``send`` from now on; returns its key."""
        key = id(send)
        self.sinks.setdefault(room, {})[key] = send
        return key

    def unlisten(self, room: str, key: int) -> None:
        """Stop pushing to the send of ``key``."""
        sinks = self.sinks.get(room, {})
        sinks.pop(key, None)
        if not sinks:
            self.sinks.pop(room, None)

    @staticmethod
    def check_online(table: Table) -> None:
        """Refuse a room without a chat.

        Raises:
            RoomError: 409 ``no-chat`` for a room that is not an online room.
        """
        if table.mode != "online":
            # (the mode's code is no word of the page's language: not said)
            raise RoomError(409, "no-chat", msg(N_("only online rooms have a chat")))

    async def post(self, room: str, token: str | None, text: str) -> ChatMessageJson:
        """``POST /api/rooms/{room}/chat``: store ``text`` (already checked) as the token's
        seat's message and push it; returns the message.

        Raises:
            RoomError: 404 ``not-found``, 409 ``no-chat``, 401/403 ``bad-token``,
                429 ``rate-limited``.
        """
        async with self.rooms.held(room) as table:
            self.check_online(table)
            return await self.say(table, seat_of(table, token), text)

    async def say(self, table: Table, seat: int, text: str) -> ChatMessageJson:
        """Store ``text`` (already checked) as ``seat``'s message in the online room
        ``table``, then push it to the room's sockets; returns the message.

        Raises:
            RoomError: 409 ``no-chat``, 403 ``blocked`` (a block between the seat's account
                and another seated one), 429 ``rate-limited`` (nothing stored or sent).
        """
        self.check_online(table)
        if self.blocked is not None and await asyncio.to_thread(self.blocked, table.id, seat):
            refusal = msg(N_("a player at this table has blocked you, or you them: no chat"))
            raise RoomError(403, "blocked", refusal)
        # counted before it is stored, atomically: messages sent at once cannot all pass
        await self.limits.take("chat", f"{table.id}/{seat}", N_("seat"))
        name = table.seats[seat].name
        message = await self.rooms.store.on_writer(self._write, table.id, seat, name, text, time.time())
        await self.deliver(table.id, message)
        if self.rooms.cluster is not None:
            await self.rooms.cluster.publish_chat(table.id, message)
        return message

    async def deliver(self, room: str, message: ChatMessageJson) -> None:
        """Push a stored ``message`` of ``room`` to this worker's sockets of the room (also
        called for the other workers' messages, :mod:`~metrogames.web.infra.cluster`)."""
        for send in list(self.sinks.get(room, {}).values()):
            with contextlib.suppress(Exception):  # a closed socket is dropped by its reader
                await send({"type": "chat", "message": message})

    def _write(self, room: str, seat: int, name: str, text: str, when: float) -> ChatMessageJson:
        """Store a message as the room's next ``seq``. Another worker may take that number
        at the same time (the primary key refuses the second): then the next one is taken."""
        for _ in range(SEQ_TRIES - 1):
            with contextlib.suppress(IntegrityError):
                return self._insert(room, seat, name, text, when)
        return self._insert(room, seat, name, text, when)

    def _insert(self, room: str, seat: int, name: str, text: str, when: float) -> ChatMessageJson:
        with self.rooms.sessions.begin() as session:
            last = session.scalar(select(func.max(ChatRow.seq)).where(ChatRow.room_id == room))
            row = ChatRow(
                room_id=room, seq=(last or 0) + 1, seat=seat, name=name, text=text, time=when
            )
            session.add(row)
        return message_json(row)

    async def recent(self, room: str, token: str | None) -> list[ChatMessageJson]:
        """``GET /api/rooms/{room}/chat``: the room's latest :data:`RECENT` messages, oldest
        first.

        Raises:
            RoomError: 404 ``not-found``, 409 ``no-chat``.
        """
        table = await self.rooms.table(room)
        self.check_online(table)
        self.rooms.check_public(table, token)
        rows = await asyncio.to_thread(self._read, room)
        return [message_json(r) for r in rows]

    def _read(self, room: str) -> list[ChatRow]:
        with self.rooms.sessions() as session:
            rows = session.scalars(
                select(ChatRow)
                .where(ChatRow.room_id == room)
                .order_by(ChatRow.seq.desc())
                .limit(RECENT)
            ).all()
        return list(reversed(rows))
