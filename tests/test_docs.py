"""Every reference to a document in the code, the tests and the README resolves to a file of
the repository (``docs/``): the package never needs the project's shared folder."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = re.compile(r"\bdocs/([\w.-]+\.md)")
OUTSIDE = re.compile(r"(?<![\w/])(?:" + "spec" + "|" + "rules" + r")/[\w.-]+\.md|(?<![\w/.])DE" + r"SIGN\.md")
"""A reference to the shared folder's layout instead of the repository's own copy."""


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "src", "tests", "README.md", "docs", "benchmarks", "scripts", "dev"],
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
