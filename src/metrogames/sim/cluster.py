"""Bot games on a Ray cluster (the ``cluster`` extra): ``simulate --ray``.

The same games as :func:`metrogames.sim.runner.run_many` — every game is a :class:`Task` played
by :func:`run_task`, which depends on nothing but the task — so the results are the same, in
the same (input) order, whatever the cluster. Tasks go out in chunks, a bounded number at a
time, and come back in order.

* No address: a new local Ray instance on this machine (``workers`` CPUs, loopback only),
  shut down at the end.
* An address (``ray://head:10001``, ``head:6379``, ``auto``): an existing cluster. The
  ``metrogames`` package (pure Python) is shipped to it as a ``py_modules`` runtime
  environment, so its nodes need only Python and Ray of the driver's versions.
* Ray already initialised in this process (tests, notebooks): that connection is used and left
  open.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

from metrogames.core.errors import MetrogamesError
from metrogames.sim.runner import Result, Task, run_task

LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Set to ``0`` before Ray is imported, a local Ray instance listens on 127.0.0.1 only (Ray
then takes the machine for one that cannot join a cluster)."""


class ClusterError(MetrogamesError):
    """Ray could not be started or reached, or a game failed on it (the message says which)."""


def play_chunk(tasks: Sequence[Task]) -> list[Result]:
    """Play ``tasks`` in order (the remote function)."""
    return [run_task(task) for task in tasks]


def local_init(cpus: int) -> None:
    """Start a new local Ray instance with ``cpus`` CPUs on the loopback interface, quietly."""
    os.environ.setdefault(LOOPBACK_ENV, "0")
    ray = importlib.import_module("ray")
    ray.init(
        address="local",
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        object_store_memory=80 * 1024 * 1024,  # results are small; the default is 30 % of RAM
    )


def run_ray(
    tasks: Sequence[Task], address: str | None = None, workers: int = 1
) -> Iterator[Result]:
    """Results of ``tasks`` in input order, played on Ray: a new local instance with
    ``workers`` CPUs when ``address`` is ``None``, else the cluster at ``address``. Closing
    the iterator cancels the games still out (and stops a Ray instance started here)."""
    if not tasks:
        return
    if address is None:
        os.environ.setdefault(LOOPBACK_ENV, "0")
    ray = importlib.import_module("ray")  # only here: the cluster extra

    started = not ray.is_initialized()
    if started:
        try:
            if address is None:
                local_init(max(1, min(workers, os.cpu_count() or 1)))
            else:
                package = str(Path(__file__).resolve().parents[1])
                ray.init(
                    address=address,
                    runtime_env={"py_modules": [package]},
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                )
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError, ...
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise ClusterError(f"cannot start or reach {where}: {exc}") from exc
    pending: deque[object] = deque()  # Ray object references
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(100, len(tasks) // (cpus * 8) or 1))
        chunks = (tasks[i : i + size] for i in range(0, len(tasks), size))
        remote = ray.remote(num_cpus=1, max_retries=3)(play_chunk)
        for chunk in chunks:
            pending.append(remote.remote(list(chunk)))
            if len(pending) >= 2 * cpus:
                yield from _get(ray, pending.popleft())
        while pending:
            yield from _get(ray, pending.popleft())
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):  # already finished, or gone with its worker
                ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _get(ray: ModuleType, ref: object) -> list[Result]:
    try:
        results: list[Result] = ray.get(ref)
    except ray.exceptions.RayError as exc:
        raise ClusterError(f"a chunk of games failed on Ray: {exc}") from exc
    return results
