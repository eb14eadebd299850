"""``./dev``'s set-up says what it does and how long it takes on a first run or after a change
of ``pyproject.toml``, and says nothing when ``.venv`` is up to date. The script is sourced
(its functions only) and ``setup`` runs in a temporary folder with stand-in Pythons that log
their arguments: no real environment is made."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

DEV = Path(__file__).resolve().parents[2] / "dev"

# A stand-in for the system Python: answers the version check, makes a venv of stand-ins.
SYSTEM_PY = """#!/bin/sh
echo "system $*" >> "$LOG"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin"
  cp "$VENV_PY" "$3/bin/python"
fi
exit 0
"""
# A stand-in for the venv's Python: pip "installs" by logging.
VENV_PY = """#!/bin/sh
echo "venv $*" >> "$LOG"
case "$*" in *"install -q -e"*) [ -n "$SLOW_PIP" ] && sleep 3; [ -n "$FAIL_PIP" ] && exit 1 ;; esac
exit 0
"""


def _setup(folder: Path, **extra: str) -> tuple[str, str, list[str]]:
    """Run ``setup`` of ./dev in ``folder`` (``extra``: more environment); its stdout, stderr
    and the stand-ins' calls."""
    tools = folder.parent / "tools"
    tools.mkdir(exist_ok=True)
    for name, text in (("python3", SYSTEM_PY), ("venv-python", VENV_PY)):
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    log = folder.parent / "calls.log"
    log.write_text("")
    env = {
        **os.environ,
        "PYTHON": str(tools / "python3"),
        "VENV_PY": str(tools / "venv-python"),
        "LOG": str(log),
        **extra,
    }
    done = subprocess.run(
        ["bash", "-c", f'source "{DEV}" && setup'],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout, done.stderr, log.read_text().splitlines()


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return folder


def test_a_first_run_says_it_sets_up_and_when_it_is_ready(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    out, err, calls = _setup(folder)
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith("dev: setting up .venv (first run only, about 2 minutes")
    assert lines[-1].startswith("dev: .venv is ready (") and lines[-1].endswith(" s)")
    assert any(c.startswith("system -m venv .venv") for c in calls)
    assert any("pip install -q -e .[dev,web,rl,openspiel,cluster,plots,train]" in c for c in calls)
    assert (folder / ".venv" / ".installed").is_file()
    # a second run: up to date, so silent and nothing installed
    out, err, calls = _setup(folder)
    assert (out, err) == ("", "")
    assert not any("pip" in c or "venv" in c.split()[:3] for c in calls)


def test_a_changed_pyproject_says_it_updates(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _setup(folder)
    stamp = folder / ".venv" / ".installed"
    os.utime(stamp, (1_000_000_000, 1_000_000_000))  # older than pyproject.toml
    _, err, calls = _setup(folder)
    lines = err.splitlines()
    assert lines[0] == "dev: pyproject.toml changed: updating .venv (up to a minute)"
    assert lines[-1].startswith("dev: .venv is ready (")
    assert not any(c.startswith("system -m venv") for c in calls)  # the venv is kept
    assert any("pip install -q -e" in c for c in calls)
    assert stamp.stat().st_mtime > 1_000_000_000


def test_a_set_up_cut_short_is_finished(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _setup(folder)
    (folder / ".venv" / ".installed").unlink()
    _, err, _ = _setup(folder)
    assert err.splitlines()[0].startswith("dev: finishing the set-up of .venv")
    assert (folder / ".venv" / ".installed").is_file()


def test_a_long_install_says_it_is_still_at_work(tmp_path: Path) -> None:
    """An install that runs on (a busy machine) is not silent: a line every DEV_HEARTBEAT
    seconds, then the ready line; a failed install fails the set-up, not marked done."""
    folder = _project(tmp_path)
    _, err, _ = _setup(folder, DEV_HEARTBEAT="1", SLOW_PIP="1")
    lines = err.splitlines()
    still = [line for line in lines if line.startswith("dev: still installing (")]
    assert 2 <= len(still) <= 4, lines  # the stand-in's install takes 3 s
    assert lines.index(still[0]) > 0 and lines[-1].startswith("dev: .venv is ready (")
    (folder / ".venv" / ".installed").unlink()
    with pytest.raises(subprocess.CalledProcessError):
        _setup(folder, FAIL_PIP="1")
    assert not (folder / ".venv" / ".installed").exists()
