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
        pytest.fail("METROGAMES_TEST_PG and METROGAMES_TEST_REDIS must be set (./dev test sets them)")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    command = [str(Path(sys.executable).with_name("metrogames")), "serve", "--host", "127.0.0.1"]
    command += ["--port", port, "--workers", "2", "--db", pg, "--redis", redis_url]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    finally:
        server.terminate()
        server.wait(30)
