"""The plain JSON each kind of heavy job takes and gives (:mod:`metrogames.web.work` runs them), the
envelope its answer travels in between processes, and how a job is asked for (:class:`How`).

A payload is a typed dict per kind (``decide``: :class:`DecideJob`, ``hint``:
:class:`HintJob`, …); :meth:`~metrogames.web.infra.jobs.service.Jobs.run` checks, for each
kind named as a literal, that its caller sends that kind's payload and says what the caller
gets back. This module imports nothing of the server: the rooms, accounts and daily services
name these types without importing the jobs' code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NotRequired

from typing_extensions import TypedDict

from metrogames.core.protocol import JsonObject, JsonValue

OpenDealsJson = dict[str, list[str]]
"""Today's daily deals, by game: their chance outcomes
(:data:`metrogames.web.daily.open_deals.OpenDeals`): a record on one of them is refused."""


class PositionJob(TypedDict):
    """A seat's view as a job carries it: the game's ``game`` name, ``players`` and
    ``options`` (``docs/notation.md``, "Options"), the view's ``snapshot`` (``docs/notation.md``,
    "Position snapshot") and the ``seat``."""

    game: str
    players: int
    options: JsonObject
    snapshot: str
    seat: int


class DecideJob(PositionJob):
    """``decide``: the bot ``bot`` (its level code), seeded with ``seed``, decides for ``seat``."""

    bot: str
    seed: int


class DecideAnswer(TypedDict):
    """``decide``'s answer: the action in its game's JSON notation (``docs/notation.md``)."""

    action: JsonValue


class HintJob(PositionJob):
    """``hint``: the coach's ``k`` best moves for ``seat`` (seeded with ``seed``) and its
    estimate of the action ``about`` (its JSON; ``None``: none asked about)."""

    about: JsonValue
    seed: int
    k: int


HintAnswer = JsonObject
"""``hint``'s answer: ``{"figure", "moves", "about"}``
(:meth:`metrogames.bots.coach.Hints.to_json`)."""


class ReplayJob(TypedDict):
    """``replay``: a decoded ``record`` (``docs/notation.md``, "Game record"), refused when on
    one of the ``open`` deals."""

    record: JsonValue
    open: NotRequired[OpenDealsJson]


class AnalysisJob(ReplayJob):
    """``analysis``: as :class:`ReplayJob`, searched with the ``budget`` (e.g. ``"10s"``)."""

    budget: str


class ExpertJob(TypedDict):
    """``expert``: the bot ``bot`` plays the ``game``'s deal of ``seed`` to the end."""

    game: str
    seed: int
    bot: str


class MapCheckJob(TypedDict):
    """``mapcheck``: the checker's report on the decoded ``map`` (``docs/maps.md``, "The
    checker")."""

    map: JsonValue


MapCheckAnswer = JsonObject
"""``mapcheck``'s answer: ``{"valid", "problems", "counts", "hash"}`` (``map check --json``)."""


class MapReportJob(TypedDict):
    """``mapreport``: how ``game`` with ``options`` plays (a custom map: ``{"map": …}``;
    ``docs/web-api.md``, "Maps")."""

    game: str
    options: JsonObject


MapReportAnswer = JsonObject
"""``mapreport``'s answer: ``{"deals", "levels", "stations", "links"}``
(:func:`metrogames.web.rooms.mapreports.map_report_json`)."""


class HashJob(TypedDict):
    """``hash``: the argon2id PHC string of ``password``."""

    password: str


class VerifyJob(TypedDict):
    """``verify``: whether ``password`` is the one ``stored`` (a PHC string) was made of."""

    stored: str
    password: str


class VerifyAnswer(TypedDict):
    """``verify``'s answer: the password is right (``ok``); ``stored`` was made with older
    parameters and is to be replaced (``rehash``)."""

    ok: bool
    rehash: bool


class ProbeJob(TypedDict, total=False):
    """``probe``: wait ``seconds`` (0 when left out), then give the worker's process id."""

    seconds: float


JobPayload = (
    DecideJob
    | HintJob
    | MapCheckJob
    | MapReportJob
    | ReplayJob
    | AnalysisJob
    | ExpertJob
    | HashJob
    | VerifyJob
    | ProbeJob
)
"""The payload of one of the kinds."""

JobValue = DecideAnswer | HintAnswer | VerifyAnswer | str | int
"""The answer of one of the kinds: ``decide`` :class:`DecideAnswer`, ``hint`` :data:`HintAnswer`
(``mapcheck`` :data:`MapCheckAnswer` and ``mapreport`` :data:`MapReportAnswer` likewise JSON
objects),
``verify`` :class:`VerifyAnswer`, ``analysis`` and ``replay`` JSON text, ``hash`` a PHC
string, ``expert`` a score, ``probe`` a process id. Which one is the kind's."""


class How(TypedDict, total=False):
    """How a job is asked for (:meth:`~metrogames.web.infra.jobs.service.Jobs.run`'s keyword
    arguments): its ``key`` (the content it is computed from; ``None``: a job of its own), the
    requesters ``who`` (quota keys) and ``on_start`` (run only when a new job is queued)."""

    key: str | None
    who: Sequence[str]
    on_start: Callable[[], object] | None


class RefusalJson(TypedDict):
    """A :class:`~metrogames.web.errors.RoomError` as JSON
    (:func:`~metrogames.web.infra.jobs.process.refusal_json`): ``message`` is English text or a
    translatable message as ``{"template", "params"}`` (its parameters likewise, else plain
    JSON values)."""

    status: int
    reason: str
    message: object
    item: dict[str, object] | None


class Answer(TypedDict, total=False):
    """What a job's process gives back (:func:`~metrogames.web.infra.jobs.process.run`): one of
    ``value`` (the kind's :data:`JobValue`), ``refused`` or ``failed`` (the traceback's text),
    with ``pid`` (the process that ran it) and ``seconds`` (its run time); or, made by the
    serving process, ``busy`` (its lane's queue was full) or ``stopping`` (the server stops)."""

    value: JobValue
    refused: RefusalJson
    failed: str
    pid: int
    seconds: float
    busy: bool
    stopping: bool
