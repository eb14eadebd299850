"""What the serving workers and the job workers of the scale-out start share: the lanes' queue
names, the Redis keys, and :func:`keep_answer`, the end of every RQ job (the RQ job itself,
:func:`metrogames.web.work.entry`, is above the features whose computations it runs; :mod:`.queue`
enqueues it, :mod:`.worker` runs it). It imports nothing of the server.
"""

from __future__ import annotations

import json

from rq import get_current_job

from metrogames.web.infra.jobs.kinds import KINDS, Job
from metrogames.web.infra.jobs.shapes import Answer

PREFIX = "metrogames:jobs:"
DONE = PREFIX + "done"
"""The channel on which a finished job's key is announced."""
KEEP_SECONDS = 3600
"""How long a cached kind's answer stays in Redis."""
BRIEF_SECONDS = 120
"""How long another kind's answer stays (read by its waiters, then gone)."""


def queue_names(lane: str) -> list[str]:
    """The RQ queues of ``lane``, first priority first."""
    priorities = sorted({k.priority for k in KINDS.values() if k.lane == lane})
    return [f"metrogames-{lane}-{p}" for p in priorities]


def queue_name(job: Job) -> str:
    """The RQ queue of ``job`` (its lane and priority)."""
    return f"metrogames-{job.kind.lane}-{job.kind.priority}"


def result_key(key: str) -> str:
    """Where the answer of the job ``key`` is kept."""
    return PREFIX + "result:" + key


def claim_key(key: str) -> str:
    """Which RQ job computes ``key`` (set by the serving worker that enqueued it)."""
    return PREFIX + "claim:" + key


def interest_key(key: str) -> str:
    """How many serving workers wait for ``key``."""
    return PREFIX + "interest:" + key


def text_of(value: bytes | str) -> str:
    """A Redis reply as text."""
    return value.decode() if isinstance(value, bytes) else value


def keep_answer(kind: str, key: str, answer: Answer) -> None:
    """The end of the RQ job running the job ``key`` of ``kind`` (in its work horse): store
    ``answer`` under ``key``, release the claim and announce the key."""
    current = get_current_job()
    assert current is not None
    connection = current.connection
    keep = KEEP_SECONDS if KINDS[kind].cached and "value" in answer else BRIEF_SECONDS
    pipe = connection.pipeline()
    pipe.set(result_key(key), json.dumps(answer), ex=keep)
    pipe.delete(claim_key(key))
    pipe.publish(DONE, key)
    pipe.execute()
