"""Browser tests: the real server (``metrogames serve`` on a free port, temporary SQLite) and
Debian's Chromium driven by Playwright (never ``playwright install``). Every page the tests
open fails its test on an uncaught error or on anything the Content-Security-Policy refused.

A missing ``web`` extra or ``playwright`` package fails these tests (``./dev`` installs both). A
missing Chromium (``/usr/bin/chromium``; ``./dev test`` installs it) fails them under a non-empty
``CI`` and skips them otherwise, so a developer without a browser can run the rest. Screenshots
of the main screens go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

CHROMIUM = os.environ.get("METROGAMES_CHROMIUM", "/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _metrogames_command() -> list[str]:
    exe = Path(sys.executable).with_name("metrogames")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("metrogames")
    if found:
        return [found]
    return [sys.executable, "-c", "from metrogames.cli.main import app; app()"]


DATABASES: dict[str, Path] = {}
"""The SQLite file of each running test server, by its base URL."""


@contextlib.contextmanager
def serving(tmp_path_factory: pytest.TempPathFactory, **extra: str) -> Iterator[str]:
    """A running web table with a fresh database (``extra``: more environment); its base URL."""
    port = _free_port()
    db = tmp_path_factory.mktemp("web") / "browser.db"
    env = dict(os.environ)
    env["METROGAMES_BOT_DELAY"] = "0.02"
    env["METROGAMES_CLOCK_UNIT"] = "1"
    env["METROGAMES_HANDOVER_GRACE"] = "0"  # a closed page has left at once
    env["METROGAMES_DAILY_EXPERT"] = "easy"  # the daily deal's strong bot, at no cost
    env["METROGAMES_JOB_WARM"] = "0"  # job processes start at their first jobs (few tests have any)
    # every test's rooms, players, accounts and analyses come from this machine
    kinds = ("ROOMS", "PLAYERS", "JOINS", "REPLAYS", "SCORES", "HINTS", "ACCOUNTS", "SIGNINS")
    for kind in (*kinds, "ANALYSES", "CHAT", "SOCKETS", "LOBBY", "FRIENDS"):
        env[f"METROGAMES_RATE_{kind}"] = "10000/minute"
    env["METROGAMES_DAILY_GUEST_RANKED"] = "1000"
    env["METROGAMES_ANALYSIS_BUDGET"] = "rough"  # the panel's path, not the search's strength
    env.update(extra)
    log = tmp_path_factory.mktemp("log") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*_metrogames_command(), "serve", "--port", str(port), "--db", f"sqlite:///{db}"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    DATABASES[base] = db
    try:
        # a loaded 2-core machine starts the server (and its job processes) in seconds, at
        # worst in about a minute: the limit only stops a server that will never answer
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/games", timeout=2) as res:
                    json.load(res)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the server did not start: {log.read_text(errors='replace')[-2000:]}"
                    ) from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running web table with a fresh database."""
    with serving(tmp_path_factory) as base:
        yield base


@pytest.fixture(scope="session")
def plugin_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a web table that also serves the test-only plug-in game ``line3``
    (``tests/support/line3.py``), named in its settings (``METROGAMES_GAMES=support.line3:GAME``): a game
    whose family no screen of the client knows."""
    tests = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH", "")]))
    with serving(tmp_path_factory, METROGAMES_GAMES="support.line3:GAME", PYTHONPATH=path) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless. ``./dev test`` installs it; a machine without it fails
    these tests under a non-empty ``CI`` and skips them otherwise (a developer without a
    browser can run the rest)."""
    if not Path(CHROMIUM).exists():
        missing = f"no Chromium at {CHROMIUM} (./dev test installs Debian's chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"browser tests need Chromium: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield b
        finally:
            b.close()


class PageErrors(list[str]):
    """Uncaught page errors and Content-Security-Policy refusals collected during a test."""


def watch(page: Page, errors: PageErrors) -> None:
    """Collect ``page``'s uncaught errors and what its Content-Security-Policy refused (Chromium
    reports each refusal on the console)."""
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            errors.append(f"CSP: {message.text}")

    page.on("console", console)


def new_context(browser: Browser, **kwargs: object) -> BrowserContext:
    """A fresh context (``kwargs``: Playwright's context options) that prefers reduced motion
    unless told otherwise: the client's infinite CSS animations (the departure's blink, a
    start's spin, the guide's pulse) then stay still, where each keeps Chromium painting
    (about 70% of a core for one idle London table). The departure's blink is checked with
    motion on and off in ``test_browser_nextstation.py``."""
    kwargs.setdefault("reduced_motion", "reduce")
    return browser.new_context(**kwargs)  # type: ignore[arg-type]


def new_page(browser: Browser, errors: PageErrors, **kwargs: object) -> Page:
    """A page in a fresh context (its own localStorage; :func:`new_context`) with bot pacing
    and the confirmation of moves turned off."""
    context = new_context(browser, **kwargs)
    context.add_init_script("try { localStorage.setItem('metrogames.pace', '0'); } catch (e) {}")
    # moves are sent as soon as they are built, on phones too (the confirm-or-undo setting
    # is off; test_browser_confirm.py tests it and its default)
    context.add_init_script(
        "try { localStorage.setItem('metrogames.confirm-moves', '0'); } catch (e) {}"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch(page, errors)
    return page


@pytest.fixture
def errors() -> Iterator[PageErrors]:
    found = PageErrors()
    yield found
    assert not found, f"JavaScript errors in the page: {found}"


@pytest.fixture
def page(browser: Browser, errors: PageErrors) -> Iterator[Page]:
    p = new_page(browser, errors, viewport={"width": 1366, "height": 900})
    try:
        yield p
    finally:
        p.context.close()
