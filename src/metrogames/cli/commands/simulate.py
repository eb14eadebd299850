"""``metrogames simulate``, ``stats`` and ``deals``: bots play many games (on this machine's
cores or on Ray), their results are summarised and compared, and deal manifests are made
(``docs/notation.md``, "Command line")."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from metrogames.bots.base import bot_codes, make_bot
from metrogames.cli.files import read_documents
from metrogames.cli.lang import _, tr
from metrogames.cli.maps import map_game
from metrogames.cli.optional import optional_value_command
from metrogames.cli.options import game_options, game_options_command, given_flags
from metrogames.cli.report import print_paired, print_summary
from metrogames.core.capabilities import Engine
from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import JsonObject
from metrogames.games import (
    game_engine,
    game_from_options,
    game_names,
    load_game,
    replay_record,
)
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
    pass  # the web extra: imported by serve only
from metrogames.cli.app import (
    JsonFlag,
    Runner,
    _check_out,
    _check_seeds,
    app,
    emit_json,
    err,
    fail,
    out,
    said,
)

LOCAL_RAY = "local"
"""``--ray`` given bare: a new local Ray instance (Ray's own name for one)."""


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
