"""The suite cannot pass in CI by skipping (``tests/support/ci_strict.py``): a tiny suite run by pytest's
``pytester`` fails under any non-empty ``CI`` when a test is skipped, xfailed or deselected,
naming the test, and passes without ``CI``."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import ci_strict

TINY = """
from pathlib import Path

import pytest

def test_runs():
    pass

def test_{name}():
    {body}
"""

CASES = {
    "skipped": ("pytest.skip('no database here')", ()),
    "importorskip": ("pytest.importorskip('no_such_module_here')", ()),
    "xfailed": ("pytest.xfail('known bug')", ()),
    "deselected": ("pass", ("-k", "test_runs")),
}


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None, *args: str
) -> pytest.RunResult:
    """Run pytest in process on ``pytester``'s files with only the ``ci_strict`` plugin (no
    installed plugins: re-importing hypothesis on every inner run costs a second)."""
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester.runpytest("-p", "no:cacheprovider", *args, plugins=[ci_strict])


def run_tiny(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, ci: str | None
) -> pytest.RunResult:
    body, args = CASES[name]
    pytester.makepyfile(TINY.format(name=name, body=body))
    return run(pytester, monkeypatch, ci, *args)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("ci", ["1", "true", "yes"])
def test_under_ci_a_test_that_did_not_run_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, ci: str
) -> None:
    result = run_tiny(pytester, monkeypatch, name, ci)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*CI is set: 1 test(s) skipped, xfailed or deselected*",
            f"*test_{name}*",
        ]
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and "failed" not in outcomes


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("ci", [None, ""])
def test_without_ci_the_same_run_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, ci: str | None
) -> None:
    result = run_tiny(pytester, monkeypatch, name, ci)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "CI is set" not in result.stdout.str()


def test_under_ci_a_clean_run_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile("def test_one():\n    pass\n")
    result = run(pytester, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "CI is set" not in result.stdout.str()


def test_under_ci_a_failing_run_keeps_failing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile("def test_one():\n    assert False\n")
    result = run(pytester, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("ci", ["true", None])
def test_a_module_skipped_at_collection_counts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> None:
    pytester.makepyfile(
        test_first="def test_runs():\n    pass\n",
        test_second="import pytest\npytest.importorskip('no_such_module_here')\n",
    )
    result = run(pytester, monkeypatch, ci)
    if ci:
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
        result.stdout.fnmatch_lines(["SKIPPED test_second.py: *no_such_module_here*"])
    else:
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()


@pytest.mark.parametrize("name", ["skipped", "deselected"])
def test_under_ci_a_worker_that_did_not_run_a_test_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Under xdist (two workers, ``tests/support/parallel.py`` beside the plugin): a skip reaches the
    controller as a report, a deselection in the workers' output; both fail the run once."""
    body, args = CASES[name]
    pytester.makepyfile(TINY.format(name=name, body=body))
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(Path(ci_strict.__file__).parent))
    for services in ("METROGAMES_TEST_PG", "METROGAMES_TEST_REDIS"):
        monkeypatch.delenv(services, raising=False)
    plugins = ("xdist.plugin", "parallel", "ci_strict")
    options = [arg for plugin in plugins for arg in ("-p", plugin)]
    result = pytester.runpytest_subprocess(*options, "-p", "no:cacheprovider", "-n", "2", *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*CI is set: 1 test(s) skipped, xfailed or deselected*", f"*test_{name}*"]
    )
