"""The queue of play now: the waiting requests and where the seated ones sat.

:class:`Queue` is the interface: every method is one atomic step, so two matchmakers (two
workers) never seat one request twice — :meth:`Queue.claim` takes a whole group or nothing.
:class:`MemoryQueue` keeps it in this process (a single worker: each method runs without an
``await`` inside, so nothing interleaves); :class:`~.redisqueue.RedisQueue` in Redis (several
workers).
"""

from __future__ import annotations

import abc
import asyncio
import time
from collections.abc import Callable
from typing import Literal

from typing_extensions import TypedDict

from metrogames.web.matchmaking.matching import Ticket

SEATING_TTL = 3600.0
"""Seconds where a seated request sat is kept (its waiting page reads it once)."""


class Seating(TypedDict):
    """Where a request was seated: the ``room`` and its ``seat`` (the seat's token is the one
    the request was given)."""

    room: str
    seat: int


State = Literal["waiting", "opening", "seated", "gone"]
"""Where a request is: waiting, claimed with its table being opened, seated, or gone
(cancelled, replaced by its player's next request, expired, or unknown)."""


class Queue(abc.ABC):
    """The waiting requests (each player at most once) and the seatings of claimed ones."""

    @abc.abstractmethod
    async def join(self, ticket: Ticket) -> str | None:
        """Add ``ticket``; the same player's earlier waiting request leaves at once (returns
        its id, or ``None``)."""

    @abc.abstractmethod
    async def leave(self, ticket_id: str) -> bool:
        """Take the request out if it still waits (True), else nothing (False)."""

    @abc.abstractmethod
    async def waiting(self) -> list[Ticket]:
        """Every waiting request."""

    @abc.abstractmethod
    async def get(self, ticket_id: str) -> Ticket | None:
        """The request if it still waits."""

    @abc.abstractmethod
    async def claim(self, tickets: list[Ticket], opening: bool = True) -> bool:
        """Take every one of these requests out of the queue if every one still waits
        (True), else none of them (False); ``opening``: they are to be seated (their state
        is ``opening`` until :meth:`seat`), else they are gone."""

    @abc.abstractmethod
    async def restore(self, tickets: list[Ticket]) -> None:
        """Put claimed requests back (their table could not be opened), each unless its
        player asked again meanwhile."""

    @abc.abstractmethod
    async def seat(self, ticket_id: str, seating: Seating) -> None:
        """Record where a claimed request sat (kept :data:`SEATING_TTL` seconds) and tell
        every :meth:`watch`."""

    @abc.abstractmethod
    async def watch(self, on_seated: Callable[[str], None]) -> None:
        """Until cancelled: call ``on_seated(ticket id)`` for each seating recorded from now
        on, by any worker (one may be missed when Redis fails: a waiting page looks again
        every few seconds anyway)."""

    @abc.abstractmethod
    async def seating(self, ticket_id: str) -> Seating | None:
        """Where the request sat, or ``None`` (waiting, opening, or gone)."""

    @abc.abstractmethod
    async def state(self, ticket_id: str) -> tuple[State, Seating | None]:
        """Where the request is, in one step, and its seating once ``seated``."""


class MemoryQueue(Queue):
    """The queue in this process's memory (``clock``: monotonic seconds, for the seatings'
    lifetime)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.tickets: dict[str, Ticket] = {}
        self.players: dict[str, str] = {}
        self.seatings: dict[str, tuple[float, Seating | None]] = {}
        """Request -> (until when it is kept, its seating; ``None``: opening)."""
        self.watchers: list[Callable[[str], None]] = []

    async def join(self, ticket: Ticket) -> str | None:
        old = self.players.get(ticket.player)
        if old is not None:
            self.tickets.pop(old, None)
        self.tickets[ticket.id] = ticket
        self.players[ticket.player] = ticket.id
        return old

    async def leave(self, ticket_id: str) -> bool:
        ticket = self.tickets.get(ticket_id)
        return ticket is not None and await self.claim([ticket], opening=False)

    async def waiting(self) -> list[Ticket]:
        return list(self.tickets.values())

    async def get(self, ticket_id: str) -> Ticket | None:
        return self.tickets.get(ticket_id)

    async def claim(self, tickets: list[Ticket], opening: bool = True) -> bool:
        ids = [t.id for t in tickets]
        if len(set(ids)) != len(ids) or any(t not in self.tickets for t in ids):
            return False
        for ticket_id in ids:
            ticket = self.tickets.pop(ticket_id)
            if self.players.get(ticket.player) == ticket_id:
                del self.players[ticket.player]
            if opening:
                self.seatings[ticket_id] = (self.clock() + SEATING_TTL, None)
        return True

    async def restore(self, tickets: list[Ticket]) -> None:
        for ticket in tickets:
            self.seatings.pop(ticket.id, None)
            if ticket.player not in self.players:
                self.tickets[ticket.id] = ticket
                self.players[ticket.player] = ticket.id

    async def seat(self, ticket_id: str, seating: Seating) -> None:
        now = self.clock()
        self.seatings = {k: v for k, v in self.seatings.items() if v[0] > now}
        self.seatings[ticket_id] = (now + SEATING_TTL, seating)
        for told in self.watchers:
            told(ticket_id)

    async def watch(self, on_seated: Callable[[str], None]) -> None:
        self.watchers.append(on_seated)
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            self.watchers.remove(on_seated)

    async def seating(self, ticket_id: str) -> Seating | None:
        return (await self.state(ticket_id))[1]

    async def state(self, ticket_id: str) -> tuple[State, Seating | None]:
        if ticket_id in self.tickets:
            return "waiting", None
        found = self.seatings.get(ticket_id)
        if found is None or found[0] <= self.clock():
            return "gone", None
        return ("opening", None) if found[1] is None else ("seated", found[1])
