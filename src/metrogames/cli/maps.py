"""``metrogames map``: custom Next Station maps on the command line (``docs/maps.md``).

``map check FILE`` prints the checker's problems, one a line, or the map's counts and content
hash; :class:`MapCheck` is ``replay --map``'s test that a record was played on a given map.
Both reach the engine through the registry and its ``MapChecks`` capability.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.table import Table

from metrogames.cli.files import read_json
from metrogames.cli.lang import _, say, tr
from metrogames.cli.map_report import Row, draw_rows, map_rows
from metrogames.core.capabilities import MapChecks
from metrogames.core.errors import RecordError, message_of
from metrogames.core.protocol import JsonObject
from metrogames.games import game_engine, game_names
from metrogames.i18n import N_, Message

map_app = typer.Typer(no_args_is_help=True, help="Custom Next Station maps (docs/maps.md).")


def map_game() -> str:
    """The game a map is played as (``play --map``, ``simulate --map``): the first game,
    listed or known by name only, whose engine checks maps (``MapChecks``: ``nextstation``).

    Raises:
        RecordError: no registered engine checks maps (not expected: a built-in game has one).
    """
    for name in game_names(unlisted=True):
        if isinstance(game_engine(name), MapChecks):
            return name
    raise RecordError("no game checks maps")


def map_engine() -> MapChecks:
    """The engine of custom maps (:func:`map_game`'s), by its capability."""
    return cast(MapChecks, game_engine(map_game()))


def map_report(path: Path) -> JsonObject:
    """The checker's report on the map file ``path`` (``{"valid", "problems", "codes",
    "counts", "hash", "messages"}``: the engine's, ``MapChecks.check_map``); a file that is
    not JSON is one problem (code ``file``)."""
    try:
        data = read_json(path)
    except RecordError as exc:
        text = message_of(exc)
        return {
            "valid": False,
            "problems": [str(exc)],
            "codes": ["file"],
            "counts": {},
            "hash": None,
            "messages": [cast(JsonObject, {"code": "file", **text.to_json()})],
        }
    return map_engine().check_map(data)


def problem_texts(report: JsonObject) -> list[str]:
    """The report's problems in the terminal's language (``cli.lang``): each of its
    ``messages`` translated, the English ``problems`` where a message is missing."""
    problems = report.get("problems")
    english = [str(p) for p in problems] if isinstance(problems, list) else []
    messages = report.get("messages")
    found = messages if isinstance(messages, list) else []
    texts = [Message.from_json(m) for m in found]
    if len(texts) != len(english) or any(t is None for t in texts):
        return english
    return [say(t) for t in texts if t is not None]


@dataclass(frozen=True)
class MapCheck:
    """``replay --map FILE``: the map's content hash and name, to refuse records of others."""

    path: Path
    hash: str

    @classmethod
    def of(cls, path: Path) -> MapCheck:
        """The check of the map file ``path``.

        Raises:
            RecordError: an invalid map (its first problem named).
        """
        report = map_report(path)
        problems = report["problems"]
        if not report["valid"] or not isinstance(report["hash"], str):
            first = problems[0] if isinstance(problems, list) and problems else "invalid"
            raise RecordError(f"--map {path}: invalid map: {first}")
        return cls(path, report["hash"])

    def mismatch(self, record: object) -> str | None:
        """Why ``record`` (decoded) was not played on this map — ``map hash mismatch``,
        naming both hashes — or ``None`` when it was."""
        played = map_engine().record_map(record)
        if played == self.hash:
            return None
        return (
            f"map hash mismatch: the record is played on {played or 'no known map'}, "
            f"the map {self.path} is {self.hash}"
        )


def print_report(console: Console, path: Path, report: JsonObject) -> None:
    """The report as a designer reads it, in the terminal's language: each problem on its
    own line, or ``valid`` with the hash and the counts to check against the drawing."""
    if not report["valid"]:
        for problem in problem_texts(report):
            console.print(f"{path}: {problem}", markup=False, highlight=False)
        return
    console.print(
        tr("{path}: valid map, {hash}", path=path, hash=report["hash"]),
        markup=False,
        highlight=False,
    )
    table = Table(title=_("counts"), title_style="bold")
    table.add_column(_("what"))
    table.add_column(_("count"), justify="right")
    counts = report["counts"]
    for key, value in (counts if isinstance(counts, dict) else {}).items():
        label = COUNTS.get(key)
        table.add_row(_(label) if label else key.replace("_", " "), str(value))
    console.print(table)


COUNTS = {
    "stations": N_("stations"),
    "links": N_("links"),
    "districts": N_("districts"),
    "river_sections": N_("river sections"),
    "tourist_sites": N_("tourist sites"),
    "monuments": N_("monuments"),
    "departures": N_("departures"),
    "cards": N_("cards"),
    "crossing_link_pairs": N_("crossing link pairs"),
    "objectives": N_("objectives"),
    "powers": N_("powers"),
    "bridges": N_("bridges"),
    "central_district_stations": N_("central district stations"),
}
"""The checker's counts (``docs/maps.md``) in words, by key."""


@map_app.command("check")
def check(
    file: Annotated[Path, typer.Argument(help="A map file (JSON, docs/maps.md).")],
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON on stdout.")] = False,
) -> None:
    """Check a map: every problem on its own line (exit 1), or its counts and content hash."""
    report = map_report(file)
    if as_json:
        shown = {k: report[k] for k in ("valid", "problems", "codes", "counts", "hash")}
        typer.echo(json.dumps(shown, separators=(", ", ": ")))
    else:
        console = Console(stderr=not report["valid"], soft_wrap=True)
        print_report(console, file, report)
    if not report["valid"]:
        raise typer.Exit(1)


@map_app.command("report")
def report(
    file: Annotated[Path, typer.Argument(help="A valid map file (JSON, docs/maps.md).")],
    games: Annotated[int, typer.Option(help="Deals per map and level (seeds --seed…).")] = 10,
    seed: Annotated[int, typer.Option(help="First deal's seed.")] = 1,
    levels: Annotated[str, typer.Option(help="Bot levels, comma-separated.")] = "medium,hard",
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    plot: Annotated[
        Path | None, typer.Option(help="Also draw the report (.png or .svg; plots extra).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The rows as JSON on stdout.")] = False,
) -> None:
    """How a map plays: each level's solo mean score and spread on the same deals, score
    components and link use, beside the family's cities (London, Paris)."""
    checked = map_report(file)
    if not checked["valid"]:
        print_report(Console(stderr=True, soft_wrap=True), file, checked)
        raise typer.Exit(1)
    if games < 1 or workers < 1:
        raise typer.BadParameter("--games and --workers must be at least 1")
    codes = [level.strip() for level in levels.split(",") if level.strip()]
    if plot is not None and plot.suffix.lower() not in (".png", ".svg"):
        raise typer.BadParameter(f"--plot {plot}: the file must end in .png or .svg")
    rows = map_rows(map_game(), read_json(file), codes, range(seed, seed + games), workers)
    if plot is not None:
        try:
            draw_rows(rows, plot)
        except ImportError as exc:
            raise typer.BadParameter(f"--plot needs the plots extra: {exc}") from None
    if as_json:
        typer.echo(json.dumps([row.to_json() for row in rows], separators=(", ", ": ")))
        return
    print_rows(Console(soft_wrap=True), file, games, rows)


def print_rows(console: Console, file: Path, games: int, rows: list[Row]) -> None:
    """The report's table: one row per map and level."""
    names = sorted({name for row in rows for name in row.components if name != "total"})
    table = Table(title=f"{file}: {games} solo deals per map and level", title_style="bold")
    for head in ("map", "level", "mean", "std", "min–max", *names, "links/game", "links used"):
        table.add_column(head, justify="left" if head in ("map", "level") else "right")
    for row in rows:
        s = row.scores
        table.add_row(
            row.map,
            row.level,
            f"{s.mean:.1f}",
            f"{s.std:.1f}",
            f"{s.min:g}–{s.max:g}",
            *(f"{row.components.get(name, 0):.1f}" for name in names),
            f"{row.links_per_game:.1f}",
            f"{row.links_used:.0%}",
        )
    console.print(table)
