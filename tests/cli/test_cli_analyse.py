"""``metrogames analyse`` (docs/notation.md, "Analysis"): the JSON document, the text with both
maps, and clean refusals on stderr.

These check the command's pipeline, not the search's strength (tests/bots/test_hindsight.py):
the ``quick`` budget is made smaller for them (:data:`SMALL`), and the documents say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from metrogames.bots import make_bot
from metrogames.bots.analysis import BUDGETS
from metrogames.bots.hindsight import Budget
from metrogames.bots.play import play_bots
from metrogames.cli.main import app
from metrogames.games import load_game, replay_record
from support.records import solo_record

SMALL = Budget(width=2, playouts=2, coach=60)
"""What ``--budget quick`` means in these tests."""


@pytest.fixture(autouse=True)
def small_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BUDGETS, "quick", SMALL)


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_analyse_json(tmp_path: Path) -> None:
    record = solo_record(31, "random")
    result = invoke(
        "analyse", write_json(tmp_path / "r.json", record), "--budget", "quick", "--json"
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["score"] == replay_record(record).scores()[0]
    best = doc["best_found"]
    assert best["score"] >= doc["score"] and best["proven_optimal"] is False
    assert replay_record(best["record"]).scores() == [best["score"]]
    assert doc["costliest_turn"]["loss"] > 0
    assert doc["search"] == {**doc["search"], "budget": "quick", "seed": 0, "width": SMALL.width}


def test_analyse_text_draws_both_maps_and_says_best_found(tmp_path: Path) -> None:
    record = solo_record(32, "greedy", "paris")
    result = invoke(
        "analyse", write_json(tmp_path / "r.json", record), "--budget", "quick", "--seed", "3"
    )
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    score = replay_record(record).scores()[0]
    assert f"bot:greedy: {score} points" in text and "Best found: " in text
    assert "not a proven optimum" in text and "Costliest turn: round " in text
    assert text.count("     A       B ") == 2  # two maps' column headers


def test_analyse_refusals(tmp_path: Path) -> None:
    two = load_game("london", players=2)
    final = play_bots(two.new_game(3), [make_bot("greedy", 1), make_bot("greedy", 2)])
    path = write_json(tmp_path / "two.json", two.to_record(final, ["a", "b"], seed=3))
    result = invoke("analyse", path)
    assert result.exit_code == 1
    assert "cannot analyse" in result.stderr and "(not-solo)" in result.stderr
    assert result.stdout == ""
    result = invoke("analyse", path, "--budget", "huge")
    assert result.exit_code == 2 and "--budget must be one of rough, quick, normal, deep" in result.stderr
    result = invoke("analyse", tmp_path / "missing.json")
    assert result.exit_code == 1 and "missing.json" in result.stderr


def test_analyse_text_in_the_terminals_language(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("METROGAMES_LANG", "fr")
    record = solo_record(32, "greedy", "paris")
    result = invoke(
        "analyse", write_json(tmp_path / "r.json", record), "--budget", "quick", "--seed", "3"
    )
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert (
        "C'est le meilleur score trouvé par une recherche qui connaît toute la pioche, "
        "pas un optimum prouvé." in text
    )
    assert "Estimations : scores finaux moyens de simulations Monte Carlo sur votre vue" in text
    assert "Recherche : budget quick, largeur du faisceau" in text
