"""The browser client's catalogs (static/i18n/{en,fr,nl,sk}.json) against the keys the client
uses: every key used is in every catalog, no catalog holds a key nobody uses, no text is
empty, each translation has the placeholders of the English text, and a counted text has
the plural forms its language needs (Intl.PluralRules: Slovak one/few/other).

Keys are found where i18n.js says they are written: ``t("key"`` literals in static/js/*.js,
``data-i18n="key"`` and ``data-i18n-attr="attr:key;..."`` in index.html and the JS.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "metrogames" / "web" / "static"
LANGS = ("en", "fr", "nl", "sk")
# the plural forms a counted text needs per language, for whole counts (CLDR; French "many"
# and Slovak "many" are optional: i18n.js falls back on "other")
PLURALS = {
    "en": {"one", "other"},
    "fr": {"one", "other"},
    "nl": {"one", "other"},
    "sk": {"one", "few", "other"},
}
OPTIONAL = {"fr": {"many"}, "sk": {"many"}}
T_CALL = re.compile(r"(?<![\w.])t\(\s*\"([^\"]+)\"")
DATA_I18N = re.compile(r"data-i18n=\"([^\"]+)\"")
DATA_ATTR = re.compile(r"data-i18n-attr\"?[=,]\s*\"([^\"]+)\"")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def used_keys() -> set[str]:
    keys: set[str] = set()
    sources = [*sorted((STATIC / "js").glob("*.js")), STATIC / "index.html"]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        keys.update(T_CALL.findall(text))
        keys.update(DATA_I18N.findall(text))
        for pairs in DATA_ATTR.findall(text):
            keys.update(pair.split(":", 1)[1] for pair in pairs.split(";"))
    return keys


def catalog(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def forms(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def placeholders(value: Any) -> set[str]:
    return {name for text in forms(value) for name in PLACEHOLDER.findall(text)}


def test_the_scan_finds_the_keys() -> None:
    keys = used_keys()
    # one of each way of writing a key: t() in a module, data-i18n and data-i18n-attr
    assert {"home.join.title", "header.daily", "header.home", "header.language"} <= keys
    assert len(keys) > 400


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_has_exactly_the_keys_used(lang: str) -> None:
    keys = used_keys()
    cat = catalog(lang)
    assert sorted(keys - cat.keys()) == [], f"{lang}.json lacks these keys"
    assert sorted(cat.keys() - keys) == [], f"{lang}.json has keys no code uses"


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_texts_are_filled_and_match_english(lang: str) -> None:
    en = catalog("en")
    cat = catalog(lang)
    for key, value in cat.items():
        assert all(isinstance(x, str) and x.strip() for x in forms(value)), f"{lang} {key}: empty"
        assert placeholders(value) == placeholders(en[key]), f"{lang} {key}: placeholders"
        assert isinstance(value, dict) == isinstance(en[key], dict), f"{lang} {key}: plural or not"
        if isinstance(value, dict):
            need = PLURALS[lang]
            assert need <= value.keys() <= need | OPTIONAL.get(lang, set()), f"{lang} {key}: forms"


def test_translations_are_translated() -> None:
    """Most texts differ from English (a catalog copied from en.json would pass the rest)."""
    en = catalog("en")
    for lang in LANGS[1:]:
        cat = catalog(lang)
        same = [k for k, v in cat.items() if v == en[k] and len(str(v)) > 12]
        assert len(same) < 0.05 * len(en), f"{lang}: untranslated {same[:10]}"


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translated_tutorials_keep_the_steps(lang: str) -> None:
    """A translated tutorial (the content helper's file, when present) has the steps of
    tutorials.json with their moves, squares and marks unchanged: only texts differ."""
    path = STATIC / f"tutorials.{lang}.json"
    if not path.exists():
        return  # the guide falls back on English (tutorial.js)
    base = json.loads((STATIC / "tutorials.json").read_text("utf-8"))
    tr = json.loads(path.read_text("utf-8"))
    for game, spec in tr.items():
        if game == "about":
            continue
        original = base[game]
        assert len(spec["steps"]) == len(original["steps"]), game
        for mine, theirs in zip(spec["steps"], original["steps"], strict=True):
            plain = {k: v for k, v in mine.items() if k not in ("text", "hint")}
            assert plain == {k: v for k, v in theirs.items() if k not in ("text", "hint")}
            assert mine["text"].strip()
