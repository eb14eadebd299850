"""How many WebSockets one client address may hold open at once (``docs/web-api.md``,
"Errors": the socket cap).

The address is the one the creation rate limits count (:func:`.ratelimit.client_key`:
``X-Forwarded-For`` only from the configured trusted proxies, an IPv6 client by its /64). The
count is of this process's open sockets, which is what each process has to protect.

An address over its socket limits is told to wait (:class:`Told`) and its sockets are then
denied at the handshake; each denial is held a while before it is sent (:class:`Tarpit`), so
that a client reopening its socket the moment it is denied tries about once a second, not as
fast as the server can answer.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator

from cachetools import TTLCache
from starlette.requests import HTTPConnection

from metrogames.web.errors import RoomError
from metrogames.web.infra.config import Network
from metrogames.web.infra.ratelimit import client_key, exempt

CLOSE_CODE = 1008
"""The close code of a refused socket (policy violation); the close reason says why."""
TOLD_KEPT = 100_000
"""Addresses :class:`Told` remembers at most (the oldest are forgotten first)."""


class Tarpit:
    """Denials held ``seconds`` before they are sent, at most ``most`` at once in this process
    (past it, a denial goes at once): holding one costs a connection's memory and no CPU,
    answering one costs a parse and a write — a client that reopens in a loop the moment it
    is denied costs the first, once a ``seconds``, instead of the second as often as it likes.

    Args:
        seconds: how long a denial is held (``METROGAMES_DENIAL_SECONDS``; 0: none is).
        most: how many may be held at once.
    """

    def __init__(self, seconds: float = 1.0, most: int = 1024) -> None:
        self.seconds = seconds
        self.most = most
        self.held = 0
        """How many denials are held now."""

    def hold(self) -> float:
        """Seconds to hold one more denial, counted as held until :meth:`release` (0.0: send
        it at once, nothing counted)."""
        if self.seconds <= 0 or self.held >= self.most:
            return 0.0
        self.held += 1
        return self.seconds

    def release(self) -> None:
        """A held denial was sent, or its client left."""
        self.held -= 1


class Told:
    """The addresses whose refused socket was accepted and told why, until the wait their
    refusal named is over: in the meantime another socket of theirs is denied at the
    handshake (``docs/web-api.md``, "Open WebSockets") — far cheaper for the server than a
    socket opened only to be closed, for a client that opens sockets again in a loop."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, tarpit: Tarpit | None = None
    ) -> None:
        self.clock = clock
        self.tarpit = tarpit or Tarpit()
        """How long their denials are held (:class:`Tarpit`)."""
        self.until: TTLCache[str, tuple[float, RoomError]] = TTLCache(
            TOLD_KEPT, ttl=3600, timer=clock
        )

    def told(self, connection: HTTPConnection, refusal: RoomError) -> None:
        """Remember that ``connection``'s address was told ``refusal`` (for the seconds of
        its ``Retry-After``)."""
        wait = float((refusal.headers or {}).get("Retry-After", "1"))
        self.until[client_key(connection)] = (self.clock() + wait, refusal)

    def waiting(self, connection: HTTPConnection) -> RoomError | None:
        """The refusal ``connection``'s address was told and whose wait is not over
        (``None``: none)."""
        until, refusal = self.until.get(client_key(connection), (0.0, None))
        return refusal if refusal is not None and until > self.clock() else None


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
