"""Shared fixtures for the notation, record, sheet and command-line tests (London).

Nothing here is autouse: other test modules are unaffected. Plugins: ``support.parallel`` (each
xdist worker on a PostgreSQL database and a Redis server of its own), ``support.ci_strict``
(under a non-empty ``CI`` a run that skipped, xfailed or deselected anything fails) and
pytest's ``pytester`` (to test that plugin). Helpers live in ``tests/support/``, importable as
``support.…`` (``pythonpath`` in ``pyproject.toml``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from support.london_records import ROUND_1_PINK, ROUND_2_CROSSING, hand_record, play_london

pytest_plugins = ["pytester", "support.parallel", "support.ci_strict"]

# The terminal speaks the machine's language (LANG): these tests read its English texts.
os.environ["METROGAMES_LANG"] = "en"
# The suite shares the machine's cores among its own workers: a job on the idle scheduling policy
# (a client's chosen job, in production) could wait minutes for a free CPU there. The policy
# itself is tested in tests/web/test_web_jobs_priority.py.
os.environ["METROGAMES_JOB_IDLE"] = "false"


@pytest.fixture
def london_record() -> dict[str, Any]:
    """A finished 2-player London record (greedy vs random, seed 7) with seed and decks."""
    return play_london(7)


@pytest.fixture
def crossing_record() -> dict[str, Any]:
    """A hand-written record whose last action is the spec's crossing example."""
    return hand_record([ROUND_1_PINK, ROUND_2_CROSSING])


@pytest.fixture
def make_record() -> Callable[..., dict[str, Any]]:
    """The :func:`play_london` factory: ``make_record(seed, bots=..., options=...)``."""
    return play_london
