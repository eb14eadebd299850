"""How many WebSockets one client address may hold open at once (``docs/web-api.md``,
"Errors": the socket cap).

The address is the one the creation rate limits count (:func:`.ratelimit.client_key`:
``X-Forwarded-For`` only from the configured trusted proxies, an IPv6 client by its /64). The
count is of this process's open sockets, which is what each process has to protect.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from starlette.requests import HTTPConnection

from metrogames.web.errors import RoomError
from metrogames.web.infra.config import Network
from metrogames.web.infra.ratelimit import client_key, exempt

CLOSE_CODE = 1008
"""The close code of a refused socket (policy violation); the close reason says why."""


class SocketCap:
    """At most ``limit`` open WebSockets per client address (``METROGAMES_WS_PER_ADDRESS``),
    except for the ``exempted`` networks (``METROGAMES_RATE_EXEMPT``)."""

    def __init__(self, limit: int, exempted: tuple[Network, ...] = ()) -> None:
        self.limit = limit
        self.exempted = exempted
        self.open: Counter[str] = Counter()

    @contextlib.contextmanager
    def hold(self, connection: HTTPConnection) -> Iterator[None]:
        """Count ``connection`` as open by its address while the block runs.

        Raises:
            RoomError: 429 ``rate-limited`` when the address already holds ``limit`` open
                sockets (nothing counted).
        """
        if exempt(connection, self.exempted):
            yield
            return
        key = client_key(connection)
        if self.open[key] >= self.limit:
            raise RoomError(
                429,
                "rate-limited",
                f"too many open connections from this address: at most {self.limit}",
            )
        self.open[key] += 1
        try:
            yield
        finally:
            self.open[key] -= 1
            if not self.open[key]:
                del self.open[key]
