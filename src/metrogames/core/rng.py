"""A seeded, version-stable random generator (SplitMix64).

Python's ``random`` module does not promise the same sequence across versions, and deals must
never change between releases (a record names only its seed). This generator is tiny, pure
Python and pinned by golden tests. Separate *streams* of one seed (``"deal"``, ``"bot"``) are
independent, so adding a random draw to one never shifts another.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import MutableSequence, Sequence
from functools import cache
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
MAX_SEED = MASK64
MAX_RANKED = 20
_FACTORIALS = tuple(math.factorial(i) for i in range(MAX_RANKED + 1))
_RADICES = tuple(tuple(_FACTORIALS[k - 1 - i] for i in range(k)) for k in range(MAX_RANKED + 1))
"""Per length ``k``: the factorials (k-1)!, ..., 0! that decode a permutation rank."""
_LIMITS = (0, *((1 << 64) - ((1 << 64) % n) for n in range(1, 257)))
"""Per bound ``n``: the largest multiple of ``n`` not above 2**64 (rejection threshold)."""


@cache
def _large_limit(n: int) -> int:
    return (1 << 64) - ((1 << 64) % n)


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in ``0..2**64-1``; raise ``ValueError`` otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, not {seed!r}")
    return seed


@cache
def _stream_key(stream: str) -> int:
    digest = hashlib.sha256(stream.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


class Rng:
    """SplitMix64 generator for one ``(seed, stream)`` pair.

    Args:
        seed: non-negative int below 2**64.
        stream: a name that separates independent sequences of the same seed.

    Raises:
        ValueError: a seed out of range.
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int, stream: str = "") -> None:
        self._state = check_seed(seed) ^ _stream_key(stream)

    def next64(self) -> int:
        """The next 64-bit unsigned integer."""
        self._state = z = (self._state + 0x9E3779B97F4A7C15) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform int in ``0..n-1`` (unbiased, by rejection). ``n`` must be positive."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _LIMITS[n] if n < len(_LIMITS) else _large_limit(n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place: every order equally likely.

        Up to 20 items (20! < 2**64) one draw picks the permutation's rank, decoded as a
        Lehmer code; longer sequences use Fisher–Yates from the end.
        """
        n = len(items)
        if n <= MAX_RANKED:
            pool = list(items)
            rank = self.below(_FACTORIALS[n])
            for i, radix in enumerate(_RADICES[n]):
                index, rank = divmod(rank, radix)
                items[i] = pool.pop(index)
            return
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items`` (see :meth:`shuffle`)."""
        out = list(items)
        self.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        """One uniformly chosen item of a non-empty sequence."""
        return items[self.below(len(items))]
