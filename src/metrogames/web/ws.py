"""The live channel: WebSocket ``/ws/rooms/{room}`` (``docs/web-api.md``, "Playing").

The client's first message is ``{"type": "hello", "token": <seat token> | null}``; the server
answers ``{"type": "view", "view": ...}`` at once and after every change of the room (built
once per seat and change, the same text for each of the seat's sockets: :mod:`.views`). The client
plays with ``{"type": "action", "action": ..., "step": n}`` and, in an online room, chats with
``{"type": "chat", "text"}`` (every socket of the room that said hello gets each new message as
``{"type": "chat", "message"}``: :mod:`.chat`); a refusal comes back as
``{"type": "error", "error", "reason"}`` (with ``"step"``, the action's, when the message refused
was an action: a client tells its move's refusal apart; the error in the socket's language:
:mod:`.language`, read from the upgrade request) and changes nothing. A client that says hello again
(or reconnects) gets the current view. Messages are limited to 16 KiB and parsed into their
declared models (:mod:`.bodies`); a message that is not one, or a request the server fails
to carry out, is answered with an error message and the socket stays open. The server caps
frames at the protocol level (:data:`FRAME_LIMIT`, :mod:`.server`): a larger message closes the
socket (1009) before it is buffered. One client address holds at most
``METROGAMES_WS_PER_ADDRESS`` sockets at once (:mod:`.sockets`): one more is told why in an
error message and closed with code 1008 and the same reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from metrogames.i18n import N_, Gettext, msg
from metrogames.web import logs
from metrogames.web.bodies import ActionMessage, ChatMessage, Hello, Message, parse
from metrogames.web.chat import Chat
from metrogames.web.checks import RoomError, bad_request
from metrogames.web.db import UNAVAILABLE, unavailable
from metrogames.web.language import connection_gettext
from metrogames.web.metrics import ROUND_TRIP, SOCKETS, worker
from metrogames.web.rooms import RoomService
from metrogames.web.sockets import CLOSE_CODE, SocketCap
from metrogames.web.tables import Table
from metrogames.web.views import ViewCache, encode

MESSAGE_LIMIT = 16 * 1024
FRAME_LIMIT = 64 * 1024
"""The largest message the WebSocket protocol reads at all (uvicorn's ``ws_max_size``)."""
SERVER_ERROR = RoomError(500, "server-error", msg(N_("the server failed on this request")))

_HELLO_FIRST = msg(N_('say {{"type": "hello"}} first'))

log = logging.getLogger(__name__)
router = APIRouter()


def _error(exc: RoomError, gettext: Gettext, step: int | None = None) -> dict[str, Any]:
    body = {"type": "error", **exc.body(gettext)}
    return body if step is None else {**body, "step": step}


def _decode(text: str | None) -> Hello | ActionMessage | ChatMessage:
    """A client message: a hello, an action or a chat message.

    Raises:
        RoomError: 413 ``too-large``, 400 ``bad-request`` naming the field.
    """
    if text is None:
        raise bad_request(msg(N_("messages are JSON text")))
    if len(text.encode()) > MESSAGE_LIMIT:
        raise RoomError(
            413, "too-large", msg(N_("a message is at most {limit} bytes"), limit=MESSAGE_LIMIT)
        )
    return parse(Message, text, N_("a message")).root


class Connection:
    """One WebSocket client of a room: its seat (``None``: spectator) and its listener."""

    def __init__(self, socket: WebSocket, rooms: RoomService, table: Table) -> None:
        self.socket = socket
        self.rooms = rooms
        self.table = table
        self.seat: int | None = None
        self.key: int | None = None
        self.chat: Chat = socket.app.state.chat
        self.views: ViewCache = socket.app.state.views
        self.chat_key: int | None = None
        self.send_lock = asyncio.Lock()
        self.gettext = connection_gettext(socket)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(encode(message))

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            await self.socket.send_text(text)

    async def push_view(self) -> None:
        """Send the current view for this connection's seat (the text shared by the seat's
        sockets: :class:`~metrogames.web.views.ViewCache`)."""
        table, seat = self.table, self.seat
        frame = self.rooms.frame(table, seat)
        await self.send_text(self.views.message(frame, table.progress.state, seat))

    async def hello(self, message: Hello) -> None:
        async with self.rooms.admission.turn():  # a crowd's hellos wait; moves do not
            await self._greet(message)

    async def _greet(self, message: Hello) -> None:
        await self.rooms.catch_up(self.table)
        seat = self.rooms.viewer(self.table, message.token)
        if self.key is not None:
            self.rooms.unlisten(self.table, self.key)
        self.seat = seat
        logs.bind(seat=seat)
        self.key = self.rooms.listen(self.table, seat, self.push_view)
        if self.chat_key is None:
            self.chat_key = self.chat.listen(self.table.id, self.send)
        if seat is not None:
            await self.rooms.notify(self.table)  # everyone sees the seat connected
        else:
            await self.push_view()

    async def action(self, message: ActionMessage) -> None:
        if self.key is None:
            raise bad_request(_HELLO_FIRST)
        if self.seat is None:
            raise RoomError(
                401, "bad-token", msg(N_("spectators cannot act; say hello with a token"))
            )
        await self.rooms.act_as(self.table, self.seat, message)

    async def say(self, message: ChatMessage) -> None:
        if self.key is None:
            raise bad_request(_HELLO_FIRST)
        self.chat.check_online(self.table)
        if self.seat is None:
            raise RoomError(
                401, "bad-token", msg(N_("spectators cannot chat; say hello with a token"))
            )
        await self.chat.say(self.table, self.seat, message.text)

    def close(self) -> None:
        if self.chat_key is not None:
            self.chat.unlisten(self.table.id, self.chat_key)
            self.chat_key = None
        if self.key is not None:
            self.rooms.unlisten(self.table, self.key)
            self.key = None


@router.websocket("/ws/rooms/{room}")
async def room_socket(socket: WebSocket, room: str) -> None:
    """Serve one client of room ``room`` until it disconnects."""
    rooms: RoomService = socket.app.state.rooms
    sockets: SocketCap = socket.app.state.sockets
    await socket.accept()
    logs.bind(room=room[:8])
    gauge = SOCKETS.labels(worker())
    gauge.inc()
    try:
        with sockets.hold(socket):
            try:
                async with rooms.held(room) as table:
                    await serve_connection(Connection(socket, rooms, table))
            except RoomError as exc:
                await socket.send_text(encode(_error(exc, connection_gettext(socket))))
                await socket.close(code=4404)
    except RoomError as exc:  # the address holds too many sockets
        await socket.send_text(encode(_error(exc, connection_gettext(socket))))
        await socket.close(code=CLOSE_CODE, reason=exc.message)
    finally:
        gauge.dec()


async def serve_connection(conn: Connection) -> None:
    """Read the client's messages until it disconnects (its room is held meanwhile)."""
    socket, rooms, table = conn.socket, conn.rooms, conn.table
    try:
        while True:
            data = await socket.receive()
            if data["type"] == "websocket.disconnect":
                break
            received = time.perf_counter()
            step = None  # the step of an action message, named in its refusal
            try:
                message = _decode(data.get("text"))
                if isinstance(message, Hello):
                    await conn.hello(message)
                elif isinstance(message, ChatMessage):
                    await conn.say(message)
                else:
                    step = message.step
                    await conn.action(message)
                    ROUND_TRIP.labels(table.game).observe(time.perf_counter() - received)
            except RoomError as exc:
                await conn.send(_error(exc, conn.gettext, step))
            except WebSocketDisconnect:
                raise
            except Exception as exc:  # e.g. the database failed: nothing changed, the socket lives
                if unavailable(exc):
                    await conn.send(_error(UNAVAILABLE, conn.gettext, step))
                    continue
                log.exception("room %s: a WebSocket message failed", table.id)
                await conn.send(_error(SERVER_ERROR, conn.gettext, step))
    except WebSocketDisconnect:
        pass
    finally:
        conn.close()
        if conn.seat is not None:
            await rooms.notify(table)
