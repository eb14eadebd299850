"""The live channel: WebSocket ``/ws/rooms/{room}`` (``docs/web-api.md``, "Playing").

The client's first message is ``{"type": "hello", "token": <seat token> | null}``, within
``METROGAMES_HELLO_SECONDS`` of connecting (else the socket is closed, code 1008); the server
answers ``{"type": "view", "view": ...}`` at once and after every change of the room that changes
what the socket sees (built once per seat and change, the same text for each of the seat's
sockets: :mod:`~metrogames.web.rooms.views`; a view equal to the last one the socket was sent is not sent again). The
client plays with ``{"type": "action", "action": ..., "step": n}`` and, in an online room, chats
with ``{"type": "chat", "text"}`` (every socket of the room that said hello gets each new message
as ``{"type": "chat", "message"}``: :mod:`.chat`); a refusal comes back as
``{"type": "error", "error", "reason"}`` (with ``"step"``, the action's, when the message refused
was an action: a client tells its move's refusal apart; the error in the socket's language:
:mod:`~metrogames.web.infra.language`, read from the upgrade request) and changes nothing. A client that says hello again (or
reconnects) gets the current view. The seat's token is checked again at every action and chat
message: a token replaced since the hello (a new daily start, a claimed guest) no longer acts.

Messages are limited to 16 KiB and parsed into their declared models (:mod:`.bodies`); a
message that is not one, or a request the server fails to carry out, is answered with an error
message and the socket stays open. The server caps frames at the protocol level
(:data:`FRAME_LIMIT`, :mod:`.server`): a larger message closes the socket (1009) before it is
buffered. One socket, and one seat, may send ``METROGAMES_SOCKET_RATE`` messages a second
(bursts of ``METROGAMES_SOCKET_BURST``, :mod:`~metrogames.web.infra.flood`): over it a message is refused unread, and a
socket that goes on is closed (1008, ``too many messages``).

Nothing here waits on a client while anything shared is held: what a socket is sent goes into
its own :class:`Outbox`, sent by its own task, each message within ``METROGAMES_SEND_SECONDS``
(a client that stops reading is closed, 1008, and its departure is no error). One client address
holds at most ``METROGAMES_WS_PER_ADDRESS`` sockets at once (:mod:`~metrogames.web.infra.sockets`): one more is told
why in an error message and closed with code 1008 and the same reason; one over the opening
limit too, after which the address's sockets are denied at the handshake (HTTP 429) until the
wait it was told is over (:class:`~metrogames.web.infra.sockets.Told`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import NotRequired, TypedDict, cast

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from metrogames.i18n import N_, Gettext, msg
from metrogames.web.api.bodies import ActionMessage, ChatMessage, Hello, Message, parse
from metrogames.web.chat.service import Chat
from metrogames.web.checks import hash_token
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra import logs
from metrogames.web.infra.config import Settings
from metrogames.web.infra.db import UNAVAILABLE, unavailable
from metrogames.web.infra.deadlines import UpgradeRefusal
from metrogames.web.infra.flood import CLOSE_REASON, Bucket, Flood, too_many
from metrogames.web.infra.language import connection_gettext
from metrogames.web.infra.metrics import ROUND_TRIP, SOCKETS, child, worker
from metrogames.web.infra.ratelimit import RateLimits, client_key
from metrogames.web.infra.sockets import CLOSE_CODE, SocketCap, Tarpit, Told
from metrogames.web.rooms import summary
from metrogames.web.rooms.access import check_seat_token
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Table
from metrogames.web.rooms.views import ErrorMessage, ViewCache, encode

MESSAGE_LIMIT = 16 * 1024
FRAME_LIMIT = 64 * 1024
"""The largest message the WebSocket protocol reads at all (uvicorn's ``ws_max_size``)."""
QUEUE_LIMIT = 64
"""The most messages (views apart: only the latest is kept) waiting for one socket: a client
that falls further behind is closed."""
SERVER_ERROR = RoomError(500, "server-error", msg(N_("the server failed on this request")))

_HELLO_FIRST = msg(N_('say {{"type": "hello"}} first'))


class Received(TypedDict):
    """What the ASGI server gives a socket's reader (its ``websocket.receive`` and
    ``websocket.disconnect`` events, as the ASGI spec shapes them): the ``type``, a message's
    ``text`` or ``bytes``, a disconnection's ``code`` and ``reason``."""

    type: str
    text: NotRequired[str | None]
    bytes: NotRequired[bytes | None]
    code: NotRequired[int]
    reason: NotRequired[str | None]


log = logging.getLogger("metrogames.web.ws")  # the name its log lines always had
router = APIRouter()


def _error(exc: RoomError, gettext: Gettext, step: int | None = None) -> ErrorMessage:
    # the refusal's body is {"error", "reason", "item"?}
    body = cast(ErrorMessage, {"type": "error", **exc.body(gettext)})
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


class Outbox:
    """What one socket is to be sent, sent in order by a task of its own, each message within
    ``send_seconds``.

    Views coalesce: a newer view replaces an unsent older one, and a view equal to the last
    one sent is not sent again (unless asked ``again``: a hello). Other messages (errors, chat)
    wait in order, at most :data:`QUEUE_LIMIT`. A client that falls behind further, or leaves a
    message unread for ``send_seconds``, is closed (1008); one that has gone is left quietly.

    Each send's deadline is kept by one timer per outbox (:meth:`_watch`), not one per message:
    armed when a send begins with none pending, it looks at the send under way when it fires —
    the same send still: the client is closed; a later one: armed again for that send's own
    deadline. A socket sent a view per action arms it at most once per ``send_seconds``.
    """

    def __init__(self, socket: WebSocket, send_seconds: float) -> None:
        self.socket = socket
        self.send_seconds = send_seconds
        self.queue: deque[tuple[bool, str]] = deque()
        """Texts to send, each marked whether it is a view."""
        self.sent_view: str | None = None
        self.closed = False
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._sends = 0
        """Sends begun so far (the one under way, while :attr:`_since` is set)."""
        self._since: float | None = None
        """When the send under way began (the loop's clock), ``None`` between sends."""
        self._timer: asyncio.TimerHandle | None = None
        self._task = self._loop.create_task(self._run())

    def view(self, text: str, again: bool = False) -> None:
        """Send the view message ``text`` (unless it is the last view sent, or ``again``)."""
        if self.closed:
            return
        queued = next((i for i, (is_view, _) in enumerate(self.queue) if is_view), None)
        if queued is not None:
            del self.queue[queued]
        elif text == self.sent_view and not again:
            return
        self.queue.append((True, text))
        self._wake.set()

    def message(self, text: str) -> None:
        """Send the message ``text`` after those before it."""
        if self.closed:
            return
        if len(self.queue) >= QUEUE_LIMIT:
            self._give_up("too far behind")
            return
        self.queue.append((False, text))
        self._wake.set()

    async def _run(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self.queue and not self.closed:
                    is_view, text = self.queue.popleft()
                    self._sends += 1
                    self._since = self._loop.time()
                    if self._timer is None:
                        self._arm(self._sends, self._since)
                    await self.socket.send_text(text)
                    self._since = None
                    if is_view:
                        self.sent_view = text
        except Exception:  # the client went away: its reader ends the connection
            self.closed = True

    def _arm(self, send: int, since: float) -> None:
        """Fire :meth:`_watch` at the deadline of send number ``send``, begun at ``since``."""
        self._timer = self._loop.call_at(since + self.send_seconds, self._watch, send)

    def _watch(self, send: int) -> None:
        """At send number ``send``'s deadline: close the client if that send is still under
        way; else watch the send under way now, if any, until its own deadline."""
        self._timer = None
        if self.closed or self._since is None:
            return
        if self._sends == send:
            self._give_up("not reading")
            self._task.cancel()  # the send waits on the client: it is given up too
        else:
            self._arm(self._sends, self._since)

    def _give_up(self, why: str) -> None:
        """Close a client that does not keep up (in the background: nothing waits on it)."""
        if self.closed:
            return
        self.closed = True
        self.queue.clear()
        log.info("a WebSocket client is closed: %s", why)
        asyncio.get_running_loop().create_task(_close(self.socket, CLOSE_CODE, why))

    def stop(self) -> None:
        """Send nothing more."""
        self.closed = True
        self._task.cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


async def _close(socket: WebSocket, code: int, reason: str) -> None:
    """Close ``socket`` (code, reason), waiting at most a few seconds for the client."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5):
            await socket.close(code=code, reason=reason)


class Connection:
    """One WebSocket client of a room: its seat (``None``: spectator), its listener, its
    outbox and its flood buckets."""

    def __init__(self, socket: WebSocket, rooms: RoomService, table: Table) -> None:
        self.socket = socket
        self.rooms = rooms
        self.table = table
        self.seat: int | None = None
        self.token_hash: str | None = None
        """The digest of the token the seat said hello with (checked again at each action)."""
        self.key: int | None = None
        state = socket.app.state
        self.chat: Chat = state.chat
        self.views: ViewCache = state.views
        self.flood: Flood = state.flood
        settings: Settings = state.settings
        self.outbox = Outbox(socket, settings.send_seconds)
        self.bucket: Bucket = self.flood.socket_bucket()
        self.strikes: Bucket = self.flood.socket_bucket()
        """Refused messages: a socket that runs out of these is closed."""
        self.refused_at = 0.0
        self.chat_key: int | None = None
        self.gettext = connection_gettext(socket)

    async def send(self, message: object) -> None:
        """Queue ``message`` (a server message: JSON) for the client (never waits on it)."""
        self.outbox.message(encode(message))

    async def push_view(self, again: bool = False) -> None:
        """Queue the current view for this connection's seat (the text shared by the seat's
        sockets: :class:`~metrogames.web.rooms.views.ViewCache`), unless the client has it."""
        table, seat = self.table, self.seat
        frame = summary.frame(table, seat)
        self.outbox.view(self.views.message(frame, table.progress.state, seat), again)

    def admit(self) -> bool:
        """Count one message against the socket's and the seat's buckets; ``False`` when it is
        refused (answered at most once a second: a refusal is work too).

        Raises:
            RoomError: 429 ``rate-limited``, when the refusal is to be answered.
        """
        try:
            if not self.bucket.take():
                raise too_many(self.flood.rate)
            if self.seat is not None:
                self.flood.seat(self.table.id, self.seat)
        except RoomError as exc:
            return self._refused(exc)
        return True

    def _refused(self, refusal: RoomError) -> bool:
        """A message over a bucket: a strike; the socket is closed when its strikes run out
        (``False``), else ``refusal`` is raised to be answered, at most once a second
        (``False`` otherwise: dropped unanswered)."""
        if not self.strikes.take():
            self.outbox.closed = True
            asyncio.get_running_loop().create_task(_close(self.socket, CLOSE_CODE, CLOSE_REASON))
            return False
        now = time.monotonic()
        if now - self.refused_at < 1.0:
            return False
        self.refused_at = now
        raise refusal

    async def hello(self, message: Hello) -> None:
        async with self.rooms.admission.turn(client_key(self.socket)):  # hellos wait; moves do not
            await self._greet(message)

    async def _greet(self, message: Hello) -> None:
        """Listen to the room as the hello's seat (or as a spectator) and send the view. A
        hello repeated with the same token only sends the view again: the socket listens
        already, and nobody else is told anything (its seat was connected already)."""
        await self.rooms.sync.catch_up(self.table)
        seat = self.rooms.viewer(self.table, message.token)
        token_hash = hash_token(message.token) if message.token else None
        if self.key is not None and (seat, token_hash) == (self.seat, self.token_hash):
            await self.push_view(again=True)
            return
        if self.key is not None:
            self.rooms.unlisten(self.table, self.key)
        self.seat = seat
        self.token_hash = token_hash
        logs.bind(seat=seat)
        self.key = self.rooms.listen(self.table, seat, self.push_view)
        if self.chat_key is None:
            self.chat_key = self.chat.listen(self.table.id, self.send)
        await self.push_view(again=True)  # asked for: sent even if unchanged
        self.table.notify_presence()  # everyone sees the seat connected (or the spectators)

    def _check_seat(self, what: str) -> int:
        """The socket's seat, its token still the seat's.

        Raises:
            RoomError: 400 before a hello; 401 ``bad-token`` for a spectator; 403
                ``bad-token`` when the seat's token was replaced since the hello.
        """
        if self.key is None:
            raise bad_request(_HELLO_FIRST)
        if self.seat is None:
            text = (
                N_("spectators cannot act; say hello with a token")
                if what == "act"
                else N_("spectators cannot chat; say hello with a token")
            )
            raise RoomError(401, "bad-token", msg(text))
        check_seat_token(self.table, self.seat, self.token_hash)
        return self.seat

    async def action(self, message: ActionMessage) -> None:
        seat = self._check_seat("act")
        await self.rooms.playing.act_as(self.table, seat, message, self.token_hash)

    async def say(self, message: ChatMessage) -> None:
        if self.key is None:
            raise bad_request(_HELLO_FIRST)
        self.chat.check_online(self.table)
        seat = self._check_seat("chat")
        await self.chat.say(self.table, seat, message.text)

    def close(self) -> None:
        self.outbox.stop()
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
    told: Told = socket.app.state.told
    waiting = told.waiting(socket)
    if waiting is not None:  # told already, its wait not over: refused at the handshake
        await _deny(socket, waiting, told.tarpit)
        return
    await socket.accept()
    logs.bind(room=room[:8])
    gauge = SOCKETS.labels(worker())
    gauge.inc()
    try:
        limits: RateLimits = socket.app.state.limits
        try:
            await limits.charge("sockets", socket)  # a socket reconnecting in a loop: refused
        except RoomError as exc:
            told.told(socket, exc)
            raise
        with sockets.hold(socket):
            try:
                async with rooms.held(room) as table:
                    await serve_connection(Connection(socket, rooms, table))
            except RoomError as exc:
                await _refuse(socket, exc, 4404)
    except RoomError as exc:  # the address holds, or opened, too many sockets
        await _refuse(socket, exc, CLOSE_CODE, exc.message)
    finally:
        gauge.dec()


def _denial(connection: HTTPConnection, refusal: RoomError) -> JSONResponse:
    """The handshake's refusal: HTTP 429, ``refusal`` as JSON in the client's language, its
    ``Retry-After``."""
    gettext = connection_gettext(connection)
    return JSONResponse(_error(refusal, gettext), 429, headers=refusal.headers or {})


async def _deny(socket: WebSocket, refusal: RoomError, tarpit: Tarpit) -> None:
    """Refuse ``socket`` at the handshake (:func:`_denial`; no WebSocket is opened), after
    holding it as ``tarpit`` says; a client gone already is no error, nor is the refusal
    (:func:`~metrogames.web.infra.logs.denied`)."""
    logs.denied()
    if seconds := tarpit.hold():
        try:
            await asyncio.sleep(seconds)
        finally:
            tarpit.release()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5):
            await socket.send_denial_response(_denial(socket, refusal))


def upgrade_refusal(told: Told) -> UpgradeRefusal:
    """The HTTP protocol's shortcut (:func:`~metrogames.web.infra.deadlines.refuse_upgrades`)
    for the addresses ``told`` names: the whole response :func:`room_socket` would deny their
    upgrade with (the same status, JSON and headers), sent before the app is reached."""

    def refuse(connection: HTTPConnection) -> bytes | None:
        refusal = told.waiting(connection)
        if refusal is None:
            return None
        denial = _denial(connection, refusal)
        head = b"".join(name + b": " + value + b"\r\n" for name, value in denial.raw_headers)
        return (
            b"HTTP/1.1 429 Too Many Requests\r\n"
            + head
            + b"connection: close\r\n\r\n"
            + denial.body
        )

    return refuse


async def _refuse(socket: WebSocket, exc: RoomError, code: int, reason: str = "") -> None:
    """Tell the client why (an error message) and close the socket, never waiting on it
    long; a client gone already is no error."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5):
            await socket.send_text(encode(_error(exc, connection_gettext(socket))))
    await _close(socket, code, reason)


async def _receive(conn: Connection) -> Received:
    """The client's next message; before its hello, within the hello deadline.

    Raises:
        TimeoutError: no hello in time.
    """
    if conn.key is not None:
        return cast(Received, dict(await conn.socket.receive()))  # Starlette's: a plain mapping
    settings: Settings = conn.socket.app.state.settings
    async with asyncio.timeout(settings.hello_seconds):
        return cast(Received, dict(await conn.socket.receive()))


async def serve_connection(conn: Connection) -> None:
    """Read the client's messages until it disconnects (its room is held meanwhile). After
    each message the event loop serves everyone else before the next one: a client's queued
    messages are read without waiting, so a flooding socket would otherwise keep the loop
    for as long as its queue lasts."""
    socket, table = conn.socket, conn.table
    try:
        while True:
            try:
                data = await _receive(conn)
            except TimeoutError:
                late = RoomError(408, "bad-request", _HELLO_FIRST)
                await _refuse(socket, late, CLOSE_CODE, "no hello in time")
                break
            if data["type"] == "websocket.disconnect":
                break
            await _answer(conn, data)
            await asyncio.sleep(0)  # the next message may be queued already: others go first
    except (WebSocketDisconnect, RuntimeError):  # gone; or closed by us while it was read
        pass
    finally:
        listened = conn.key is not None
        conn.close()
        if listened:  # a seat's mark or the spectators' count changes
            table.notify_presence()


async def _answer(conn: Connection, data: Received) -> None:
    """Handle one client message (a hello, a chat message or an action, once admitted by the
    socket's and seat's flood limits). A refusal or a failure is told on the socket, which
    lives on (an action's refusal names its step).

    Raises:
        WebSocketDisconnect: the client is gone.
    """
    received = time.perf_counter()
    step = None
    try:
        if not conn.admit():
            return
        message = _decode(data.get("text"))
        if isinstance(message, Hello):
            await conn.hello(message)
        elif isinstance(message, ChatMessage):
            await conn.say(message)
        else:
            step = message.step
            await conn.action(message)
            child(ROUND_TRIP, conn.table.game).observe(time.perf_counter() - received)
    except RoomError as exc:
        await conn.send(_error(exc, conn.gettext, step))
    except WebSocketDisconnect:
        raise
    except Exception as exc:  # e.g. the database failed: nothing changed, the socket lives
        if unavailable(exc):
            await conn.send(_error(UNAVAILABLE, conn.gettext, step))
            return
        log.exception("room %s: a WebSocket message failed", conn.table.id)
        await conn.send(_error(SERVER_ERROR, conn.gettext, step))
