"""A SQLite file's write-ahead log is checkpointed by a thread of its own, not by the commit
that fills it (issue 21: a commit waiting on the checkpoint's sync to disk held every room's
next write behind it for over a second under abuse).

The log's length is read with SQLite's own ``PRAGMA wal_checkpoint`` answer (frames in the
log, frames copied back), independently of the code under test.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from metrogames.web.app import create_app
from metrogames.web.infra.db import Checkpoints, open_database
from support.web import make_settings

PAGE = 4096
ROWS = 1500
"""Rows of one page each: more than SQLite's default automatic checkpoint (1,000 pages)."""


def _fill(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE IF NOT EXISTS filler (v BLOB)"))
    for _ in range(ROWS):  # one commit each, as the server's writes are
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO filler VALUES (randomblob(:n))"), {"n": PAGE})


def _log(path: Path) -> tuple[int, int]:
    """(frames in the log, frames of it copied back) as SQLite's own passive checkpoint on a
    connection of its own answers them (it copies what the log holds and no reader needs)."""
    connection = sqlite3.connect(path)
    try:
        _busy, log, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    finally:
        connection.close()
    return log, copied


def _wal_pages(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size // (PAGE + 24) if wal.exists() else 0


def test_by_default_a_commit_checkpoints_the_log_it_fills(tmp_path: Path) -> None:
    path = tmp_path / "default.db"
    engine = open_database(f"sqlite:///{path}")
    try:
        _fill(engine)
        # the log was restarted from its beginning after the commit that filled 1,000 pages
        assert _wal_pages(path) < 1100
    finally:
        engine.dispose()


def test_with_background_checkpoints_no_commit_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "background.db"
    engine = open_database(f"sqlite:///{path}", background_checkpoints=True)
    try:
        _fill(engine)
        assert _wal_pages(path) >= ROWS  # every commit's page is still in the log
        log, copied = _log(path)
        assert log >= ROWS and copied == log  # this passive checkpoint copied them all
    finally:
        engine.dispose()


def test_the_thread_checkpoints_while_running_and_empties_the_log_when_stopped(
    tmp_path: Path,
) -> None:
    path = tmp_path / "thread.db"
    engine = open_database(f"sqlite:///{path}", background_checkpoints=True)
    checkpoints = Checkpoints(engine, every=0.05)
    checkpoints.start()
    try:
        _fill(engine)
        deadline = time.monotonic() + 10
        while checkpoints.done < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert checkpoints.done >= 3
        with engine.connect() as connection:  # everything committed is readable, once
            assert connection.execute(text("SELECT count(*) FROM filler")).scalar() == ROWS
    finally:
        engine.dispose()
        checkpoints.stop()
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # TRUNCATE emptied it
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("SELECT count(*) FROM filler").fetchone() == (ROWS,)
    finally:
        connection.close()


def test_nothing_to_checkpoint_without_a_sqlite_file(tmp_path: Path) -> None:
    for url in ("sqlite://", "sqlite:///:memory:", "postgresql+psycopg://u@127.0.0.1:1/x"):
        checkpoints = Checkpoints(open_database(url), every=0.01)
        checkpoints.start()
        assert checkpoints.path is None
        time.sleep(0.05)
        checkpoints.stop()
        assert checkpoints.done == 0


def test_the_served_app_checkpoints_its_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "served.db"
    app = create_app(make_settings(f"sqlite:///{path}"))
    checkpoints: Checkpoints = app.state.checkpoints
    assert checkpoints.path == str(path)
    with TestClient(app) as client:
        assert client.get("/api/health").status_code == 200
        deadline = time.monotonic() + 10
        while checkpoints.done < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert checkpoints.done >= 1  # started with the app (every second)
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # the last one at shutdown
