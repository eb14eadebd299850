"""The heavy jobs themselves: plain functions of plain data, run by the job workers.

This is the module every job worker imports (a process of the local pool, an RQ worker and its
work horses): it knows no app, no database and no request. It sits above the infrastructure
that runs the jobs (:mod:`metrogames.web.infra.jobs`, given :data:`WORK` by the app) and the
features whose pure computations it runs (``rooms/replays.py``, ``rooms/analyses.py``,
``daily/deal.py``, ``daily/open_deals.py``). Each job takes a JSON object and returns JSON
(:func:`run` wraps them, :func:`~metrogames.web.infra.jobs.process.run`): a position travels as the seat's own view — its snapshot
(``docs/notation.md``, "Position snapshot") with the game's name, player count and options — and
a game as its record, so a worker never sees what the requester may not know.

The kinds (:data:`JOBS`):

* ``decide``: a bot's decision, ``{"game", "players", "options", "snapshot", "seat", "bot",
  "seed"}`` → ``{"action": <action JSON>}``;
* ``hint``: the coach's best moves (:func:`metrogames.bots.coach.hints`), ``{"game",
  "players", "options", "snapshot", "seat", "about": <action JSON> | null, "seed", "k"}`` →
  ``{"figure", "moves", "about"}``;
* ``mapcheck``: the map checker, ``{"map"}`` → ``{"valid", "problems", "counts", "hash"}``
  (the engine's ``MapChecks`` capability, found through the registry);
* ``mapreport``: how a map plays, ``{"game", "options"}`` → ``{"deals", "levels",
  "stations", "links"}`` (:func:`metrogames.web.rooms.mapreports.map_report_json`);
* ``analysis``: hindsight on a finished solo game, ``{"record", "budget"}`` → the analysis
  document as JSON text (:func:`metrogames.web.rooms.analyses.analysis_text`);
* ``replay``: a record's spectator frames, ``{"record"}`` → JSON text
  (:func:`metrogames.web.rooms.replays.replay_text`);
* ``expert``: a bot's whole game on a deal, ``{"game", "seed", "bot"}`` → the score
  (:func:`metrogames.web.daily.deal.bot_score`);
* ``hash`` and ``verify``: argon2id, ``{"password"}`` → the PHC string, ``{"stored",
  "password"}`` → ``{"ok", "rehash"}``;
* ``probe``: ``{"seconds"}`` → the worker's process id, after that wait.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from metrogames.bots.base import make_bot
from metrogames.bots.coach import hints
from metrogames.core.capabilities import MapChecks
from metrogames.core.protocol import Action, State
from metrogames.games import game_engine, game_from_options, game_names
from metrogames.web.daily.deal import bot_score
from metrogames.web.daily.open_deals import refuse_open_deal
from metrogames.web.infra.jobs import process
from metrogames.web.infra.jobs.entry import keep_answer
from metrogames.web.infra.jobs.kinds import Work
from metrogames.web.infra.jobs.shapes import (
    AnalysisJob,
    Answer,
    DecideAnswer,
    DecideJob,
    ExpertJob,
    HashJob,
    HintAnswer,
    HintJob,
    JobPayload,
    JobValue,
    MapCheckAnswer,
    MapCheckJob,
    MapReportAnswer,
    MapReportJob,
    PositionJob,
    ProbeJob,
    ReplayJob,
    VerifyAnswer,
    VerifyJob,
)
from metrogames.web.rooms.analyses import analysis_text
from metrogames.web.rooms.mapreports import map_report_json
from metrogames.web.rooms.replays import replay_text

HASHER = PasswordHasher()
"""argon2id with RFC 9106's low-memory profile (as :mod:`metrogames.web.accounts.service` stores)."""


def position(job: PositionJob) -> State[Action]:
    """The view a position job carries (``game``, ``players``, ``options``, ``snapshot``)."""
    game = game_from_options(job["game"], job["players"], job["options"])
    return game.from_snapshot(job["snapshot"])


def decide(job: DecideJob) -> DecideAnswer:
    """A bot's decision for ``seat`` on its view, the bot seeded with ``seed``."""
    view, seat = position(job), int(job["seat"])
    bot = make_bot(job["bot"], seed=int(job["seed"]))
    action = bot.decide(view, seat, view.legal_actions(seat))
    return {"action": view.action_to_json(seat, action)}


def hint(job: HintJob) -> HintAnswer:
    """The coach's ``k`` best moves for ``seat`` on its view (and the estimate of ``about``)."""
    view, seat = position(job), int(job["seat"])
    about = None if job["about"] is None else view.action_from_json(seat, job["about"])
    found = hints(view, seat, about=about, seed=int(job["seed"]), k=int(job["k"]))
    return found.to_json(view, seat)


def mapcheck(job: MapCheckJob) -> MapCheckAnswer:
    """The checker's report on ``map``, by the first game whose engine checks maps (a game
    known by name only: ``nextstation``); every problem a sentence."""
    for name in game_names(unlisted=True):
        engine = game_engine(name)
        if isinstance(engine, MapChecks):
            return engine.check_map(job["map"])
    return {"valid": False, "problems": ["no game checks maps"], "counts": {}, "hash": None}


def mapreport(job: MapReportJob) -> MapReportAnswer:
    """How the game of ``game`` with ``options`` plays: a few solo bot games on it."""
    return map_report_json(job["game"], job["options"])


def analysis(job: AnalysisJob) -> str:
    """The analysis of a record as JSON text (refused on an open day's deal: ``open``)."""
    refuse_open_deal(job["record"], job.get("open", {}))
    return analysis_text(job["record"], job["budget"])


def replay(job: ReplayJob) -> str:
    """The spectator frames of a record as JSON text (refused on an open day's deal)."""
    refuse_open_deal(job["record"], job.get("open", {}))
    return replay_text(job["record"])


def expert(job: ExpertJob) -> int:
    """The score of bot ``bot`` playing the deal of ``seed`` to the end."""
    return bot_score(job["game"], int(job["seed"]), job["bot"])


def hash_password(job: HashJob) -> str:
    """The argon2id PHC string of ``password``."""
    return HASHER.hash(job["password"])


def verify_password(job: VerifyJob) -> VerifyAnswer:
    """Whether ``password`` is the one ``stored`` was made of, and whether ``stored`` was
    made with older parameters (to be replaced)."""
    try:
        ok = HASHER.verify(job["stored"], job["password"])
    except (VerificationError, InvalidHashError):
        return {"ok": False, "rehash": False}
    return {"ok": ok, "rehash": HASHER.check_needs_rehash(job["stored"])}


def probe(job: ProbeJob) -> int:
    """Wait ``seconds`` (a job of known length, asked for by no route: the operators' and the
    tests' probe of a lane), then give the worker's process id."""
    time.sleep(float(job.get("seconds", 0.0)))
    return os.getpid()


JOBS: dict[str, Callable[..., JobValue]] = {
    "decide": decide,
    "hint": hint,
    "mapcheck": mapcheck,
    "mapreport": mapreport,
    "analysis": analysis,
    "replay": replay,
    "expert": expert,
    "hash": hash_password,
    "verify": verify_password,
    "probe": probe,
}
"""The job functions by kind, each of its own kind's payload (``...``: which payload a
function takes is its kind's, checked where the job is asked for: :meth:`metrogames.web.infra.jobs.service.Jobs.run`)."""




def run(kind: str, job: JobPayload) -> Answer:
    """Run the job ``kind`` on ``job``: its :class:`~metrogames.web.infra.jobs.shapes.Answer`
    (:func:`metrogames.web.infra.jobs.process.run`, never raises)."""
    return process.run(JOBS, kind, job)


def entry(kind: str, key: str, payload: JobPayload) -> None:
    """The RQ job of the scale-out start: run ``kind`` on ``payload`` (:func:`run`), store the
    answer under ``key``, release the claim and announce the key
    (:func:`~metrogames.web.infra.jobs.entry.keep_answer`)."""
    keep_answer(kind, key, run(kind, payload))


WORK = Work(run, entry)
"""The job functions, as the app gives them to :class:`~metrogames.web.infra.jobs.service.Jobs`
and the job workers (:func:`~metrogames.web.infra.jobs.worker.start_workers`)."""
