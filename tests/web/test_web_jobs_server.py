"""Heavy jobs under a real ``metrogames serve`` (one process): a request whose client drops
gives its job up (stopped once nobody waits), and SIGTERM with analyses queued ends in
seconds (shutdown never waits for queued work)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.request import urlopen

import pytest

from support.records import solo_record

ENV = {
    "METROGAMES_ANALYSIS_BUDGET": "deep",  # minutes of search: they would outlast any test
    "METROGAMES_JOB_QUOTA": "20",
    "METROGAMES_RATE_ANALYSES": "100/minute",
    "METROGAMES_JOB_SLOW_WORKERS": "1",
    "METROGAMES_REDIS_URL": "",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        command = [
            str(Path(sys.executable).with_name("metrogames")),
            "serve",
            "--host",
            "127.0.0.1",
        ]
        command += ["--port", str(self.port), "--db", f"sqlite:///{tmp / 'web.db'}"]
        self.process = subprocess.Popen(
            command, env={**os.environ, **ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with urlopen(f"http://127.0.0.1:{self.port}/api/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline and self.process.poll() is None
                time.sleep(0.2)

    def gauge(self, name: str, lane: str) -> float:
        with urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
        found = re.search(rf'metrogames_{name}\{{lane="{lane}"\}} ([0-9.]+)', text)
        return float(found.group(1)) if found else 0.0

    def upload(self, record: dict[str, object]) -> socket.socket:
        """An analysis request sent (its answer never read)."""
        body = json.dumps(record).encode()
        connection = socket.create_connection(("127.0.0.1", self.port))
        head = (
            f"POST /api/analyses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        connection.sendall(head.encode() + body)
        return connection


def until(check: object, seconds: float) -> float:
    started = time.monotonic()
    while not check():  # type: ignore[operator]
        assert time.monotonic() - started < seconds, "timed out"
        time.sleep(0.1)
    return time.monotonic() - started


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
            running.process.wait(10)


def test_a_dropped_request_stops_its_job_and_a_shared_one_survives(server: Server) -> None:
    record = solo_record(3, "random")
    first, second = server.upload(record), server.upload(record)  # one job, two waiters
    until(lambda: server.gauge("job_running", "slow") == 1, 60)
    first.close()
    time.sleep(2)
    assert server.gauge("job_running", "slow") == 1  # the other requester still waits
    second.close()
    until(lambda: server.gauge("job_running", "slow") == 0, 10)  # nobody waits: stopped
    # a queued job whose requester leaves is dropped
    running, queued = (
        server.upload(solo_record(4, "random")),
        server.upload(solo_record(5, "random")),
    )
    until(lambda: server.gauge("job_queue_length", "slow") == 1, 60)
    queued.close()
    until(lambda: server.gauge("job_queue_length", "slow") == 0, 10)
    assert server.gauge("job_running", "slow") == 1
    running.close()


def test_sigterm_with_analyses_queued_ends_in_seconds(server: Server) -> None:
    sockets = [server.upload(solo_record(10 + i, "random")) for i in range(6)]
    until(lambda: server.gauge("job_queue_length", "slow") == 5, 60)
    assert server.gauge("job_running", "slow") == 1
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(30)
    took = time.monotonic() - started
    assert took < 15, took
    for s in sockets:
        s.close()
