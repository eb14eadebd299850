"""What a job process runs around a job, whatever its kind: the answer's envelope (:func:`run`:
a value, a refusal or a failure, with the process and its run time), refusals carried across
processes as JSON, and the process's start (:func:`preload`: a lower CPU priority, its CPUs,
the games warmed). The job functions themselves are above the features whose computations they
run (:mod:`metrogames.web.work`), and given to the backends as a :class:`~.kinds.Work`.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from metrogames.games import game_names, load_game, load_plugins
from metrogames.i18n import Message
from metrogames.web.errors import RoomError
from metrogames.web.infra.config import cpu_list
from metrogames.web.infra.jobs.kinds import KINDS
from metrogames.web.infra.jobs.shapes import Answer, JobPayload, JobValue, RefusalJson

Jobs = Mapping[str, Callable[..., JobValue]]
"""The job functions by kind (``...``: each takes its own kind's payload)."""


@dataclass
class ProcessSetup:
    """How this job process runs its jobs, set by :func:`preload`: ``idle``, a client's chosen
    jobs on the idle policy (``METROGAMES_JOB_IDLE``)."""

    idle: bool = True


SETUP = ProcessSetup()


def run(jobs: Jobs, kind: str, job: JobPayload) -> Answer:
    """Run the job ``kind`` on ``job`` (its function in ``jobs``, by kind): ``{"value": <its
    JSON>}``, ``{"refused": <a refusal>}`` for a :class:`~metrogames.web.errors.RoomError`
    (:func:`refusal_json`), or ``{"failed": <the traceback's text>}``, each with ``"pid"``, the
    process that ran it, and ``"seconds"``, its run time. Never raises (an answer crosses any
    process boundary).

    A kind whose cost a client chooses (:attr:`~.kinds.Kind.chosen`) runs in a thread of its
    own on the idle scheduling policy (:func:`idle_thread`) unless :data:`SETUP` says not to;
    a bot's decision runs as the process does (niced, batch: :func:`lower_priority`)."""
    known = KINDS.get(kind)
    if SETUP.idle and known is not None and known.chosen:
        return idle_thread(_run, jobs, kind, job)
    return _run(jobs, kind, job)


def idle_thread(
    function: Callable[[Jobs, str, JobPayload], Answer], jobs: Jobs, kind: str, job: JobPayload
) -> Answer:
    """``function(jobs, kind, job)`` run in a new thread on Linux's idle scheduling policy
    (``SCHED_IDLE``, per thread: it runs only on a CPU no other task wants, and any task woken
    beside it takes the CPU at once — a move, its database write and its Redis message never
    wait behind it), then its answer. The process's other threads keep their policy, and the
    thread ends with the job, so no privilege is needed to come back from it. Where the system
    has no such policy, as ``function`` would in this thread."""
    answers: list[Answer] = []

    def body() -> None:
        if hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        answers.append(function(jobs, kind, job))

    thread = threading.Thread(target=body, name=f"job-{kind}", daemon=True)
    thread.start()
    thread.join()
    return answers[0] if answers else {"failed": f"the {kind} job's thread ended without an answer"}


def _run(jobs: Jobs, kind: str, job: JobPayload) -> Answer:
    started = time.perf_counter()
    try:
        answer: Answer = {"value": jobs[kind](job)}
    except RoomError as exc:
        answer = {"refused": refusal_json(exc)}
    except Exception:
        answer = {"failed": traceback.format_exc(limit=8)}
    return answer | {"pid": os.getpid(), "seconds": time.perf_counter() - started}


def ready() -> int:
    """Nothing: the job that starts a pool's processes (its answer: this process's id)."""
    return os.getpid()


def refusal_json(exc: RoomError) -> RefusalJson:
    """A refusal as JSON: ``{"status", "reason", "message", "item"}``, a translatable
    message as ``{"template", "params"}`` (its parameters likewise)."""
    return {
        "status": exc.status,
        "reason": exc.reason,
        "message": exc.text.to_json() if exc.text is not None else exc.message,
        "item": exc.item,
    }


def refusal_of(data: RefusalJson) -> RoomError:
    """The :class:`~metrogames.web.errors.RoomError` of :func:`refusal_json`."""
    message = Message.from_json(data["message"]) or data["message"]
    assert isinstance(message, (str, Message))
    return RoomError(data["status"], data["reason"], message, item=data.get("item"))


def lower_priority(nice: int) -> None:
    """Put this process behind the serving processes: ``nice`` steps lower (``os.nice``; 0:
    as it is) and, where the system has it (Linux), the batch scheduling policy
    (``SCHED_BATCH``: a CPU-bound process, never favoured at its wake-ups, so that a serving
    process woken by a message takes the CPU from it at once)."""
    if nice:
        os.nice(nice)
        if hasattr(os, "SCHED_BATCH"):
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def pin(cpus: str) -> None:
    """Let this process run only on the CPUs of ``cpus`` (``METROGAMES_JOB_CPUS``, Linux's list
    notation: :func:`~metrogames.web.infra.config.cpu_list`; empty: as it is), so that the
    others are the serving processes' alone.

    Raises:
        ValueError: a list that names no CPU of this machine.
    """
    chosen = cpu_list(cpus)
    if chosen:
        os.sched_setaffinity(0, chosen)


def preload(
    nice: int = 0, games: bool = True, plugins: str = "", cpus: str = "", idle: bool = True
) -> None:
    """Ready a worker process: lower its CPU priority by ``nice`` (:func:`lower_priority`: the
    serving processes go first), keep it to the CPUs of ``cpus`` (:func:`pin`), register the
    plug-in games the server serves (``plugins``: the ``METROGAMES_GAMES`` targets) and, with
    ``games``, make, view and snapshot one game of each (their lazily built tables filled before
    the first job; the modules are imported with this one); ``idle``: :data:`SETUP`'s."""
    SETUP.idle = idle
    lower_priority(nice)
    pin(cpus)
    if not games:
        return
    load_plugins(plugins.split(","))
    for name in game_names():
        state = load_game(name).new_game(0)
        state.game.from_snapshot(state.view(0).snapshot())
