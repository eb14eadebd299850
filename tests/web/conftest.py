"""Web fixtures: an app per test on a real database, parametrized over SQLite and PostgreSQL;
every document a test's apps send checked against ``docs/web-schema.json`` (``contract``).

The PostgreSQL URL comes from ``METROGAMES_TEST_PG`` (``./dev test`` starts a throwaway cluster
and sets it). Without it the PostgreSQL variants FAIL under a non-empty ``CI`` (``.ci/run`` sets
``CI=true``); locally they are deselected with a note in the header (and ``ci_strict`` would fail
a CI run that deselected them anyway).
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete

from metrogames.web.app import create_app
from metrogames.web.infra.db import migrate, open_database
from metrogames.web.infra.models import RoomRow
from support.web import make_settings
from support.web_contract import ContractCheck

PG_URL = os.environ.get("METROGAMES_TEST_PG")
CI = bool(os.environ.get("CI"))
DATABASES = ["sqlite", "postgresql"]


def pytest_report_header(config: pytest.Config) -> str:
    if PG_URL:
        return f"web tests: SQLite and PostgreSQL ({PG_URL.rsplit('@', 1)[-1]})"
    if CI:
        return "web tests: METROGAMES_TEST_PG is not set: the PostgreSQL variants will FAIL"
    return (
        "web tests: METROGAMES_TEST_PG is not set: PostgreSQL variants deselected "
        "(run ./dev test to test them)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if PG_URL or CI:
        return
    dropped = [i for i in items if "[postgresql" in i.nodeid]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if "[postgresql" not in i.nodeid]


@pytest.fixture(autouse=True)
def contract(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Every ``TestClient`` of the test wraps its app in a :class:`~contract.ContractCheck`:
    each view, room summary, replay and WebSocket message the app sends is validated against
    ``docs/web-schema.json``, and the test fails at its end with every problem found. Yields
    the count of documents checked, by definition."""
    problems: list[str] = []
    checked: Counter[str] = Counter()
    init = TestClient.__init__

    def checked_init(self: TestClient, app: Any, *args: Any, **kwargs: Any) -> None:
        if not isinstance(app, ContractCheck):
            app = ContractCheck(app, problems, checked)
        init(self, app, *args, **kwargs)

    monkeypatch.setattr(TestClient, "__init__", checked_init)
    yield checked
    assert not problems, "documents that do not match docs/web-schema.json:\n" + "\n".join(
        problems[:20]
    )


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite database migrated to the head revision once per test process (migrating an
    empty SQLite file rebuilds tables in batches: a tenth of a second or more of CPU per app)."""
    path = tmp_path_factory.mktemp("template") / "web.db"
    engine = open_database(f"sqlite:///{path}")
    try:
        migrate(engine)
    finally:
        engine.dispose()
    assert not path.with_name("web.db-wal").exists()  # everything is in the one file copied
    return path


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL: a fresh SQLite file (a copy of :func:`sqlite_template`: migrated, no
    rows), or the test PostgreSQL database without the rooms of earlier tests (an app resumes
    every stored room whose clock runs or whose bots are due: it would play earlier tests'
    rooms)."""
    if request.param == "sqlite":
        path = tmp_path / "web.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    if not PG_URL:
        pytest.fail("METROGAMES_TEST_PG is not set (./dev test starts PostgreSQL and sets it)")
    engine = open_database(PG_URL)
    try:
        migrate(engine)
        with engine.begin() as connection:
            connection.execute(delete(RoomRow))  # seats, actions, attempts: ON DELETE CASCADE
    finally:
        engine.dispose()
    return PG_URL


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """A test client of a fresh app on ``db_url``."""
    with TestClient(create_app(make_settings(db_url))) as c:
        yield c
