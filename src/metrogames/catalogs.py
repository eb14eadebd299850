"""The message catalogs' tooling (Babel): extract, update, compile and check.

``python -m metrogames.catalogs update`` extracts every marked message of the sources (the
keywords of :mod:`metrogames.i18n`, ``N_("...")``, ``msg("...", **params)`` and
``plural("...", "...", n, **params)``, and of :mod:`metrogames.cli.lang`, ``_("...")``,
``tr("...", **params)`` and ``ntr("...", "...", n, **params)``) into
``locale/metrogames.pot`` and merges it into each language's ``.po`` (new messages come in
empty, vanished ones go); after translating, ``compile`` writes the ``.mo`` files the program
reads (they are committed: an installed package needs no build step). ``check`` prints what
:func:`problems` finds and exits 1 when anything is wrong.
"""

from __future__ import annotations

import io
import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from metrogames.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, SOURCE_LANGUAGE

SOURCES = Path(__file__).parent
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "N_": None,
    "msg": None,
    "_": None,
    "tr": None,
    "plural": (1, 2),
    "ntr": (1, 2),
}
"""Extraction keywords: the marked message is the call's first argument (``None``), or the
singular and plural of a counted one (``(1, 2)``, like gettext's ``ngettext``)."""
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE)


def po_path(lang: str) -> Path:
    """The ``.po`` file of ``lang``."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every marked message of the package's sources, with where it is used."""
    catalog = Catalog(project="metrogames", domain=DOMAIN, fuzzy=False)
    found = extract_from_dir(
        str(SOURCES), method_map=[("**.py", "python")], keywords=KEYWORDS, strip_comment_tags=True
    )
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read(lang: str) -> Catalog:
    """The ``.po`` catalog of ``lang``."""
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def placeholders(text: str) -> set[str]:
    """The ``str.format`` field names of ``text``."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def problems(lang: str, template: Catalog | None = None) -> list[str]:
    """What is wrong with the catalog of ``lang`` against the sources: a missing message, an
    unused (obsolete) one, an empty or fuzzy translation, a counted message without the
    language's number of plural forms, placeholders that differ from the English ones, a
    compiled ``.mo`` that does not match the ``.po``."""
    template = template or extract()
    catalog = read(lang)
    wanted = {m.id for m in template if m.id}
    have = {m.id for m in catalog if m.id}
    found = [f"{lang}: missing {m!r}" for m in sorted(wanted - have)]
    found += [f"{lang}: unused {m!r}" for m in sorted(have - wanted)]
    found += [f"{lang}: obsolete {m!r}" for m in sorted(catalog.obsolete)]
    for m in catalog:
        if not m.id:
            continue
        ids = list(m.id) if isinstance(m.id, tuple | list) else [m.id]
        strings = list(m.string) if isinstance(m.string, tuple | list) else [m.string]
        english = set().union(*(placeholders(str(i)) for i in ids))
        if len(ids) > 1 and len(strings) != catalog.num_plurals:
            found.append(f"{lang}: {m.id!r} needs {catalog.num_plurals} plural forms")
        if not all(strings):
            found.append(f"{lang}: untranslated {m.id!r}")
        elif m.fuzzy:
            found.append(f"{lang}: fuzzy {m.id!r}")
        elif not all(_fits(placeholders(str(x)), english, len(ids) > 1) for x in strings):
            found.append(f"{lang}: placeholders of {m.id!r} differ in {m.string!r}")
    mo = po_path(lang).with_suffix(".mo")
    compiled = _mo_messages(mo) if mo.is_file() else None
    wanted_mo = {
        _hashable(m.id): _hashable(m.string) for m in catalog if m.id and m.string and not m.fuzzy
    }
    if compiled != wanted_mo:
        found.append(f"{lang}: {mo.name} is not compiled from the .po (run compile)")
    return found


def _fits(have: set[str], english: set[str], counted: bool) -> bool:
    """A translation's placeholders match the English ones (a counted form may leave out
    ``{n}``: Slovak "jedna dlaždica")."""
    return have == english or (counted and have == english - {"n"})


def _mo_messages(path: Path) -> dict[object, object]:
    with path.open("rb") as f:
        return {_hashable(m.id): _hashable(m.string) for m in read_mo(f) if m.id}


def _hashable(value: object) -> object:
    """A message id or string as the ``.po`` reader gives it (a plural's forms: a tuple)."""
    return tuple(value) if isinstance(value, list) else value


def update() -> None:
    """Write the template and merge it into every language's ``.po``."""
    template = extract()
    with (LOCALE_DIR / f"{DOMAIN}.pot").open("wb") as f:
        write_po(f, template, omit_header=False, sort_output=True)
    for lang in TRANSLATED:
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        catalog = (
            read(lang)
            if path.is_file()
            else Catalog(locale=lang, domain=DOMAIN, project="metrogames", fuzzy=False)
        )
        catalog.update(template, no_fuzzy_matching=True)
        with path.open("wb") as f:
            write_po(f, catalog, sort_output=True, ignore_obsolete=True)


def compile_all() -> None:
    """Write every language's ``.mo`` from its ``.po``."""
    for lang in TRANSLATED:
        catalog = read(lang)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        po_path(lang).with_suffix(".mo").write_bytes(buffer.getvalue())


def main(argv: list[str]) -> int:
    """``update``, ``compile`` or ``check``; returns the exit status."""
    command = argv[0] if argv else ""
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        template = extract()
        found = [p for lang in TRANSLATED for p in problems(lang, template)]
        print("\n".join(found) or "catalogs complete")
        return 1 if found else 0
    else:
        print("usage: python -m metrogames.catalogs update|compile|check", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
