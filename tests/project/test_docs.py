"""The documents keep their promises: every reference to a document in the code, the tests and
the README resolves to a file of the repository (``docs/``: the package never needs the
project's shared folder); the README, CONTRIBUTING and CHANGELOG link only to what exists; the
README stays a front door whose example runs with its output; every Python example of the docs
runs; the commands table and the configuration page match the code."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = re.compile(r"\bdocs/([\w.-]+\.md)")
OUTSIDE = re.compile(
    r"(?<![\w/])(?:" + "spec" + "|" + "rules" + r")/[\w.-]+\.md|(?<![\w/.])DE" + r"SIGN\.md"
)
"""A reference to the shared folder's layout instead of the repository's own copy."""


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "src", "tests", "docs", "benchmarks", "scripts", "dev", *FRONT],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    out = []
    for name in listed:
        path = ROOT / name
        if path.suffix in {".py", ".md", ".json", ".js", ".html", ".css", ""} and path.is_file():
            out.append(path)
    return out


def test_every_document_reference_resolves() -> None:
    files = tracked_text_files()
    assert len(files) > 100
    broken, outside = [], []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in DOC.finditer(text):
            if not (ROOT / "docs" / match.group(1)).is_file():
                broken.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
        outside += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert not broken, broken
    assert not outside, outside


def test_each_game_data_file_names_its_developers_document() -> None:
    """A packaged data file's ``source`` names where its facts are kept precisely: its game's
    developers' document (``docs/engine-rules-*.md``), not the players' rules page, and no path
    outside the repository."""
    files = sorted((ROOT / "src" / "metrogames" / "data").glob("*.json"))
    assert len(files) == 3
    for path in files:
        source = json.loads(path.read_text(encoding="utf-8"))["source"]
        named = DOC.findall(source)
        assert named and all(re.fullmatch(r"engine-rules-[a-z]+\.md", n) for n in named), source
        assert "shared/" not in source, source


# -- the front door: README, CONTRIBUTING, CHANGELOG -----------------------------------------
FRONT = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")
"""The repository's own pages outside the docs site (``mkdocs build --strict`` checks the site's
links and anchors: ``tests/project/test_docs_site.py``)."""
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
"""A Markdown link or image: its target."""


def _headings(path: Path) -> set[str]:
    """The anchors of ``path``'s headings, as the docs site makes them (Python-Markdown's toc)."""
    from markdown.extensions.toc import slugify

    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    titles = re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.M)
    return {slugify(re.sub(r"[`*]", "", title), "-") for title in titles}


def test_every_relative_link_of_the_front_pages_resolves() -> None:
    """README, CONTRIBUTING and CHANGELOG: every relative link names a file of the repository
    (and a heading of it, after ``#``)."""
    broken, seen = [], 0
    for name in FRONT:
        text = re.sub(r"```.*?```", "", (ROOT / name).read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"``.*?``|`[^`\n]*`", "", text)  # code is not a link
        for match in LINK.finditer(text):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            seen += 1
            file, _, anchor = target.partition("#")
            path = (ROOT / name).parent / file if file else ROOT / name
            if not path.is_file():
                broken.append(f"{name}: {target} (no such file)")
            elif anchor and anchor not in _headings(path):
                broken.append(f"{name}: {target} (no such heading)")
    assert seen > 20
    assert not broken, broken


def test_the_link_check_finds_a_broken_link() -> None:
    found = [
        m.group(1) for m in LINK.finditer("see [the API](nowhere/missing.md#x) and ![a](b.svg)")
    ]
    assert found == ["nowhere/missing.md#x", None]
    assert "the-engine-from-python" in _headings(ROOT / "README.md")


def test_the_readme_is_a_front_door() -> None:
    """At most 200 lines: what it is, the quick start, a Python example, the commands, links."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, len(lines)
    text = "\n".join(lines)
    assert "./dev start" in text and "./dev test" in text


def test_the_readme_example_runs_with_its_output() -> None:
    """The README's ``pycon`` example is a doctest: every line runs and prints what it shows."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no pycon example"
    test = doctest.DocTestParser().get_doctest("".join(blocks), {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda text: print(text, end=""))
    failed, attempted = runner.summarize(verbose=False)
    assert attempted >= 10 and failed == 0


def _python_blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"```python\n(.*?)```", text, flags=re.S):
            out.append((path.name, text[: match.start()].count("\n") + 2, match.group(1)))
    return out


@pytest.mark.parametrize(
    ("page", "line", "code"), _python_blocks(), ids=[f"{p}:{n}" for p, n, _ in _python_blocks()]
)
def test_every_python_example_of_the_docs_runs(page: str, line: int, code: str) -> None:
    """Each ``python`` block of the README and the docs pages runs as printed (its asserts
    included)."""
    exec(compile("\n" * (line - 1) + code, page, "exec"), {})


def test_the_docs_have_their_python_examples() -> None:
    pages = {page for page, _, _ in _python_blocks()}
    assert {"engine.md", "research.md"} <= pages
    assert sum(page == "research.md" for page, _, _ in _python_blocks()) == 6


def test_the_readme_commands_are_the_cli_commands() -> None:
    """The README's commands table has one row per command of ``metrogames``, and
    ``docs/commands.md`` a section for each."""
    import typer.main

    from metrogames.cli.main import app

    commands = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `metrogames (\w+)", readme, flags=re.M))
    assert rows == commands
    assert commands <= _headings(ROOT / "docs" / "commands.md")


def test_the_configuration_page_lists_every_setting_with_its_default() -> None:
    """``docs/configuration.md``'s settings table: one row per field of the server's settings,
    named as its environment variable, with the field's default; no other ``METROGAMES_`` row."""
    from metrogames.web.infra.config import Settings

    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = text.split("## Settings", 1)[1].split("\n\n`tests/project/test_docs.py`", 1)[0]
    rows = {
        m.group(1): m.group(2).strip()
        for m in re.finditer(r"^\| `(METROGAMES_\w+)` \|[^|]*\| ([^|]+) \|", table, flags=re.M)
    }
    expected = {}
    for name, field in Settings.model_fields.items():
        default = field.default
        if default is None:
            shown = "unset"
        elif default == "":
            shown = "empty"
        elif isinstance(default, bool):
            shown = f"`{str(default).lower()}`"
        else:
            shown = f"`{default}`"
        expected[f"METROGAMES_{name.upper()}"] = shown
    assert rows == expected


SECTION_REF = re.compile(
    r"docs/([\w.-]+\.md)`{0,2}(?:,\s*|\s*\(\s*)((?:\"[^\"]+\"(?:\s*(?:,|and|or)\s*)?)+)"
)
"""A reference to sections of a document: ``docs/notation.md``, "Options", or
``docs/engine-rules-london.md`` ("A round", "Scoring a line")."""


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[`*]|\[\[dev[^\]]*\]\]", "", text)).strip().lower()


def _section_names(doc: str) -> tuple[list[str], str]:
    """``doc``'s headings and bold run-in labels (``**Colour rotation.**``), and its text."""
    text = re.sub(r"```.*?```", "", (ROOT / "docs" / doc).read_text(encoding="utf-8"), flags=re.S)
    names = re.findall(r"^#{1,6}\s+(.+)$", text, flags=re.M) + re.findall(r"\*\*(.+?)\*\*", text)
    return [_plain(n) for n in names], _plain(text)


def test_every_section_reference_names_a_section() -> None:
    """A quoted section name after a document names one of its headings or bold labels (the
    start of it is enough: "Score sheet"), or quotes its text (four words or more)."""
    checked, broken = 0, []
    for path in tracked_text_files():
        text = re.sub(r"\s*\n\s*(?:#\s*)?", " ", path.read_text(encoding="utf-8"))
        for match in SECTION_REF.finditer(text):
            doc = match.group(1)
            if not (ROOT / "docs" / doc).is_file():
                continue  # test_every_document_reference_resolves names it
            names, body = _section_names(doc)
            for quoted in re.findall(r"\"([^\"]+)\"", match.group(2)):
                checked += 1
                want = _plain(quoted)
                if not any(n.startswith(want) for n in names) and not (
                    len(want.split()) >= 4 and want in body
                ):
                    broken.append(f'{path.relative_to(ROOT)}: docs/{doc}, "{quoted}"')
    assert checked > 150
    assert not broken, broken
