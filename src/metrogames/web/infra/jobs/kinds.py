"""The kinds of heavy job: which lane each runs in, its priority there and its time limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from metrogames.web.infra.jobs.shapes import Answer, JobPayload

if TYPE_CHECKING:
    from pebble import ProcessFuture


@dataclass(frozen=True)
class Kind:
    """A kind of job (:mod:`metrogames.web.work` names its function): its ``lane`` (``play``, ``passwords``
    or ``slow``: each lane has its own worker processes, so a bot's turn never waits behind an
    analysis), its ``priority`` in the lane (0 first), ``timeout`` (seconds it may run, after
    which it is stopped), whether its answers are kept by key (``cached``) and whether its cost
    is a client's choice (``chosen``: a hint, a check, an analysis, a password — not a bot's
    turn in a game): such a job runs on the idle scheduling policy
    (:func:`~metrogames.web.infra.jobs.process.run`), so that it takes only CPU time nobody
    serving a move wants."""

    name: str
    lane: str
    priority: int
    timeout: float
    cached: bool
    chosen: bool = True


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("decide", "play", 0, 60.0, cached=False, chosen=False),
        Kind("hint", "play", 1, 60.0, cached=True),
        Kind("mapcheck", "play", 1, 30.0, cached=True),
        Kind("hash", "passwords", 0, 30.0, cached=False),
        Kind("verify", "passwords", 0, 30.0, cached=False),
        Kind("replay", "slow", 0, 120.0, cached=True),
        Kind("expert", "slow", 1, 900.0, cached=False),
        Kind("mapreport", "slow", 1, 300.0, cached=True),
        Kind("analysis", "slow", 2, 900.0, cached=True),
        Kind("probe", "slow", 2, 600.0, cached=False),
    )
}
"""Every kind by name. ``decide``: a bot's decision (the bot levels that search: ``hard`` and
``expert``); ``hint``; ``mapcheck``: the map checker on a posted map (the studio's live
check); ``hash`` and ``verify``: passwords (argon2id); ``replay``: an uploaded
record's frames; ``expert``: the daily expert's game; ``mapreport``: the map studio's report
panel (a few solo bot games on a map); ``analysis``; ``probe``: a wait of known
length (operators' and tests' probe of the slow lane)."""

QUEUED_LANES = ("play", "slow")
"""The lanes that go through the Redis job queue in the scale-out start (passwords never do)."""
NICE = {"play": 2, "passwords": 2, "slow": 10}
"""How much lower than the serving process each lane's workers run (``os.nice``; all of them
with the batch scheduling policy as well): a bot's decision, a hint or a password a little
lower, the slow lane's analyses, replays and expert games well below (nice 10 weighs about a
tenth of the serving process when both want the CPU). A job whose cost a client chooses
(every kind but ``decide``: :attr:`Kind.chosen`) runs on the idle policy besides."""


@dataclass(eq=False)
class Job:
    """One job in flight in this process: its ``key`` (the content it is computed from: equal
    keys, one job), ``kind``, ``payload`` (plain JSON: the kind's, :mod:`.shapes`), the ``answer``
    its backend resolves with :class:`Work`'s ``run``, and how many requests wait for it
    (``waiters``); ``handle`` and ``seq`` are the backend's."""

    key: str
    kind: Kind
    payload: JobPayload
    answer: asyncio.Future[Answer]
    waiters: int = 0
    seq: int = 0
    handle: ProcessFuture[Answer] | str | None = None
    """The backend's handle: the local pool's future, or the id of the RQ job that computes
    the key."""
    mine: bool = False
    """Whether this process put the job in its backend (it alone observes its run time)."""


@dataclass(frozen=True)
class Work:
    """The job functions the backends run, given to them by the app (:data:`metrogames.web.work.WORK`):
    infrastructure knows no feature. Both are module-level functions, sent to the job
    processes by name: ``run(kind, payload)`` gives a job's :class:`~.shapes.Answer` (a local
    pool's processes run it; its module is the one their forkserver imports first), and
    ``entry(kind, key, payload)`` is the RQ job of the scale-out start (the job workers import its
    module before forking their work horses)."""

    run: Callable[[str, JobPayload], Answer]
    entry: Callable[[str, str, JobPayload], None]
