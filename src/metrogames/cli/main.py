"""The ``metrogames`` command (Typer): score, replay, analyse, play, daily, simulate, deals, bench, serve.

Contract: ``docs/notation.md``, "Command line". Every command takes ``--json`` for
machine-readable output on stdout; errors go to stderr with a non-zero exit status and a message
naming the offending item and its reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Required, TextIO, TypedDict

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from metrogames import __version__
from metrogames.bots.analysis import BUDGETS, AnalysisRefusedError
from metrogames.bots.analysis import analyse as analyse_record
from metrogames.bots.base import bot_codes, make_bot
from metrogames.cli.analyse import print_analysis
from metrogames.cli.files import read_documents, read_json
from metrogames.cli.helptext import flow_help
from metrogames.cli.lang import _, say, tr
from metrogames.cli.maps import MapCheck, map_app, map_game
from metrogames.cli.optional import optional_value_command
from metrogames.cli.options import game_options, game_options_command, given_flags
from metrogames.cli.play import play_game, resume_game
from metrogames.cli.report import print_paired, print_sheet, print_summary
from metrogames.core.capabilities import Engine, ScoreSheets
from metrogames.core.errors import IllegalActionError, MetrogamesError, PluginError, message_of
from metrogames.core.protocol import JsonObject
from metrogames.core.rng import MAX_SEED, check_seed
from metrogames.games import (
    game_engine,
    game_from_options,
    game_names,
    game_type,
    load_game,
    load_plugins,
    replay_record,
)
from metrogames.i18n import N_
from metrogames.sim.bench import BENCHMARKS, run_benchmarks
from metrogames.sim.cluster import run_ray
from metrogames.sim.plots import draw
from metrogames.sim.results import (
    append_line,
    check_result,
    complete_lines,
    game_result,
    keep_lines,
    parse_result,
    read_results,
)
from metrogames.sim.runner import Result, SeatSummary, Task, run_many, summarise
from metrogames.sim.stats import Paired, Run, paired

if TYPE_CHECKING:
    from metrogames.web.infra.config import Settings  # the web extra: imported by serve only

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="metrogames: play, score, replay and simulate metro-building board games.",
)


def console_for(**options: Any) -> Console:
    """A Rich console (``options``: :class:`rich.console.Console`'s) for a command's output: in
    a terminal, sentences wrap between words at its width (a map is cut at its edge instead:
    ``render.canvas.Fitted``); into a pipe or a file, each printed line stays one line, for
    scripts to read (an error message among them: ``docs/notation.md``, "Command line")."""
    console = Console(**options)
    console.soft_wrap = not console.is_terminal
    return console


out = console_for()
err = console_for(stderr=True)

LOCAL_RAY = "local"
"""``--ray`` given bare: a new local Ray instance (Ray's own name for one)."""

JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"metrogames {__version__}\n")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """metrogames: play, score, replay and simulate metro-building board games."""


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` to stderr and return the exit to raise."""
    # escaped: messages quote user input ("[from, to]", a name like "[/x]") that rich would
    # otherwise read as markup, dropping text or raising MarkupError
    label = escape(_("error:"))
    err.print(f"[red]{label}[/red] {escape(message)}", markup=True, highlight=False)
    return typer.Exit(code)


def said(exc: BaseException) -> str:
    """An error's message in the terminal's language (an illegal action with its place and
    reason code, as ``play`` shows it; an error raised with plain text stays as it is)."""
    return say(exc.as_message() if isinstance(exc, IllegalActionError) else message_of(exc))


def emit_json(value: object) -> None:
    """One compact JSON document on its own line of stdout (``value``: JSON values, typed
    dicts of them included).

    Raises:
        TypeError: a value ``json`` cannot encode.
    """
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


def _check_out(path: Path) -> None:
    """Refuse (exit 2) an output path that cannot be written: a folder, or in a missing one."""
    if path.is_dir():
        raise fail(tr("cannot write {path}: it is a folder", path=path), 2)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise fail(tr("cannot write {path}: no folder {parent}", path=path, parent=parent), 2)


Runner = Callable[[list[Task]], Iterable[Result]]
"""Plays tasks, yielding their results in order (:func:`_runner`)."""


def _open_out(path: Path, append: bool = False) -> TextIO:
    _check_out(path)
    try:
        return path.open("a" if append else "w", encoding="utf-8")
    except OSError as exc:
        raise fail(tr("cannot write {path}: {why}", path=path, why=exc.strerror), 2) from None


def _runner(use_ray: bool, address: str | None, workers: int) -> Runner:
    """``tasks -> results in order``: worker processes, or Ray (exit 1 without the extra)."""
    if not use_ray:
        return lambda tasks: run_many(tasks, workers)
    try:
        import ray  # noqa: F401  (checked here: a missing extra is a clear error, not a trace)
    except ImportError as exc:
        raise fail(
            f"--ray needs the cluster extra (pip install 'metrogames[cluster]'): {exc}"
        ) from None

    return lambda tasks: run_ray(tasks, address, workers)


def _resumed(
    tasks: list[Task], out_file: Path | None, results_file: Path | None
) -> tuple[list[Result], int]:
    """The finished games of an interrupted run and how many there are: the complete lines
    every output file has (checked to be this run's games); the files are cut after them,
    which repairs a partial last line."""
    counts = []
    lines: dict[Path, list[str]] = {}
    for path in (out_file, results_file):
        if path is not None:
            lines[path] = complete_lines(path)
            counts.append(len(lines[path]))
    done = min(*counts, len(tasks))
    results: list[Result] = []
    for i in range(done):
        if results_file is not None:
            where = f"{results_file}:{i + 1}"
            try:
                line = parse_result(json.loads(lines[results_file][i]), where)
            except ValueError:
                raise fail(tr("{where}: not valid JSON", where=where)) from None
            check_result(line, tasks[i], i, where)
            results.append(line.result())
        else:
            assert out_file is not None
            results.append(_record_result(lines[out_file][i], f"{out_file}:{i + 1}", tasks[i]))
    for path in lines:
        keep_lines(path, done)
    return results, done


def _record_result(text: str, where: str, task: Task) -> Result:
    """The result of a finished game's record line (``--out`` alone), checked to be the
    task's game: its players are the task's bots and its seed the task's."""
    try:
        record = json.loads(text)
    except ValueError:
        raise fail(tr("{where}: not valid JSON", where=where)) from None
    names = [f"bot:{b}" for b in task.bots]
    seed = None if task.deal is not None else task.seed
    if not isinstance(record, dict) or record.get("players") != names or record.get("seed") != seed:
        raise fail(tr("{where}: not this run's game (other bots or seed)", where=where))
    state = replay_record(record)
    if not state.is_over():
        raise fail(tr("{where}: the game is not finished", where=where))
    components = [state.score_components(p) for p in range(len(task.bots))]
    return Result([c["total"] for c in components], state.winners(), components, record)


def _check_seeds(seed: int, count: int) -> None:
    """Exit 2 unless seeds ``seed`` … ``seed + count - 1`` are all valid."""
    try:
        check_seed(seed)
    except ValueError as exc:
        raise fail(f"--seed: {exc}", 2) from None
    if count < 1:
        raise fail("--games must be at least 1", 2)
    if seed + count - 1 > MAX_SEED:
        raise fail(
            f"--seed {seed} with {count} games needs seeds up to {seed + count - 1}, "
            "past the largest seed 2**64-1",
            2,
        )


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
        str, typer.Option(help="Search budget: quick, normal or deep (deterministic).")
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


def _parse_bots(bots: str) -> list[str]:
    codes = [b.strip() for b in bots.split(",") if b.strip()]
    for code in codes:
        try:
            make_bot(code)
        except ValueError as exc:
            raise fail(said(exc), 2) from None
    if not codes:
        raise fail(f"--bots needs at least one bot code (known: {', '.join(bot_codes())})", 2)
    return codes


def _game_of(ctx: typer.Context, game: str | None, default: str | None) -> str:
    """The game a command plays: as given, else ``nextstation`` when ``--map`` is given
    (``docs/maps.md``), else ``default`` (exit 2 when there is none)."""
    if game is not None:
        return game
    if given_flags(ctx).get("map"):
        return map_game()
    if default is None:
        raise fail(f"give a game: one of {', '.join(game_names())} (or --map FILE)", 2)
    return default


def _options(game: str, ctx: typer.Context) -> JsonObject:
    """The options object (JSON form) the command's game option flags ask for (exit 2 on
    misuse)."""
    try:
        return game_options(game, given_flags(ctx))
    except MetrogamesError as exc:
        raise fail(said(exc), 2) from None


@app.command(
    cls=game_options_command(
        "as_json", optional_value_command({"--ray": LOCAL_RAY, "--ray-address": LOCAL_RAY})
    )
)
def simulate(
    ctx: typer.Context,
    bots: Annotated[str, typer.Option(help="Bot codes, one per seat, e.g. greedy,random.")],
    game: Annotated[
        str | None,
        typer.Argument(help=f"One of: {', '.join(game_names())} (nextstation with --map)."),
    ] = None,
    games: Annotated[int | None, typer.Option(help="Number of games (with --seed).")] = None,
    seed: Annotated[int, typer.Option(help="Base seed: game i uses seed+i.")] = 1,
    deals: Annotated[
        Path | None, typer.Option(help="A JSON-lines manifest of deal records.")
    ] = None,
    workers: Annotated[
        int, typer.Option(help="Worker processes (with --ray: the local Ray's CPUs).")
    ] = 1,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write finished records (JSON lines).")
    ] = None,
    results_file: Annotated[
        Path | None,
        typer.Option("--results", help="Write one result line per game as it ends (JSON lines)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="Continue the run in --results/--out after its last complete game."
        ),
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            "--ray-address",
            metavar="[ADDRESS]",
            help="Play on Ray (cluster extra): bare or 'local', a new local instance; "
            "with an address, the Ray cluster there. --ray-address is an alias.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Play bot games with a progress bar, then print a summary of the scores."""
    game = _game_of(ctx, game, None)
    run = _Run(game, bots, games, deals, seed, workers, out_file is not None)
    codes, tasks = _simulate_tasks(ctx, run)
    outputs = _outputs(out_file, results_file, deals)
    if resume and not outputs:
        raise fail("--resume needs --results FILE or --out FILE (the run to continue)", 2)
    runner = _runner(ray is not None, None if ray == LOCAL_RAY else ray, workers)
    try:
        results, done = _resumed(tasks, out_file, results_file) if resume else ([], 0)
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    handles = [_open_out(p, append=resume) for p in outputs]
    record_handle = handles[0] if out_file is not None else None
    result_handle = handles[-1] if results_file is not None else None
    if done:
        err.print(f"resuming after game {done} of {len(tasks)}", highlight=False)
    try:
        _play(runner, tasks, results, (record_handle, result_handle))
    except KeyboardInterrupt:
        err.print(
            f"interrupted after {len(results)} of {len(tasks)} games"
            + ("; --resume continues the run" if outputs else ""),
            highlight=False,
        )
        raise typer.Exit(130) from None
    except MetrogamesError as exc:  # a cluster that cannot be reached, a worker that failed
        raise fail(said(exc)) from None
    finally:
        for handle in handles:
            handle.close()
    summary = summarise(results, len(codes))
    if as_json:
        emit_json(
            {
                "game": game,
                "bots": codes,
                "games": len(results),
                "seats": [_seat_json(codes[i], s) for i, s in enumerate(summary)],
            }
        )
    else:
        print_summary(out, game, codes, len(results), summary)


@dataclasses.dataclass(frozen=True)
class _Run:
    """``simulate``'s flags that choose its games."""

    game: str
    bots: str
    games: int | None
    deals: Path | None
    seed: int
    workers: int
    keep: bool


def _simulate_tasks(ctx: typer.Context, run: _Run) -> tuple[list[str], list[Task]]:
    """``simulate``'s bot codes and games: ``run.games`` dealt from seeds, or the deals of a
    manifest (exit 2 on a bad game, bot, count, worker count or option)."""
    game, deals, seed, keep = run.game, run.deals, run.seed, run.keep
    try:
        engine = game_engine(game)
    except MetrogamesError as exc:
        raise fail(said(exc), 2) from None
    codes = _parse_bots(run.bots)
    if (run.games is None) == (deals is None):
        raise fail("give either --games N or --deals FILE", 2)
    if run.workers < 1:
        raise fail("--workers must be at least 1", 2)
    options = _options(game, ctx)
    if deals is not None and options:
        raise fail("game options cannot be used with --deals: the deals hold the options", 2)
    if deals is not None:
        return codes, _deal_tasks(engine, Task(game, tuple(codes), seed, None, None, keep), deals)
    assert run.games is not None
    return codes, _seed_tasks(Task(game, tuple(codes), seed, options, None, keep), run.games)


def _deal_tasks(engine: Engine, first: Task, deals: Path) -> list[Task]:
    """The games of a deal manifest, each checked to be a deal of ``first``'s game for its
    bots; game ``i`` is ``first`` with the ``i``-th deal and seed ``first.seed + i``."""
    try:
        docs = list(read_documents(deals))
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    tasks = []
    for i, (label, doc) in enumerate(docs):
        if isinstance(doc, MetrogamesError):
            raise fail(said(doc))
        try:
            engine.from_deal(doc, len(first.bots))
        except MetrogamesError as exc:
            raise fail(f"{label}: {said(exc)}") from None
        except ValueError as exc:  # a player count the game does not take
            raise fail(said(exc), 2) from None
        tasks.append(dataclasses.replace(first, seed=first.seed + i, deal=doc))
    _check_seeds(first.seed, len(tasks))  # the bots of game i are seeded seed + i
    return tasks


def _seed_tasks(first: Task, games: int) -> list[Task]:
    """``games`` games: game ``i`` is ``first`` dealt from seed ``first.seed + i`` (its
    options checked on the first deal)."""
    _check_seeds(first.seed, games)  # game i is dealt from seed + i
    try:
        game_from_options(first.game, len(first.bots), first.options).new_game(first.seed)
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2) from None
    return [dataclasses.replace(first, seed=first.seed + i) for i in range(games)]


def _outputs(out_file: Path | None, results_file: Path | None, deals: Path | None) -> list[Path]:
    """The output files given (``--out`` first), checked: two different files, neither the
    ``--deals`` manifest, each writable."""
    outputs = [p for p in (out_file, results_file) if p is not None]
    if (
        out_file is not None
        and results_file is not None
        and out_file.resolve() == results_file.resolve()
    ):
        raise fail("--out and --results must be different files", 2)
    for path in outputs:
        if deals is not None and path.resolve() == deals.resolve():
            raise fail(
                f"{'--out' if path is out_file else '--results'} would overwrite the --deals manifest",
                2,
            )
        _check_out(path)
    return outputs


def _play(
    runner: Runner,
    tasks: list[Task],
    results: list[Result],
    handles: tuple[TextIO | None, TextIO | None],
) -> None:
    """Play the tasks after the ``len(results)`` done, with a progress bar: each result is
    appended to ``results``, its record line to ``handles[0]`` and its result line to
    ``handles[1]`` (where given) as it ends."""
    record_handle, result_handle = handles
    done = len(results)
    first = tasks[0] if tasks else None
    label = f"{first.game}: {','.join(first.bots)}" if first else ""
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as progress:
        bar = progress.add_task(label, total=len(tasks), completed=done)
        stream = runner(tasks[done:])
        try:
            for index, result in enumerate(stream, done):
                results.append(result)
                if record_handle and result.record is not None:
                    append_line(
                        record_handle, json.dumps(result.record, separators=(",", ":")) + "\n"
                    )
                if result_handle:
                    append_line(result_handle, game_result(tasks[index], index, result).line())
                progress.advance(bar)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()


@app.command()
def stats(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Result-line files written by simulate --results, or monthly exports (.jsonl.zst)."
        ),
    ],
    plot: Annotated[
        Path | None, typer.Option(help="Draw the distributions to this .png or .svg file.")
    ] = None,
    seat: Annotated[int, typer.Option(help="The seat compared between two runs.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Summarise results files; with two runs of the same deals (or two seats at one table),
    the per-deal difference with a 95% confidence interval; --plot draws them. Monthly
    exports are summarised by game, mode and player count."""
    from metrogames.web.exports.fileformat import is_export

    if any(is_export(path) for path in files):
        _export_stats(files, as_json)
        return
    if plot is not None:
        if plot.suffix.lower() not in (".png", ".svg"):
            raise fail(f"--plot {plot}: the file must end in .png or .svg", 2)
        _check_out(plot)
    try:
        runs = [_read_run(path, files) for path in files]
        pair = paired(runs, seat)
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    except ValueError as exc:
        raise fail(said(exc), 2) from None
    if as_json:
        emit_json(
            {
                "runs": [
                    {
                        "file": str(path),
                        "game": run.game,
                        "bots": list(run.bots),
                        "games": len(run.games),
                        "seats": [_seat_json(run.bots[i], s) for i, s in enumerate(run.summary())],
                    }
                    for path, run in zip(files, runs, strict=True)
                ],
                "paired": pair.to_json() if pair is not None else None,
            }
        )
    else:
        for run in runs:
            title = f"{run.label}: {run.game}" if len(runs) > 1 else run.game
            print_summary(out, title, list(run.bots), len(run.games), run.summary())
        if pair is not None:
            print_paired(out, pair)
    if plot is not None:
        _plot(runs, pair, plot)


def _export_stats(files: list[Path], as_json: bool) -> None:
    """``stats`` of monthly exports (all the files must be exports)."""
    from metrogames.cli.exports import export_stats
    from metrogames.web.exports.fileformat import is_export

    others = [str(path) for path in files if not is_export(path)]
    if others:
        raise fail(tr("{paths}: not exports (give exports alone)", paths=", ".join(others)), 2)
    try:
        found = [export_stats(path) for path in files]
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    if as_json:
        emit_json({"exports": found})
        return
    for facts in found:
        shown = tr("{file}: {month}, {games} games", **facts)
        if not facts["complete"]:
            shown += " " + _("(the month is not over)")
        out.print(shown, markup=False, highlight=False)
        for g in facts["groups"]:
            line = tr(
                "  {game} {mode}, {players} players: {games} games ({rated} rated), mean score "
                "{mean_score}, bots won {bot_wins} of {bot_seats} bot seats",
                **g,
            )
            out.print(line, markup=False, highlight=False)


def _read_run(path: Path, files: list[Path]) -> Run:
    """The run of a results file (its games all of one game and bots), labelled among
    ``files``."""
    games = list(read_results(path))
    if not games:
        raise fail(tr("{path}: no games", path=path))
    first = games[0]
    for g in games:
        if (g.game, g.bots) != (first.game, first.bots):
            raise fail(
                f"{path}: games of different runs ({g.game} {','.join(g.bots)} "
                f"at game {g.index}, {first.game} {','.join(first.bots)} before)"
            )
    return Run(_run_label(path, files), games)


def _plot(runs: list[Run], pair: Paired | None, plot: Path) -> None:
    """Draw ``stats --plot`` (exit 1 without the plots extra, 2 when it cannot be written)."""
    try:
        draw(runs, pair, plot)
    except ImportError as exc:  # matplotlib is imported when drawing
        raise fail(
            f"--plot needs the plots extra (pip install 'metrogames[plots]'): {exc}"
        ) from None
    except OSError as exc:
        raise fail(tr("cannot write {path}: {why}", path=plot, why=exc.strerror), 2) from None
    err.print(f"plot written to {plot}", highlight=False, markup=False)


def _run_label(path: Path, files: list[Path]) -> str:
    """A run's short name: its file name, or its path when two files share a name."""
    names = [p.name for p in files]
    return path.name if names.count(path.name) == 1 else str(path)


def _seat_json(bot: str, s: SeatSummary) -> JsonObject:
    return {
        "bot": bot,
        "mean": s["score"].mean,
        "std": s["score"].std,
        "min": s["score"].min,
        "max": s["score"].max,
        "wins": s["wins"],
        "components": s["components"],
    }


@app.command("deals")
def make_deals(
    game: Annotated[str, typer.Argument(help=f"One of: {', '.join(game_names())}.")],
    games: Annotated[int, typer.Option(help="Number of deals.")] = 100,
    seed: Annotated[int, typer.Option(help="Base seed: deal i uses seed+i.")] = 1,
    players: Annotated[int | None, typer.Option(help="Players per deal (Metro: 2-6).")] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Output file (default stdout).")
    ] = None,
) -> None:
    """Write a manifest of deal records (JSON lines) for paired bot comparisons."""
    try:
        rules = load_game(game, players=players)
        _check_seeds(seed, games)
        lines = [
            json.dumps(rules.deal_record(seed + i), separators=(",", ":")) for i in range(games)
        ]
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2) from None
    text = "\n".join(lines) + "\n"
    if out_file:
        with _open_out(out_file) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)


@app.command(cls=game_options_command("seed"))
def play(
    ctx: typer.Context,
    game: Annotated[
        str | None,
        typer.Argument(
            help=f"One of: {', '.join(game_names())} (default london; nextstation with --map)."
        ),
    ] = None,
    players: Annotated[int | None, typer.Option(help="Number of players (humans + bots).")] = None,
    bots: Annotated[
        str | None, typer.Option(help="Bot codes for the last seats, e.g. greedy.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Deal seed (random by default).")] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Where to save the record.")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(help="Continue a game saved by this command (its record names its seed)."),
    ] = None,
) -> None:
    """Play in the terminal: solo, hot-seat or against bots; the game is saved as a record."""
    if resume is not None:
        try:
            resume_game(resume, out, input)
        except (MetrogamesError, ValueError) as exc:
            raise fail(said(exc)) from None
        return
    game = _game_of(ctx, game, "london")
    try:
        kind = game_type(game)
    except MetrogamesError as exc:
        raise fail(said(exc), 2) from None
    options = _options(game, ctx)
    codes = _parse_bots(bots) if bots else []
    least = kind.players.start
    n = players if players is not None else max(least, len(codes) + 1 if codes else least)
    if n not in kind.players or len(codes) > n:
        raise fail(
            f"--players must be {least}-{kind.players.stop - 1} and at least the number of "
            f"bots ({len(codes)})",
            2,
        )
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    if out_file is not None:
        _check_out(out_file)
    try:
        check_seed(seed)

        play_game(kind.name, n, codes, options, seed, out_file, out, input)
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2 if isinstance(exc, ValueError) else 1) from None


@app.command()
def daily(
    game: Annotated[str, typer.Argument(help="london or paris.")],
    server: Annotated[str, typer.Option(help="The web table's address.")] = "http://127.0.0.1:8000",
    token_file: Annotated[
        Path, typer.Option("--token-file", help="Where the player token is kept.")
    ] = Path("var/player.json"),
    share: Annotated[
        bool,
        typer.Option("--share/--no-share", help="Show the score on the leaderboard (opt-in)."),
    ] = False,
    name: Annotated[
        str | None, typer.Option(help="Display name for a new player (asked otherwise).")
    ] = None,
    account: Annotated[
        str | None,
        typer.Option(
            envvar="METROGAMES_ACCOUNT",
            help="Sign in to this account to take its ranked attempt (password: "
            "METROGAMES_PASSWORD, or asked). Without it you play as a guest.",
        ),
    ] = None,
) -> None:
    """Play today's daily challenge (London or Paris) against a web table server."""
    try:
        from metrogames.cli.daily import DailyError, play_daily
    except ImportError as exc:
        raise fail(
            f"the daily client needs the web extra (pip install 'metrogames[web]'): {exc}"
        ) from None
    try:
        play_daily(
            game,
            server,
            token_file,
            out,
            input,
            share=share,
            name=name,
            account=account,
            password=_password,
        )
    except DailyError as exc:
        raise fail(exc.message, exc.code) from None
    except MetrogamesError as exc:
        raise fail(said(exc)) from None


def _password(prompt: str) -> str:
    """``METROGAMES_PASSWORD``, or the password typed without echo."""
    secret = os.environ.get("METROGAMES_PASSWORD")
    if secret:
        return secret
    return str(typer.prompt(prompt.rstrip(": "), hide_input=True))


@app.command()
def bench(
    game: Annotated[str | None, typer.Argument(help="One game, or all.")] = None,
    seconds: Annotated[float, typer.Option(help="Time per measurement (seconds).")] = 3.0,
    as_json: JsonFlag = False,
) -> None:
    """Engine benchmarks (games per second on one core): docs/performance.md."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan
        raise fail("--seconds must be a number from 0.1 to 3600", 2)
    names = [b for b in BENCHMARKS if game is None or b.startswith(game)]
    if not names:
        raise fail(f"no benchmark for {game!r} (known: {', '.join(BENCHMARKS)})", 2)
    results = run_benchmarks(names, seconds, lambda line: err.print(line, highlight=False))
    if as_json:
        emit_json(results)
    else:
        for r in results:
            out.print(
                f"{r['name']:<22} {r['games_per_second']:>8.0f} games/s best, "
                f"{r['median_games_per_second']:>6.0f} median  "
                f"({r['games']} games, mean score {r['mean_score']:.1f})",
                highlight=False,
            )


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on.")] = None,
    port: Annotated[
        int | None, typer.Option(help="Port to listen on (1-65535).", min=1, max=65535)
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL: sqlite:///var/metrogames.db (default) or "
            "postgresql+psycopg://user@host:port/name."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes (1-64); more than one needs PostgreSQL and Redis.",
            min=1,
            max=64,
        ),
    ] = 1,
    redis: Annotated[
        str | None,
        typer.Option(
            help="Redis URL shared by the workers, e.g. redis://127.0.0.1:6379/0 "
            "(or METROGAMES_REDIS_URL)."
        ),
    ] = None,
    job_workers: Annotated[
        int | None,
        typer.Option(
            help="Processes of the play lane's heavy jobs (bots' searches, hints; 0-256; "
            "or METROGAMES_JOB_WORKERS, default 2). With --workers N: RQ job workers started "
            "beside the server (0: none here, run `metrogames jobs worker` elsewhere).",
            min=0,
            max=256,
        ),
    ] = None,
    job_slow_workers: Annotated[
        int | None,
        typer.Option(
            help="Processes of the slow lane (analyses, replays, the daily expert; 0-256; "
            "or METROGAMES_JOB_SLOW_WORKERS, default 1).",
            min=0,
            max=256,
        ),
    ] = None,
) -> None:
    """Serve the web table (needs the web extra); prints its address once it is up. With
    --workers N, N processes share the address, the PostgreSQL database and the Redis
    server, and job workers run the heavy work (hints, bots' searches, analyses) through a
    job queue on that Redis server."""
    try:
        import asyncio  # here: about 50 ms at start, which only serve needs

        import uvicorn
        from sqlalchemy.engine import make_url

        from metrogames.web.app import create_app
        from metrogames.web.infra.config import Settings
        from metrogames.web.server import server_config, settle_heap
    except ImportError as exc:
        raise fail(
            f"the web table needs the web extra (pip install 'metrogames[web]'): {exc}"
        ) from None
    try:
        settings = Settings()
    except ValueError as exc:  # pydantic's ValidationError names the setting and its rule
        raise fail(f"bad setting: {exc}") from None
    settings = settings.model_copy(
        update={
            "host": host or settings.host,
            "port": port or settings.port,
            "db": db or settings.db,
            "redis_url": redis or settings.redis_url,
        }
    )
    _check_listen(settings.host, settings.port)
    try:
        load_plugins(settings.games.split(","))  # each worker loads them again (create_app)
    except PluginError as exc:
        raise fail(f"bad setting METROGAMES_GAMES: {exc}") from None
    if workers > 1:
        plays = settings.job_workers if job_workers is None else job_workers
        slows = settings.job_slow_workers if job_slow_workers is None else job_slow_workers
        _serve_workers(settings, workers, {"play": plays, "slow": slows})
        return
    if job_workers == 0 or job_slow_workers == 0:
        raise fail("the single-process start needs at least one process per job lane", 2)
    settings = settings.model_copy(
        update={
            "job_workers": job_workers or settings.job_workers,
            "job_slow_workers": job_slow_workers or settings.job_slow_workers,
        }
    )
    try:
        application = create_app(settings)
        shown_db = make_url(settings.db).render_as_string(hide_password=True)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    settle_heap()
    server = uvicorn.Server(server_config(application, settings))

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started:
            out.print(
                f"metrogames web table on http://{settings.host}:{settings.port}/ "
                f"(database {shown_db}); Ctrl-C stops it",
                highlight=False,
                markup=False,
            )
        await task

    # uvicorn's own event loop (uvloop where installed, as its workers use): its transports
    # are C, not the standard loop's Python
    loop_factory = server.config.get_loop_factory()
    with contextlib.suppress(SystemExit), asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(run())  # uvicorn exits when it cannot bind (it logs why)
    if not server.started:
        raise fail(f"could not listen on {settings.host}:{settings.port}")


def _serve_workers(settings: Settings, workers: int, job_workers: dict[str, int]) -> None:
    """``serve --workers N``: migrate once, start the RQ job workers (``job_workers``: lane →
    processes), then run N uvicorn workers whose settings come from the environment (set
    here from the options); the job workers are stopped with them."""
    from sqlalchemy.engine import make_url
    from uvicorn.supervisors import Multiprocess

    from metrogames.web.infra.db import migrate, open_database
    from metrogames.web.infra.jobs.worker import start_workers, stop_workers
    from metrogames.web.server import worker_config

    if make_url(settings.db).get_backend_name() != "postgresql":
        raise fail("several workers need a PostgreSQL database (--db postgresql+psycopg://...)", 2)
    if not settings.redis_url:
        raise fail("several workers need a Redis server (--redis redis://host:port/0)", 2)
    try:
        engine = open_database(settings.db)
        migrate(engine)
        engine.dispose()
    except Exception as exc:
        raise fail(f"cannot open the database: {exc}") from None
    os.environ.update(
        METROGAMES_HOST=settings.host,
        METROGAMES_PORT=str(settings.port),
        METROGAMES_DB=settings.db,
        METROGAMES_REDIS_URL=settings.redis_url,
    )
    shown_db = make_url(settings.db).render_as_string(hide_password=True)
    jobs = ", ".join(f"{n} {lane}" for lane, n in job_workers.items() if n) or "none here"
    out.print(
        f"metrogames web table on http://{settings.host}:{settings.port}/ "
        f"({workers} workers, job workers: {jobs}; database {shown_db}); Ctrl-C stops it",
        highlight=False,
        markup=False,
    )
    config = worker_config(settings, workers)
    sockets = [config.bind_socket()]
    with contextlib.ExitStack() as stack:
        if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # /metrics of any worker answers for all of them (prometheus-client's multiprocess
            # mode needs a folder of its own, emptied at each start)
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="metrogames-metrics-"))
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
        processes = start_workers(settings.redis_url, job_workers)
        stack.callback(stop_workers, processes)
        Multiprocess(config, sockets=sockets).run()


def _check_listen(host: str, port: int) -> None:
    """Exit with a message (before touching the database) when ``host``:``port`` cannot be
    listened on: a port out of range, an unknown address, a port in use."""
    if not 1 <= port <= 65535:
        raise fail(f"port {port} is not a port number (1-65535)", 2)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


app.add_typer(map_app, name="map")

jobs_app = typer.Typer(no_args_is_help=True, help="The web table's heavy-job workers.")
app.add_typer(jobs_app, name="jobs")


@jobs_app.command("worker")
def jobs_worker(
    redis: Annotated[
        str | None,
        typer.Option(help="The serving workers' Redis URL (or METROGAMES_REDIS_URL)."),
    ] = None,
    lanes: Annotated[
        str,
        typer.Option(help="Comma-separated lanes to take jobs from, first first: play, slow."),
    ] = "play,slow",
    count: Annotated[int, typer.Option(help="Worker processes (1-256).", min=1, max=256)] = 1,
) -> None:
    """Run job workers for `serve --workers N` on this machine (needs the web extra): they
    take the heavy jobs (bots' searches, hints, analyses, replays, the daily expert) from the
    Redis job queue until stopped (SIGTERM or Ctrl-C stops the job running, too)."""
    try:
        from metrogames.web.infra.jobs.worker import (
            check_lanes,
            run_worker,
            start_workers,
            stop_workers,
        )
    except ImportError as exc:
        raise fail(f"job workers need the web extra (pip install 'metrogames[web]'): {exc}") from None
    url = redis or os.environ.get("METROGAMES_REDIS_URL")
    if not url:
        raise fail("job workers need the Redis server (--redis redis://host:port/0)", 2)
    try:
        chosen = check_lanes([lane.strip() for lane in lanes.split(",") if lane.strip()])
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    out.print(f"job workers: {count} on {', '.join(chosen)}; Ctrl-C stops them", highlight=False)
    if count == 1:
        with contextlib.suppress(KeyboardInterrupt):
            run_worker(url, chosen)
        return
    processes = start_workers(url, {",".join(chosen): count}, lanes_of=chosen)
    try:
        for process in processes:
            process.join()
    except KeyboardInterrupt:
        pass
    finally:
        stop_workers(processes)


bot_app = typer.Typer(no_args_is_help=True, help="A bot account's reference client.")
app.add_typer(bot_app, name="bot")


@bot_app.command("run")
def bot_run(
    server: Annotated[
        str, typer.Option("--server", help="The server's URL, e.g. http://localhost:8000.")
    ],
    token_file: Annotated[
        Path, typer.Option("--token-file", help="A file holding the bot account's API token.")
    ],
    level: Annotated[
        str, typer.Option("--level", help="The bot that decides (a level or algorithm).")
    ] = "expert",
    games: Annotated[
        int | None,
        typer.Option("--games", min=1, help="Stop after this many games (default: never)."),
    ] = None,
) -> None:
    """Play as a bot account through the public bot API only: accept the challenges of the
    games it declares, play each game it is seated in (docs/web-api.md, "Bot accounts")."""
    from metrogames.cli.botclient import BotClient

    try:
        token = token_file.read_text(encoding="utf-8").strip()
        client = BotClient(server, token, level, games)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    client.run()


ratings_app = typer.Typer(
    no_args_is_help=True, help="Ratings of online play in the web table's database."
)
app.add_typer(ratings_app, name="ratings")


@ratings_app.command("recompute")
def ratings_recompute(
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL (default: METROGAMES_DB, else sqlite:///var/metrogames.db)."
        ),
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Store the recomputed ratings in place of the stored.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Rate every rated online game again from its stored actions, in the order they were
    rated, and compare with the stored ratings: exit 0 when they match number for number,
    1 (listing the differences) when not; --write stores the recomputed ones."""
    try:
        from metrogames.web.infra.config import Settings
        from metrogames.web.infra.db import migrate, open_database, session_factory
        from metrogames.web.ratings.service import check_database
    except ImportError as exc:
        raise fail(f"ratings need the web extra (pip install 'metrogames[web]'): {exc}") from None
    try:
        engine = open_database(db or Settings().db)
        migrate(engine)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    try:
        result = check_database(session_factory(engine), store=write)
    finally:
        engine.dispose()
    if as_json:
        emit_json(
            {"games": result.games, "ratings": result.ratings, "differences": result.differences}
        )
    else:
        out.print(
            f"{result.games} rated games replayed, {result.ratings} ratings recomputed: "
            + (
                "they match the stored ratings"
                if not result.differences
                else f"{len(result.differences)} differ from the stored ratings"
            ),
            highlight=False,
        )
        for line in result.differences:
            out.print(line, highlight=False, markup=False)
    if result.differences and not write:
        raise typer.Exit(1)


@app.command("export")
def export_month(
    month: Annotated[str, typer.Option(help="The month exported, YYYY-MM (UTC).")],
    out_file: Annotated[Path, typer.Option("--out", help="The export file, NAME.jsonl.zst.")],
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL (default: METROGAMES_DB, else sqlite:///var/metrogames.db)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Write the month's export of every finished online and daily game (docs/exports.md),
    one game at a time, and its checksum beside it (FILE.sha256); a month not over is
    exported up to now and says so."""
    import time

    try:
        from metrogames.web.errors import RoomError
        from metrogames.web.exports.fileformat import SUFFIX, write_export
        from metrogames.web.exports.games import MonthGames
        from metrogames.web.exports.months import parse_month
        from metrogames.web.exports.service import export_secret
        from metrogames.web.infra.config import Settings
        from metrogames.web.infra.db import migrate, open_database, session_factory
    except ImportError as exc:
        raise fail(f"export needs the web extra (pip install 'metrogames[web]'): {exc}") from None
    if not out_file.name.endswith(SUFFIX):
        raise fail(
            tr("--out {path}: the file must end in {suffix}", path=out_file, suffix=SUFFIX), 2
        )
    _check_out(out_file)
    try:
        chosen = parse_month(month)
    except RoomError as exc:
        raise fail(f"--month: {say(exc.text) if exc.text else exc.message}", 2) from None
    settings = Settings()
    try:
        engine = open_database(db or settings.db)
        migrate(engine)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    try:
        sessions = session_factory(engine)
        games = MonthGames(
            sessions, export_secret(sessions, settings.export_secret), chosen, time.time()
        )
        counted = _Counted(games.lines())
        size, sha256 = write_export(out_file, games.header(), counted)
    except OSError as exc:
        raise fail(tr("cannot write {path}: {why}", path=out_file, why=exc.strerror), 2) from None
    finally:
        engine.dispose()
    facts = {
        **games.header(),
        "games": counted.count,
        "file": str(out_file),
        "bytes": size,
        "sha256": sha256,
    }
    if as_json:
        emit_json(facts)
    else:
        line = tr(
            "{games} games of {month} written to {file} ({bytes} bytes, sha256 {sha256})", **facts
        )
        if not facts["complete"]:
            line += " " + tr("(the month is not over: games until {until})", until=facts["until"])
        out.print(line, markup=False, highlight=False)


class _Counted(Iterable[Any]):
    """An iterable that counts what it hands on (``count``)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items
        self.count = 0

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.count += 1
            yield item


flow_help(app)  # last: every command is registered


train_app = typer.Typer(
    no_args_is_help=True, help="Offline training for the bots (docs/research.md)."
)
app.add_typer(train_app, name="train")


@train_app.command("value")
def train_value(
    game: Annotated[str, typer.Argument(help="A game with value features: london, paris.")],
    games: Annotated[int, typer.Option(help="Training games (game i: the deal of seed+i).")] = 2000,
    out_file: Annotated[Path, typer.Option("--out", help="The weights file to write (.npz).")] = Path(
        "weights.npz"
    ),
    seed: Annotated[int, typer.Option(help="Base seed: deals, behaviour bot, first weights.")] = 1,
    deals: Annotated[
        Path | None, typer.Option(help="A JSON-lines manifest of deal records instead of seeds.")
    ] = None,
    target: Annotated[str, typer.Option(help="deep (the game's deep estimate) or final.")] = "deep",
    explore: Annotated[float, typer.Option(help="Probability of a random decision.")] = 0.1,
    hidden: Annotated[int, typer.Option(help="Hidden tanh units (0: linear).")] = 32,
    steps: Annotated[int, typer.Option(help="Full-batch Adam steps.")] = 1500,
    checkpoint: Annotated[
        Path | None, typer.Option(help="Keep the run's progress in this .npz file.")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Continue the run kept in this checkpoint (and keep it).")
    ] = None,
) -> None:
    """Train a position value for the value search (`valuesearch`) and write its weights:
    reproducible from the command and its seed (docs/research.md, "A learned position value")."""
    try:
        from metrogames.bots.value import WeightsError
        from metrogames.bots.value_train import TrainConfig, train
    except ImportError as exc:
        raise fail(f"training needs numpy (pip install 'metrogames[rl]'): {exc}") from None
    if game not in game_names():
        raise fail(f"unknown game {game!r} (known: {', '.join(game_names())})", 2)
    records: list[object] | None = None
    if deals is not None:
        records = _training_deals(game, deals)
        games = len(records)
    config = TrainConfig(game, games, seed, target, explore, hidden, steps)
    kept = resume or checkpoint
    _check_seeds(seed, games)
    _check_out(out_file)
    try:
        model = train(config, kept, records, lambda line: err.print(line, highlight=False),
                      resume=resume is not None)
    except WeightsError as exc:
        raise fail(str(exc)) from None
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2) from None
    try:
        model.save(out_file)
    except OSError as exc:
        raise fail(f"cannot write {out_file}: {exc.strerror}", 2) from None
    out.print(f"{out_file}: {json.dumps(model.training)}", highlight=False)


def _training_deals(game: str, deals: Path) -> list[object]:
    """The deal records of a training manifest, each checked to be a solo deal of ``game``
    (exit 1 naming the line)."""
    engine = game_engine(game)
    try:
        docs = list(read_documents(deals))
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    for label, doc in docs:
        if isinstance(doc, MetrogamesError):
            raise fail(said(doc))
        try:
            engine.from_deal(doc, 1)
        except MetrogamesError as exc:
            raise fail(f"{label}: {said(exc)}") from None
        except ValueError as exc:  # a game that takes no solo deal
            raise fail(said(exc), 2) from None
    return [doc for _, doc in docs]
