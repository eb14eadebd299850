"""No client can stall the table by being slow: every read from a client has a deadline, the
headers are bounded, and nothing shared waits while a client is read (``web/infra/deadlines.py``,
``web/api/rooms.py``, ``web/api/ws.py``; issue "Hardened", fault 1).

The attacker's input: two ``POST /api/rooms`` with ``Content-Length: 1000`` and a body of ``{``
that never completes, held open, froze every room creation, seat claim, start, daily start and
WebSocket hello (the body was read inside the admission turn). These tests run the real server
(uvicorn with the project's HTTP protocol) on a free port and talk to it over raw sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from metrogames.web.api.ws import Outbox
from metrogames.web.app import create_app
from metrogames.web.server import server_config
from support.web import make_settings, run_async


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(tmp_path: Path, apps: list[FastAPI] | None = None, **settings: Any) -> Iterator[str]:
    """The web table (uvicorn, the project's protocol) on a free port, in a thread (its app
    appended to ``apps``)."""
    port = _free_port()
    conf = make_settings(f"sqlite:///{tmp_path / 'slow.db'}", port=port, **settings)
    app = create_app(conf)
    if apps is not None:
        apps.append(app)
    server = uvicorn.Server(server_config(app, conf))
    loop_factory = server.config.get_loop_factory()  # the production loop, as `serve` runs it

    def run() -> None:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(server.serve())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def raw(address: str) -> socket.socket:
    host, port = address.split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def read_all(sock: socket.socket, limit: float = 10.0) -> bytes:
    """Everything the server sends until it closes the connection (at most ``limit`` s)."""
    sock.settimeout(limit)
    out = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(65536):
            out += chunk
    return out


def unfinished_body(address: str, path: str = "/api/rooms") -> socket.socket:
    sock = raw(address)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n{".encode()
    )
    return sock


SOLO = {"game": "london", "mode": "solo", "seats": [{"name": "Ada"}]}
ONLINE = {"game": "london", "mode": "online", "seats": [{"name": "Host"}, {}]}


def test_two_unfinished_bodies_do_not_hold_up_anyone(tmp_path: Path) -> None:
    """Fault 1's input: while two bodies never finish, rooms are created, seats claimed,
    games started, daily games started and sockets greeted (each within the client's 5 s,
    far below the 30 s the slow bodies are given)."""
    with serving(tmp_path, body_seconds=30, admissions=1) as address:
        held = [unfinished_body(address), unfinished_body(address, "/api/rooms/aaaaaaaa/join")]
        try:
            time.sleep(0.3)  # both are being read now
            with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
                made = http.post("/api/rooms", json=SOLO)
                assert made.status_code == 201, made.text
                online = http.post("/api/rooms", json=ONLINE).json()
                room, host = online["room"]["room"], online["host_token"]
                joined = http.post(f"/api/rooms/{room}/join", json={"seat": 1, "name": "Bo"})
                assert joined.status_code == 200, joined.text
                started = http.post(
                    f"/api/rooms/{room}/start",
                    json={},
                    headers={"Authorization": f"Bearer {host}"},
                )
                assert started.status_code == 200 and started.json()["status"] == "playing"
                player = http.post("/api/players", json={"name": "Cy"}).json()
                day = http.get("/api/daily").json()["date"]
                daily = http.post(
                    f"/api/daily/london/{day}/start",
                    json={"share": False},
                    headers={"Authorization": f"Bearer {player['token']}"},
                )
                assert daily.status_code == 200, daily.text
            greeted = run_async(_hello(address, room))
            assert greeted["type"] == "view" and greeted["view"]["room"] == room
        finally:
            for sock in held:
                sock.close()


async def _hello(address: str, room: str) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://{address}/ws/rooms/{room}") as ws,
    ):
        await ws.send_str(json.dumps({"type": "hello", "token": None}))
        message = await asyncio.wait_for(ws.receive(), 5)
        return dict(json.loads(message.data))


def test_a_body_that_never_ends_is_answered_408_and_closed(tmp_path: Path) -> None:
    with serving(tmp_path, body_seconds=0.5) as address:
        sock = unfinished_body(address)
        answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert b"connection: close" in answer.lower()


def test_headers_sent_a_byte_at_a_time_are_cut_off(tmp_path: Path) -> None:
    """300 connections sending headers a byte at a time were never closed: a request's
    headers now have ``header_seconds`` from their first byte, however slowly they come."""
    with serving(tmp_path, header_seconds=0.6) as address:
        sock = raw(address)
        request = f"GET /api/games HTTP/1.1\r\nHost: {address}\r\nX-Pad: " + "a" * 200
        closed_after = None
        started = time.monotonic()
        for byte in request.encode():
            try:
                sock.send(bytes([byte]))
            except OSError:
                closed_after = time.monotonic() - started
                break
            time.sleep(0.01)
        assert closed_after is not None or read_all(sock, 3).startswith(b"HTTP/1.1 408")
        sock.close()


def test_a_connection_that_says_nothing_is_closed(tmp_path: Path) -> None:
    with serving(tmp_path, header_seconds=0.3) as address:
        sock = raw(address)
        answer = read_all(sock, 5)
        assert answer.startswith(b"HTTP/1.1 408")  # and then closed (read_all returned)


@pytest.mark.parametrize("size", [40 * 1024, 50 * 1024 * 1024])
def test_oversized_headers_are_refused_431_without_being_read(tmp_path: Path, size: int) -> None:
    """A 50 MB header was answered 200: headers are at most ``header_bytes`` (32 KiB here);
    the server answers 431 and closes as soon as the bound is passed."""
    with serving(tmp_path) as address:
        sock = raw(address)
        sock.sendall(f"GET /api/games HTTP/1.1\r\nHost: {address}\r\nX-Big: ".encode())
        sent = 0
        chunk = b"b" * 65536
        with contextlib.suppress(OSError):
            while sent < size:
                sock.sendall(chunk[: size - sent])
                sent += len(chunk)
        answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 431"), answer[:80]
        assert sent < 50 * 1024 * 1024 or size == 40 * 1024  # cut off long before 50 MB


def test_ordinary_requests_and_keep_alive_still_work(tmp_path: Path) -> None:
    """The guard changes nothing for a client that keeps to the deadlines: several requests
    on one kept-alive connection, a body sent in two parts, a WebSocket."""
    with serving(tmp_path, header_seconds=2) as address:
        with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
            for _ in range(3):
                assert http.get("/api/games").status_code == 200
            room = http.post("/api/rooms", json=SOLO).json()["room"]["room"]
        sock = raw(address)
        body = json.dumps(SOLO).encode()
        sock.sendall(
            f"POST /api/rooms HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body[:10]
        )
        time.sleep(0.3)
        sock.sendall(body[10:])
        assert read_all(sock).startswith(b"HTTP/1.1 201")
        assert run_async(_hello(address, room))["type"] == "view"


def test_a_socket_without_hello_is_closed(tmp_path: Path) -> None:
    with serving(tmp_path, hello_seconds=0.3) as address:
        with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
            room = http.post("/api/rooms", json=SOLO).json()["room"]["room"]
        first, close_code = run_async(_silent(address, room))
        assert first["type"] == "error" and "hello" in first["error"]
        assert close_code == 1008


async def _silent(address: str, room: str) -> tuple[dict[str, Any], int | None]:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://{address}/ws/rooms/{room}") as ws,
    ):
        message = await asyncio.wait_for(ws.receive(), 5)
        await asyncio.wait_for(ws.receive(), 5)  # the close
        return dict(json.loads(message.data)), ws.close_code


def _upgrade(address: str, room: str, language: str) -> bytes:
    """A WebSocket upgrade request sent by hand; everything answered until the close."""
    sock = raw(address)
    sock.sendall(
        f"GET /ws/rooms/{room} HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\nAccept-Language: {language}\r\n\r\n".encode()
    )
    with sock:
        return read_all(sock)


@pytest.mark.parametrize("proxies", ["", "10.9.9.9"], ids=["direct", "behind-a-proxy"])
def test_an_address_told_to_wait_is_denied_at_the_handshake(tmp_path: Path, proxies: str) -> None:
    """A client opening sockets again in a loop after it was told to wait is denied at the
    handshake (429, JSON in its language, ``Retry-After``) — directly by the HTTP protocol,
    before the app is reached; behind trusted proxies (the client's address is the app's to
    find) by the app — and the server logs no error for it: each denial the app sent made
    uvicorn log "ASGI callable returned without completing handshake." at ERROR."""
    errors: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = errors.append  # type: ignore[method-assign]
    try:
        with serving(tmp_path, rate_sockets="2/minute", trusted_proxies=proxies) as address:
            logging.getLogger("uvicorn.error").addHandler(handler)  # after its configuration
            with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
                room = http.post("/api/rooms", json=SOLO).json()["room"]["room"]
            for _ in range(2):
                assert run_async(_hello(address, room))["type"] == "view"
            told, code = run_async(_silent(address, room))  # over the limit: told, closed
            assert told["reason"] == "rate-limited" and code == 1008
            for language in ("en", "fr"):
                head, _, body = _upgrade(address, room, language).partition(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 429 "), head
                assert b"\r\nretry-after: " in head.lower()
                denied = json.loads(body)
                assert denied["type"] == "error" and denied["reason"] == "rate-limited"
                assert denied["error"] != told["error"] if language == "fr" else denied == told
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not errors, [record.getMessage() for record in errors]


def _timed_upgrade(address: str, room: str) -> tuple[bytes, float]:
    """:func:`_upgrade`'s answer and the seconds it took."""
    started = time.monotonic()
    answer = _upgrade(address, room, "en")
    return answer, time.monotonic() - started


@pytest.mark.parametrize("proxies", ["", "10.9.9.9"], ids=["direct", "behind-a-proxy"])
def test_a_denial_is_held_before_it_is_sent_and_past_the_most_held_sent_at_once(
    tmp_path: Path, proxies: str
) -> None:
    """An address told to wait is denied at the handshake only after
    ``METROGAMES_DENIAL_SECONDS`` (a client reopening in a loop tries once in that time),
    by the HTTP protocol's shortcut and by the app alike; with the most held already held,
    the next denial is sent at once."""
    apps: list[FastAPI] = []
    options = {"rate_sockets": "1/minute", "trusted_proxies": proxies, "denial_seconds": 2.0}
    with serving(tmp_path, apps, **options) as address:
        with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
            room = http.post("/api/rooms", json=SOLO).json()["room"]["room"]
        assert run_async(_hello(address, room))["type"] == "view"
        assert run_async(_silent(address, room))[0]["reason"] == "rate-limited"  # told
        tarpit = apps[0].state.told.tarpit
        with ThreadPoolExecutor(2) as pool:
            held = pool.submit(_timed_upgrade, address, room)
            deadline = time.monotonic() + 10
            while tarpit.held < 1:
                assert time.monotonic() < deadline and not held.done(), "no denial held"
                time.sleep(0.01)
            tarpit.most = 1  # the most held now held
            at_once = pool.submit(_timed_upgrade, address, room)
            answer, took = at_once.result(timeout=10)
            assert answer.startswith(b"HTTP/1.1 429 ")
            assert not held.done()  # the held one still held when the other was answered
            answer, took = held.result(timeout=10)
        assert answer.startswith(b"HTTP/1.1 429 ") and took >= 1.9
        assert tarpit.held == 0


class StuckSocket:
    """A WebSocket whose client never reads: every send waits forever."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await asyncio.Event().wait()

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


class SlowSocket(StuckSocket):
    """A WebSocket whose sends take a while (a slow link): views queue meanwhile."""

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await asyncio.sleep(0.05)


def test_a_client_that_stops_reading_is_closed_not_waited_for() -> None:
    async def run() -> tuple[list[str], tuple[int, str] | None, bool]:
        stuck = StuckSocket()
        outbox = Outbox(stuck, send_seconds=0.2)  # type: ignore[arg-type]
        outbox.view("v1")
        outbox.message("chat 1")  # queued behind the stuck view: never waited for by anyone
        await asyncio.sleep(0.5)
        return stuck.sent, stuck.closed, outbox.closed

    sent, closed, gave_up = run_async(run())
    assert sent == ["v1"] and gave_up
    assert closed == (1008, "not reading")


class TimedSocket(StuckSocket):
    """A WebSocket whose sends take the given seconds each, in turn (``None``: forever)."""

    def __init__(self, seconds: list[float | None]) -> None:
        super().__init__()
        self.seconds = seconds

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        took = self.seconds[len(self.sent) - 1]
        await (asyncio.Event().wait() if took is None else asyncio.sleep(took))


def test_each_message_has_its_own_deadline_not_the_burst() -> None:
    """Fifteen sends of 0.1 s, 1.5 s in all, under a deadline of 1 s each: none is late, so
    the client is not closed (one timer for the outbox, armed at the first send, fires
    during a later send and watches that one)."""

    async def run() -> tuple[list[str], tuple[int, str] | None, bool]:
        socket = TimedSocket([0.1] * 15)
        outbox = Outbox(socket, send_seconds=1.0)  # type: ignore[arg-type]
        for n in range(15):
            outbox.message(f"m{n}")
        await asyncio.sleep(2.5)
        return socket.sent, socket.closed, outbox.closed

    sent, closed, gave_up = run_async(run())
    assert sent == [f"m{n}" for n in range(15)]
    assert closed is None and not gave_up


def test_a_client_that_stops_reading_after_some_sends_is_closed() -> None:
    """Three quick sends, then one the client never reads: closed for it, and what was
    queued behind it is never sent."""

    async def run() -> tuple[list[str], tuple[int, str] | None, bool]:
        socket = TimedSocket([0.1, 0.1, 0.1, None, 0.0])
        outbox = Outbox(socket, send_seconds=0.25)  # type: ignore[arg-type]
        for n in range(5):
            outbox.message(f"m{n}")
        await asyncio.sleep(1.0)  # the stuck send began at 0.3: due at 0.55
        return socket.sent, socket.closed, outbox.closed

    sent, closed, gave_up = run_async(run())
    assert sent == ["m0", "m1", "m2", "m3"] and gave_up
    assert closed == (1008, "not reading")


def test_views_coalesce_and_an_unchanged_view_is_not_sent_again() -> None:
    async def run() -> list[str]:
        slow = SlowSocket()
        outbox = Outbox(slow, send_seconds=5)  # type: ignore[arg-type]
        outbox.view("v1")
        await asyncio.sleep(0.01)  # v1 is being sent
        outbox.view("v2")
        outbox.message("chat")
        outbox.view("v3")  # replaces the unsent v2, after the chat message
        await asyncio.sleep(0.3)
        outbox.view("v3")  # the client has it: not sent again
        outbox.view("v3", again=True)  # asked for (a hello): sent
        await asyncio.sleep(0.2)
        return slow.sent

    assert run_async(run()) == ["v1", "chat", "v3", "v3"]


def _frame(text: str) -> bytes:
    """A client's masked text frame (RFC 6455, 5.2), by hand."""
    payload, mask = text.encode(), b"\x01\x02\x03\x04"
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0xFE]) + size.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_socket_closed_for_flooding_is_not_read_for_the_close_handshake(tmp_path: Path) -> None:
    """A client that floods its socket and never answers the server's close (1008) gets the
    close frame, and its connection ends a second later while it still sends — it is not read,
    its frames parsed only to be dropped, for the close handshake's 10 s (uvicorn's
    ``close_timeout``)."""
    with serving(tmp_path, socket_rate=1, socket_burst=2) as address:
        with httpx.Client(base_url=f"http://{address}", timeout=5) as http:
            made = http.post("/api/rooms", json=SOLO).json()
        room, token = made["room"]["room"], made["tokens"]["0"]
        sock = raw(address)
        sock.sendall(
            f"GET /ws/rooms/{room} HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        with sock:
            assert sock.recv(4096).startswith(b"HTTP/1.1 101 ")
            sock.sendall(_frame(json.dumps({"type": "hello", "token": token})))
            illegal = _frame(json.dumps({"type": "action", "action": "nonsense", "step": 0}))
            received, started, ended = b"", time.monotonic(), True
            sock.settimeout(0.05)
            while time.monotonic() - started < 8:
                with contextlib.suppress(OSError):
                    sock.sendall(illegal * 20)  # never stops, never answers the close
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                except ConnectionResetError:  # closed with the client's frames unread
                    break
                if not chunk:
                    break
                received += chunk
            else:
                ended = False
            assert b"\x88" in received  # the server's close frame came...
            close = received[received.index(b"\x88") :]
            assert int.from_bytes(close[2:4], "big") == 1008 and b"too many messages" in close
            assert ended  # ...and the connection ended without the client's reply
