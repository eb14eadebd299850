"""Languages, the leftovers of issue 12: counted messages take each language's plural forms
(gettext ``ngettext``; French one for 0 and 1, Slovak one/few/other), the catalog check finds
a counted message short of forms, and the texts translated here read as written below."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from metrogames import catalogs
from metrogames.cli.lang import ntr
from metrogames.i18n import gettext_for, plural


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["0 boxes", "1 box", "2 boxes", "5 boxes"]),
        ("fr", ["0 case", "1 case", "2 cases", "5 cases"]),
        ("nl", ["0 vakjes", "1 vakje", "2 vakjes", "5 vakjes"]),
        ("sk", ["0 políčok", "1 políčko", "2 políčka", "5 políčok"]),
    ],
)
def test_a_count_takes_its_languages_plural_form(lang: str, expected: list[str]) -> None:
    texts = [plural("{n} box", "{n} boxes", n).render(gettext_for(lang)) for n in (0, 1, 2, 5)]
    assert texts == expected


def test_a_counted_message_with_other_parameters_and_in_the_terminal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    message = plural("seat {seats} waits for a player", "seats {seats} wait for players", 2,
                     seats="1, 3")  # fmt: skip
    assert message.render() == "seats 1, 3 wait for players"
    assert message.render(gettext_for("sk")) == "miesta 1, 3 čakajú na hráčov"
    assert pickle.loads(pickle.dumps(message)) == message
    monkeypatch.setenv("METROGAMES_LANG", "sk")
    assert ntr("{n} tile", "{n} tiles", 1) == "1 dlaždica"
    assert ntr("{n} tile", "{n} tiles", 3) == "3 dlaždice"
    assert ntr("{n} tile", "{n} tiles", 12) == "12 dlaždíc"
    monkeypatch.setenv("METROGAMES_LANG", "fr")
    assert ntr("you beat it by {n} point", "you beat it by {n} points", 1) == (
        "vous le battez de 1 point"
    )
    assert ntr("you beat it by {n} point", "you beat it by {n} points", 7) == (
        "vous le battez de 7 points"
    )


def test_the_check_wants_every_plural_form(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(catalogs.LOCALE_DIR, tmp_path / "locale")
    monkeypatch.setattr(catalogs, "LOCALE_DIR", tmp_path / "locale")
    po = catalogs.po_path("sk")
    text = po.read_text(encoding="utf-8")
    assert 'msgstr[2] "{n} políčok"\n' in text
    po.write_text(text.replace('msgstr[2] "{n} políčok"\n', ""), encoding="utf-8")
    found = catalogs.problems("sk")
    assert "sk: untranslated ('{n} box', '{n} boxes')" in found  # the reader pads the form
