"""Throwaway PostgreSQL and Redis servers on free loopback ports, for the load benchmark's
scale-out runs (``load_web.py --workers N``): each lives in a temporary folder and is stopped
and removed on exit; each can be stopped and started again mid-run (the fault modes).

PostgreSQL comes from Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``; run as
the ``postgres`` user when this runs as root), Redis from ``redis-server``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class Postgres:
    """A throwaway PostgreSQL cluster (``url``: its ``metrogames`` database)."""

    def __init__(self, folder: Path) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not found:
            raise RuntimeError("no PostgreSQL here (Debian package postgresql)")
        self.bin = Path(found[-1])
        self.folder = folder
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@{LOOPBACK}:{self.port}/metrogames"
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres")
        self._run("initdb", "-D", str(folder / "data"), "-A", "trust", "-U", "postgres")
        self.start()
        self._run("createdb", "-h", LOOPBACK, "-p", str(self.port), "-U", "postgres", "metrogames")

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            _as_postgres([str(self.bin / tool), *args]),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses={LOOPBACK} -c fsync=off"
        options += " -c max_connections=200"
        self._run(
            "pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "server.log"),
            "-w", "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")


class Redis:
    """A throwaway Redis server without persistence (``url``)."""

    def __init__(self, folder: Path) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("no redis-server here (Debian package redis-server)")
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://{LOOPBACK}:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server", "--port", str(self.port), "--bind", LOOPBACK, "--save", "",
                "--appendonly", "no", "--dir", str(self.folder),
            ],
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, self.port), 1):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not come up in 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


@contextlib.contextmanager
def throwaway(postgres: bool, redis: bool) -> Iterator[tuple[Postgres | None, Redis | None]]:
    """The servers asked for, stopped and removed on exit."""
    with tempfile.TemporaryDirectory(prefix="metrogames-services-") as tmp:
        os.chmod(tmp, 0o755)  # the postgres user works in a folder of it
        pg: Postgres | None = None
        rd: Redis | None = None
        try:
            if postgres:
                folder = Path(tmp) / "pg"
                folder.mkdir()
                pg = Postgres(folder)
            if redis:
                rd = Redis(Path(tmp))
            yield pg, rd
        finally:
            if rd is not None:
                rd.stop()
            if pg is not None:
                with contextlib.suppress(subprocess.CalledProcessError):
                    pg.stop()
