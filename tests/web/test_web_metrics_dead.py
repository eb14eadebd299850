"""A killed worker's live gauges leave ``/metrics`` (``web/infra/metrics.py``, multiprocess mode): a
process that set its open-socket gauge and died without its shutdown (``os._exit``, as SIGKILL
leaves it) no longer shows at the next scrape; a running one still does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from metrogames.web.infra import metrics

SET_AND_DIE = """
import os
from metrogames.web.infra.metrics import SOCKETS, worker
SOCKETS.labels(worker()).set(7)
print(os.getpid(), flush=True)
os._exit(0)
"""


def test_a_dead_workers_gauges_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    dead = subprocess.run(
        [sys.executable, "-c", SET_AND_DIE], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert list(tmp_path.glob(f"gauge_live*_{dead}.db"))  # left behind, as a killed worker's
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    text = metrics.exposition()[0].decode()
    assert f'worker="{dead}"' not in text
    assert not list(tmp_path.glob(f"gauge_live*_{dead}.db"))


def test_a_running_workers_gauges_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    living = subprocess.Popen(
        [sys.executable, "-c", SET_AND_DIE.replace("os._exit(0)", "import time; time.sleep(60)")],
        env=dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert living.stdout is not None
        pid = living.stdout.readline().strip()
        monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
        text = metrics.exposition()[0].decode()
        assert f'metrogames_open_websockets{{worker="{pid}"}} 7.0' in text
    finally:
        living.kill()
        living.wait(10)
