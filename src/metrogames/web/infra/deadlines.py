"""Deadlines on every read from an HTTP client, and a bound on its headers.

uvicorn's HTTP protocol (httptools) times out only a connection idle between two requests
(``timeout_keep_alive``): a client that connects and sends nothing, sends its headers a byte at
a time, or starts a body it never finishes holds its connection — and, were it read inside a
shared turn, everyone behind it — for as long as it likes, and its headers may be any size.
:class:`GuardedHttp` is uvicorn's protocol with three more rules, each one closing the
connection (with an answer when none was sent yet):

* **headers in time**: a request's line and headers arrive within :attr:`GuardedHttp.header_seconds`
  of its first byte (of the connection, for the first request): else 408, closed;
* **headers bounded**: at most :attr:`GuardedHttp.header_bytes` bytes of request line and
  headers: else 431, closed (a larger header is never buffered);
* **a body in time**: the whole body arrives within :attr:`GuardedHttp.body_seconds` of the
  headers: else 408 (when the app has not answered yet), closed — the app reading it sees the
  client gone (:class:`starlette.requests.ClientDisconnect`);
* **responses read in time**: a client that stops reading its response for
  :attr:`GuardedHttp.send_seconds` (the transport's buffer full all that time) is closed.

And one shortcut: a WebSocket upgrade that the app would only deny at its handshake (an address
told to wait, :class:`~metrogames.web.infra.sockets.Told`) is answered here, before it reaches
the app (:func:`refuse_upgrades`): a client opening sockets again in a loop then costs the
serving loop a parse and a write, not the app's whole middleware stack and routing; and the
denial is held a while first (:class:`~metrogames.web.infra.sockets.Tarpit`: the connection
neither read nor timed meanwhile), so that such a loop tries about once a second.

And one for WebSockets (:class:`GuardedWebSocket`): a socket the app closes as a policy
violation (1008: a flood, a client that stops reading) is not read any more once its close
frame is written, and its connection is closed a second later (the frame delivered) — instead of being read for the close handshake's 10 s, every frame a flooding client
still sent parsed and decompressed only to be dropped.

The limits are class attributes, set from the settings before serving
(:func:`configure`: ``METROGAMES_HEADER_SECONDS``, ``_HEADER_BYTES``, ``_BODY_SECONDS``,
``_SEND_SECONDS``); uvicorn is told the class by its import path (``serve --workers N`` starts
its workers by that path too). WebSocket upgrades leave this protocol once upgraded
(:mod:`~metrogames.web.api.ws` bounds the socket's own reads and writes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

from starlette.requests import HTTPConnection
from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from metrogames.web.infra.config import Settings
from metrogames.web.infra.sockets import Tarpit

IMPORT_PATH = "metrogames.web.infra.deadlines:GuardedHttp"
"""What uvicorn's ``http`` option names."""
WS_IMPORT_PATH = "metrogames.web.infra.deadlines:GuardedWebSocket"
"""What uvicorn's ``ws`` option names."""
POLICY_CLOSE = 1008
"""The close code after which a socket is not read any more (policy violation)."""
POLICY_GRACE = 1.0
"""Seconds such a socket's connection is kept, unread, for its close frame to arrive."""

UpgradeRefusal = Callable[[HTTPConnection], bytes | None]
"""Given a WebSocket upgrade's request (its client, path and headers): the whole HTTP response
that refuses it, or ``None`` to hand it to the app."""


def _answer(status: int, reason: str, text: str) -> bytes:
    body = text.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines on the client's reads and a header bound
    (see the module docstring). One instance per connection."""

    header_seconds = 10.0
    """Seconds a request's line and headers may take from its first byte."""
    header_bytes = 32 * 1024
    """The most bytes of request line and headers (nginx's default buffers hold 32 KiB)."""
    body_seconds = 30.0
    """Seconds a request's body may take from the end of its headers."""
    send_seconds = 30.0
    """Seconds a client may leave the response unread (the write buffer full) before it is
    closed."""
    refusal: ClassVar[UpgradeRefusal | None] = None
    """The upgrades answered here (:func:`refuse_upgrades`)."""
    tarpit: ClassVar[Tarpit | None] = None
    """How long their answers are held (:func:`refuse_upgrades`; ``None``: not at all)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # Any: uvicorn's arguments, passed on
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None
        self._awaiting_headers = True
        self._header_count = 0
        self._held: Tarpit | None = None

    # -- the deadline of the part being read ------------------------------------------------
    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        """The client took too long: a 408 when nothing was answered yet, then closed."""
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self.transport.write(_answer(408, "Request Timeout", "the request took too long"))
        self.transport.close()

    # -- uvicorn's protocol -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._unhold()
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self._awaiting_headers:
            super().data_received(data)
            return
        room = self.header_bytes - self._header_count
        head, rest = data[:room], data[room:]
        self._header_count += len(head)
        super().data_received(head)
        if not rest or self.transport.is_closing():
            return
        if self._awaiting_headers:  # the headers go on past the bound
            self._disarm()
            self.transport.write(
                _answer(431, "Request Header Fields Too Large", "the request headers are too large")
            )
            self.transport.close()
            return
        protocol = self.transport.get_protocol()
        if protocol is self:
            super().data_received(rest)
        else:  # upgraded to a WebSocket by the first part: the rest is the socket's
            protocol.data_received(rest)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._awaiting_headers:  # a later request on the connection
            self._awaiting_headers, self._header_count = True, 0
        if self._timer is None:
            self._arm(self.header_seconds)

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._disarm()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._arm(self.body_seconds)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._awaiting_headers and self._timer is None:
            self._awaiting_headers, self._header_count = True, 0

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        refusal = GuardedHttp.refusal  # read on the class: a function, never bound
        refused = None if refusal is None else refusal(HTTPConnection(dict(self.scope)))
        if refused is None:
            super().handle_websocket_upgrade()
            return
        tarpit = GuardedHttp.tarpit
        seconds = 0.0 if tarpit is None else tarpit.hold()
        if not seconds:
            self._deny(refused)
            return
        self._held = tarpit
        self.transport.pause_reading()  # nothing more is read from it meanwhile
        self._timer = self.loop.call_later(seconds, self._deny, refused)

    def _deny(self, refused: bytes) -> None:
        """Send the refusal of an upgrade (held or not) and close."""
        self._timer = None
        self._unhold()
        if not self.transport.is_closing():
            self.transport.write(refused)
            self.transport.close()

    def _unhold(self) -> None:
        if self._held is not None:
            self._held.release()
            self._held = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None:
            self._send_timer = self.loop.call_later(self.send_seconds, self._unread)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _unread(self) -> None:
        self._send_timer = None
        if not self.transport.is_closing():
            self.transport.abort()


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, except that a socket the app closes with
    :data:`POLICY_CLOSE` is read no more once its close frame is written, and its connection is
    closed :data:`POLICY_GRACE` seconds later (see the module docstring). Other
    closes keep the close handshake."""

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if (
            message["type"] == "websocket.close"
            and message.get("code") == POLICY_CLOSE
            and self.close_sent
            and not self.transport.is_closing()
        ):
            self.transport.pause_reading()  # nothing more is read, nor parsed
            if self.close_timer is not None:
                self.close_timer.cancel()
            self.close_timer = self.loop.call_later(POLICY_GRACE, self.transport.close)


def configure(settings: Settings) -> None:
    """Set :class:`GuardedHttp`'s limits from ``settings`` (in each serving process, before
    it serves)."""
    GuardedHttp.header_seconds = settings.header_seconds
    GuardedHttp.header_bytes = settings.header_bytes
    GuardedHttp.body_seconds = settings.body_seconds
    GuardedHttp.send_seconds = settings.send_seconds


def refuse_upgrades(refusal: UpgradeRefusal | None, tarpit: Tarpit | None = None) -> None:
    """Answer WebSocket upgrades with ``refusal``'s response where it gives one (``None``:
    hand every upgrade to the app), each held as ``tarpit`` says (``None``: sent at once), in
    this process (one app per serving process)."""
    GuardedHttp.refusal = refusal
    GuardedHttp.tarpit = tarpit
