"""A pytest plugin: the suite runs in parallel (``pytest -n N``, pytest-xdist; ``./dev test``
runs ``-n auto``) with each worker process on services of its own.

Loaded by ``tests/conftest.py`` (``pytest_plugins``) before any test module is imported. In an
xdist worker (``PYTEST_XDIST_WORKER`` is ``gw0``, ``gw1``, …) it rewrites, for that process and
the servers it starts:

- ``METROGAMES_TEST_PG`` to a database of the same cluster named after the worker
  (``metrogames_test_gw0``; created when missing), so one worker's tests never delete or read
  another's rows;
- ``METROGAMES_TEST_REDIS`` to a Redis server of its own (``redis-server`` on a free port,
  without persistence, stopped when the worker ends): Redis's published messages, unlike its
  keys, are shared by every numbered database of a server.

A worker's skips and deselections are sent to the controller too (``ci_strict`` counts them
there). Without xdist nothing changes.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def own_database(url: str, worker: str) -> str:
    """``url`` (a SQLAlchemy PostgreSQL URL) with its database renamed ``<name>_<worker>``,
    created on the same cluster when missing."""
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database}_{worker}"
    params = {"host": base.host, "port": base.port, "user": base.username, "dbname": base.database}
    if base.password:
        params["password"] = base.password
    with psycopg.connect(**params, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if found is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return base.set(database=name).render_as_string(hide_password=False)


def own_redis() -> str:
    """The URL of a new Redis server on a free port (no persistence), stopped at exit.

    Raises:
        RuntimeError: ``redis-server`` is missing or does not answer within 5 s.
    """
    server = shutil.which("redis-server")
    if server is None:
        raise RuntimeError("METROGAMES_TEST_REDIS is set but redis-server is not on PATH")
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="metrogames-redis-")
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    atexit.register(_stop, process, folder)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    raise RuntimeError(f"redis-server on port {port} did not answer within 5 s")


def _stop(process: subprocess.Popen[bytes], folder: str) -> None:
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(folder, ignore_errors=True)


if WORKER:
    if os.environ.get("METROGAMES_TEST_PG"):
        os.environ["METROGAMES_TEST_PG"] = own_database(os.environ["METROGAMES_TEST_PG"], WORKER)
    if os.environ.get("METROGAMES_TEST_REDIS"):
        os.environ["METROGAMES_TEST_REDIS"] = own_redis()


def pytest_deselected(items: list[pytest.Item]) -> None:
    """In a worker: remember what was deselected, for the controller (``workeroutput``)."""
    if WORKER:
        _deselected.extend(item.nodeid for item in items)


_deselected: list[str] = []


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["metrogames_deselected"] = sorted(set(_deselected))
