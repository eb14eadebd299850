"""The documentation site (``mkdocs.yml``) builds in strict mode: a broken link, anchor or
docstring cross-reference fails the build, and so this test. The site needs nothing from the
network, and its API reference, generated from the docstrings, covers the public package."""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import griffe
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
"""Without the theme's notice about its successor (printed on every build, not a warning)."""


def _mkdocs(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", *args]
    return subprocess.run(
        command, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    run = _mkdocs("--site-dir", str(out))
    assert run.returncode == 0, run.stderr
    assert "WARNING" not in run.stderr, run.stderr
    return out


def test_every_docs_page_is_built(site: Path) -> None:
    pages = {
        p.relative_to(ROOT / "docs").with_suffix(".html") for p in (ROOT / "docs").rglob("*.md")
    }
    assert len(pages) > 25
    assert all((site / page).is_file() for page in pages), pages
    assert (site / "architecture-layers.svg").is_file()


def test_the_site_loads_nothing_from_elsewhere(site: Path) -> None:
    """No script, style sheet, font or image from another host: the site works offline (the
    theme's web fonts are off)."""
    remote = re.compile(
        r"<(?:script|img|iframe|source)\b[^>]*\bsrc=\"(?:https?:)?//"
        r"|<link\b[^>]*\bhref=\"(?:https?:)?//"
        r"|url\(\s*[\"']?(?:https?:)?//"
        r"|@import\s+[\"']?(?:https?:)?//"
    )
    found = []
    for path in site.rglob("*"):
        if path.suffix in {".html", ".css", ".js", ".svg"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(site)}: {m.group(0)}" for m in remote.finditer(text)]
    assert not found, found[:10]
    assert remote.search('<script src="https://cdn.example/x.js">')  # the check can fail


def test_the_api_reference_covers_the_public_package(site: Path) -> None:
    """Each object gets its anchor on its module's page, from its docstring."""
    expected = {
        "games": ["metrogames.games.load_game", "metrogames.games.register_game",
                  "metrogames.games.replay_record", "metrogames.games.game_type"],
        "core": ["metrogames.core.protocol.State", "metrogames.core.protocol.Game",
                 "metrogames.core.protocol.GameType", "metrogames.core.protocol.CHANCE",
                 "metrogames.core.rng.Rng", "metrogames.core.errors.IllegalActionError"],
        "bots": ["metrogames.bots.make_bot", "metrogames.bots.base.Bot",
                 "metrogames.bots.levels", "metrogames.bots.coach.hints"],
        "sim": ["metrogames.sim.runner.run_many", "metrogames.sim.results",
                "metrogames.sim.stats.paired"],
        "envs": ["metrogames.envs.metro_env", "metrogames.envs.nextstation_parallel_env",
                 "metrogames.envs.openspiel.register", "metrogames.envs.encoders.MetroEncoder",
                 "metrogames.envs.flat.FlatLayout"],
    }  # fmt: skip
    missing = []
    for page, ids in expected.items():
        text = (site / "reference" / f"{page}.html").read_text(encoding="utf-8")
        missing += [f"{page}: {i}" for i in ids if f'id="{i}"' not in text]
    assert not missing, missing
    state = (site / "reference" / "core.html").read_text(encoding="utf-8")
    assert "the set of players who may act" in state  # State.to_move's docstring, rendered


def test_docstring_roles_become_links(site: Path) -> None:
    """``:class:`Game``` in a docstring is a link to ``Game``'s entry; no role is left raw."""
    core = (site / "reference" / "core.html").read_text(encoding="utf-8")
    assert re.search(
        r'<a [^>]*href="#metrogames\.core\.protocol\.Game"[^>]*><code>Game</code>', core
    )
    for page in (site / "reference").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r":(class|func|mod|meth|attr|data|exc):", text), page.name


def _roles_extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_roles", ROOT / "scripts" / "docs_roles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_role_that_names_nothing_is_a_warning_naming_its_place(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    package = tmp_path / "rolespkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        '"""See :mod:`.board` and :func:`~rolespkg.board.play`. For example::\n\n'
        '    board.play()\n\nThat is all."""\n'
    )
    (package / "board.py").write_text(
        '"""The board.\n\nPlays by :func:`play`; sized by :attr:`Board.cells`; ordered by\n'
        ':func:`sorted` and :class:`collections.OrderedDict`; drawn by :func:`draw`."""\n\n'
        "class Board:\n    def _build(self):\n        self.cells = 9\n\n"
        'def play():\n    """One move of :class:`Board` (see :meth:`Board.undo`)."""\n'
    )
    extension = _roles_extension().SphinxRoles(package="rolespkg")
    with caplog.at_level(logging.WARNING):
        loaded = griffe.load(
            "rolespkg", search_paths=[str(tmp_path)], extensions=griffe.load_extensions(extension)
        )
    warnings = sorted(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert len(warnings) == 2, warnings
    assert warnings[0].endswith(
        "rolespkg/board.py:11: :meth:`Board.undo` names nothing in the package "
        "(in the docstring of rolespkg.board.play)"
    )
    assert warnings[1].endswith(
        "rolespkg/board.py:4: :func:`draw` names nothing in the package "
        "(in the docstring of rolespkg.board)"
    )
    assert loaded.docstring is not None and loaded["board"].docstring is not None
    assert loaded.docstring.value == (
        'See <autoref identifier="rolespkg.board" optional><code>board</code></autoref> and '
        '<autoref identifier="rolespkg.board.play" optional><code>play()</code></autoref>. '
        "For example:\n\n    board.play()\n\nThat is all."
    )
    board = loaded["board"].docstring.value
    assert '<autoref identifier="rolespkg.board.play" optional><code>play()</code>' in board
    assert '<autoref identifier="rolespkg.board.Board.cells" optional>' in board
    assert "<code>sorted()</code> and <code>collections.OrderedDict</code>" in board
    assert "`draw`" in board


def test_strict_mode_fails_on_a_broken_link_or_anchor(tmp_path: Path) -> None:
    """The site's own validation settings, on a page with a broken link and a broken anchor."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\nSee [a page](missing.md) and [a section](other.md#nowhere).\n"
    )
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Somewhere\n")
    (tmp_path / "mkdocs.yml").write_text(
        yaml.safe_dump({"site_name": "t", "validation": config["validation"], "theme": "mkdocs"})
    )
    run = _mkdocs(cwd=tmp_path)
    assert run.returncode != 0
    assert "missing.md" in run.stderr and "#nowhere" in run.stderr, run.stderr
