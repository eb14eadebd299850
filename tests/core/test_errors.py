"""Every exception type of the project crosses a process boundary intact.

A worker process hands its exception to the parent by pickling it; an exception that does not
unpickle (``Exception`` rebuilds itself as ``cls(*args)``) used to hang a ``multiprocessing``
pool. Each class is listed here with an instance; a new exception class that is not listed
fails :func:`test_every_exception_class_is_listed`.
"""

from __future__ import annotations

import importlib
import multiprocessing
import pickle
import pkgutil

import pytest

import metrogames
from metrogames.bots.analysis import AnalysisRefusedError
from metrogames.bots.value import WeightsError
from metrogames.cli.daily import DailyError, RefusalError
from metrogames.cli.prompt import QuitGame
from metrogames.core.errors import (
    DataError,
    GameOverError,
    IllegalActionError,
    MetrogamesError,
    NotationError,
    NotYourTurnError,
    OptionError,
    PluginError,
    RecordError,
    Where,
)
from metrogames.i18n import N_, msg
from metrogames.sim.cluster import ClusterError
from metrogames.web.errors import RoomError
from metrogames.web.exports.fileformat import ExportError

INSTANCES: list[BaseException] = [
    MetrogamesError("base"),
    NotationError("unknown station 'Z9' on the London map"),
    DataError("london.json: 52 stations, not 53"),
    RecordError('a record needs "players"'),
    OptionError("london takes 1 to 4 players, not 5"),
    IllegalActionError("crosses-section", "section D3-G3 crosses the pink section", Where(2, 4, 0)),
    NotYourTurnError("not-your-turn", "player 1 is not to move now", Where(turn=3)),
    GameOverError("game-over", "the game is over"),
    RoomError(409, "seat-taken", "seat 1 is not open"),
    RoomError(409, "seat-taken", msg(N_("seat {seat} is not open"), seat=1)),
    NotYourTurnError.of(
        "not-your-turn", msg(N_("player {player} is not to move now"), player=1), Where(turn=3)
    ),
    DailyError("no daily challenge on this server", 2),
    RefusalError(409, "already played today", "attempt-used"),
    QuitGame(),
    ClusterError("cannot start or reach the Ray cluster at ray://head:10001: timeout"),
    AnalysisRefusedError("not-solo", "only a solo game can be analysed"),
    PluginError("plug-in game 'mygo:GO': cannot import module 'mygo'"),
    WeightsError("london.npz: corrupt (its checksum does not match its arrays)"),
    ExportError("2026-11.jsonl.zst line 3: the checksum does not match"),
]


def _fields(exc: BaseException) -> dict[str, object]:
    return {k: v for k, v in vars(exc).items() if not k.startswith("__")}


@pytest.mark.parametrize("exc", INSTANCES, ids=lambda e: type(e).__name__)
def test_exception_pickles_with_its_fields(exc: BaseException) -> None:
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc)
    assert str(back) == str(exc)
    assert _fields(back) == _fields(exc)


def test_every_exception_class_is_listed() -> None:
    for info in pkgutil.walk_packages(metrogames.__path__, "metrogames."):
        if ".migrations" in info.name:
            continue  # Alembic's env.py runs a migration when imported
        importlib.import_module(info.name)
    found = set()
    stack: list[type[BaseException]] = [BaseException]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            if sub.__module__.startswith("metrogames.") and not sub.__name__.startswith("_"):
                found.add(sub)
    assert found == {type(e) for e in INSTANCES}


def _raise_illegal(seat: int) -> int:
    raise IllegalActionError("not-an-end", f"seat {seat}: E4 is not an end", Where(1, 2, seat))


def test_worker_exception_reaches_the_parent() -> None:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        result = pool.map_async(_raise_illegal, [3])
        with pytest.raises(IllegalActionError) as info:
            result.get(timeout=60)
    assert info.value.reason == "not-an-end"
    assert info.value.where == Where(1, 2, 3)
    assert str(info.value) == "round 1, turn 2, player 3: seat 3: E4 is not an end (not-an-end)"
