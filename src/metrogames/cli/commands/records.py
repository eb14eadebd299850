"""``metrogames score``, ``replay`` and ``analyse``: a game record scored, replayed (or an
export read) and analysed with hindsight (``docs/notation.md``, "Command line")."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Required, TypedDict

import typer

from metrogames.bots.analysis import BUDGETS, AnalysisRefusedError
from metrogames.bots.analysis import analyse as analyse_record
from metrogames.cli.analyse import print_analysis
from metrogames.cli.files import read_documents, read_json
from metrogames.cli.lang import _, tr
from metrogames.cli.maps import MapCheck
from metrogames.cli.report import print_sheet
from metrogames.core.capabilities import ScoreSheets
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.core.rng import check_seed
from metrogames.games import (
    game_engine,
    game_type,
    replay_record,
)
from metrogames.i18n import N_

if TYPE_CHECKING:
    pass  # the web extra: imported by serve only
from metrogames.cli.app import JsonFlag, app, emit_json, err, fail, out, said


@app.command()
def score(
    sheet: Annotated[Path, typer.Argument(help="A score sheet (JSON).")],
    as_json: JsonFlag = False,
) -> None:
    """Check a score sheet's drawing and print its score breakdown."""
    try:
        data = read_json(sheet)
        if isinstance(data, dict) and "format" in data:
            raise fail(
                tr(
                    "{sheet} is a game record, not a score sheet: use metrogames replay",
                    sheet=sheet,
                )
            )
        if not isinstance(data, dict) or "game" not in data:
            raise fail(tr('{sheet}: a score sheet is a JSON object with "game"', sheet=sheet))
        kind = game_type(data["game"])
        engine = game_engine(kind.name)
        if not isinstance(engine, ScoreSheets):
            raise fail(f"{kind.title} has no score sheets")
        result = engine.score_sheet(data)
    except IllegalActionError as exc:  # the drawing breaks a rule: told in the reader's language
        raise fail(str(exc) if as_json else said(exc)) from None
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    if as_json:
        emit_json(result)
    else:
        print_sheet(out, kind.name, result)


class ReplayResult(TypedDict, total=False):
    """``replay --json``'s result for one record (``docs/notation.md``, "Game record")."""

    valid: Required[bool]
    error: str
    """A refused record: the message (English)."""
    reason: str
    """A refused record: the reason code (``bad-json``, ``bad-record``, ``map-mismatch``
    (``replay --map``) or the illegal action's)."""
    round: int
    turn: int
    player: int
    """Where an illegal action was refused (each when known)."""
    finished: bool
    scores: list[int]
    winners: list[int]


def replay_one(data: object) -> ReplayResult:
    """The ``replay --json`` result of one decoded record (never raises on bad input)."""
    return _replayed(data)[0]


def _replayed(data: object, on_map: MapCheck | None = None) -> tuple[ReplayResult, str]:
    """The ``replay --json`` result of one decoded record and, when it is refused, the
    refusal in the terminal's language (``""`` when valid); with ``on_map``, a record played
    on another map than that one is refused (``replay --map``)."""
    if isinstance(data, MetrogamesError):
        return {"valid": False, "error": str(data), "reason": "bad-json"}, said(data)
    if not isinstance(data, dict):
        text = N_("a record must be a JSON object")
        return {"valid": False, "error": text, "reason": "bad-record"}, _(text)
    mismatch = on_map.mismatch(data) if on_map is not None else None
    if mismatch is not None:
        return {"valid": False, "error": mismatch, "reason": "map-mismatch"}, mismatch
    try:
        state = replay_record(data)
    except IllegalActionError as exc:
        result: ReplayResult = {"valid": False, "error": str(exc), "reason": exc.reason}
        where = exc.where
        if where.round is not None:
            result["round"] = where.round
        if where.turn is not None:
            result["turn"] = where.turn
        if where.player is not None:
            result["player"] = where.player
        return result, said(exc)
    except MetrogamesError as exc:
        return {"valid": False, "error": str(exc), "reason": "bad-record"}, said(exc)
    done: ReplayResult = {
        "valid": True,
        "finished": state.is_over(),
        "scores": state.scores(),
        "winners": state.winners(),
    }
    return done, ""


def replay_summary(names: Sequence[object], result: ReplayResult) -> str:
    """``finished; Zoé 78; winner: Zoé`` (the part after the record's label) in the
    terminal's language."""
    parts = [f"{n} {s}" for n, s in zip(names, result.get("scores", []), strict=False)]
    status = _("finished") if result.get("finished") else _("in progress")
    won = ", ".join(str(names[w]) for w in result.get("winners", []) if w < len(names))
    line = f"{status}; " + ", ".join(parts)
    return line + ("; " + tr("winner: {names}", names=won) if won else "")


@app.command()
def replay(
    records: Annotated[
        Path,
        typer.Argument(
            help="A record, a JSON-lines file of records, or a monthly export (.jsonl.zst)."
        ),
    ],
    map_file: Annotated[
        Path | None,
        typer.Option("--map", help="Refuse a record not played on this map (docs/maps.md)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replay records, rejecting the first illegal action of each, and print the scores; an
    export's games are read one at a time and its checksum checked at its end."""
    from metrogames.cli.exports import export_records
    from metrogames.web.exports.fileformat import is_export

    any_bad = False
    documents = export_records(records) if is_export(records) else read_documents(records)
    try:
        on_map = None if map_file is None else MapCheck.of(map_file)
        for label, data in documents:
            result, refusal = _replayed(data, on_map)
            any_bad |= not result["valid"]
            if as_json:
                emit_json(result)
            elif result["valid"]:
                players = data.get("players") if isinstance(data, dict) else None
                names = players if isinstance(players, list) else []
                line = f"{label}: {replay_summary(names, result)}"
                out.print(line, markup=False, highlight=False)
            else:
                shown = refusal if refusal.startswith(f"{label}:") else f"{label}: {refusal}"
                err.print(shown, markup=False, highlight=False)
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    if any_bad:
        raise typer.Exit(1)


@app.command()
def analyse(
    record: Annotated[Path, typer.Argument(help="A finished solo London or Paris record.")],
    budget: Annotated[
        str, typer.Option(help="Search budget: rough, quick, normal or deep (deterministic).")
    ] = "normal",
    seed: Annotated[int, typer.Option(help="Seed of the search.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Hindsight on a finished solo game: the best score found on the same deal with the
    whole deck known, both maps, and the turn that lost most against the expert's estimate."""
    if budget not in BUDGETS:
        raise fail(f"--budget must be one of {', '.join(BUDGETS)}, not {budget!r}", 2)
    try:
        check_seed(seed)
        data = read_json(record)
        with contextlib.nullcontext() if as_json else err.status("Analysing…"):
            result = analyse_record(data, budget, seed)
    except AnalysisRefusedError as exc:
        raise fail(tr("{record}: cannot analyse: {why}", record=record, why=said(exc))) from None
    except (MetrogamesError, ValueError) as exc:
        raise fail(f"{record}: {said(exc)}") from None
    if as_json:
        emit_json(result.to_json())
    else:
        print_analysis(out, result)
