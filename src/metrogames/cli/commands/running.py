"""``metrogames bench``, ``serve``, ``map``, ``jobs worker`` and ``bot run``: the engine
benchmark, the web table and its heavy-job workers, the map tools and the bot API's reference
client (``docs/notation.md``, "Command line")."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from metrogames.cli.maps import map_app
from metrogames.core.errors import PluginError
from metrogames.games import (
    load_plugins,
)
from metrogames.sim.bench import BENCHMARKS, run_benchmarks

if TYPE_CHECKING:
    from metrogames.web.infra.config import Settings  # the web extra: imported by serve only
from metrogames.cli.app import JsonFlag, app, emit_json, err, fail, out


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
    from metrogames.web.work import WORK

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
        processes = start_workers(settings.redis_url, job_workers, WORK)
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
        from metrogames.web.work import WORK
    except ImportError as exc:
        raise fail(
            f"job workers need the web extra (pip install 'metrogames[web]'): {exc}"
        ) from None
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
            run_worker(url, chosen, WORK)
        return
    processes = start_workers(url, {",".join(chosen): count}, WORK, lanes_of=chosen)
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
