"""Blocks in play now: two requests whose accounts have a block between them (either way,
:mod:`metrogames.web.accounts.friends`) are never seated together. A guest's request (no
account) blocks nobody and is blocked by nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from metrogames.web.accounts.friends import Friends
from metrogames.web.matchmaking.matching import Pairable, Pairing, Ticket


def block_pairing(friends: Friends) -> Pairing:
    """The pairing of :class:`~metrogames.web.matchmaking.service.Matchmaker` that reads, once
    a round and off the event loop, the blocks between the waiting requests' accounts."""

    async def pairing(waiting: Sequence[Ticket]) -> Pairable:
        accounts = {t.account for t in waiting if t.account is not None}
        pairs = await asyncio.to_thread(friends.block_pairs, accounts)

        def pairable(first: Ticket, second: Ticket) -> bool:
            if first.account is None or second.account is None:
                return True
            return frozenset((first.account, second.account)) not in pairs

        return pairable

    return pairing
