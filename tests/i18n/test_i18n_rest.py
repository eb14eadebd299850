"""Languages, the leftovers of issue 12: counted messages take each language's plural forms
(gettext ``ngettext``; French one for 0 and 1, Slovak one/few/other), the catalog check finds
a counted message short of forms, and the texts translated here read as written below."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from metrogames import catalogs
from metrogames.cli.lang import band_range, ntr
from metrogames.cli.render import Seats, solo_lines
from metrogames.cli.render.metro import MetroRenderer
from metrogames.core.errors import IllegalActionError, OptionError, message_of
from metrogames.games import game_type, load_game
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.words import DATA_TEXTS
from metrogames.i18n import gettext_for, plural
from metrogames.web.errors import RoomError


@pytest.fixture(scope="module")
def template():  # type: ignore[no-untyped-def]
    return catalogs.extract()


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


def test_every_data_sentence_a_player_reads_is_in_the_catalogs(template) -> None:  # type: ignore[no-untyped-def]
    ids = {m.id for m in template}
    for name in ("london", "paris"):
        city = load_city(name)
        texts = [*city.objective_text.values(), *city.power_text.values()]
        texts += [str((city.solo_rating or {}).get("top_phrase", ""))] if city.solo_rating else []
        assert texts and set(texts) <= set(DATA_TEXTS) <= ids, name
    for preset in game_type("metro").presets.values():
        assert {preset.title, preset.note} <= ids


def test_data_sentences_read_in_the_players_language() -> None:
    nl, sk, fr = gettext_for("nl"), gettext_for("sk"), gettext_for("fr")
    city = load_city("london")
    assert nl(city.objective_text["thames-6"]) == "minstens 6 verbindingen die de Theems oversteken"
    assert fr(city.power_text["joker"]) == "la carte de ce tour compte comme un joker"
    assert sk(game_type("metro").presets["box"].title) == "Pravidlá z krabice (vydavateľ)"
    assert fr("official-hand") == "garder une tuile (règles de l'éditeur)"


def test_the_solo_band_and_its_phrase_in_the_terminal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("METROGAMES_LANG", "fr")
    top = {"score": 170, "modules": 0, "rating": {"adjusted": 170, "band": 6, "range": "151 or more",
           "low": 151, "high": None, "phrase": "you know the Underground like the back of your hand",
           "penalty": 0}, "percentile": None}  # fmt: skip
    assert [line.plain for line in solo_lines(top)] == [
        "Évaluation solo : 170 → niveau 6 (151 ou plus): "
        "“vous connaissez le métro de Londres comme votre poche”"
    ]
    assert band_range({"low": None, "high": 90}) == "90 ou moins"
    assert band_range({"low": 106, "high": 120}) == "106–120"
    monkeypatch.setenv("METROGAMES_LANG", "sk")
    assert band_range({"low": 151, "high": None}) == "151 alebo viac"


def test_option_refusals_and_the_guest_cap_translate() -> None:
    with pytest.raises(OptionError) as info:
        load_game("metro", turn_mode="sideways")
    english = str(info.value)
    assert (
        english
        == "metro options: unknown turn_mode 'sideways' (expected draw, hand, official-hand)"
    )
    assert message_of(info.value).render(gettext_for("sk")) == (
        "možnosti hry metro: neznáma hodnota turn_mode 'sideways' (očakáva sa draw, hand, "
        "official-hand)"
    )
    with pytest.raises(OptionError) as info:
        load_game("london", players=9)
    assert message_of(info.value).render(gettext_for("fr")) == (
        "london se joue de 1 à 4 joueurs, pas 9"
    )
    cap = plural(
        "this address has started {n} ranked guest game of {title} today: "
        "sign in to play ranked, or practise a past day",
        "this address has started {n} ranked guest games of {title} today: "
        "sign in to play ranked, or practise a past day",
        3,
        title="Next Station London",
    )
    assert cap.render(gettext_for("sk")).startswith(
        "z tejto adresy sa dnes už začali 3 hodnotené hry hosťa Next Station London"
    )
    assert cap.render(gettext_for("nl")).startswith(
        "dit adres is vandaag al 3 gerangschikte gastspellen van Next Station London begonnen"
    )


def test_the_terminal_names_metros_rules_in_words(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("METROGAMES_LANG", "fr")
    state = load_game("metro", players=2, turn_mode="official-hand").new_game(1)
    intro = MetroRenderer().intro(state, Seats(("Ada", "Bob"), (0, 1)), 5)
    console = Console(width=200, record=True, color_system=None)
    console.print(intro)
    assert (
        "Metro · graine 5 · mode garder une tuile (règles de l'éditeur) · "
        "trajets d'une tuile autorisés" in console.export_text()
    )


def test_a_refusals_item_survives_places_and_pickling() -> None:
    error = IllegalActionError.of("not-a-link", plural("{n} box", "{n} boxes", 2))
    error = error.with_item(colour="pink", section=["A1", "J10"]).at(round=2)
    back = pickle.loads(pickle.dumps(error))
    assert back.item == {"colour": "pink", "section": ["A1", "J10"]}
    assert back.where.round == 2 and str(back) == "round 2: 2 boxes (not-a-link)"
    room = pickle.loads(pickle.dumps(RoomError(400, "not-a-link", "x", item=back.item)))
    assert room.body(gettext_for("en")) == {
        "error": "x",
        "reason": "not-a-link",
        "item": {"colour": "pink", "section": ["A1", "J10"]},
    }
