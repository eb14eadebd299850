"""Languages (issue 12): the catalogs match the sources, the language is chosen as documented,
refusals keep their English detail and translate, and the terminal speaks the player's
language while its JSON stays English."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from metrogames import catalogs
from metrogames.cli.main import app
from metrogames.cli.render.metro_board import SEAT_COLOURS
from metrogames.core.errors import IllegalActionError, Where
from metrogames.games.metro.tiles import load_metro
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.words import WORDS, term
from metrogames.i18n import (
    N_,
    best_language,
    environment_language,
    gettext_for,
    msg,
    verbatim,
)
from metrogames.web.errors import RoomError
from support.london_records import SPEC_SCORE, SPEC_SHEET

DUTCH = {"LANG": "nl_NL.UTF-8", "METROGAMES_LANG": None, "LANGUAGE": None, "LC_ALL": None,
         "LC_MESSAGES": None}  # fmt: skip


@pytest.fixture(scope="module")
def template():  # type: ignore[no-untyped-def]
    return catalogs.extract()


@pytest.mark.parametrize("lang", catalogs.TRANSLATED)
def test_catalog_has_every_message_translated_and_nothing_else(lang: str, template) -> None:  # type: ignore[no-untyped-def]
    assert catalogs.problems(lang, template) == []


def test_the_sources_mark_refusals_and_terminal_texts(template) -> None:  # type: ignore[no-untyped-def]
    ids = {m.id for m in template}
    assert "{section} crosses the {colour} section {link}" in ids  # an engine refusal
    assert "step {step} is not the current step {current}" in ids  # a server refusal
    assert "Final scores: {scores}" in ids  # the terminal
    assert "pink" in ids  # game words


def test_problems_finds_every_kind_of_fault(tmp_path: Path, monkeypatch, template) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(catalogs.LOCALE_DIR, tmp_path / "locale")
    monkeypatch.setattr(catalogs, "LOCALE_DIR", tmp_path / "locale")
    po = catalogs.po_path("fr")
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgstr "la partie est terminée"', 'msgstr ""')
    text = text.replace('msgstr "joueur {player}"', 'msgstr "joueur {joueur}"')
    text = text.replace('msgid "no tile"\nmsgstr "aucune tuile"', 'msgid "no tiles"\nmsgstr "x"')
    text = text.replace('msgid "orange"', '#, fuzzy\nmsgid "orange"')
    po.write_text(text, encoding="utf-8")
    found = catalogs.problems("fr", template)
    assert "fr: missing 'no tile'" in found
    assert "fr: unused 'no tiles'" in found
    assert "fr: untranslated 'the game is over'" in found
    assert "fr: fuzzy 'orange'" in found
    assert "fr: placeholders of 'player {player}' differ in 'joueur {joueur}'" in found
    assert "fr: metrogames.mo is not compiled from the .po (run compile)" in found
    assert len(found) == 6


def test_every_word_of_the_city_data_is_translatable() -> None:
    for name in ("london", "paris"):
        city = load_city(name)
        used = {*city.colours, *(s.symbol for s in city.stations)}
        used |= {c.kind for c in city.deck} | {c.face for c in city.deck}
        used |= {"double-section", "joker", "switch", "circle-station"}  # the pencil powers
        if city.river_name:
            used.add(city.river_name)
        assert used <= set(WORDS), used - set(WORDS)
    assert set(load_metro().seat_colours) <= set(SEAT_COLOURS)
    assert term("pink").render(gettext_for("nl")) == "roze"
    assert term("D3").render(gettext_for("nl")) == "D3"  # a name is no word: kept as it is


@pytest.mark.parametrize(
    ("env", "lang"),
    [
        ({}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "C", "LANGUAGE": "fr"}, "en"),  # as GNU gettext: LANGUAGE needs a locale
        ({"LANG": "en_GB.UTF-8", "LANGUAGE": "de:fr"}, "fr"),
        ({"LANG": "nl_NL.UTF-8"}, "nl"),
        ({"LANG": "nl_BE.UTF-8", "LC_ALL": "sk_SK.UTF-8"}, "sk"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8", "METROGAMES_LANG": "en"}, "en"),
        ({"LANG": "C.UTF-8", "METROGAMES_LANG": "sk"}, "sk"),
    ],
)
def test_terminal_language(env: dict[str, str], lang: str) -> None:
    assert environment_language(env) == lang


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "en"),
        ("", "en"),
        ("*", "en"),
        ("fr-CA,fr;q=0.9,en;q=0.8", "fr"),
        ("de-DE, nl;q=0.5, en;q=0.4", "nl"),
        ("en;q=0.1, sk;q=0.9", "sk"),
        ("fr;q=0, nl;q=0.2", "nl"),
        ("fr;q=bad, sk", "sk"),
        ("de, it", "en"),
    ],
)
def test_accept_language(header: str | None, lang: str) -> None:
    assert best_language(header) == lang


def test_a_refusal_keeps_its_english_and_renders_in_any_language() -> None:
    error = IllegalActionError.of(
        "crosses-section",
        msg(
            N_("{section} crosses the {colour} section {link}"),
            section=msg(N_("section {link}"), link="D3-G3"),
            colour=term("pink"),
            link="E4-G2",
        ),
    ).at(round=2, turn=4, player=0)
    english = (
        "round 2, turn 4, player 0: section D3-G3 crosses the pink section E4-G2 (crosses-section)"
    )
    assert str(error) == english
    assert error.detail == "section D3-G3 crosses the pink section E4-G2"
    assert error.as_message().render() == english
    assert error.as_message().render(gettext_for("fr")) == (
        "manche 2, tour 4, joueur 0 : tronçon D3-G3 croise le tronçon E4-G2 de la ligne rose "
        "(crosses-section)"
    )
    back = pickle.loads(pickle.dumps(error))
    assert back.as_message().render(gettext_for("sk")) == (
        "kolo 2, ťah 4, hráč 0: úsek D3-G3 kríži úsek E4-G2 (linka ružová) (crosses-section)"
    )
    plain = IllegalActionError("bad-notation", "cannot read {x}", Where(turn=1))
    assert plain.as_message().render(gettext_for("nl")) == "beurt 1: cannot read {x} (bad-notation)"
    room = RoomError(409, "seat-taken", msg(N_("seat {seat} is not open"), seat=1))
    assert room.message == "seat 1 is not open"
    assert pickle.loads(pickle.dumps(room)).localized(gettext_for("nl")) == "plaats 1 is niet vrij"
    assert RoomError(400, "bad-request", verbatim("x")).localized(gettext_for("fr")) == "x"


def invoke(env: dict[str, str | None], *args: str | Path, stdin: str | None = None) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args], env=env, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_terminal_refusal_and_score_table_in_dutch(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    played = invoke(
        DUTCH, "play", "london", "--seed", "3", "--out", out, stdin="Z9-A1\nA1-J10\nquit\n"
    )
    assert played.exit_code == 0, played.output
    assert "✘ onbekend station 'Z9' op de kaart van Next Station: London" in played.stdout
    assert (
        "✘ verbinding A1-J10: geen verbindingslijn tussen deze stations (not-a-link)"
        in played.stdout
    )
    assert "Typ een geldige zet, moves, map, hint, help of quit." in played.stdout
    assert f"Spel gestopt. Het verslag tot nu toe is opgeslagen in {out}" in played.stdout
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps(SPEC_SHEET), encoding="utf-8")
    table = invoke(DUTCH, "score", sheet)
    assert table.exit_code == 0
    assert "London: scoreblad" in table.stdout
    assert "6×4 + 1×2 = 26 (omcirkeld: E4)" in table.stdout
    assert "blauw (b)" in table.stdout  # the line's colour, its letter as typed
    assert "bezienswaardigheden" in table.stdout and "1 vakje → 1" in table.stdout
    assert "totaal" in table.stdout and "punten" in table.stdout
    assert "lijnen: districten × meeste in één district" in table.stdout


def test_json_output_stays_english_in_any_language(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps(SPEC_SHEET), encoding="utf-8")
    for env in (DUTCH, {**DUTCH, "LANG": "C.UTF-8"}):
        result = invoke(env, "score", sheet, "--json")
        assert json.loads(result.stdout) == SPEC_SCORE
    english = invoke({**DUTCH, "LANG": "C.UTF-8"}, "score", sheet)
    assert "London: score sheet" in english.stdout and "1 box → 1" in english.stdout
