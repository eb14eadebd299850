"""Play now's matching, pure (:mod:`metrogames.web.matchmaking.matching`), and its queue in
memory and in Redis (:mod:`~metrogames.web.matchmaking.queue`, ``redisqueue``): the window
widens with the wait, the nearest rating is taken first, nobody is seated twice, each player
waits in one queue at most, and a claim takes a whole group or nothing — also when many
claims race."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest
import redis.asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from metrogames.web.infra.cluster import connect
from metrogames.web.matchmaking.matching import Ticket, Windows, accepts, groups, window
from metrogames.web.matchmaking.queue import MemoryQueue, Queue, Seating
from metrogames.web.matchmaking.redisqueue import RedisQueue
from support.two_workers import redis_url
from support.web import run_async

NOW = 1000.0
_ids = itertools.count()


def ticket(
    rating: float = 0.0,
    waited: float = 0.0,
    player: str | None = None,
    game: str = "london",
    players: int = 2,
    clock: str = "live",
) -> Ticket:
    n = next(_ids)
    return Ticket(
        id=f"{n:016x}",
        player=player or f"p{n}",
        game=game,
        players=players,
        clock=clock,
        rating=rating,
        joined=NOW - waited,
        token_hash=f"h{n}",
        name=f"P{n}",
    )


tickets = st.lists(
    st.builds(
        ticket,
        rating=st.floats(0, 40, allow_nan=False),
        waited=st.floats(0, 120, allow_nan=False),
        player=st.sampled_from(["ann", "bob", "cy", "di", "ed", "fay", None, None, None]),
        game=st.sampled_from(["london", "metro"]),
        players=st.integers(2, 4),
        clock=st.sampled_from(["live", "turn-based"]),
    ),
    max_size=30,
)
windows = st.builds(Windows, base=st.floats(0, 10), widen=st.floats(0, 2))


def test_the_window_widens_with_the_wait() -> None:
    w = Windows(3.0, 0.5)
    assert window(3.0, 0.5, 0) == 3.0
    assert window(3.0, 0.5, 10) == 8.0  # 3 + 0.5 * 10
    far, new = ticket(rating=10.0, waited=0), ticket(rating=0.0, waited=0)
    assert not accepts(far, new, w, NOW, lambda a, b: True)  # 10 points apart, windows of 3
    assert groups([far, new], w, NOW) == []
    # 14 s later both windows are 10: they sit together
    assert [[t.id for t in g] for g in groups([far, new], w, NOW + 14)] == [[far.id, new.id]]


def test_both_windows_must_accept() -> None:
    w = Windows(3.0, 0.5)
    old, new = ticket(rating=0.0, waited=100), ticket(rating=10.0, waited=0)
    assert groups([old, new], w, NOW) == []  # the newcomer's window is still 3 wide
    assert len(groups([old, new], w, NOW + 14)) == 1


def test_the_nearest_rating_is_taken_first() -> None:
    w = Windows(100.0, 0.0)
    anchor = ticket(rating=20.0, waited=60)
    others = [ticket(rating=r, waited=5) for r in (5.0, 26.0, 18.5, 40.0)]
    group = groups([anchor, *others], w, NOW)[0]  # the longest waiting goes first
    assert [t.rating for t in group] == [20.0, 18.5]
    three = [ticket(rating=20.0, waited=60, players=3)] + [
        ticket(rating=r, waited=5, players=3) for r in (5.0, 26.0, 18.5, 40.0)
    ]
    group = groups(three, w, NOW)[0]
    assert sorted(t.rating for t in group) == [18.5, 20.0, 26.0]


def test_the_predicate_keeps_players_apart() -> None:
    w = Windows(100.0, 0.0)
    a, b, c = ticket(waited=3, player="a"), ticket(waited=2, player="b"), ticket(player="c")
    apart = {frozenset({"a", "b"})}

    def pairable(x: Ticket, y: Ticket) -> bool:
        return frozenset({x.player, y.player}) not in apart

    (group,) = groups([a, b, c], w, NOW, pairable)
    assert {t.player for t in group} == {"a", "c"}


@settings(max_examples=300, deadline=None)
@given(tickets, windows, st.floats(0, 300))
def test_groups_are_whole_valid_and_disjoint(
    waiting: list[Ticket], w: Windows, later: float
) -> None:
    now = NOW + later
    found = groups(waiting, w, now)
    seated = [t for g in found for t in g]
    assert len({t.id for t in seated}) == len(seated)  # never twice
    assert len({t.player for t in seated}) == len(seated)  # a player at one table at most
    for group in found:
        assert len(group) == group[0].players
        assert len({t.bucket for t in group}) == 1
        for x, y in itertools.combinations(group, 2):
            gap = abs(x.rating - y.rating)
            assert gap <= w.at(x, now) and gap <= w.at(y, now)


@settings(max_examples=300, deadline=None)
@given(tickets, windows, st.floats(0, 300))
def test_no_two_left_waiting_could_have_sat_together(
    waiting: list[Ticket], w: Windows, later: float
) -> None:
    """Two-player tables: whoever is left waiting has nobody left to sit with (among each
    player's first request)."""
    now = NOW + later
    two = [t for t in waiting if t.players == 2]
    firsts: dict[str, Ticket] = {}
    for t in sorted(two, key=lambda t: (t.joined, t.id)):
        firsts.setdefault(t.player, t)
    seated = {t.id for g in groups(two, w, now) for t in g}
    left = [t for t in firsts.values() if t.id not in seated]
    for x, y in itertools.combinations(left, 2):
        assert not accepts(x, y, w, now, lambda a, b: True)


# -- the queue ----------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def queue(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "redis":
        redis_url()  # empties the test server (fails when it is not set)
    yield request.param


def make(kind: str) -> tuple[Queue, redis.asyncio.Redis | None]:
    if kind == "memory":
        return MemoryQueue(), None
    client = connect(redis_url())  # the workers' client: a bounded pool, a burst waits
    return RedisQueue(client), client


def test_a_player_waits_in_one_queue_at_most(queue: str) -> None:
    async def go() -> None:
        q, client = make(queue)
        first = ticket(player="ann", game="london")
        second = ticket(player="ann", game="metro")
        assert await q.join(first) is None
        assert await q.join(second) == first.id  # the earlier request left
        assert [t.id for t in await q.waiting()] == [second.id]
        assert await q.get(first.id) is None
        assert await q.get(second.id) == second
        await q.restore([first])  # ann waits again: the old request is not put back
        assert [t.id for t in await q.waiting()] == [second.id]
        assert await q.leave(second.id)
        assert not await q.leave(second.id)
        await q.restore([first])  # ann waits nowhere now: back it comes
        assert [t.id for t in await q.waiting()] == [first.id]
        if client is not None:
            await client.aclose()

    run_async(go())


def test_a_claim_takes_a_whole_group_or_nothing(queue: str) -> None:
    async def go() -> None:
        q, client = make(queue)
        a, b, c = ticket(), ticket(), ticket()
        for t in (a, b, c):
            await q.join(t)
        assert await q.claim([a, b])
        assert not await q.claim([b, c])  # b is seated: c stays
        assert [t.id for t in await q.waiting()] == [c.id]
        assert not await q.claim([c, c])
        assert await q.seating(a.id) is None
        await q.seat(a.id, Seating(room="r", seat=1))
        assert await q.seating(a.id) == {"room": "r", "seat": 1}
        if client is not None:
            await client.aclose()

    run_async(go())


def test_racing_claims_never_seat_anyone_twice(queue: str) -> None:
    """Many claimers (as many workers) race over random overlapping pairs of 60 requests:
    every request is won once at most, and a claim that lost left its partner waiting."""

    async def go() -> None:
        q, client = make(queue)
        waiting = [ticket() for _ in range(60)]
        for t in waiting:
            await q.join(t)
        pairs = [list(p) for p in itertools.combinations(waiting[:20], 2)]
        pairs += [[waiting[i], waiting[i + 1]] for i in range(20, 59)]
        results = await asyncio.gather(*(q.claim(p) for p in pairs))
        won = [t.id for p, ok in zip(pairs, results, strict=True) if ok for t in p]
        assert len(won) == len(set(won))
        left = {t.id for t in await q.waiting()}
        assert left.isdisjoint(won)
        assert left | set(won) == {t.id for t in waiting}
        if client is not None:
            await client.aclose()

    run_async(go())
