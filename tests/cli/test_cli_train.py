"""``metrogames train value`` (docs/research.md, "A learned position value"): the weights file
it writes, and its refusals (exit status, the message naming the file and the mismatch)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from metrogames.bots.value import read_model
from metrogames.cli.main import app
from metrogames.games import load_game

TINY = ("--games", "3", "--steps", "5", "--hidden", "2", "--seed", "4")


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, ["train", "value", *(str(a) for a in args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_train_writes_weights_and_resumes(tmp_path: Path) -> None:
    out, ckpt = tmp_path / "w.npz", tmp_path / "ckpt.npz"
    result = invoke("london", *TINY, "--out", out, "--checkpoint", ckpt)
    assert result.exit_code == 0, result.output
    model = read_model(out)
    assert model.game == "london" and model.hidden == 2
    assert model.training["games"] == 3 and model.training["seed"] == 4
    again = tmp_path / "again.npz"
    assert invoke("london", *TINY, "--out", again, "--resume", ckpt).exit_code == 0
    assert read_model(again).checksum() == model.checksum()  # the kept run, finished already


def test_train_refuses_other_games(tmp_path: Path) -> None:
    out, ckpt = tmp_path / "w.npz", tmp_path / "ckpt.npz"
    result = invoke("metro", *TINY, "--out", out)
    assert result.exit_code == 2 and "metro has no value features" in result.output
    deals = tmp_path / "paris.jsonl"
    rules = load_game("paris", players=1)
    deals.write_text("".join(json.dumps(rules.deal_record(i)) + "\n" for i in range(2)))
    result = invoke("london", "--deals", deals, "--out", out)
    assert (
        result.exit_code == 1 and "paris.jsonl:1: a paris deal, not a london one" in result.output
    )
    assert not out.exists()
    assert invoke("paris", *TINY, "--out", out, "--checkpoint", ckpt).exit_code == 0
    result = invoke("london", *TINY, "--out", tmp_path / "x.npz", "--resume", ckpt)
    assert result.exit_code == 1
    assert f"{ckpt}: a checkpoint of another run (differs in game)" in result.output.replace(
        "\n", ""
    )
    result = invoke("london", *TINY, "--resume", tmp_path / "missing.npz", "--out", out)
    assert result.exit_code == 1 and "no such checkpoint" in result.output
