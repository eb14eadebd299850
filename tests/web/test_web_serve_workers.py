"""``metrogames serve --workers N`` refuses what several workers cannot share — a SQLite file
(each process would be alone with it) or no Redis server — before it opens anything."""

from __future__ import annotations

import socket
from pathlib import Path

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
