"""``simulate --results`` / ``--resume`` and ``metrogames stats``: result lines written as games
end, a run resumed after an interruption neither repeats nor skips a game, and the statistics
and plots checked against values computed independently (NumPy, SciPy)."""

from __future__ import annotations

import json
import random
import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats as sps
from typer.testing import CliRunner, Result

from metrogames.cli.commands import simulate as simulate_commands
from metrogames.cli.main import app
from metrogames.sim import runner
from metrogames.sim.results import RESULT_FORMAT, parse_result, read_results
from metrogames.sim.stats import betainc, t_quantile


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def ok(*args: str | Path) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


RUN = ("simulate", "london", "--bots", "greedy,random", "--games", "10", "--seed", "40")


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """An uninterrupted run: its results file, records file and ``--json`` summary."""
    folder = tmp_path_factory.mktemp("full")
    results, records = folder / "results.jsonl", folder / "records.jsonl"
    summary = ok(*RUN, "--results", results, "--out", records, "--json").stdout
    return results, records, summary


def test_result_lines(full_run: tuple[Path, Path, str]) -> None:
    results, records, summary = full_run
    rows = lines(results)
    assert [r["index"] for r in rows] == list(range(10))
    assert [r["seed"] for r in rows] == list(range(40, 50))
    first = rows[0]
    assert list(first) == [
        "format", "game", "index", "seed", "deal", "bots", "scores", "winners", "components",
    ]  # fmt: skip
    assert first["format"] == RESULT_FORMAT and first["deal"] is None
    assert first["bots"] == ["greedy", "random"]
    assert first["scores"] == [c["total"] for c in first["components"]]
    # the same games as the records
    for row, record in zip(rows, lines(records), strict=True):
        assert record["seed"] == row["seed"] and record["players"] == ["bot:greedy", "bot:random"]
    means = [s["mean"] for s in json.loads(summary)["seats"]]
    assert means == [np.mean([r["scores"][s] for r in rows]) for s in (0, 1)]


def _cut(path: Path, keep: int, partial: bool) -> None:
    """Keep the first ``keep`` lines of ``path``, then half of the next (a write cut short)."""
    text = path.read_text().splitlines(keepends=True)
    tail = text[keep][: len(text[keep]) // 2] if partial else ""
    path.write_text("".join(text[:keep]) + tail)


def test_resume_after_a_cut_neither_repeats_nor_skips(
    tmp_path: Path, full_run: tuple[Path, Path, str]
) -> None:
    results, records, summary = full_run
    mine, my_records = tmp_path / "r.jsonl", tmp_path / "o.jsonl"
    shutil.copy(results, mine)
    shutil.copy(records, my_records)
    _cut(mine, 4, partial=True)  # 4 games and a partial fifth line
    _cut(my_records, 6, partial=False)  # the records file got further
    resumed = ok(*RUN, "--results", mine, "--out", my_records, "--resume", "--json")
    assert "resuming after game 4 of 10" in resumed.stderr
    assert mine.read_bytes() == results.read_bytes()
    assert my_records.read_bytes() == records.read_bytes()
    assert resumed.stdout == summary  # the summary covers the whole run
    # resuming a finished run plays nothing and changes nothing
    again = ok(*RUN, "--results", mine, "--resume", "--json")
    assert again.stdout == summary and mine.read_bytes() == results.read_bytes()


def test_resume_after_an_interruption(
    tmp_path: Path, full_run: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results, _, summary = full_run
    mine = tmp_path / "r.jsonl"
    real = runner.run_many

    def interrupted(tasks: Any, workers: int = 1) -> Iterator[runner.Result]:
        for i, result in enumerate(real(tasks, workers)):
            if i == 3:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(simulate_commands, "run_many", interrupted)  # the CLI runs its games with it
    stopped = invoke(*RUN, "--results", mine)
    assert stopped.exit_code == 130
    assert "interrupted after 3 of 10 games; --resume continues the run" in stopped.stderr
    assert len(lines(mine)) == 3
    monkeypatch.setattr(simulate_commands, "run_many", real)
    assert ok(*RUN, "--results", mine, "--resume", "--json").stdout == summary
    assert mine.read_bytes() == results.read_bytes()


def test_resume_from_records_alone(tmp_path: Path, full_run: tuple[Path, Path, str]) -> None:
    _, records, summary = full_run
    mine = tmp_path / "o.jsonl"
    shutil.copy(records, mine)
    _cut(mine, 7, partial=True)
    assert ok(*RUN, "--out", mine, "--resume", "--json").stdout == summary
    assert mine.read_bytes() == records.read_bytes()


def test_resume_refuses_another_run(tmp_path: Path, full_run: tuple[Path, Path, str]) -> None:
    results, _, _ = full_run
    mine = tmp_path / "r.jsonl"
    shutil.copy(results, mine)
    _cut(mine, 5, partial=False)
    other = invoke(*RUN[:-1], "41", "--results", mine, "--resume")
    assert other.exit_code == 1
    assert "r.jsonl:1: game 0 of another run (london, bots greedy,random, seed 40)" in other.stderr
    assert len(lines(mine)) == 5  # untouched
    assert invoke(*RUN, "--resume").exit_code == 2  # nothing to resume into
    fresh = tmp_path / "new.jsonl"  # --resume on a missing file starts the run
    ok(*RUN, "--results", fresh, "--resume")
    assert fresh.read_bytes() == results.read_bytes()


# -- stats ---------------------------------------------------------------------------------


def test_stats_of_one_run_against_numpy_and_scipy(full_run: tuple[Path, Path, str]) -> None:
    results, _, _ = full_run
    rows = lines(results)
    out = json.loads(ok("stats", results, "--json").stdout)
    (run,) = out["runs"]
    assert (run["game"], run["bots"], run["games"]) == ("london", ["greedy", "random"], 10)
    for seat, got in enumerate(run["seats"]):
        scores = np.array([r["scores"][seat] for r in rows], float)
        assert got["mean"] == pytest.approx(scores.mean())
        assert got["std"] == pytest.approx(scores.std(ddof=0))
        assert (got["min"], got["max"]) == (scores.min(), scores.max())
        wins = sum(1 / len(r["winners"]) for r in rows if seat in r["winners"])
        assert got["wins"] == pytest.approx(wins)
        for name, mean in got["components"].items():
            assert mean == pytest.approx(np.mean([r["components"][seat][name] for r in rows]))
    diffs = np.array([r["scores"][0] - r["scores"][1] for r in rows], float)
    pair = out["paired"]
    assert pair["deals"] == 10 and pair["mean"] == pytest.approx(diffs.mean())
    assert pair["sd"] == pytest.approx(diffs.std(ddof=1))
    low, high = sps.t.interval(0.95, len(diffs) - 1, loc=diffs.mean(), scale=sps.sem(diffs))
    assert (pair["low"], pair["high"]) == (pytest.approx(low), pytest.approx(high))
    assert pair["a_better"] + pair["b_better"] + pair["ties"] == 10
    text = ok("stats", results).stdout
    assert "paired: greedy (seat 0) − random (seat 1)" in text
    assert f"[{low:.2f}, {high:.2f}]" in text


def test_stats_pairs_two_runs_by_deal(tmp_path: Path) -> None:
    manifest = tmp_path / "deals.jsonl"
    ok("deals", "paris", "--games", "12", "--seed", "7", "--out", manifest)
    greedy, rand = tmp_path / "greedy.jsonl", tmp_path / "random.jsonl"
    ok("simulate", "paris", "--bots", "greedy", "--deals", manifest, "--results", greedy)
    ok("simulate", "paris", "--bots", "random", "--deals", manifest, "--results", rand)
    a, b = lines(greedy), lines(rand)
    assert [r["deal"] for r in a] == list(range(12))
    shuffled = b[:]
    random.Random(3).shuffle(shuffled)  # paired by deal, not by line
    rand.write_text("".join(json.dumps(r) + "\n" for r in shuffled[:9]))  # and 3 missing
    pair = json.loads(ok("stats", greedy, rand, "--json").stdout)["paired"]
    by_deal = {r["deal"]: r["scores"][0] for r in shuffled[:9]}
    diffs = np.array([r["scores"][0] - by_deal[r["deal"]] for r in a if r["deal"] in by_deal])
    assert pair["deals"] == 9 and pair["mean"] == pytest.approx(diffs.mean())
    half = sps.t.ppf(0.975, 8) * diffs.std(ddof=1) / np.sqrt(9)
    assert pair["low"] == pytest.approx(diffs.mean() - half)
    assert pair["high"] == pytest.approx(diffs.mean() + half)
    assert (pair["a"], pair["b"]) == ("greedy.jsonl: greedy", "random.jsonl: random")


def test_t_quantiles_match_scipy() -> None:
    for df in (1, 2, 3, 4, 7, 12, 30, 99, 1000, 10**6):
        for p in (0.6, 0.9, 0.975, 0.995, 0.025):
            assert t_quantile(p, df) == pytest.approx(sps.t.ppf(p, df), rel=1e-9, abs=1e-9)
    for a, b, x in ((0.5, 0.5, 0.3), (2.0, 5.0, 0.9), (50.0, 0.5, 0.99)):
        assert betainc(a, b, x) == pytest.approx(sps.beta.cdf(x, a, b), rel=1e-10)


def test_stats_plots_png_and_svg(tmp_path: Path, full_run: tuple[Path, Path, str]) -> None:
    results, _, _ = full_run
    png, svg = tmp_path / "plot.png", tmp_path / "plot.svg"
    ok("stats", results, "--plot", png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1800, 480)  # three panels: the paired one included
    ok("stats", results, "--plot", svg)
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = svg.read_text()  # glyphs are paths; each text is kept in a comment
    for title in ("Score distribution", "Mean score components", "Per-deal difference"):
        assert f"<!-- {title}" in text


def test_stats_plot_without_the_plots_extra_names_it(
    tmp_path: Path, full_run: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results, _, _ = full_run
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if it were not installed
    refused = invoke("stats", results, "--plot", tmp_path / "p.png")
    assert refused.exit_code == 1
    assert "--plot needs the plots extra (pip install 'metrogames[plots]')" in refused.stderr
    assert not (tmp_path / "p.png").exists()


def test_stats_refusals(tmp_path: Path, full_run: tuple[Path, Path, str]) -> None:
    results, records, _ = full_run
    assert invoke("stats", results, "--plot", tmp_path / "p.pdf").exit_code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(results.read_text().splitlines()[0] + "\n{nope\n")
    refused = invoke("stats", bad)
    assert refused.exit_code == 1 and "bad.jsonl:2: not valid JSON" in refused.stderr
    refused = invoke("stats", records)
    assert refused.exit_code == 1 and "result format must be" in refused.stderr
    metro = tmp_path / "metro.jsonl"
    ok("simulate", "metro", "--bots", "random,random", "--games", "2", "--results", metro)
    refused = invoke("stats", results, metro)
    assert refused.exit_code == 2 and "not the same game" in refused.stderr


def test_parse_result_refuses_bad_lines() -> None:
    good = {
        "format": RESULT_FORMAT, "game": "metro", "index": 0, "seed": 1, "deal": None,
        "bots": ["random"], "scores": [3], "winners": [0],
        "components": [{"longest_route": 2, "total": 3}],
    }  # fmt: skip
    assert parse_result(good, "x").scores == [3]
    for key, value in (("scores", [1, 2]), ("winners", [1]), ("index", -1), ("bots", [])):
        with pytest.raises(Exception, match="x: "):
            parse_result({**good, key: value}, "x")
    with pytest.raises(Exception, match="unknown key"):
        parse_result({**good, "extra": 1}, "x")


def test_read_results_skips_blank_lines(tmp_path: Path, full_run: tuple[Path, Path, str]) -> None:
    results, _, _ = full_run
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text(results.read_text().replace("\n", "\n\n"))
    assert len(list(read_results(spaced))) == 10
