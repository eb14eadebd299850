"""The command line's side of open data (``docs/exports.md``): ``export`` writes a month's
export from a database; ``replay`` and ``stats`` read export files directly, one line at a
time (:mod:`metrogames.web.exports.fileformat`: it needs zstandard only, not the web extra)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from metrogames.core.errors import RecordError
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.i18n import verbatim
from metrogames.web.exports.fileformat import ExportError, read_export


def _read(path: Path) -> Iterator[tuple[int, JsonObject]]:
    """:func:`read_export`, its refusals as :class:`RecordError` (the command's error)."""
    try:
        yield from read_export(path)
    except ExportError as exc:
        raise RecordError(verbatim(str(exc))) from None
    except OSError as exc:
        raise RecordError(verbatim(f"cannot read {path}: {exc.strerror or exc}")) from None


def export_records(path: Path) -> Iterator[tuple[str, JsonValue]]:
    """Each game's record of the export at ``path``, labelled ``FILE:LINE`` (as
    :func:`~metrogames.cli.files.read_documents` labels a JSON-lines file's).

    Raises:
        RecordError: the file is not a whole, unchanged export (raised where the reading
            finds it: after the games before a bad line, or after the last game for a bad
            checksum).
    """
    for number, document in _read(path):
        if number > 1:
            record: JsonValue = document.get("record")
            yield f"{path.name}:{number}", record


@dataclass
class Group:
    """The games of one (game, mode, player count) in an export: how many, how many rated,
    the sum of the seats' scores, the bots' seats and the bots' wins."""

    games: int = 0
    rated: int = 0
    score_sum: float = 0.0
    seats: int = 0
    bot_seats: int = 0
    bot_wins: int = 0


class GroupStats(TypedDict):
    """One (game, mode, player count) of :func:`export_stats`."""

    game: str
    mode: str
    players: int
    games: int
    rated: int
    mean_score: float | None
    bot_seats: int
    bot_wins: int


class ExportStats(TypedDict):
    """What :func:`export_stats` gives."""

    file: str
    month: JsonValue
    complete: JsonValue
    games: int
    groups: list[GroupStats]
    kinds: dict[str, int]


def export_stats(path: Path) -> ExportStats:
    """``{"file", "month", "complete", "games", "groups": [{"game", "mode", "players",
    "games", "rated", "mean_score", "bot_seats", "bot_wins"}], "kinds": {kind: seats}}`` of
    the export at ``path`` (``mean_score``: over every seat; ``bot_wins``: bot seats among
    the winners).

    Raises:
        RecordError: as :func:`export_records`.
    """
    header: JsonObject = {}
    groups: dict[tuple[str, str, int], Group] = defaultdict(Group)
    kinds: Counter[str] = Counter()
    total = 0
    for number, document in _read(path):
        if number == 1:
            header = document
            continue
        listed = document.get("seats")
        seats = [seat for seat in listed if is_object(seat)] if isinstance(listed, list) else []
        group = groups[(str(document.get("game")), str(document.get("mode")), len(seats))]
        group.games += 1
        group.rated += bool(document.get("rated"))
        total += 1
        for seat in seats:
            kinds[str(seat.get("kind"))] += 1
            group.seats += 1
            score = seat.get("score")
            group.score_sum += float(score) if isinstance(score, int | float) else 0.0
            if seat.get("kind") == "bot":
                group.bot_seats += 1
                group.bot_wins += bool(seat.get("winner"))
    return {
        "file": str(path),
        "month": header.get("month"),
        "complete": header.get("complete"),
        "games": total,
        "groups": [
            {
                "game": game,
                "mode": mode,
                "players": players,
                "games": g.games,
                "rated": g.rated,
                "mean_score": round(g.score_sum / g.seats, 2) if g.seats else None,
                "bot_seats": g.bot_seats,
                "bot_wins": g.bot_wins,
            }
            for (game, mode, players), g in sorted(groups.items())
        ],
        "kinds": dict(sorted(kinds.items())),
    }
