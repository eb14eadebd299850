"""The rules pages read as a rulebook (``scripts/build_rules.py``): no source documents or
seeds cited, no code identifiers or option codes, no quotation in another language — what
developers need stays in ``docs/`` marked ``[[dev: …]]`` and the build leaves it out."""

from __future__ import annotations

import importlib.util
import re
from html import unescape
from pathlib import Path

import pytest

from metrogames.web.app import static_dir

ROOT = Path(__file__).resolve().parents[2]
PAGES = [(g, lang) for g in ("london", "paris", "metro") for lang in ("en", "fr", "nl", "sk")]
MARKS = {
    "a source or seed": re.compile(
        r"(?i)\b(sources?|seeds?|seedu|graines?|bron(nen)?|zdroj\w*|semien\w*)\b|\b0\d\d\b"
    ),
    "a code identifier": re.compile(r"<code>|`|\b[a-z]+_[a-z_]+\b"),
    "an option code": re.compile(r"\"[\w-]+\"\s*:|\b[\w-]+:\s*\"[\w-]+\""),
    "a developer's mark": re.compile(r"\[\[dev"),
}
QUOTE = re.compile(r"«([^»]*)»|“([^”]*)”|\"([^\"]*)\"")
FOREIGN = {
    "en": re.compile(r"(?i)\b(le|la|les|une|est|des|du|het|een|je|sa|na)\b"),
    "nl": re.compile(r"(?i)\b(le|la|les|une|est|des|du|the|you|your|and)\b"),
    "sk": re.compile(r"(?i)\b(le|la|les|une|est|des|du|the|you|your|of|and|het|een)\b"),
    "fr": re.compile(r"(?i)\b(the|you|your|of|and|het|een|je)\b"),
}
"""Words of another language that betray a quotation left untranslated."""


def text_of(game: str, lang: str) -> str:
    name = f"{game}.html" if lang == "en" else f"{game}.{lang}.html"
    html = (static_dir() / "rules" / name).read_text(encoding="utf-8")
    body = html.split("\n", 1)[1]  # after the generated-file comment
    return unescape(re.sub(r"<(?!code>)[^>]+>", " ", body))


@pytest.mark.parametrize(("game", "lang"), PAGES)
def test_a_rules_page_has_no_developers_marks(game: str, lang: str) -> None:
    text = text_of(game, lang)
    for what, mark in MARKS.items():
        found = [m.group(0) for m in mark.finditer(text)]
        assert not found, f"{game}.{lang}: {what}: {found}"
    for quoted in QUOTE.finditer(text):
        words = next(g for g in quoted.groups() if g is not None)
        assert not FOREIGN[lang].search(words), f"{game}.{lang}: quotation {words!r}"


def test_the_build_leaves_out_what_is_marked_for_developers() -> None:
    spec = importlib.util.spec_from_file_location(
        "build_rules", ROOT / "scripts" / "build_rules.py"
    )
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    text = (
        '# T — rules to implement\n\nnotes\n\n## A\nKeep[[dev: (seed 000: "x")]] this.\n'
        "[[dev: A paragraph\nfor developers.]]\n\n## Check value [[dev]]\nA `baac`\n\n## B\nb\n"
    )
    page = build.for_players(text)
    assert page.startswith("# T\n\nThe rules as this site plays them")
    assert page.endswith("## A\nKeep this.\n\n\n## B\nb\n")
