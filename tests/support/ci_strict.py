"""A pytest plugin: under CI, a run that skipped, xfailed or deselected anything fails.

Loaded by ``tests/conftest.py`` (``pytest_plugins``). When the environment variable ``CI`` is
set to any non-empty value (``.ci/run`` sets ``CI=true``), every test that did not run and pass
— skipped (at collection or at run time), xfailed, xpassed or deselected (``-k``, ``-m``, the
PostgreSQL variants without ``METROGAMES_TEST_PG``), in this process or in an xdist worker — is
listed at the end and the run's exit status becomes non-zero, so a suite cannot pass in CI by skipping what it could not set up.
Without ``CI`` nothing changes.
"""

from __future__ import annotations

import os

import pytest


def ci_enabled() -> bool:
    """Whether ``CI`` is set to a non-empty value."""
    return bool(os.environ.get("CI"))


class StrictRun:
    """Collects what did not run as a test that passed, for one session."""

    def __init__(self) -> None:
        self.missed: list[tuple[str, str]] = []  # (outcome, node id: reason)

    def _add(self, outcome: str, nodeid: str, reason: str = "") -> None:
        self.missed.append((outcome, f"{nodeid}: {reason}" if reason else nodeid))

    @staticmethod
    def _reason(report: pytest.CollectReport | pytest.TestReport) -> str:
        longrepr = report.longrepr
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            return str(longrepr[2])
        wasxfail = getattr(report, "wasxfail", "")
        return str(wasxfail or "")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self._add("skipped", report.nodeid or "<collection>", self._reason(report))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if hasattr(report, "wasxfail"):
            if report.skipped:
                self._add("xfailed", report.nodeid, self._reason(report))
            elif report.passed and report.when == "call":
                self._add("xpassed", report.nodeid, self._reason(report))
        elif report.skipped:
            self._add("skipped", report.nodeid, self._reason(report))

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        for item in items:
            self._add("deselected", item.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """Under xdist: what a worker deselected (each worker collects the whole suite, so
        each sends the same list; ``tests/support/parallel.py`` fills it)."""
        output = getattr(node, "workeroutput", {})
        for nodeid in output.get("metrogames_deselected", []):
            if ("deselected", nodeid) not in self.missed:
                self._add("deselected", nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.missed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.missed and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.missed:
            return
        terminalreporter.write_sep(
            "=",
            f"CI is set: {len(self.missed)} test(s) skipped, xfailed or deselected — the run fails",
            red=True,
            bold=True,
        )
        for outcome, what in self.missed:
            terminalreporter.write_line(f"{outcome.upper()} {what}")


def pytest_configure(config: pytest.Config) -> None:
    if ci_enabled():
        config.pluginmanager.register(StrictRun(), "metrogames-ci-strict")
