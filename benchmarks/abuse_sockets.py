"""The abuser's connections (:mod:`abuse`): the slow-body and slow-header crowds on raw TCP, and
the WebSocket flood, repeated hellos and the spectator who counts what they push to it.

Each ``setup_*`` takes the :class:`abuse.Abuser`, sets up what its kind needs (raising
:class:`abuse.SetupError` when refused) and returns the coroutine function that runs the kind
until the abuser's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

if TYPE_CHECKING:
    from abuse import Abuser, Run, Tally

ILLEGAL_KEPT = 64
"""Illegal actions the flood cycles through."""


# -- raw connections held open --------------------------------------------------------------
def status_of(data: bytes) -> str:
    """The status code of an HTTP answer's first bytes (``"408"``), or ``closed`` (none)."""
    if not data:
        return "closed"
    parts = data.split(b"\r\n", 1)[0].split()
    return parts[1].decode(errors="replace") if len(parts) > 1 else "garbled"


async def hold(
    ab: Abuser,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    opening: bytes,
    trickle: Iterator[bytes] | None,
    interval: float,
) -> str | None:
    """Send ``opening``, then (with ``trickle``) its next byte every ``interval`` seconds, until
    the server answers or closes: its status (:func:`status_of`) or ``reset``; ``None`` when
    the run stops first."""
    try:
        writer.write(opening)
        while (left := ab.left()) > 0:
            try:
                async with asyncio.timeout(left if trickle is None else min(interval, left)):
                    data = await reader.read(512)
            except TimeoutError:
                if trickle is not None and not writer.is_closing():
                    writer.write(next(trickle))
                continue
            return status_of(data)
    except OSError:
        return "reset"
    return None


async def member(
    ab: Abuser,
    kind: str,
    opening: bytes,
    trickle: Callable[[], Iterator[bytes]] | None,
    stagger: float,
) -> None:
    """One connection of a crowd, opened again whenever the server closes it: each counted in
    ``sent``, its end in ``answers`` (the server's status, ``closed``, ``reset``,
    ``open-at-stop``), how long the server held it in ``ms``."""
    tally = ab.tallies[kind]
    await ab.sleep(stagger)
    while ab.left() > 0:
        tally.sent += 1
        t0 = time.perf_counter()
        wait = ab.connect_wait()
        try:
            async with asyncio.timeout(wait):
                reader, writer = await ab.open_connection()
        except (OSError, TimeoutError) as exc:
            ab.connect_failed(kind, f"TCP {ab.host}:{ab.port}", exc, wait)
            await ab.sleep(0.5)
            continue
        try:
            outcome = await hold(
                ab, reader, writer, opening, trickle() if trickle else None, ab.cfg.header_interval
            )
        finally:
            writer.close()
        if outcome is None:
            tally.answers["open-at-stop"] += 1
            return
        tally.answers[outcome] += 1
        tally.ms.append((time.perf_counter() - t0) * 1000)
        await ab.sleep(0.05)


async def setup_slow_bodies(ab: Abuser) -> Run:
    """The slow-body crowd: ``POST /api/rooms`` promising 1,000 bytes and sending ``{``."""
    opening = (
        f"POST /api/rooms HTTP/1.1\r\nHost: {ab.host}:{ab.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    ).encode()

    async def run() -> None:
        n = ab.cfg.slow_bodies
        await asyncio.gather(
            *(member(ab, "slow-bodies", opening, None, i / max(1, n)) for i in range(n))
        )

    return run


async def setup_slow_headers(ab: Abuser) -> Run:
    """The slow-header crowd: a request's line and headers a byte at a time, never ending."""
    text = f"GET /api/games HTTP/1.1\r\nHost: {ab.host}:{ab.port}\r\nX-Slow: ".encode()

    def rest() -> Iterator[bytes]:
        """The request's bytes after the first, one at a time, its last header never ending."""
        return itertools.chain(
            (text[i : i + 1] for i in range(1, len(text))), itertools.repeat(b"a")
        )

    async def run() -> None:
        n = ab.cfg.slow_headers
        await asyncio.gather(
            *(member(ab, "slow-headers", text[:1], rest, i / max(1, n)) for i in range(n))
        )

    return run


# -- WebSockets ------------------------------------------------------------------------------
async def flood_room(ab: Abuser, kind: str) -> dict[str, Any]:
    """The online London room of the flood and the hellos (made once, both seats claimed,
    started): its id, both seats' tokens, the step and illegal actions for it."""
    if "flood_room" in ab.shared:
        found: dict[str, Any] = ab.shared["flood_room"]
        return found
    body = {"game": "london", "mode": "online", "seats": [{"name": "abuser"}, {}]}
    made = await ab.need(kind, "room", "POST", "/api/rooms", body)
    room = made["room"]["room"]
    joined = await ab.need(
        kind, "join", "POST", f"/api/rooms/{room}/join", {"seat": 1, "name": "abuser 2"}
    )
    await ab.need(kind, "start", "POST", f"/api/rooms/{room}/start", token=made["host_token"])
    view = await ab.need(kind, "view", "GET", f"/api/rooms/{room}/view", token=made["tokens"]["0"])
    board = await ab.need(kind, "board", "GET", "/api/games/london/board")
    starts = {s for a in view["legal"] if isinstance(a, dict) for s, _ in a["sections"][:1]}
    illegal = [
        {"sections": [[link["a"], link["b"]]]}
        for link in board["links"]
        if link["a"] not in starts and link["b"] not in starts
    ][:ILLEGAL_KEPT]
    ab.shared["flood_room"] = found = {
        "room": room,
        "tokens": [made["tokens"]["0"], joined["token"]],
        "step": view["step"],
        "illegal": illegal,
    }
    return found


def socket_url(ab: Abuser, room: str) -> str:
    return f"ws://{ab.host}:{ab.port}/ws/rooms/{room}"


async def read_socket(ws: ClientConnection, tally: Tally, shared: dict[str, Any]) -> None:
    """Count what the server sends ``ws`` (views; error messages by reason); keep the latest
    view's step in ``shared``."""
    with contextlib.suppress(ConnectionClosed):
        async for text in ws:
            message = json.loads(text)
            if message.get("type") == "view":
                tally.counts["views"] += 1
                shared["step"] = max(shared["step"], message["view"]["step"])
            elif message.get("type") == "error":
                tally.answers[f"error {message.get('reason')}"] += 1
            else:
                tally.counts[f"{message.get('type')} messages"] += 1


async def socket_loop(
    ab: Abuser, kind: str, token: str | None, send: Callable[[ClientConnection], Awaitable[None]]
) -> None:
    """A WebSocket of the flood room for ``kind``: open it, say hello with ``token``, then
    ``send(ws)`` until the run stops or the server closes it (``closed <code> <reason>``),
    and open it again."""
    shared = await flood_room(ab, kind)
    tally = ab.tallies[kind]
    url = socket_url(ab, shared["room"])
    while ab.left() > 0:
        wait = ab.connect_wait()
        try:
            ws = await connect(url, open_timeout=wait, close_timeout=2, local_addr=ab.local_addr())
        except InvalidStatus as exc:  # denied at the handshake: open it again at once
            tally.answers[f"denied {exc.response.status_code}"] += 1
            continue
        except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as exc:
            ab.connect_failed(kind, f"WebSocket {url}", exc, wait)
            await ab.sleep(0.2)
            continue
        tally.counts["connections"] += 1
        reader = asyncio.create_task(read_socket(ws, tally, shared))
        try:  # a send the server does not read (its buffers full) waits at most until the stop
            async with asyncio.timeout(ab.left()):
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await send(ws)
        except (ConnectionClosed, TimeoutError):
            pass
        finally:
            stopped = ab.left() <= 0
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await ws.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await reader
            reader.cancel()
        if stopped:
            tally.answers["open-at-stop"] += 1
        else:
            tally.answers[f"closed {ws.close_code} {ws.close_reason or ''}".rstrip()] += 1


async def pace(ab: Abuser) -> None:
    """Between two messages of the flood: ``--flood-rate``, or just a turn of the loop."""
    await asyncio.sleep(1 / ab.cfg.flood_rate if ab.cfg.flood_rate else 0)


async def setup_flood(ab: Abuser) -> Run:
    """Seat 0's socket of the flood room sending illegal actions for the current step."""
    shared = await flood_room(ab, "flood")
    actions = shared["illegal"] or [{"sections": [["A0", "A1"]]}]  # no such stations: refused
    tally = ab.tallies["flood"]

    async def send(ws: ClientConnection) -> None:
        for i in itertools.count():
            if ab.left() <= 0:
                return
            action = actions[i % len(actions)]
            await ws.send(json.dumps({"type": "action", "action": action, "step": shared["step"]}))
            tally.sent += 1
            await pace(ab)

    return lambda: socket_loop(ab, "flood", shared["tokens"][0], send)


async def setup_hellos(ab: Abuser) -> Run:
    """Seat 1's socket of the flood room saying hello again and again."""
    shared = await flood_room(ab, "hellos")
    token = shared["tokens"][1]
    tally = ab.tallies["hellos"]
    hello = json.dumps({"type": "hello", "token": token})

    async def send(ws: ClientConnection) -> None:
        tally.sent += 1  # the hello socket_loop sent
        while ab.left() > 0:
            await ws.send(hello)
            tally.sent += 1
            await pace(ab)

    return lambda: socket_loop(ab, "hellos", token, send)


async def spectator(ab: Abuser) -> None:
    """A spectator's socket on the flood room (once the flood or the hellos made it), counting
    the views pushed to it while the others abuse the room."""
    if "flood_room" in ab.shared:
        await socket_loop(ab, "spectator", None, lambda _ws: ab.sleep(ab.left()))


SETUPS: dict[str, Callable[[Abuser], Awaitable[Run]]] = {
    "slow-bodies": setup_slow_bodies,
    "slow-headers": setup_slow_headers,
    "flood": setup_flood,
    "hellos": setup_hellos,
}
