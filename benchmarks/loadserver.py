"""The server side of the web load benchmarks (:mod:`load_web`, :mod:`load_daily`,
:mod:`load_history`): ``metrogames serve`` started on a free loopback port (or the app served
in this process, for tests), its processes' CPU and memory read from Linux ``/proc``, its
workers waited for, and py-spy recording it; and the percentiles every report uses."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.request import urlopen

LOOPBACK = "127.0.0.1"


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (0 for none)."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, math.ceil(q / 100 * len(values)) - 1))]


def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``), or ``None``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants now (Linux ``/proc``): a server and its workers."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    return tree


def tree_cpu_seconds(pid: int) -> dict[int, float]:
    """CPU seconds of ``pid`` and each of its descendants, by process."""
    found = {p: cpu_seconds(p) for p in process_tree(pid)}
    return {p: c for p, c in found.items() if c is not None}


def workers_of(pid: int) -> list[int]:
    """The worker processes of ``metrogames serve --workers N`` (pid): the children that run
    the app (uvicorn spawns them; Python's resource tracker is left out)."""
    found = []
    for p in process_tree(pid)[1:]:
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes():
                found.append(p)
    return found


def rss_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB (Linux ``/proc``), or ``None``."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


@contextlib.contextmanager
def server_process(
    db: str,
    workdir: Path,
    env: dict[str, str] | None = None,
    workers: int = 1,
    redis: str | None = None,
    start_seconds: float | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``metrogames serve`` on a free loopback port with ``db`` (and settings ``env``; with
    ``workers`` processes sharing ``redis``), given ``start_seconds`` to answer (default
    30 s plus 30 s a worker); killed on exit."""
    port = free_port()
    script = Path(sys.executable).with_name("metrogames")
    cmd = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from metrogames.cli.main import app; app()"]
    )
    cmd += ["serve", "--host", LOOPBACK, "--port", str(port), "--db", db]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    if redis:
        cmd += ["--redis", redis]
    # every player comes from 127.0.0.1, which the per-address load limits exempt (rate
    # limits, socket cap, job quota): every other address — the abuser's 127.0.0.2 — meets
    # the defaults; the daily guest cap (a fairness rule, not exempted) is lifted
    lifted = {"METROGAMES_RATE_EXEMPT": LOOPBACK, "METROGAMES_DAILY_GUEST_RANKED": "10000"}
    env = dict(os.environ, METROGAMES_BOT_DELAY="0", **lifted, **(env or {}))
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://{LOOPBACK}:{port}"
    try:
        deadline = time.monotonic() + (start_seconds or 30 + 30 * workers)
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the server exited: {(workdir / 'server.log').read_text()[-2000:]}"
                )
            with (
                contextlib.suppress(URLError, OSError),
                urlopen(f"{url}/api/games", timeout=1) as r,
            ):
                if r.status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not come up in time")
            time.sleep(0.1)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT if workers == 1 else signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()


@contextlib.asynccontextmanager
async def server_in_process(db: str, **settings: Any) -> AsyncIterator[str]:
    """The app served by uvicorn on this event loop (a free loopback port; more ``settings``
    given); for tests."""
    import uvicorn

    from metrogames.web.app import create_app
    from metrogames.web.infra.config import Settings

    # every load client comes from 127.0.0.1: exempt from the per-address limits
    settings.setdefault("rate_exempt", LOOPBACK)
    settings.setdefault("job_warm", False)  # its tests' loads run few jobs
    app = create_app(Settings(db=db, bot_delay=0, daily_guest_ranked=10_000, **settings))
    sock = socket.socket()
    sock.bind((LOOPBACK, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(200):
            if server.started or task.done():
                break
            await asyncio.sleep(0.05)
        if not server.started:
            raise RuntimeError("the in-process server did not start")
        yield f"http://{LOOPBACK}:{port}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 15)
        sock.close()


def wait_for_workers(redis_url: str, workers: int, timeout: float = 120.0) -> None:
    """Wait until every worker listens to the others (subscribed to the room channel)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = dict(client.pubsub_numsub("metrogames:rooms"))
            if counts.get(b"metrogames:rooms", 0) >= workers:
                return
            time.sleep(0.2)
        raise RuntimeError(f"not all {workers} workers came up in {timeout:.0f} s")
    finally:
        client.close()


def start_profile(out: str | None, pid: int, duration: float) -> subprocess.Popen[bytes] | None:
    """py-spy recording the server into ``out`` (``.svg``, or ``.txt``: collapsed)."""
    if not out:
        return None
    fmt = "flamegraph" if out.endswith(".svg") else "raw"
    spy_bin = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return subprocess.Popen(
        [
            spy_bin, "record", "--pid", str(pid), "--rate", "200", "--format", fmt,
            "--output", out, "--duration", str(int(duration) + 5), "--nonblocking", "--subprocesses",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
