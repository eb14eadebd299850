"""The ``metrogames`` command (Typer): score, replay, play, daily, simulate, deals, bench, serve.

Contract: ``docs/notation.md``, "Command line". Every command takes ``--json`` for
machine-readable output on stdout; errors go to stderr with a non-zero exit status and a message
naming the offending item and its reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from metrogames.cli.options import game_options
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.core.rng import MAX_SEED, check_seed
from metrogames.games import game_from_options, game_names, game_type, load_game, replay_record

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="metrogames: play, score, replay and simulate metro-building board games.",
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _version(value: bool) -> None:
    if value:
        from metrogames import __version__

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
    err.print(f"[red]error:[/red] {escape(message)}", markup=True, highlight=False)
    return typer.Exit(code)


def emit_json(value: Any) -> None:
    """One compact JSON document on its own line of stdout."""
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


def _check_out(path: Path) -> None:
    """Refuse (exit 2) an output path that cannot be written: a folder, or in a missing one."""
    if path.is_dir():
        raise fail(f"cannot write {path}: it is a folder", 2)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise fail(f"cannot write {path}: no folder {parent}", 2)


def _open_out(path: Path) -> Any:
    _check_out(path)
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror}", 2) from None


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
    from metrogames.cli.files import read_json
    from metrogames.cli.report import print_sheet

    try:
        data = read_json(sheet)
        if isinstance(data, dict) and "format" in data:
            raise fail(f"{sheet} is a game record, not a score sheet: use metrogames replay")
        if not isinstance(data, dict) or "game" not in data:
            raise fail(f'{sheet}: a score sheet is a JSON object with "game"')
        kind = game_type(data["game"])
        result = kind.score_sheet(data)
    except MetrogamesError as exc:
        raise fail(str(exc)) from None
    if as_json:
        emit_json(result)
    else:
        print_sheet(out, kind.name, result)


def replay_one(data: Any) -> dict[str, Any]:
    """The ``replay --json`` result of one decoded record (never raises on bad input)."""
    if isinstance(data, MetrogamesError):
        return {"valid": False, "error": str(data), "reason": "bad-json"}
    if not isinstance(data, dict):
        return {"valid": False, "error": "a record must be a JSON object", "reason": "bad-record"}
    try:
        state = replay_record(data)
    except IllegalActionError as exc:
        result: dict[str, Any] = {"valid": False, "error": str(exc), "reason": exc.reason}
        for key in ("round", "turn", "player"):
            value = getattr(exc.where, key)
            if value is not None:
                result[key] = value
        return result
    except MetrogamesError as exc:
        return {"valid": False, "error": str(exc), "reason": "bad-record"}
    return {
        "valid": True,
        "finished": state.is_over(),
        "scores": state.scores(),
        "winners": state.winners(),
    }


@app.command()
def replay(
    records: Annotated[Path, typer.Argument(help="A record, or a JSON-lines file of records.")],
    as_json: JsonFlag = False,
) -> None:
    """Replay records, rejecting the first illegal action of each, and print the scores."""
    from metrogames.cli.files import read_documents

    any_bad = False
    try:
        for label, data in read_documents(records):
            result = replay_one(data)
            any_bad |= not result["valid"]
            if as_json:
                emit_json(result)
            elif result["valid"]:
                names = data.get("players", []) if isinstance(data, dict) else []
                parts = [f"{n} {s}" for n, s in zip(names, result["scores"], strict=False)]
                status = "finished" if result["finished"] else "in progress"
                won = ", ".join(names[w] for w in result["winners"] if w < len(names))
                tail = f"; winner: {won}" if won else ""
                line = f"{label}: {status}; " + ", ".join(parts) + tail
                out.print(line, markup=False, highlight=False)
            else:
                error = result["error"]
                shown = error if error.startswith(f"{label}:") else f"{label}: {error}"
                err.print(shown, markup=False, highlight=False)
    except MetrogamesError as exc:
        raise fail(str(exc)) from None
    if any_bad:
        raise typer.Exit(1)


def _parse_bots(bots: str) -> list[str]:
    from metrogames.bots.base import bot_codes, make_bot

    codes = [b.strip() for b in bots.split(",") if b.strip()]
    for code in codes:
        try:
            make_bot(code)
        except ValueError as exc:
            raise fail(str(exc), 2) from None
    if not codes:
        raise fail(f"--bots needs at least one bot code (known: {', '.join(bot_codes())})", 2)
    return codes


def _options(
    game: str,
    objectives: str | None,
    powers: str | None,
    turn_mode: str | None,
    one_tile_routes: str | None,
) -> dict[str, Any]:
    """The options object (JSON form) the command-line flags ask for; exit 2 on misuse."""
    try:
        return game_options(game, objectives, powers, turn_mode, one_tile_routes)
    except MetrogamesError as exc:
        raise fail(str(exc), 2) from None


ObjectivesOpt = Annotated[
    str | None, typer.Option(help="Next Station objectives: 'random' or two ids, comma-separated.")
]
PowersOpt = Annotated[
    str | None,
    typer.Option(help="London pencil powers: 'random' or blue=joker,pink=switch,... pairs."),
]
TurnModeOpt = Annotated[
    str | None, typer.Option(help="Metro: draw (default), hand or official-hand.")
]
OneTileOpt = Annotated[
    str | None, typer.Option(help="Metro: one-tile routes allowed (default) or forbidden.")
]


@app.command()
def simulate(
    game: Annotated[str, typer.Argument(help=f"One of: {', '.join(game_names())}.")],
    bots: Annotated[str, typer.Option(help="Bot codes, one per seat, e.g. greedy,random.")],
    games: Annotated[int | None, typer.Option(help="Number of games (with --seed).")] = None,
    seed: Annotated[int, typer.Option(help="Base seed: game i uses seed+i.")] = 1,
    deals: Annotated[
        Path | None, typer.Option(help="A JSON-lines manifest of deal records.")
    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write finished records (JSON lines).")
    ] = None,
    objectives: ObjectivesOpt = None,
    powers: PowersOpt = None,
    turn_mode: TurnModeOpt = None,
    one_tile_routes: OneTileOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Play bot games with a progress bar, then print a summary of the scores."""
    from metrogames.cli.files import read_documents
    from metrogames.cli.report import print_summary
    from metrogames.sim.runner import Task, run_many, summarise

    try:
        kind = game_type(game)
    except MetrogamesError as exc:
        raise fail(str(exc), 2) from None
    codes = _parse_bots(bots)
    if (games is None) == (deals is None):
        raise fail("give either --games N or --deals FILE", 2)
    if workers < 1:
        raise fail("--workers must be at least 1", 2)
    options = _options(game, objectives, powers, turn_mode, one_tile_routes)
    if deals is not None and options:
        raise fail("game options cannot be used with --deals: the deals hold the options", 2)
    keep = out_file is not None
    if deals is not None:
        try:
            docs = list(read_documents(deals))
        except MetrogamesError as exc:
            raise fail(str(exc)) from None
        tasks = []
        for i, (label, doc) in enumerate(docs):
            if isinstance(doc, MetrogamesError):
                raise fail(str(doc))
            try:
                kind.from_deal(doc, len(codes))
            except MetrogamesError as exc:
                raise fail(f"{label}: {exc}") from None
            except ValueError as exc:  # a player count the game does not take
                raise fail(str(exc), 2) from None
            tasks.append(Task(game, tuple(codes), seed + i, None, doc, keep))
        _check_seeds(seed, len(tasks))  # the bots of game i are seeded seed + i
    else:
        assert games is not None
        _check_seeds(seed, games)  # game i is dealt from seed + i
        try:
            game_from_options(game, len(codes), options).new_game(seed)
        except (MetrogamesError, ValueError) as exc:
            raise fail(str(exc), 2) from None
        tasks = [Task(game, tuple(codes), seed + i, options, None, keep) for i in range(games)]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    results = []
    if out_file is not None and deals is not None and out_file.resolve() == deals.resolve():
        raise fail("--out would overwrite the --deals manifest", 2)
    handle = _open_out(out_file) if out_file else None
    try:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        ) as progress:
            bar = progress.add_task(f"{game}: {','.join(codes)}", total=len(tasks))
            for result in run_many(tasks, workers):
                results.append(result)
                if handle and result.record is not None:
                    handle.write(json.dumps(result.record, separators=(",", ":")) + "\n")
                progress.advance(bar)
    except KeyboardInterrupt:
        err.print(f"interrupted after {len(results)} of {len(tasks)} games", highlight=False)
        raise typer.Exit(130) from None
    finally:
        if handle:
            handle.close()
    summary = summarise(results, len(codes))
    if as_json:
        emit_json(
            {
                "game": game,
                "bots": codes,
                "games": len(results),
                "seats": [
                    {
                        "bot": codes[i],
                        "mean": s["score"].mean,
                        "std": s["score"].std,
                        "min": s["score"].min,
                        "max": s["score"].max,
                        "wins": s["wins"],
                        "components": s["components"],
                    }
                    for i, s in enumerate(summary)
                ],
            }
        )
    else:
        print_summary(out, game, codes, len(results), summary)


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
        raise fail(str(exc), 2) from None
    text = "\n".join(lines) + "\n"
    if out_file:
        with _open_out(out_file) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"One of: {', '.join(game_names())}.")] = "london",
    players: Annotated[int | None, typer.Option(help="Number of players (humans + bots).")] = None,
    bots: Annotated[
        str | None, typer.Option(help="Bot codes for the last seats, e.g. greedy.")
    ] = None,
    objectives: ObjectivesOpt = None,
    powers: PowersOpt = None,
    turn_mode: TurnModeOpt = None,
    one_tile_routes: OneTileOpt = None,
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
        from metrogames.cli.play import resume_game

        try:
            resume_game(resume, out, input)
        except (MetrogamesError, ValueError) as exc:
            raise fail(str(exc)) from None
        return
    try:
        kind = game_type(game)
    except MetrogamesError as exc:
        raise fail(str(exc), 2) from None
    options = _options(game, objectives, powers, turn_mode, one_tile_routes)
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
        from metrogames.cli.play import play_game

        play_game(kind.name, n, codes, options, seed, out_file, out, input)
    except (MetrogamesError, ValueError) as exc:
        raise fail(str(exc), 2 if isinstance(exc, ValueError) else 1) from None


@app.command()
def daily(
    game: Annotated[str, typer.Argument(help="london or paris.")],
    server: Annotated[str, typer.Option(help="The web table's address.")] = "http://127.0.0.1:8000",
    token_file: Annotated[
        Path, typer.Option("--token-file", help="Where the player token is kept.")
    ] = Path("var/player.json"),
    share: Annotated[
        bool, typer.Option("--share/--no-share", help="Show the score on the leaderboard.")
    ] = True,
    name: Annotated[
        str | None, typer.Option(help="Display name for a new player (asked otherwise).")
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
        play_daily(game, server, token_file, out, input, share=share, name=name)
    except DailyError as exc:
        raise fail(exc.message, exc.code) from None
    except MetrogamesError as exc:
        raise fail(str(exc)) from None


@app.command()
def bench(
    game: Annotated[str | None, typer.Argument(help="One game, or all.")] = None,
    seconds: Annotated[float, typer.Option(help="Time per measurement (seconds).")] = 3.0,
    as_json: JsonFlag = False,
) -> None:
    """Engine benchmarks (games per second on one core): the README's performance table."""
    from metrogames.sim.bench import BENCHMARKS, run_benchmarks

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
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL: sqlite:///var/metrogames.db (default) or "
            "postgresql+psycopg://user@host:port/name."
        ),
    ] = None,
) -> None:
    """Serve the web table (needs the ``web`` extra); prints its address once it is up."""
    try:
        import asyncio

        import uvicorn
        from sqlalchemy.engine import make_url

        from metrogames.web.app import create_app
        from metrogames.web.config import Settings
    except ImportError as exc:
        raise fail(
            f"the web table needs the web extra (pip install 'metrogames[web]'): {exc}"
        ) from None
    try:
        settings = Settings()
        settings = settings.model_copy(
            update={
                "host": host or settings.host,
                "port": port or settings.port,
                "db": db or settings.db,
            }
        )
        application = create_app(settings)
        shown_db = make_url(settings.db).render_as_string(hide_password=True)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    server = uvicorn.Server(
        uvicorn.Config(application, host=settings.host, port=settings.port, log_level="warning")
    )

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

    asyncio.run(run())
    if not server.started:
        raise fail(f"could not listen on {settings.host}:{settings.port}")
