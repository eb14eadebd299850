"""``metrogames serve --workers N`` refuses what several workers cannot share — a SQLite file
(each process would be alone with it) or no Redis server — before it opens anything; started,
its metrics are the workers' together."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

import pytest
from typer.testing import CliRunner

from metrogames.cli.main import app as cli


def free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def serve(*args: str) -> tuple[int, str]:
    options = ["serve", "--host", "127.0.0.1", "--port", free_port(), *args]
    result = CliRunner().invoke(cli, options, env={"METROGAMES_REDIS_URL": ""})
    return result.exit_code, " ".join(result.output.split())


def test_several_workers_need_postgresql_and_redis(tmp_path: Path) -> None:
    code, said = serve("--workers", "2", "--db", f"sqlite:///{tmp_path / 'web.db'}")
    assert code == 2 and "several workers need a PostgreSQL database" in said
    assert not (tmp_path / "web.db").exists()  # refused before the database was opened
    pg = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    code, said = serve("--workers", "2", "--db", pg)
    assert code == 2 and "several workers need a Redis server (--redis" in said
    code, said = serve("--workers", "0", "--db", pg)
    assert code == 2 and "--workers" in said


def test_the_metrics_of_any_worker_answer_for_all_of_them() -> None:
    # a real `serve --workers 2` (PostgreSQL + Redis of the test run): without a folder named
    # by PROMETHEUS_MULTIPROC_DIR it makes one, so one scrape shows both workers' gauges
    pg, redis_url = os.environ.get("METROGAMES_TEST_PG"), os.environ.get("METROGAMES_TEST_REDIS")
    if not pg or not redis_url:
        pytest.fail(
            "METROGAMES_TEST_PG and METROGAMES_TEST_REDIS must be set (./dev test sets them)"
        )
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    command = [str(Path(sys.executable).with_name("metrogames")), "serve", "--host", "127.0.0.1"]
    command += ["--port", port, "--workers", "2", "--db", pg, "--redis", redis_url]
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        workers: set[str] = set()
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            try:
                with urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as answer:
                    text = answer.read().decode()
            except OSError:
                time.sleep(0.2)
                continue
            workers = set(re.findall(r'metrogames_open_websockets\{worker="(\d+)"\}', text))
            time.sleep(0.2)
        assert len(workers) == 2, workers  # both in one scrape
        # and the job workers beside them: the play lane's 2 and the slow lane's 1 (RQ's)
        import redis
        from rq import Worker

        connection = redis.Redis.from_url(redis_url)
        lanes: list[set[str]] = []
        while time.monotonic() < deadline:  # each job worker registers once it has started
            lanes = [
                {q.name for q in w.queues}
                for w in Worker.all(connection=connection)
                if any(q.name.startswith("metrogames-") for q in w.queues)
            ]
            if len(lanes) >= 3:
                break
            time.sleep(0.2)
        connection.close()
        assert sum("metrogames-play-0" in names for names in lanes) >= 2, lanes
        assert sum("metrogames-play-1" in names for names in lanes) >= 1, lanes  # hints
        assert sum("metrogames-slow-0" in names for names in lanes) >= 1, lanes
    finally:
        server.terminate()
        server.wait(30)


def test_jobs_worker_refuses_what_it_cannot_run() -> None:
    result = CliRunner().invoke(cli, ["jobs", "worker"], env={"METROGAMES_REDIS_URL": ""})
    assert result.exit_code == 2 and "need the Redis server" in result.output
    options = ["jobs", "worker", "--redis", "redis://127.0.0.1:1/0", "--lanes", "play,fast"]
    result = CliRunner().invoke(cli, options)
    assert result.exit_code == 2 and "not fast" in " ".join(result.output.split())


def test_a_jobs_worker_elsewhere_takes_the_queue_s_jobs() -> None:
    # `metrogames jobs worker` as another machine would run it: a serving process's jobs
    # reach it through Redis, and SIGTERM stops it (and its job) at once
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from metrogames.web.infra.cluster import connect
    from metrogames.web.infra.config import Settings
    from metrogames.web.infra.jobs.service import Jobs
    from metrogames.web.work import WORK
    from support.two_workers import redis_url

    url = redis_url()
    command = [str(Path(sys.executable).with_name("metrogames")), "jobs", "worker"]
    worker = subprocess.Popen([*command, "--redis", url, "--lanes", "slow"])

    async def ask() -> tuple[int, float]:
        client = connect(url)
        jobs = Jobs(Settings(redis_url=url), WORK, client)
        try:
            pid = await jobs.run("probe", {"seconds": 0})
            long = asyncio.ensure_future(jobs.run("probe", {"seconds": 120}))
            await asyncio.sleep(1.0)
            worker.terminate()
            started = time.monotonic()
            # the worker runs niced (the slow lane): on a loaded machine its exit itself can
            # take a while, but never the 120 s its job would
            await asyncio.to_thread(worker.wait, 100)
            took = time.monotonic() - started
            long.cancel()
            await asyncio.gather(long, return_exceptions=True)
            return pid, took
        finally:
            await jobs.close()
            await client.aclose()

    try:
        with ThreadPoolExecutor(1) as pool:
            pid, took = pool.submit(asyncio.run, ask()).result(200)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
    assert pid not in (os.getpid(), worker.pid)  # the work horse forked for the job
    assert took < 100, took  # the 120 s job was stopped, not waited for
