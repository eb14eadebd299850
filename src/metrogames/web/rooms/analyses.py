"""Hindsight analyses of finished solo games for the web table (``docs/web-api.md``,
``GET /api/rooms/{room}/analysis`` and ``POST /api/analyses``).

An analysis (:func:`metrogames.bots.analysis.analyse`: seconds of CPU) is a heavy job
(:mod:`metrogames.web.infra.jobs`, the ``slow`` lane), never run in a serving process. Its answers are
kept by the record's content — deal and actions, whether the record comes from a room or an
upload (:func:`analysis_job`) — and requests for an analysis already running wait for it
instead of starting another. Only a request that starts an analysis is counted by the
``analyses`` rate limit.
"""

from __future__ import annotations

import hashlib
import json

from metrogames.bots.analysis import AnalysisRefusedError, analyse
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.core.protocol import JsonValue, is_object
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.infra.jobs.shapes import AnalysisJob


def analysis_text(record: JsonValue, budget: str) -> str:
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


ANONYMOUS = "player"
"""The name an analysis job sees in place of the players' (its answer is the same for any)."""


def analysis_job(record: JsonValue, budget: str) -> tuple[str, AnalysisJob]:
    """The key and payload of the analysis job of a decoded record: keyed by its content
    without the players' names (the deal and the actions: a room's record and the same record
    uploaded are one analysis), the payload's record with the names left out. Put them back
    in the answer with :func:`personalised`."""
    content = {k: v for k, v in record.items() if k != "players"} if is_object(record) else record
    text = json.dumps([content, budget], sort_keys=True, separators=(",", ":"))
    key = "analysis:" + hashlib.sha256(text.encode()).hexdigest()
    players = record.get("players") if is_object(record) else None
    if is_object(record) and isinstance(players, list):
        record = {**record, "players": [ANONYMOUS] * len(players)}
    return key, {"record": record, "budget": budget}


def personalised(text: str, record: JsonValue) -> str:
    """The analysis ``text`` of :func:`analysis_job` with ``record``'s player names in it."""
    names = record.get("players") if is_object(record) else None
    if not isinstance(names, list) or not names:
        return text
    document = json.loads(text)
    document["player"] = names[0]
    best = document.get("best_found") or {}
    if is_object(best.get("record")):
        best["record"]["players"] = names
    return json.dumps(document)
