"""Heavy jobs and the HTTP requests that ask for them: who asks (the quota's keys) and the
wait that ends when its client leaves."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from starlette.requests import ClientDisconnect, Request

from metrogames.web.accounts.service import COOKIE
from metrogames.web.infra.ratelimit import RateLimits, client_key, exempt

T = TypeVar("T")


async def requester(request: Request, name: str | None = None) -> list[str]:
    """The quota keys of ``request``: its client address and its account — the signed-in
    account of its session cookie (one read, only when the cookie is there), or for a
    sign-in the account ``name`` tried (a ``name:`` key); no address key for an address the
    per-address limits exempt (``METROGAMES_RATE_EXEMPT``)."""
    limits: RateLimits = request.app.state.limits
    keys = [] if exempt(request, limits.exempted) else [f"address:{client_key(request)}"]
    if name is not None:
        keys.append(f"name:{name}")
        return keys
    token = request.cookies.get(COOKIE)
    if token:
        account = await asyncio.to_thread(request.app.state.accounts.of_session, token)
        if account is not None:
            keys.append(f"account:{account.id}")
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
