"""Sign-in back-off per account (``docs/web-api.md``, "Accounts"): password guesses against one
account are slowed down whatever addresses they come from.

Each attempt at an account's password (a sign-in, a password change) is counted against the
account's name — its confusable skeleton (:func:`~metrogames.web.accounts.names.skeleton_digest`), so
``Аda`` (Cyrillic А) counts for ``Ada``, and a name no account has counts alike (a refusal
tells nothing of which names exist) — *before* the password is checked, as a failure, in one
atomic step: concurrent attempts cannot all slip in before the first fails. The first
``free`` attempts go through; from the ``free``-th on, each attempt locks the account's
sign-ins for ``base`` seconds, doubling with every further attempt up to ``cap``; an attempt
while the lock holds is refused (429 ``rate-limited`` with ``Retry-After``) and is not counted.
A success forgets the account's count and lock; a count is forgotten ``WINDOW`` seconds after
its last attempt.

With several workers the counts are in Redis (one Lua script: :data:`_ADMIT`), shared by all;
while Redis cannot be reached (or takes over :data:`REDIS_TIMEOUT`), each worker counts in its
own memory meanwhile, keeping the :data:`LOCAL_KEYS` accounts attempted last.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError

log = logging.getLogger("metrogames.web.backoff")  # the name its log lines always had
WINDOW = 86_400.0
"""Seconds after an account's last counted attempt at which its count is forgotten."""
REDIS_TIMEOUT = 1.0
LOCAL_KEYS = 100_000
_PREFIX = "metrogames:signin"

_ADMIT = """
local wait = redis.call('PTTL', KEYS[2])
if wait > 0 then return wait end
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local free = tonumber(ARGV[1])
if n >= free then
  local lock = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(n - free, 60))
  redis.call('SET', KEYS[2], '1', 'PX', math.floor(lock))
end
return 0
"""
"""KEYS: the count, the lock; ARGV: free, base, cap (ms), window (ms). Returns 0 (counted,
go on) or the lock's milliseconds left (refused, not counted)."""


@dataclass
class _Local:
    count: int
    forget_at: float
    locked_until: float


class SignInBackoff:
    """The back-off of the module docstring: ``free`` attempts, then locks of ``base``
    seconds doubling up to ``cap``; counted in ``redis`` (``None``: this process only).

    Args:
        redis: the shared Redis client, or ``None``.
        free: attempts that go through before the first lock (at least 1).
        base: the first lock, seconds.
        cap: the longest lock, seconds.
        now: the clock of the local counts (seconds).
    """

    def __init__(
        self,
        redis: Redis | None,
        free: int,
        base: float,
        cap: float,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redis = redis
        self.free, self.base, self.cap = free, base, cap
        self.now = now
        self.local: OrderedDict[str, _Local] = OrderedDict()
        self._admit = redis.register_script(_ADMIT) if redis is not None else None

    async def admit(self, key: str) -> None:
        """Count one attempt at the password of the account ``key`` names (a skeleton digest),
        or refuse it while the account is locked.

        Raises:
            RoomError: 429 ``rate-limited`` naming the wait (also as ``Retry-After``).
        """
        wait = await self._shared("admit", key)
        if wait is None:
            wait = self._admit_local(key)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            rule = N_(
                "too many failed sign-ins to this account: try again in {wait} s "
                "(each further failure doubles the wait)"
            )
            raise RoomError(
                429,
                "rate-limited",
                msg(rule, wait=seconds),
                headers={"Retry-After": str(seconds)},
            )

    async def clear(self, key: str) -> None:
        """Forget the account's count and lock (its password was right)."""
        self.local.pop(key, None)
        await self._shared("clear", key)

    async def _shared(self, what: str, key: str) -> float | None:
        """Run ``what`` in Redis: the seconds to wait (``admit``), ``0`` (``clear``), or
        ``None`` when there is no Redis or it failed (then counted in this process)."""
        if self.redis is None or self._admit is None:
            return None
        keys = [f"{_PREFIX}:{key}:n", f"{_PREFIX}:{key}:lock"]
        try:
            if what == "clear":
                await asyncio.wait_for(self.redis.delete(*keys), REDIS_TIMEOUT)
                return 0.0
            args = [self.free, round(self.base * 1000), round(self.cap * 1000), round(WINDOW * 1000)]
            waited = await asyncio.wait_for(self._admit(keys=keys, args=args), REDIS_TIMEOUT)
            return float(waited) / 1000
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("sign-in back-off: redis failed (%s); counting in this process", exc)
            return None

    def _admit_local(self, key: str) -> float:
        """:data:`_ADMIT` on this process's counts (the same steps, one at a time)."""
        now = self.now()
        entry = self.local.get(key)
        if entry is not None and entry.locked_until > now:
            return entry.locked_until - now
        if entry is None or entry.forget_at <= now:
            entry = _Local(0, now, now)
        entry.count += 1
        entry.forget_at = now + WINDOW
        if entry.count >= self.free:
            entry.locked_until = now + min(self.cap, self.base * 2.0 ** min(entry.count - self.free, 60))
        self.local[key] = entry
        self.local.move_to_end(key)
        while len(self.local) > LOCAL_KEYS:
            self.local.popitem(last=False)
        return 0.0
