"""The terminal in the player's language (``METROGAMES_LANG``/``LANG``): the ``help`` block,
default names, numbers written the language's way, counters, ``replay``, ``daily``, ``score``
and ``simulate`` summaries — literal expected strings, so a missing translation shows."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from metrogames.cli.play import play_game
from metrogames.core.protocol import CHANCE


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=160, color_system=None), buf


def test_play_in_french_help_name_counter_and_coach_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrogames.bots.coach import hints
    from metrogames.games import load_game

    monkeypatch.setenv("METROGAMES_LANG", "fr")
    console, buf = _console()
    typed = iter(["help", "hint", "quit"])
    play_game("london", 1, [], None, 5, tmp_path / "h.json", console, lambda p: next(typed))
    text = buf.getvalue()
    assert "Next Station: London · graine 5 · Joueur 1" in text
    assert "Player 1" not in text
    assert "cartes souterraines : 1/5" in text  # seed 5 flips an underground card first
    assert "Tapez votre coup dans la notation, puis Entrée :" in text
    assert "  D3-G3                       un tronçon de D3 (sur votre ligne) à G3" in text
    assert "  D3-E4 E4-E1 +double-section deux tronçons avec le pouvoir double tronçon" in text
    assert "Type your move" not in text
    state = load_game("london", players=1).new_game(5)
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    view = state.view(0)
    best = hints(view, 0, seed=5 + len(view.history())).best[0]
    whole, tenth = f"{best.score:.1f}".split(".")
    assert f"1. {best.text}  {whole},{tenth} points  · {best.playouts} simulations" in text


def test_metro_help_in_dutch(monkeypatch: pytest.MonkeyPatch) -> None:
    from metrogames.cli.render.metro import MetroRenderer

    monkeypatch.setenv("METROGAMES_LANG", "nl")
    assert MetroRenderer().notation_help.splitlines()[:2] == [
        "Typ je zet in de notatie en druk op Enter:",
        "  C5      modus trekken en leggen: leg de getrokken tegel op C5",
    ]


@pytest.mark.parametrize(("lang", "shown"), [("en", "134.7"), ("fr", "134,7"), ("sk", "134,7")])
def test_coach_points_follow_the_language(
    lang: str, shown: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrogames.cli.lang import decimal

    monkeypatch.setenv("METROGAMES_LANG", lang)
    assert decimal(134.66) == shown


def _invoke(*args: str | Path) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from metrogames.cli.main import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def _bot_record(tmp_path: Path) -> dict[str, object]:
    import json

    out = tmp_path / "g.json"
    play_game("london", 1, ["greedy"], None, 3, out, Console(file=io.StringIO()), lambda p: "")
    record: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    record["players"] = ["Zoé"]
    return record


def test_replay_in_dutch_refusal_summary_and_file_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from metrogames.cli.main import replay_one

    monkeypatch.setenv("METROGAMES_LANG", "nl")
    record = _bot_record(tmp_path)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record), encoding="utf-8")
    code, out, _err = _invoke("replay", good)
    score = replay_one(record)["scores"][0]
    assert code == 0 and out == f"{good}: afgelopen; Zoé {score}; winnaar: Zoé\n"
    turns = record["rounds"][0]["turns"]  # type: ignore[index]
    turns[3] = [{"sections": [["D7", "E4"]]}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    code, _out, err = _invoke("replay", bad)
    assert code == 1 and err == (
        f"{bad}: ronde 1, beurt 4, speler 0: verbinding D7-E4: geen verbindingslijn tussen "
        "deze stations (not-a-link)\n"
    )
    code, out, _err = _invoke("replay", "--json", bad)  # --json stays English
    assert "section D7-E4: no link joins these stations" in out
    missing = tmp_path / "nope.json"
    code, _out, err = _invoke("replay", missing)
    assert code == 1 and err == f"fout: kan {missing} niet lezen: bestand bestaat niet\n"
    broken = tmp_path / "broken.json"
    broken.write_text('{"a":', encoding="utf-8")
    code, _out, err = _invoke("replay", broken)
    assert err == f"fout: {broken}: geen geldige JSON (regel 1, kolom 6: Expecting value)\n"
    empty = tmp_path / "empty.json"
    empty.write_text(" ", encoding="utf-8")
    assert _invoke("replay", empty)[2] == f"fout: {empty}: leeg bestand\n"


def test_score_names_objectives_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    sheet = tmp_path / "sheet.json"
    lines = {"blue": [["F8", "F5"], ["F5", "E4"]]}
    sheet.write_text(json.dumps({"game": "london", "lines": lines, "objectives": ["thames-6"]}))
    monkeypatch.setenv("METROGAMES_LANG", "nl")
    code, out, _err = _invoke("score", sheet)
    assert code == 0
    assert "│ doel: minstens 6 verbindingen die de Theems oversteken │" in out
    assert "thames-6" not in out
    code, out, _err = _invoke("score", "--json", sheet)  # --json keeps the ids
    assert json.loads(out)["objectives"] == {"thames-6": False, "points": 0}


def test_simulate_summary_in_french(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace as Stats

    from metrogames.cli.report import print_summary

    monkeypatch.setenv("METROGAMES_LANG", "fr")
    console, buf = _console()
    summary = [
        {
            "score": Stats(mean=105, std=5, min=100, max=110),
            "wins": 1.5,
            "components": {"lines": 80.25, "total": 105},
        },
        {
            "score": Stats(mean=93.5, std=3.5, min=90, max=97),
            "wins": 0.5,
            "components": {"lines": 70.0, "total": 93.5},
        },
    ]
    print_summary(console, "london", ["greedy", "random"], 2, summary)
    rows = [
        " ".join(line.replace("│", " ").replace("┃", " ").split())
        for line in buf.getvalue().splitlines()
    ]
    assert rows[0] == "london : 2 parties"
    assert "place 0 : greedy place 1 : random" in rows
    assert "moyenne 105,00 93,50" in rows
    assert "victoires 1,5 0,5" in rows
    assert "moyenne lignes 80,25 70,00" in rows
    assert "moyenne total 105,00 93,50" in rows


def test_daily_percentile_uses_the_locales_decimal_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    from metrogames.cli.daily import result_lines
    from metrogames.cli.daily_answers import Result

    monkeypatch.setenv("METROGAMES_LANG", "fr")
    answer = Result.model_validate({"score": 140, "rank": 1, "of": 3, "percentile": 99.5})
    lines = [t.plain for t in result_lines(answer)]
    assert lines[:2] == ["Score : 140", "Rang : 1 sur 3 (classement des comptes)"]
    # the percentile names the same list as the rank
    assert lines[2].endswith("99,5 (classement des comptes)")


def test_score_file_errors_in_slovak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("METROGAMES_LANG", "sk")
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"format": "metrogames/1", "game": "london"}), encoding="utf-8")
    code, _out, err = _invoke("score", record)
    assert code == 1
    assert " ".join(err.split()) == (
        f"chyba: {record} je záznam hry, nie bodovacia kartička: použite metrogames replay"
    )
    folder = tmp_path / "dir"
    folder.mkdir()
    code, _out, err = _invoke(
        "simulate", "london", "--bots", "random", "--games", "1", "--out", folder
    )
    assert (
        code == 2 and " ".join(err.split()) == f"chyba: nedá sa zapísať {folder}: je to priečinok"
    )
