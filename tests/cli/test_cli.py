"""The command-line contract for London (docs/notation.md, "Command line"): JSON on stdout,
errors on stderr naming the item and reason, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from metrogames.cli import files
from metrogames.cli.main import app
from metrogames.cli.optional import fill_optional_values
from support.london_records import (
    CROSSING_MESSAGE,
    ROUND_1_PINK,
    SPEC_SCORE,
    SPEC_SHEET,
    hand_record,
    play_london,
    play_london_state,
)


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args])
    # never a traceback: either success or a clean exit
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_lines(path: Path, values: list[Any]) -> Path:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return path


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines()]


# -- score -----------------------------------------------------------------------------------


def test_score_json_prints_the_spec_breakdown(tmp_path: Path) -> None:
    result = invoke("score", write_json(tmp_path / "sheet.json", SPEC_SHEET), "--json")
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert json.loads(result.stdout) == SPEC_SCORE
    assert result.stderr == ""


def test_score_table(tmp_path: Path) -> None:
    result = invoke("score", write_json(tmp_path / "sheet.json", SPEC_SHEET))
    assert result.exit_code == 0
    assert "6×4 + 1×2 = 26 (circled E4)" in result.stdout  # as --json's "circled"
    assert "1 box → 1" in result.stdout  # one tourist site crossed off: 1 point
    assert "total" in result.stdout and "27" in result.stdout


def test_boxes() -> None:
    from metrogames.cli.render.nextstation_map import boxes

    assert [boxes(n) for n in (0, 1, 2)] == ["0 boxes", "1 box", "2 boxes"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            {"blue": [["F8", "F5"], ["F5", "A1"]]},
            "blue line, section 2: section F5-A1: no link joins these stations (not-a-link)",
        ),
        (
            {"pink": [["H4", "G3"], ["G3", "G2"], ["G2", "E4"]], "green": [["D3", "G3"]]},
            "green line, section 1: section D3-G3 crosses the pink section E4-G2 (crosses-section)",
        ),
        ({"red": []}, "unknown colour 'red'"),
        ({"blue": [["F8", "K1"]]}, "unknown station 'K1'"),
        ({"blue": ["F8-F5"]}, "blue line: a section is a [from, to] pair, not 'F8-F5'"),
        ({"[/x]": []}, "unknown colour '[/x]'"),
        ({"blue": [["F8", "[bold]F5"]]}, "unknown station '[bold]F5'"),
    ],
    ids=["not-a-link", "crossing", "colour", "station", "pair", "markup-close", "markup-open"],
)
def test_score_bad_sheet_exits_1_with_the_reason_on_stderr(
    tmp_path: Path, lines: dict[str, Any], message: str
) -> None:
    path = write_json(tmp_path / "sheet.json", {"game": "london", "lines": lines})
    for args in (("score", path), ("score", path, "--json")):
        result = invoke(*args)
        assert result.exit_code == 1
        assert result.stdout == ""
        assert message in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"game": ["london"]}', "unknown game ['london']"),
        ('{"game": "london", "lines": {}', "not valid JSON"),
        ('{"game": "london", "game": "london"}', "key 'game' given twice"),
        ('{"game": "london", "circled": {"blue": "E4", "blue": "F4"}}', "key 'blue' given twice"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("", "not valid JSON"),
    ],
    ids=["game-list", "truncated", "duplicate-key", "two-circles", "deep", "empty"],
)
def test_score_malformed_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "sheet.json"
    path.write_text(content, encoding="utf-8")
    result = invoke("score", path, "--json")
    assert result.exit_code == 1
    assert message in result.stderr


def test_score_missing_and_oversized_files(tmp_path: Path) -> None:
    result = invoke("score", tmp_path / "nope.json")
    assert result.exit_code == 1
    assert "cannot read" in result.stderr
    big = write_json(
        tmp_path / "big.json", {**SPEC_SHEET, "lines": {"blue": [["F8", "x" * 10_000_000]]}}
    )
    result = invoke("score", big)
    assert result.exit_code == 1
    assert "larger than 4194304 bytes" in result.stderr


# -- replay ----------------------------------------------------------------------------------


def test_replay_json_of_one_record(tmp_path: Path) -> None:
    state = play_london_state(7)
    result = invoke("replay", write_json(tmp_path / "game.json", play_london(7)), "--json")
    assert result.exit_code == 0
    assert (
        result.stdout
        == json.dumps(
            {"valid": True, "finished": True, "scores": state.scores(), "winners": state.winners()},
            separators=(", ", ": "),
        )
        + "\n"
    )


def test_replay_json_lines_with_a_tampered_record(tmp_path: Path) -> None:
    good = [play_london(seed) for seed in (1, 2)]
    bad = hand_record([ROUND_1_PINK])  # then the spec's crossing, written out here
    bad["rounds"].append(
        {
            "cards": ["street-circle", "street-triangle", "street-pentagon", "street-square"],
            "turns": [["pass", "pass"]] * 3 + [[{"sections": [["D3", "G3"]]}, "pass"]],
        }
    )
    path = write_lines(tmp_path / "games.jsonl", [good[0], bad, good[1]])
    result = invoke("replay", path, "--json")
    assert result.exit_code == 1
    out = json_lines(result.stdout)
    assert len(out) == 3
    assert out[1] == {
        "valid": False,
        "error": CROSSING_MESSAGE,
        "reason": "crosses-section",
        "round": 2,
        "turn": 4,
        "player": 0,
    }
    for seed, line in zip((1, 2), (out[0], out[2]), strict=True):
        state = play_london_state(seed)
        assert line == {
            "valid": True,
            "finished": True,
            "scores": state.scores(),
            "winners": state.winners(),
        }


def test_replay_text_output(tmp_path: Path, crossing_record: dict[str, Any]) -> None:
    path = write_lines(tmp_path / "games.jsonl", [play_london(1), crossing_record])
    result = invoke("replay", path)
    assert result.exit_code == 1
    state = play_london_state(1)
    assert result.stdout.startswith(
        f"{path}:1: finished; bot:greedy {state.scores()[0]}, bot:random "
    )
    assert result.stderr.strip() == f"{path}:2: {CROSSING_MESSAGE}"


def test_replay_record_errors_and_bad_lines(tmp_path: Path) -> None:
    in_progress = hand_record([ROUND_1_PINK])
    record_error = play_london(2)
    record_error["colour"] = "blue"
    player_markup = play_london(3)
    player_markup["players"] = ["[/x]", "[bold]b"]
    path = tmp_path / "games.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(in_progress),
                "{not json",
                json.dumps(record_error),
                "[1, 2]",
                json.dumps(player_markup),
            ]
        ),
        encoding="utf-8",
    )
    result = invoke("replay", path, "--json")
    assert result.exit_code == 1
    out = json_lines(result.stdout)
    assert out[0] == {"valid": True, "finished": False, "scores": [7, 0], "winners": []}
    assert out[1]["valid"] is False and out[1]["reason"] == "bad-json"
    assert f"{path}:2: not valid JSON" in out[1]["error"]
    assert out[2] == {
        "valid": False,
        "error": "unknown key(s) in record: colour",
        "reason": "bad-record",
    }
    assert out[3]["reason"] == "bad-record"
    assert out[4]["valid"] is True
    text = invoke("replay", path)
    assert text.exit_code == 1
    assert "[/x] " in text.stdout and "[bold]b " in text.stdout
    assert f"{path}:3: unknown key(s) in record: colour" in text.stderr


def test_replay_all_valid_exits_0_and_in_progress_is_valid(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "games.jsonl", [play_london(1), hand_record([ROUND_1_PINK])])
    result = invoke("replay", path, "--json")
    assert result.exit_code == 0
    assert [line["finished"] for line in json_lines(result.stdout)] == [True, False]


def test_replay_hostile_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = invoke("replay", deep, "--json")
    assert result.exit_code == 1
    assert "nested too deeply" in result.stderr
    big = play_london(1)
    big["meta"] = {"note": "x" * 10_000_000}
    path = write_lines(tmp_path / "big.jsonl", [big, play_london(1)])
    result = invoke("replay", path, "--json")
    assert result.exit_code == 1
    out = json_lines(result.stdout)
    assert out[0]["valid"] is False and "larger than 4194304 bytes" in out[0]["error"]
    assert out[1]["valid"] is True
    monkeypatch.setattr(files, "MAX_FILE", 1000)
    result = invoke("replay", path, "--json")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "larger than 1000 bytes" in result.stderr
    result = invoke("replay", tmp_path / "missing.jsonl", "--json")
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


# -- simulate and deals ----------------------------------------------------------------------


def test_simulate_writes_records_that_replay_and_repeat(tmp_path: Path) -> None:
    first, second, parallel = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    args = ("simulate", "london", "--bots", "random", "--games", "20", "--seed", "5")
    result = invoke(*args, "--out", first, "--json")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert invoke(*args, "--out", second).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert invoke(*args, "--out", parallel, "--workers", "2").exit_code == 0
    assert parallel.read_bytes() == first.read_bytes()

    records = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 20
    assert [r["seed"] for r in records] == list(range(5, 25))
    assert all(r["players"] == ["bot:random"] for r in records)
    replayed = invoke("replay", first, "--json")
    assert replayed.exit_code == 0
    results = json_lines(replayed.stdout)
    assert all(r["valid"] and r["finished"] for r in results)
    scores = [r["scores"][0] for r in results]
    assert summary["seats"][0]["mean"] == pytest.approx(sum(scores) / 20)
    assert summary["seats"][0]["min"] == min(scores)
    assert summary["seats"][0]["max"] == max(scores)


def test_simulate_json_keys(tmp_path: Path) -> None:
    result = invoke("simulate", "london", "--bots", "greedy,random", "--games", "3", "--json")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert list(summary) == ["game", "bots", "games", "seats"]
    assert (summary["game"], summary["bots"], summary["games"]) == (
        "london",
        ["greedy", "random"],
        3,
    )
    assert len(summary["seats"]) == 2
    for seat in summary["seats"]:
        assert list(seat) == ["bot", "mean", "std", "min", "max", "wins", "components"]
        assert list(seat["components"]) == ["lines", "tourist", "interchanges", "total"]
    assert sum(seat["wins"] for seat in summary["seats"]) == pytest.approx(3)
    modules = invoke(
        "simulate", "london", "--bots", "random", "--games", "2", "--objectives", "random", "--json"
    )
    assert modules.exit_code == 0
    assert "objectives" in json.loads(modules.stdout)["seats"][0]["components"]


def test_simulate_deals_manifest_gives_every_bot_the_same_cards(tmp_path: Path) -> None:
    manifest = tmp_path / "deals.jsonl"
    made = invoke("deals", "london", "--games", "5", "--seed", "40")
    assert made.exit_code == 0
    manifest.write_text(made.stdout, encoding="utf-8")
    deals = json_lines(made.stdout)
    assert len(deals) == 5
    assert all(set(d) == {"format", "game", "players", "options", "rounds", "meta"} for d in deals)

    solo, duo = tmp_path / "solo.jsonl", tmp_path / "duo.jsonl"
    assert (
        invoke(
            "simulate", "london", "--bots", "random", "--deals", manifest, "--out", solo
        ).exit_code
        == 0
    )
    assert (
        invoke(
            "simulate", "london", "--bots", "greedy,random", "--deals", manifest, "--out", duo
        ).exit_code
        == 0
    )
    a = [json.loads(line) for line in solo.read_text(encoding="utf-8").splitlines()]
    b = [json.loads(line) for line in duo.read_text(encoding="utf-8").splitlines()]
    assert len(a) == len(b) == 5
    for deal, x, y in zip(deals, a, b, strict=True):
        assert x["rounds"][0]["cards"] == y["rounds"][0]["cards"]
        assert [r["cards"] for r in x["rounds"]] == [r["cards"] for r in y["rounds"]]
        assert [r["deck"] for r in x["rounds"]] == [r["deck"] for r in deal["rounds"]]
        assert x["options"]["colour_cycle"] == deal["options"]["colour_cycle"]
        assert "seed" not in x
    for path in (solo, duo):
        replayed = invoke("replay", path, "--json")
        assert replayed.exit_code == 0
        assert all(r["finished"] for r in json_lines(replayed.stdout))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("london", "--bots", "foo", "--games", "2"),
            "unknown bot 'foo' (known: easy, medium, hard, expert, greedy, heuristic, lookahead, montecarlo, random)",
        ),
        (
            ("london", "--bots", "", "--games", "2"),
            "--bots needs at least one bot code (known: easy, medium, hard, expert, greedy, heuristic, lookahead, montecarlo, random)",
        ),
        (("tokyo", "--bots", "random", "--games", "2"), "unknown game 'tokyo'"),
        (("london", "--bots", "random"), "give either --games N or --deals FILE"),
        (("london", "--bots", "random", "--games", "0"), "--games must be at least 1"),
        (
            ("london", "--bots", "random", "--games", "2", "--workers", "0"),
            "--workers must be at least 1",
        ),
        (
            ("london", "--bots", "random,random,random,random,random", "--games", "1"),
            "1 to 4 players, not 5",
        ),
        (
            ("london", "--bots", "random", "--games", "2", "--powers", "joker"),
            "--powers: write random, colour=power pairs",
        ),
        (
            ("london", "--bots", "random", "--games", "2", "--powers", '{"blue": "joker"}'),
            "powers: give one power for each of",
        ),
        (
            ("london", "--bots", "random", "--games", "2", "--objectives", "thames-6"),
            "objectives: give 2 distinct ids",
        ),
        (
            ("london", "--bots", "random", "--games", "2", "--seed", "-1"),
            "seed must be an integer from 0 to 2**64-1",
        ),
        (
            ("london", "--bots", "random", "--games", "2", "--seed", str(2**64 - 1)),
            "needs seeds up to 18446744073709551616, past the largest seed 2**64-1",
        ),
    ],
    ids=[
        "bot",
        "no-bots",
        "game",
        "neither",
        "games-0",
        "workers-0",
        "five-players",
        "powers-text",
        "powers-partial",
        "one-objective",
        "seed-negative",
        "seed-overflow",
    ],
)
def test_simulate_bad_arguments_exit_2(args: tuple[str, ...], message: str) -> None:
    result = invoke("simulate", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_simulate_games_and_deals_together_exit_2(tmp_path: Path) -> None:
    manifest = tmp_path / "deals.jsonl"
    manifest.write_text(invoke("deals", "london", "--games", "2").stdout, encoding="utf-8")
    result = invoke("simulate", "london", "--bots", "random", "--games", "2", "--deals", manifest)
    assert result.exit_code == 2
    assert "give either --games N or --deals FILE" in result.stderr
    result = invoke(
        "simulate", "london", "--bots", "random", "--deals", manifest, "--powers", "random"
    )
    assert result.exit_code == 2
    assert "cannot be used with --deals" in result.stderr


def test_simulate_bad_manifests(tmp_path: Path) -> None:
    paris = tmp_path / "paris.jsonl"
    paris.write_text(invoke("deals", "paris", "--games", "2").stdout, encoding="utf-8")
    result = invoke("simulate", "london", "--bots", "random", "--deals", paris)
    assert result.exit_code == 1
    assert f"{paris}:1: a paris deal, not a london one" in result.stderr

    played = write_lines(tmp_path / "played.jsonl", [play_london(1)])
    result = invoke("simulate", "london", "--bots", "greedy,random", "--deals", played)
    assert result.exit_code == 1
    assert "a deal record needs all 4 rounds' decks and no cards or turns" in result.stderr

    deals = json_lines(invoke("deals", "london", "--games", "1").stdout)
    deals[0]["rounds"] = deals[0]["rounds"][:2]
    short = write_lines(tmp_path / "short.jsonl", deals)
    result = invoke("simulate", "london", "--bots", "random", "--deals", short)
    assert result.exit_code == 1
    assert "all 4 rounds' decks" in result.stderr

    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    result = invoke("simulate", "london", "--bots", "random", "--deals", broken)
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr


def test_deals_bad_arguments() -> None:
    result = invoke("deals", "london", "--games", "2", "--players", "5")
    assert result.exit_code == 2
    assert "1 to 4 players, not 5" in result.stderr
    result = invoke("deals", "tokyo")
    assert result.exit_code == 2
    assert "unknown game 'tokyo'" in result.stderr


def test_default_record_path_never_overwrites_an_earlier_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrogames.cli.options import default_record_path

    monkeypatch.chdir(tmp_path)
    first = default_record_path("london", 42)
    assert first == Path("var/records/metrogames-london-42.json")
    first.write_text("{}")
    second = default_record_path("london", 42)
    assert second == Path("var/records/metrogames-london-42-2.json")
    second.write_text("{}")
    assert default_record_path("london", 42).name == "metrogames-london-42-3.json"
    assert default_record_path("paris", 42).name == "metrogames-paris-42.json"


def test_serve_refuses_a_port_it_cannot_listen_on(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        db = f"sqlite:///{tmp_path / 'never.db'}"
        result = CliRunner().invoke(app, ["serve", "--port", str(port), "--db", db])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "never.db").exists()  # refused before touching the database
    for bad in ("0", "99999"):
        result = CliRunner().invoke(app, ["serve", "--port", bad])
        assert result.exit_code == 2 and "--port" in result.output


def test_rules_name_a_rule_set_the_flags_adjust(tmp_path: Path) -> None:
    """``--rules box``: the publisher's rules (docs/engine-rules-metro.md: hold a tile, no one-tile route
    unless no other square); another flag adjusts them; an unknown name is refused."""
    out = tmp_path / "games.jsonl"
    result = invoke("simulate", "metro", "--bots", "random,random", "--games", "1",
                    "--rules", "box", "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text().splitlines()[0])
    assert record["options"] == {"turn_mode": "official-hand", "one_tile_routes": "forbidden"}
    result = invoke("simulate", "metro", "--bots", "random,random", "--games", "1",
                    "--rules", "box", "--turn-mode", "hand", "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text().splitlines()[0])
    assert record["options"] == {"turn_mode": "hand", "one_tile_routes": "forbidden"}
    result = invoke("simulate", "metro", "--bots", "random,random", "--games", "1",
                    "--rules", "house")  # fmt: skip
    assert result.exit_code == 2 and "unknown rule set 'house' (known: seed, box)" in result.stderr
    result = invoke("simulate", "london", "--bots", "random", "--games", "1", "--rules", "box")
    assert result.exit_code == 2 and "london has no named rule sets" in result.stderr


@pytest.mark.parametrize(
    ("args", "filled"),
    [
        (["--ray"], ["--ray", "local"]),
        (["--ray", "--workers", "2"], ["--ray", "local", "--workers", "2"]),
        (["--ray", "head:6379", "--json"], ["--ray", "head:6379", "--json"]),
        (["--ray=ray://h:10001"], ["--ray=ray://h:10001"]),
        (["--", "--ray"], ["--", "--ray"]),
        (["--json"], ["--json"]),
    ],
)
def test_fill_optional_values(args: list[str], filled: list[str]) -> None:
    assert fill_optional_values(args, {"--ray": "local"}) == filled


@pytest.mark.parametrize(
    ("extra", "ray"),
    [
        ((), (False, None)),
        (("--ray",), (True, None)),
        (("--ray", "--json"), (True, None)),
        (("--ray", "local"), (True, None)),
        (("--ray", "ray://head:10001"), (True, "ray://head:10001")),
        (("--ray-address", "head:6379"), (True, "head:6379")),
        (("--ray=auto",), (True, "auto")),
    ],
)
def test_simulate_ray_takes_an_optional_address(
    monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...], ray: tuple[bool, str | None]
) -> None:
    """``--ray [ADDRESS]`` (and its alias ``--ray-address``) reach the runner as "use Ray" and
    the address (``None``: a new local instance); the games are played by one process here."""
    from metrogames.cli.commands import simulate
    from metrogames.sim.runner import run_many

    seen = []

    def runner(use_ray: bool, address: str | None, workers: int) -> Any:
        seen.append((use_ray, address))
        return lambda tasks: run_many(tasks, workers)

    monkeypatch.setattr(simulate, "_runner", runner)
    result = invoke("simulate", "london", "--bots", "random", "--games", "2", *extra)
    assert result.exit_code == 0, result.stderr
    assert seen == [ray]


def test_python_dash_m_runs_the_same_command_line(tmp_path: Path) -> None:
    """``python -m metrogames`` is the ``metrogames`` script: same name in the help, same JSON,
    same exit status on a bad file."""
    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "metrogames", *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    sheet = write_json(tmp_path / "sheet.json", SPEC_SHEET)
    scored = run("score", sheet, "--json")
    assert (scored.returncode, json.loads(scored.stdout)) == (0, SPEC_SCORE)
    assert "Usage: metrogames " in run("--help").stdout
    bad = run("score", write_json(tmp_path / "bad.json", {"rounds": "x"}))
    assert bad.returncode == 1 and "bad.json" in bad.stderr
