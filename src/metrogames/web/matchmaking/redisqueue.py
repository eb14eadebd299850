"""The queue of play now in Redis, shared by every worker (``METROGAMES_REDIS_URL``).

Keys: the hash :data:`TICKETS` (request id -> the request as JSON), the hash :data:`PLAYERS`
(player -> its waiting request's id) and ``metrogames:qm:seat:{id}`` (where a claimed request
sat, JSON, expiring after :data:`~.queue.SEATING_TTL`). Every change of the two hashes is one
Lua script, atomic in Redis: two workers claiming overlapping groups at once get one each
whole or nothing (:meth:`RedisQueue.claim`), so no request is ever seated twice. A Redis
failure is not hidden: it raises :class:`~redis.exceptions.RedisError` (the route answers 503,
the matchmaker tries again at its next round).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from metrogames.web.matchmaking.matching import Ticket
from metrogames.web.matchmaking.queue import SEATING_TTL, Queue, Seating, State

SEATED = "metrogames:qm:seated"
"""The channel of seatings: a seated request's id."""
RECONNECT_SECONDS = 0.5
"""Pause before the seatings' subscriber tries Redis again."""
TICKETS = "metrogames:qm:tickets"
PLAYERS = "metrogames:qm:players"
log = logging.getLogger("metrogames.web.matchmaking")
_JOIN = (
    "local old = redis.call('hget', KEYS[2], ARGV[1]) "
    "if old then redis.call('hdel', KEYS[1], old) end "
    "redis.call('hset', KEYS[1], ARGV[2], ARGV[3]) "
    "redis.call('hset', KEYS[2], ARGV[1], ARGV[2]) "
    "return old or ''"
)
"""Add request ARGV[2] (JSON ARGV[3]) of player ARGV[1], dropping the player's earlier one."""
_TAKE = (
    "for i = 3, #ARGV, 2 do "
    "  if redis.call('hexists', KEYS[1], ARGV[i]) == 0 then return 0 end "
    "end "
    "for i = 3, #ARGV, 2 do "
    "  redis.call('hdel', KEYS[1], ARGV[i]) "
    "  if redis.call('hget', KEYS[2], ARGV[i + 1]) == ARGV[i] then "
    "    redis.call('hdel', KEYS[2], ARGV[i + 1]) "
    "  end "
    "  if ARGV[1] == '1' then redis.call('set', SEAT .. ARGV[i], '', 'EX', ARGV[2]) end "
    "end "
    "return 1"
).replace("SEAT", "'metrogames:qm:seat:'")
"""Take requests ARGV[3], ARGV[5], … (of players ARGV[4], ARGV[6], …): all or none; with
ARGV[1] ``1`` each is marked as being seated (an empty seating, for ARGV[2] seconds)."""
_STATE = (
    "if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then return {'waiting', ''} end "
    "local seat = redis.call('get', 'metrogames:qm:seat:' .. ARGV[1]) "
    "if not seat then return {'gone', ''} end "
    "if seat == '' then return {'opening', ''} end "
    "return {'seated', seat}"
)
"""Where request ARGV[1] is, and its seating's JSON."""
_RESTORE = (
    "for i = 1, #ARGV, 3 do "
    "  redis.call('del', 'metrogames:qm:seat:' .. ARGV[i]) "
    "  if redis.call('hexists', KEYS[2], ARGV[i + 1]) == 0 then "
    "    redis.call('hset', KEYS[1], ARGV[i], ARGV[i + 2]) "
    "    redis.call('hset', KEYS[2], ARGV[i + 1], ARGV[i]) "
    "  end "
    "end "
    "return 1"
)
"""Put requests back (id, player, JSON triples; their marks dropped), each unless its player
waits again."""


def _dumps(ticket: Ticket) -> str:
    return json.dumps(dataclasses.asdict(ticket), separators=(",", ":"))


def _loads(text: bytes | str) -> Ticket:
    return Ticket(**json.loads(text))


class RedisQueue(Queue):
    """The queue in Redis (``redis``: the workers' shared client)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._join = redis.register_script(_JOIN)
        self._take = redis.register_script(_TAKE)
        self._restore = redis.register_script(_RESTORE)
        self._state = redis.register_script(_STATE)

    async def join(self, ticket: Ticket) -> str | None:
        old = await self._join(
            keys=[TICKETS, PLAYERS], args=[ticket.player, ticket.id, _dumps(ticket)]
        )
        text = old.decode() if isinstance(old, bytes) else str(old)
        return text or None

    async def leave(self, ticket_id: str) -> bool:
        ticket = await self.get(ticket_id)
        if ticket is None:
            return False
        return await self.claim([ticket], opening=False)

    async def waiting(self) -> list[Ticket]:
        found = await self.redis.hvals(TICKETS)
        return [_loads(text) for text in found]

    async def get(self, ticket_id: str) -> Ticket | None:
        text = await self.redis.hget(TICKETS, ticket_id)
        return None if text is None else _loads(text)

    async def claim(self, tickets: list[Ticket], opening: bool = True) -> bool:
        if len({t.id for t in tickets}) != len(tickets):
            return False
        args = ["1" if opening else "0", str(int(SEATING_TTL))]
        args += [x for t in tickets for x in (t.id, t.player)]
        return bool(await self._take(keys=[TICKETS, PLAYERS], args=args))

    async def restore(self, tickets: list[Ticket]) -> None:
        args = [x for t in tickets for x in (t.id, t.player, _dumps(t))]
        if args:
            await self._restore(keys=[TICKETS, PLAYERS], args=args)

    async def seat(self, ticket_id: str, seating: Seating) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(f"metrogames:qm:seat:{ticket_id}", json.dumps(seating), ex=int(SEATING_TTL))
        pipe.publish(SEATED, ticket_id)
        await pipe.execute()

    async def watch(self, on_seated: Callable[[str], None]) -> None:
        """As :meth:`Queue.watch`: subscribed to :data:`SEATED` (a connection of its own),
        subscribing again after a failure."""
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(SEATED)
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None:
                        on_seated(message["data"].decode())
            except (RedisError, OSError) as exc:
                log.warning("redis: play now's seatings: %s; subscribing again", exc)
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def seating(self, ticket_id: str) -> Seating | None:
        text = await self.redis.get(f"metrogames:qm:seat:{ticket_id}")
        return _seating(text) if text else None

    async def state(self, ticket_id: str) -> tuple[State, Seating | None]:
        state, text = await self._state(keys=[TICKETS], args=[ticket_id])
        name = state.decode() if isinstance(state, bytes) else str(state)
        if name == "seated":
            return "seated", _seating(text)
        if name in ("waiting", "opening"):
            return ("waiting" if name == "waiting" else "opening"), None
        return "gone", None


def _seating(text: bytes | str) -> Seating:
    found = json.loads(text)
    return Seating(room=str(found["room"]), seat=int(found["seat"]))
