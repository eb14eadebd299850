"""The seats' presence of many rooms read from Redis at once (``web/infra/cluster.py``
``Cluster.presence_of``, ``web/rooms/sync.py`` ``RoomSync.connected_among``): the friends list
of an account following hundreds of players costs two Redis round trips, not two per seat, and
says the same as the one-room reading."""

from __future__ import annotations

import secrets
from collections import Counter

import redis.asyncio as aioredis

from metrogames.web.infra.cluster import Cluster
from support.two_workers import redis_url
from support.web import run_async


class Counted:
    """A Redis client whose round trips (commands, and pipelines as one each) are counted."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client, self.trips = client, 0

    async def hgetall(self, *args: object) -> object:
        self.trips += 1
        return await self.client.hgetall(*args)  # type: ignore[misc]

    async def mget(self, *args: object) -> object:
        self.trips += 1
        return await self.client.mget(*args)  # type: ignore[arg-type]

    def pipeline(self, **kw: object) -> object:
        pipe = self.client.pipeline(**kw)  # type: ignore[arg-type]
        execute = pipe.execute

        async def counted() -> object:
            self.trips += 1
            return await execute()

        pipe.execute = counted  # type: ignore[method-assign]
        return pipe


async def _scenario() -> None:
    client = aioredis.Redis.from_url(redis_url())
    try:
        cluster = Cluster(client)
        tag = secrets.token_hex(4)
        rooms = [f"{tag}{i:03d}" for i in range(120)]
        live, dead = f"live{tag}", f"dead{tag}"
        await client.set(f"metrogames:alive:{live}", "1", px=60_000)
        expected: dict[str, dict[str, Counter[int]]] = {}
        for i, room in enumerate(rooms):
            fields = {f"{live}:{i % 4}": 1 + i % 2, f"{dead}:0": 3, f"{cluster.worker}:1": 2}
            if i % 3 == 0:
                fields[f"{live}:{i % 4}"] = 0  # a socket closed: no longer held
            await client.hset(f"metrogames:presence:{room}", mapping=fields)
            if i % 3:
                expected[room] = {live: Counter({i % 4: 1 + i % 2})}
        counted = Counted(client)
        cluster.redis = counted  # type: ignore[assignment]
        found = await cluster.presence_of(rooms)
        assert counted.trips == 2  # the counts, then which workers are alive
        assert found == expected  # a dead worker's and this worker's own counts left out
        singles = {room: await cluster.presence(room) for room in rooms[:9]}
        assert {r: s for r, s in singles.items() if s} == {
            r: expected[r] for r in rooms[:9] if r in expected
        }
        counted.trips = 0
        assert await cluster.presence_of([]) == {} and counted.trips == 0
        for room in rooms:
            await client.delete(f"metrogames:presence:{room}")
    finally:
        await client.aclose()


def test_the_presence_of_many_rooms_is_two_round_trips_and_says_what_one_room_says() -> None:
    run_async(_scenario())


def test_the_presence_of_rooms_is_empty_when_redis_fails() -> None:
    async def scenario() -> None:
        client = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
        try:
            assert await Cluster(client).presence_of(["abc", "def"]) == {}
        finally:
            await client.aclose()

    run_async(scenario())
