"""Regenerate the web table's rules pages from the project's rules text in ``docs/``.

The client shows ``#/rules/{game}`` from ``static/rules/{game}.html`` (English) or
``static/rules/{game}.{lang}.html`` (``lang`` in ``LANGS``), HTML fragments made here from the
game's document — ``docs/next-station-london.md``, ``docs/next-station-paris.md``,
``docs/metro.md`` and their translations ``docs/{stem}.{lang}.md`` — with markdown-it-py
(CommonMark and tables; raw HTML in the text is escaped, never passed through).

The documents are the developers' rules too. What only developers need — where a rule comes
from (the source documents), identifiers of the code and of the reference data, option codes,
check values — is marked in them and left out of the pages: ``[[dev: …]]`` around a part of a
sentence, a cell or a paragraph, and ``[[dev]]`` at the end of a section's heading for the whole
section. Players read the rules as a rulebook: options by their names on the new-game form.
A document rewritten for players (its title without the developers' suffix, e.g. "— how to
play") keeps its own opening paragraph. Its pictures are SVG diagrams drawn from the games' data by
``scripts/rules_diagrams.py``, written here into ``docs/diagrams/`` (for the docs site) and the web
table's ``static/rules/diagrams/``, where the fragments point (``/rules/diagrams/…``).
``tests/web/test_web_tutorial.py`` checks that the shipped fragments and diagrams are what this
script makes of the current documents and data, and that every translation has the English page's
sections, so run it after editing the rules:

    .venv/bin/python scripts/build_rules.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its neighbour, rules_diagrams.py
from rules_diagrams import diagrams

ROOT = Path(__file__).resolve().parent.parent
RULES = {
    "london": "next-station-london",
    "paris": "next-station-paris",
    "metro": "metro",
}
"""Each game with a rules page, and the stem of its document in ``docs/``."""
INTRO = {
    "en": "The rules as this site plays them, in the project's own words. Where the printed rules "
    "leave a point open, a **Decision** line says what the site does.",
    "fr": "Les règles telles que ce site les joue, dans les mots du projet. Là où les règles "
    "imprimées laissent un point ouvert, une ligne **Décision** dit ce que fait le site.",
    "nl": "De regels zoals deze site ze speelt, in de eigen woorden van het project. Waar de "
    "gedrukte regels een punt open laten, zegt een regel **Beslissing** wat de site doet.",
    "sk": "Pravidlá tak, ako ich hrá táto stránka, vlastnými slovami projektu. Kde tlačené "
    "pravidlá nechávajú niečo otvorené, riadok **Rozhodnutie** hovorí, čo robí stránka.",
}
"""The line that replaces the developers' notes before the first section, per language."""
LANGS = ("fr", "nl", "sk")
"""The translated pages' languages (English, ``en``, is the source and has no suffix)."""
OUT = ROOT / "src" / "metrogames" / "web" / "static" / "rules"
DIAGRAMS = (ROOT / "docs" / "diagrams", OUT / "diagrams")
"""Where the diagrams are written: the docs site's copy and the web table's."""
DEV_TITLES = (
    "rules to implement",
    "règles à implémenter",
    "regels om te implementeren",
    "pravidlá na implementáciu",
)
"""The title suffixes of documents still written for developers (their opening is replaced)."""
DEV_SPAN = re.compile(r"[ \t]*\[\[dev: .*?\]\]", re.S)
"""A developers' note inside the text (with the blank before it)."""
DEV_SECTION = re.compile(r"^## [^\n]*\[\[dev\]\][^\n]*\n.*?(?=^## |\Z)", re.S | re.M)
"""A section for developers only: its heading ends with ``[[dev]]``; up to the next section."""


def source(game: str, lang: str = "en") -> str:
    """The path of ``game``'s document in ``lang``, relative to the repository
    (``KeyError`` for a game without a rules page)."""
    suffix = "" if lang == "en" else f".{lang}"
    return f"docs/{RULES[game]}{suffix}.md"


def page(game: str, lang: str = "en") -> Path:
    """Where ``game``'s page in ``lang`` is shipped."""
    return OUT / (f"{game}.html" if lang == "en" else f"{game}.{lang}.html")


def for_players(text: str, lang: str = "en") -> str:
    """The document as players read it: its title without its suffix (" — rules to implement",
    " — how to play" or a translation) and, before the first section of a document still
    written for developers (``DEV_TITLES``), one line on what the page is (``INTRO[lang]``)
    instead of the notes for the project's developers, and without the
    parts marked ``[[dev: …]]`` or ``[[dev]]`` (see the module's docstring)."""
    head, _, rest = text.partition("\n## ")
    title, _, suffix = head.splitlines()[0].partition(" — ")
    if not rest:
        return text
    body = DEV_SPAN.sub("", DEV_SECTION.sub("", "## " + rest))
    if suffix.strip() in DEV_TITLES:
        return f"{title}\n\n{INTRO[lang]}\n\n{body}"
    opening = DEV_SPAN.sub("", head.partition("\n")[2]).strip()
    return f"{title}\n\n{opening}\n\n{body}"


def render(game: str, lang: str = "en") -> str:
    """The HTML fragment of ``game``'s rules page in ``lang`` (``KeyError`` for a game without
    one or an unknown language; ``FileNotFoundError`` when the translation is missing)."""
    if lang not in INTRO:
        raise KeyError(lang)
    text = for_players((ROOT / source(game, lang)).read_text(encoding="utf-8"), lang)
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    html = html.replace('<img src="diagrams/', '<img src="/rules/diagrams/')
    origin = source(game, lang)
    return f"<!-- generated by scripts/build_rules.py from {origin}: do not edit -->\n{html}"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for folder in DIAGRAMS:
        folder.mkdir(parents=True, exist_ok=True)
        for name, svg in diagrams().items():
            (folder / name).write_text(svg, encoding="utf-8")
            print(f"wrote {folder / name}")
    for game in RULES:
        for lang in ("en", *LANGS):
            page(game, lang).write_text(render(game, lang), encoding="utf-8")
            print(f"wrote {page(game, lang)}")


if __name__ == "__main__":
    main()
