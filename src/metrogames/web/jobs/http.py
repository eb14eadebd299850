"""Heavy jobs and the HTTP requests that ask for them: who asks (the quota's keys) and the
wait that ends when its client leaves."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from starlette.requests import ClientDisconnect, Request

from metrogames.web.ratelimit import client_key

T = TypeVar("T")


def requester(request: Request, account: str | None = None) -> list[str]:
    """The quota keys of ``request``: its client address and, when known, its ``account``
    (an account id, or a ``name:`` key for a sign-in)."""
    keys = [f"address:{client_key(request)}"]
    if account:
        keys.append(account if ":" in account else f"account:{account}")
    return keys


async def while_connected(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result while ``request``'s client stays connected; when the client leaves
    first, ``work`` is cancelled (a job it waits for loses a waiter: one nobody waits for is
    dropped or stopped) and :class:`~starlette.requests.ClientDisconnect` is raised (the app
    answers nobody). Call it once the body has been read."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
        gone.cancel()
    if task.done() and not task.cancelled():
        return task.result()
    await asyncio.gather(task, return_exceptions=True)
    raise ClientDisconnect()


async def _disconnected(request: Request) -> None:
    """Return once the client has disconnected (the body is read: the next message is
    the disconnect)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
