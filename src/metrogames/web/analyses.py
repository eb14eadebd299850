"""Hindsight analyses of finished solo games for the web table (``docs/web-api.md``,
``GET /api/rooms/{room}/analysis`` and ``POST /api/analyses``).

An analysis (:func:`metrogames.bots.analysis.analyse`: seconds of CPU) runs on the analyses' own
worker thread (one: analyses wait in turn rather than take every core), never on the event loop. Results are kept in memory, the most recent
:data:`KEEP` of them, by room (a finished room never changes) or by the uploaded record's
digest; requests for an analysis already running wait for it instead of starting another. Only
a request that starts an analysis is counted by the ``analyses`` rate limit.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from metrogames.bots.analysis import AnalysisRefusedError, analyse
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.web.checks import RoomError, bad_request

KEEP = 64
"""Analyses kept in memory."""


def analysis_text(record: Any, budget: str) -> str:
    """The analysis of a decoded record as JSON text: the ``analyse --json`` document plus
    ``views``: ``{"player", "best"}``, the game's view JSON of both final positions.

    Raises:
        RoomError: 409 with the refusal's reason (``not-solo``, ``not-finished``,
            ``no-solo-rating``, ``unknown-deal``); 400 for a record the engine refuses.
    """
    try:
        result = analyse(record, budget)
    except AnalysisRefusedError as exc:
        raise RoomError(409, exc.reason, str(exc)) from None
    except IllegalActionError as exc:
        raise RoomError(400, exc.reason, exc.as_message()) from None
    except (MetrogamesError, ValueError) as exc:
        raise bad_request(f"record: {exc}") from None
    return json.dumps({**result.to_json(), "views": result.views()})


def record_key(record: Any) -> str:
    """The cache key of an uploaded record: the digest of its canonical JSON."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return "record:" + hashlib.sha256(text.encode()).hexdigest()


class Analyses:
    """The analyses cache and the analyses running, for one app; ``budget`` is a name of
    :data:`metrogames.bots.analysis.BUDGETS`."""

    def __init__(self, budget: str) -> None:
        self.budget = budget
        self.done: OrderedDict[str, str] = OrderedDict()
        self.running: dict[str, asyncio.Future[str]] = {}
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis")

    async def get(
        self, key: str, record: Callable[[], Any], charge: Callable[[], Awaitable[None]]
    ) -> str:
        """The analysis text of ``key``: kept, running, or started now (``charge()`` first,
        then ``record()`` gives the decoded record to analyse).

        Raises:
            RoomError: as :func:`analysis_text`, and 429 from ``charge``.
        """
        text = self.done.get(key)
        if text is not None:
            self.done.move_to_end(key)
            return text
        task = self.running.get(key)
        if task is None:
            await charge()
            task = self.running.get(key)  # started by another request meanwhile
        if task is None:
            loop = asyncio.get_running_loop()
            task = loop.run_in_executor(self.worker, analysis_text, record(), self.budget)
            self.running[key] = task
            task.add_done_callback(lambda t: self._finished(key, t))
        return await asyncio.shield(task)

    def _finished(self, key: str, task: asyncio.Future[str]) -> None:
        self.running.pop(key, None)
        if task.cancelled() or task.exception() is not None:
            return
        self.done[key] = task.result()
        while len(self.done) > KEEP:
            self.done.popitem(last=False)
