"""Flood control: how many messages one WebSocket, and one seat, may send a second.

A socket that sends faster than a person plays — hundreds of illegal actions or hellos a
second — would have the server check each one under its room's lock, in the round trip of
everyone else's moves. Each socket, and each seat of a room (its sockets and its HTTP actions
together, on this worker), has a token bucket (:class:`Bucket`): ``METROGAMES_SOCKET_RATE``
messages a second on average, ``METROGAMES_SOCKET_BURST`` at once. A message over it is refused
unread (``rate-limited``); a socket that goes on sending refused messages (its refusals, too,
counted by a bucket of the same size) is closed with code 1008 and a reason (:mod:`~metrogames.web.api.ws`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError

SEATS_KEPT = 100_000
"""Seats' buckets kept at most (an idle seat's bucket is full again within seconds: dropped)."""


class Bucket:
    """A token bucket: ``rate`` tokens a second up to ``burst``; each message takes one.

    Args:
        rate: tokens added a second (> 0).
        burst: the most tokens held (>= 1): how many messages may come at once.
        clock: monotonic seconds (tests replace it).
    """

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.clock = rate, float(burst), clock
        self.tokens = self.burst
        self.last = clock()

    def take(self) -> bool:
        """Take one token; ``False`` (nothing taken) when the bucket is empty."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def too_many(rate: float) -> RoomError:
    """The refusal of a message over its bucket: 429 ``rate-limited``."""
    return RoomError(
        429,
        "rate-limited",
        msg(N_("too many messages: at most {rate} a second"), rate=f"{rate:g}"),
        headers={"Retry-After": "1"},
    )


CLOSE_REASON = "too many messages"
"""Why a flooding socket is closed (its close frame's reason: English, at most 123 bytes)."""


class Flood:
    """The buckets of one worker: one per seat of a room (:meth:`seat`); sockets hold their
    own (:meth:`socket_bucket`).

    Args:
        rate: ``METROGAMES_SOCKET_RATE``.
        burst: ``METROGAMES_SOCKET_BURST``.
        clock: monotonic seconds (tests replace it).
    """

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.idle = burst / rate + 1.0  # by then a bucket is full again: as good as a new one
        self._seats: dict[tuple[str, int], Bucket] = {}
        self._swept = clock()

    def socket_bucket(self) -> Bucket:
        """A new socket's bucket."""
        return Bucket(self.rate, self.burst, self.clock)

    def seats_held(self) -> int:
        """How many seats' buckets are kept."""
        return len(self._seats)

    def seat(self, room: str, seat: int) -> None:
        """Count one message (a WebSocket message or an HTTP action) of ``room``'s ``seat``.

        Raises:
            RoomError: 429 ``rate-limited`` over the seat's bucket (nothing counted).
        """
        key = (room, seat)
        bucket = self._seats.get(key)
        if bucket is None:
            self._sweep()
            bucket = self._seats[key] = Bucket(self.rate, self.burst, self.clock)
        if not bucket.take():
            raise too_many(self.rate)

    def _sweep(self) -> None:
        """Drop the buckets idle for ``idle`` seconds (full again), at most once per ``idle``
        seconds, or all idle ones at once when :data:`SEATS_KEPT` are held."""
        now = self.clock()
        if now - self._swept < self.idle and len(self._seats) < SEATS_KEPT:
            return
        self._swept = now
        stale = now - self.idle
        self._seats = {k: b for k, b in self._seats.items() if b.last > stale}
        while len(self._seats) >= SEATS_KEPT:  # all busy: the oldest go
            del self._seats[next(iter(self._seats))]
