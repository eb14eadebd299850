"""Who sits with whom: the pure logic of play now (``docs/web-api.md``, "Play now").

A waiting request is a :class:`Ticket`. Requests are grouped only with requests for the same
game, player count, clock kind and pool (:attr:`Ticket.bucket`). Each request accepts others whose
shown rating (``mu - 3 sigma``, :mod:`metrogames.web.ratings.service`) is within its
*window*, which widens with its wait: ``base + widen * waited`` rating points
(:func:`window`). A group is seated when it has exactly the player count, every two of its
members accept each other (both windows, and the pairing predicate :data:`Pairable`, by
default :func:`anyone`) and no member is in another group (:func:`groups`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

CLOCKS = ("live", "turn-based")
"""The clock kinds: a live game (a short turn clock) or a turn-based one (a day per turn)."""


@dataclass(frozen=True)
class Ticket:
    """A waiting request for play now.

    ``id`` (random, public: a waiting page's stream names it), ``player`` (who asks:
    ``account:{id}`` or ``guest:{address digest}``; one request per player), ``game``,
    ``players`` (the player count), ``clock`` (one of :data:`CLOCKS`), ``rating`` (the shown
    rating for that game and count; 0 for a newcomer or a guest), ``joined`` (epoch seconds),
    ``token_hash`` (SHA-256 of the seat token the player will hold), ``name`` (the seat's
    name), ``account`` (the account the seat is tied to, or ``None``) and ``address``,
    ``session`` (digests of where it was asked from, stored as the seat's claim), ``bot``
    (asked by a bot account through the bot API) and ``pool`` (``human``, or ``bot`` for a bot
    account rated in its own pool: requests of two pools never sit together)."""

    id: str
    player: str
    game: str
    players: int
    clock: str
    rating: float
    joined: float
    token_hash: str
    name: str
    account: str | None = None
    address: str | None = None
    session: str | None = None
    bot: bool = False
    pool: str = "human"

    @property
    def bucket(self) -> tuple[str, int, str, str]:
        """What must be equal to sit together: (game, player count, clock kind, pool)."""
        return self.game, self.players, self.clock, self.pool


Pairable = Callable[[Ticket, Ticket], bool]
"""May these two requests be seated together (besides their ratings)?"""


def anyone(first: Ticket, second: Ticket) -> bool:
    """The default pairing predicate: any two players may sit together."""
    return True


Pairing = Callable[[Sequence[Ticket]], Awaitable[Pairable]]
"""The pairing predicate of a round, given the round's waiting requests (it may read what it
needs of them first, off the event loop: the blocks between their accounts)."""


async def everyone(waiting: Sequence[Ticket]) -> Pairable:
    """The default pairing: :func:`anyone`."""
    return anyone


@dataclass(frozen=True)
class Windows:
    """The rating window: ``base`` points at once, widening by ``widen`` points per second
    waited (both at least 0)."""

    base: float
    widen: float

    def at(self, ticket: Ticket, now: float) -> float:
        """``ticket``'s window at ``now`` (epoch seconds): :func:`window`."""
        return window(self.base, self.widen, max(0.0, now - ticket.joined))


def window(base: float, widen: float, waited: float) -> float:
    """The rating points a request accepts after waiting ``waited`` seconds:
    ``base + widen * waited``."""
    return base + widen * waited


def accepts(a: Ticket, b: Ticket, windows: Windows, now: float, pairable: Pairable) -> bool:
    """Whether ``a`` and ``b`` may sit together at ``now``: same bucket, distinct players,
    ratings within both windows, and ``pairable`` both ways."""
    if a.bucket != b.bucket or a.player == b.player:
        return False
    gap = abs(a.rating - b.rating)
    if gap > windows.at(a, now) or gap > windows.at(b, now):
        return False
    return pairable(a, b) and pairable(b, a)


def groups(
    waiting: Iterable[Ticket],
    windows: Windows,
    now: float,
    pairable: Pairable = anyone,
) -> list[list[Ticket]]:
    """The tables to seat now among ``waiting``.

    The longest-waiting request not yet seated is taken first (ties by id); it gathers, nearest
    rating first (ties: longest waiting), each request that accepts it and every one gathered so
    far, until its player count is reached — a group — or nobody is left — then it waits on.
    Each request is in at most one group and each player (:attr:`Ticket.player`) in at most
    one; the first request of a player (longest waiting) counts, a later one of the same player
    is passed over.

    Returns:
        The groups, each with exactly its tickets' player count of tickets, anchor first.
    """
    order = sorted(waiting, key=lambda t: (t.joined, t.id))
    seen: set[str] = set()
    pool: list[Ticket] = []
    for ticket in order:
        if ticket.player not in seen:
            seen.add(ticket.player)
            pool.append(ticket)
    seated: set[str] = set()
    found: list[list[Ticket]] = []
    for anchor in pool:
        if anchor.id in seated:
            continue
        group = [anchor]
        near = sorted(
            (t for t in pool if t.id not in seated and t.id != anchor.id),
            key=lambda t: (abs(t.rating - anchor.rating), t.joined, t.id),
        )
        for other in near:
            if len(group) == anchor.players:
                break
            if all(accepts(member, other, windows, now, pairable) for member in group):
                group.append(other)
        if len(group) == anchor.players:
            seated.update(t.id for t in group)
            found.append(group)
    return found
