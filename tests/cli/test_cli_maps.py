"""``metrogames map check``, ``simulate --map``, ``play --map`` and ``replay --map``
(docs/maps.md, "The checker", "Playing a map", "Reporting on a map")."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner, Result

from metrogames.cli.main import app
from metrogames.data import load_json
from metrogames.games.nextstation.citymap import map_hash

TINY_PATH = Path(__file__).resolve().parents[1] / "games" / "nextstation" / "maps" / "tinytown.json"
TINY = json.loads(TINY_PATH.read_text(encoding="utf-8"))


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_map_check_prints_counts_and_hash(tmp_path: Path) -> None:
    result = invoke("map", "check", TINY_PATH)
    assert result.exit_code == 0, result.output
    assert f"valid map, {map_hash(TINY)}" in result.output
    assert "crossing link pairs" in result.output
    report = json.loads(invoke("map", "check", TINY_PATH, "--json").stdout)
    assert report["valid"] is True
    assert report["counts"]["links"] == len(TINY["links"])
    assert report["counts"]["crossing_link_pairs"] == len(TINY["crossings"])


def test_map_check_lists_every_problem(tmp_path: Path) -> None:
    bad = copy.deepcopy(TINY)
    bad["links"].append(["A1", "E1"])
    bad["check_values"]["stations"] = 19
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = invoke("map", "check", path, "--json")
    assert result.exit_code == 1
    problems = json.loads(result.stdout)["problems"]
    assert problems == [
        "link A1-E1 passes through station C1",
        "tinytown: stations is 18, expected 19",
        "tinytown: links is 50, expected 49",
    ]
    (tmp_path / "not.json").write_text("{", encoding="utf-8")
    assert invoke("map", "check", tmp_path / "not.json").exit_code == 1


def test_map_check_speaks_the_terminals_language(tmp_path: Path) -> None:
    bad = copy.deepcopy(TINY)
    bad["links"].append(["A1", "E1"])
    bad["grid"]["rows"] = 30
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    (tmp_path / "through.json").write_text(json.dumps(bad | {"grid": TINY["grid"]}))
    expected = {
        "fr": ("la liaison A1-E1 passe par la station C1", "inférieure ou égale à 26"),
        "nl": ("verbinding A1-E1 loopt door station C1", "kleiner dan of gelijk aan 26"),
        "sk": ("spojenie A1-E1 prechádza stanicou C1", "menšia alebo rovná 26"),
    }
    for lang, (through, bound) in expected.items():
        env = {"METROGAMES_LANG": lang}
        result = CliRunner().invoke(app, ["map", "check", str(tmp_path / "through.json")], env=env)
        assert result.exit_code == 1
        assert result.output.splitlines()[0] == f"{tmp_path / 'through.json'}: {through}"
        schema = CliRunner().invoke(app, ["map", "check", str(path)], env=env)
        assert "grid.rows" in schema.output and bound in schema.output, schema.output
        valid = CliRunner().invoke(app, ["map", "check", str(TINY_PATH)], env=env)
        assert map_hash(TINY) in valid.output and "valid map" not in valid.output
    report = json.loads(invoke("map", "check", tmp_path / "through.json", "--json").stdout)
    assert report["problems"][0] == "link A1-E1 passes through station C1"  # --json: English
    assert report["codes"][0] == "link-through-station" and "messages" not in report


def test_simulate_then_replay_only_on_the_same_map(tmp_path: Path) -> None:
    records = tmp_path / "runs.jsonl"
    sim = invoke(
        "simulate",
        "--map",
        TINY_PATH,
        "--bots",
        "medium",
        "--games",
        "2",
        "--out",
        records,
        "--json",
    )
    assert sim.exit_code == 0, sim.output
    summary = json.loads(sim.stdout)
    assert summary["game"] == "nextstation" and summary["games"] == 2
    lines = records.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["map_hash"] for line in lines] == [map_hash(TINY)] * 2
    ok = invoke("replay", records, "--map", TINY_PATH, "--json")
    assert ok.exit_code == 0, ok.output
    assert all(json.loads(line)["valid"] for line in ok.stdout.splitlines())
    london = tmp_path / "london.json"
    london.write_text(json.dumps(load_json("london.json")), encoding="utf-8")
    refused = invoke("replay", records, "--map", london, "--json")
    assert refused.exit_code == 1
    first = json.loads(refused.stdout.splitlines()[0])
    assert first["reason"] == "map-mismatch"
    assert map_hash(TINY) in first["error"] and map_hash(load_json("london.json")) in first["error"]
    modified = copy.deepcopy(TINY)
    modified["scoring"]["objective_points"] = 12
    other = tmp_path / "modified.json"
    other.write_text(json.dumps(modified), encoding="utf-8")
    text = invoke("replay", records, "--map", other)
    assert text.exit_code == 1
    assert "map hash mismatch" in text.output and map_hash(modified) in text.output


def test_play_with_a_map_defaults_to_nextstation(tmp_path: Path) -> None:
    out = tmp_path / "solo.json"
    result = invoke(
        "play",
        "--map",
        TINY_PATH,
        "--bots",
        "medium",
        "--players",
        "1",
        "--seed",
        "4",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["game"] == "nextstation" and record["map_hash"] == map_hash(TINY)
    assert invoke("replay", out, "--map", TINY_PATH).exit_code == 0
    wrong = invoke("play", "london", "--map", TINY_PATH)
    assert wrong.exit_code == 2
    assert "--map is not an option of london" in wrong.output


def test_map_report_matches_simulate_on_the_same_deals(tmp_path: Path) -> None:
    """``map report``'s row for the map is the run ``simulate`` plays on the same seeds: the
    same mean score, and links per game counted off that run's records."""
    plot = tmp_path / "report.png"
    result = invoke(
        "map", "report", TINY_PATH, "--games", "2", "--levels", "medium", "--plot", plot, "--json"
    )
    assert result.exit_code == 0, result.output
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert invoke("map", "report", TINY_PATH, "--plot", tmp_path / "r.jpg").exit_code == 2
    rows = json.loads(result.stdout)
    assert [(r["map"], r["level"]) for r in rows] == [
        ("this map", "medium"),
        ("london", "medium"),
        ("paris", "medium"),
    ]
    records = tmp_path / "runs.jsonl"
    sim = invoke(
        "simulate",
        "--map",
        TINY_PATH,
        "--bots",
        "medium",
        "--games",
        "2",
        "--seed",
        "1",
        "--out",
        records,
        "--json",
    )
    assert rows[0]["score"]["mean"] == json.loads(sim.stdout)["seats"][0]["mean"]
    sections = [
        len(action["sections"])
        for line in records.read_text(encoding="utf-8").splitlines()
        for rnd in json.loads(line)["rounds"]
        for turn in rnd["turns"]
        for action in turn
        if isinstance(action, dict)
    ]
    assert rows[0]["links_per_game"] == sum(sections) / 2
    assert 0 < rows[0]["links_used"] <= 1
    for city, row in (("london", rows[1]), ("paris", rows[2])):  # the cities' rows likewise
        played = invoke("simulate", city, "--bots", "medium", "--games", "2", "--seed", "1", "--json")
        assert played.exit_code == 0, played.output
        assert row["score"]["mean"] == json.loads(played.stdout)["seats"][0]["mean"], city
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(TINY, links=[["A1", "E1"]])), encoding="utf-8")
    assert invoke("map", "report", bad).exit_code == 1
