"""Per-game result lines (``simulate --results``): writing them as games finish, reading them
back for ``stats``, and resuming an interrupted run.

One JSON object per line, in the run's game order (``docs/research.md``, "The simulator's results")::

    {"format": "metrogames-result/1", "game": "london", "index": 0, "seed": 1, "deal": null,
     "bots": ["greedy", "random"], "scores": [131, 97], "winners": [0],
     "components": [{"lines": 112, ..., "total": 131}, {...}]}

``index`` is the game's place in the run (0-based); ``seed`` seeds its bots (and deals it when
``deal`` is ``null``); ``deal`` is the game's line in a deal manifest (0-based) for ``simulate
--deals``. Two runs' games are paired by ``deal`` (manifests) or ``seed`` (seeded runs).

A run is resumable because lines are only ever appended whole and in order: the complete
lines of a file are the run's first games, a partial last line (a write cut short) is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from metrogames.core.errors import RecordError
from metrogames.core.protocol import JsonObject
from metrogames.sim.runner import Result, Task

RESULT_FORMAT = "metrogames-result/1"
RESULT_KEYS = ("format", "game", "index", "seed", "deal", "bots", "scores", "winners", "components")


@dataclass(frozen=True)
class GameResult:
    """One line of a results file: a finished game of a run."""

    game: str
    index: int
    seed: int
    deal: int | None
    bots: tuple[str, ...]
    scores: list[int]
    winners: list[int]
    components: list[dict[str, int]]

    @property
    def key(self) -> tuple[str, int]:
        """What pairs this game with another run's: its manifest line, else its seed."""
        return ("deal", self.deal) if self.deal is not None else ("seed", self.seed)

    def result(self) -> Result:
        return Result(list(self.scores), list(self.winners), list(self.components), None)

    def to_json(self) -> JsonObject:
        return {
            "format": RESULT_FORMAT,
            "game": self.game,
            "index": self.index,
            "seed": self.seed,
            "deal": self.deal,
            "bots": list(self.bots),
            "scores": self.scores,
            "winners": self.winners,
            "components": self.components,
        }

    def line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":")) + "\n"


def game_result(task: Task, index: int, result: Result) -> GameResult:
    """The result line of game ``index`` of a run (its ``task``)."""
    return GameResult(
        task.game,
        index,
        task.seed,
        index if task.deal is not None else None,
        task.bots,
        list(result.scores),
        list(result.winners),
        [dict(c) for c in result.components],
    )


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_result(data: object, where: str) -> GameResult:
    """Read one decoded result line.

    Raises:
        RecordError: not a result line of this format (the message starts with ``where``).
    """

    def need(cond: bool, what: str) -> None:
        if not cond:
            raise RecordError(f"{where}: {what}")

    need(isinstance(data, dict), "a result line must be a JSON object")
    assert isinstance(data, dict)
    need(data.get("format") == RESULT_FORMAT, f"result format must be {RESULT_FORMAT!r}")
    unknown = sorted(set(data) - set(RESULT_KEYS))
    need(not unknown, f"unknown key(s): {', '.join(str(k)[:40] for k in unknown)}")
    need(all(k in data for k in RESULT_KEYS), f"a result line needs {', '.join(RESULT_KEYS)}")
    need(isinstance(data["game"], str), "game must be a string")
    need(_int(data["index"]) and data["index"] >= 0, "index must be a whole number")
    need(_int(data["seed"]) and data["seed"] >= 0, "seed must be a whole number")
    need(data["deal"] is None or (_int(data["deal"]) and data["deal"] >= 0), "bad deal")
    bots = data["bots"]
    need(isinstance(bots, list) and bool(bots) and all(isinstance(b, str) for b in bots), "bad bots")
    n = len(bots)
    scores, winners, comps = data["scores"], data["winners"], data["components"]
    need(isinstance(scores, list) and len(scores) == n and all(map(_int, scores)), "bad scores")
    need(
        isinstance(winners, list) and all(_int(w) and 0 <= w < n for w in winners),
        "bad winners",
    )
    need(
        isinstance(comps, list)
        and len(comps) == n
        and all(isinstance(c, dict) and all(map(_int, c.values())) for c in comps),
        "components must be one object of whole numbers per seat",
    )
    return GameResult(
        data["game"], data["index"], data["seed"], data["deal"], tuple(bots), scores, winners,
        comps,
    )  # fmt: skip


def check_result(line: GameResult, task: Task, index: int, where: str) -> None:
    """Refuse a result line that is not game ``index`` (``task``) of the run being resumed.

    Raises:
        RecordError: another game, bots, seed or deal than this run's.
    """
    want = game_result(task, index, Result([], [], [], None))
    mine = (line.game, line.index, line.seed, line.deal, line.bots)
    theirs = (want.game, want.index, want.seed, want.deal, want.bots)
    if mine != theirs:
        raise RecordError(
            f"{where}: game {line.index} of another run ({line.game}, bots "
            f"{','.join(line.bots)}, seed {line.seed}); this run's game {index} is "
            f"{want.game}, bots {','.join(want.bots)}, seed {want.seed}"
        )


def complete_lines(path: Path) -> list[str]:
    """The complete lines of ``path`` (each ended by a newline); a partial last line, a
    write cut short, is left out. A missing file has none.

    Raises:
        RecordError: the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    end = data.rfind(b"\n")
    if end < 0:
        return []
    try:
        return data[: end + 1].decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 ({exc.reason})") from None


def keep_lines(path: Path, count: int) -> None:
    """Cut ``path`` after its first ``count`` complete lines (dropping a partial last line)."""
    if not path.exists():
        return
    with path.open("rb+") as handle:
        data = handle.read()
        offset = 0
        for _ in range(count):
            offset = data.index(b"\n", offset) + 1
        handle.truncate(offset)


def read_results(path: Path) -> Iterator[GameResult]:
    """The result lines of a results file, in order (blank lines skipped).

    Raises:
        RecordError: an unreadable file or a bad line (named ``FILE:LINE``).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            where = f"{path}:{number}"
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                raise RecordError(f"{where}: not valid JSON") from None
            yield parse_result(data, where)


def append_line(handle: TextIO, text: str) -> None:
    """Write one whole line and flush it, so that an interruption leaves at most a partial
    last line."""
    handle.write(text)
    handle.flush()
