"""Open data (issue 24, item 6; docs/exports.md): a month's export of finished online and
daily games, streamed by `GET /api/exports/{month}.jsonl.zst` and written by `metrogames
export`, read back by `replay` and `stats` — names only where the owner allows, stable keyed
pseudonyms otherwise, bots marked, ratings before and after, nothing secret — on SQLite and
PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
import zstandard
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.web.errors import RoomError
from metrogames.web.exports.fileformat import read_export
from metrogames.web.exports.service import Exports
from metrogames.web.infra.models import AccountRow, SeatRow
from support.daily import PASSWORD, Clock, daily_client, new_account, play_day
from support.web import JSON, Player, auth

SECRET = "export-test-secret"


def online(browser: TestClient, seats: list[dict[str, Any]]) -> Any:
    r = browser.post("/api/rooms", json={"game": "london", "mode": "online", "seats": seats})
    assert r.status_code == 201, r.text
    return r.json()


def join(browser: TestClient, room: str, seat: int, name: str) -> str:
    r = browser.post(f"/api/rooms/{room}/join", json={"seat": seat, "name": name})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def link(browser: TestClient, room: str, seat: int, token: str) -> Any:
    return browser.post(f"/api/rooms/{room}/seats/{seat}/account", headers=auth(token) | JSON)


def expected_pseudonym(account: str) -> str:
    mac = hmac.new(SECRET.encode(), f"account:{account}".encode(), hashlib.sha256).digest()
    return "p-" + base64.b32encode(mac[:10]).decode().lower()


def test_a_month_exported_streamed_and_read_back(  # noqa: PLR0915 (one story, told once)
    db_url: str, tmp_path: Path
) -> None:
    clock = Clock()
    with daily_client(db_url, clock, export_secret=SECRET, rate_exports="2/minute") as client:
        ada, ada_made = new_account(client, "Ada")
        bob, bob_made = new_account(client, "Bob")
        r = ada.put("/api/accounts/me/export-name", json={"show": True}, headers=JSON)
        assert r.status_code == 200 and r.json()["export_name"] is True, r.text
        made = online(ada, [{"name": "Ada"}, {}, {"bot": "random"}])
        room, t0 = made["room"]["room"], made["tokens"]["0"]
        t1 = join(bob, room, 1, "Bob")
        assert link(ada, room, 0, t0).status_code == 200
        assert link(bob, room, 1, t1).status_code == 200
        started = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
        assert started.status_code == 200, started.text
        Player(room, {"0": t0, "1": t1}, 3).play_out(client)
        ratings = client.get(f"/api/rooms/{room}/ratings").json()["seats"]
        play_day(client, _guest(client))  # a guest's daily game
        # the daily day (the test clock's) is closed by the export's clock: real time, later
        clock.t = time.time() + 1
        month = time.strftime("%Y-%m", time.gmtime(clock.t))
        listed = client.get("/api/exports").json()["months"]
        assert listed[0] == {
            "month": month,
            "complete": False,
            "url": f"/api/exports/{month}.jsonl.zst",
        }
        got = client.get(f"/api/exports/{month}.jsonl.zst")
        assert got.status_code == 200 and got.headers["x-export-complete"] == "false"
        assert got.headers["content-type"] == "application/zstd"
        path = tmp_path / f"{month}.jsonl.zst"
        path.write_bytes(got.content)
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            hashes = [
                v
                for row in session.execute(
                    select(SeatRow.token_hash, SeatRow.address, SeatRow.session)
                )
                for v in row
                if v
            ] + list(session.scalars(select(AccountRow.password_hash)))
        assert client.get(f"/api/exports/{month}.jsonl.zst").status_code == 200
        assert client.get(f"/api/exports/{month}.jsonl.zst").status_code == 429  # rate-limited
        assert client.get("/api/exports/2999-01.jsonl.zst").status_code == 404
        assert client.get("/api/exports/2026-13.jsonl.zst").status_code == 400
    lines = [d for _, d in read_export(path)]
    header, games = lines[0], lines[1:]
    assert header["month"] == month and header["complete"] is False
    assert [g["mode"] for g in games] == ["online", "daily"]
    online_game = games[0]
    seats = online_game["seats"]
    assert [(s["kind"], s["name"], s["pseudonym"], s["bot"]) for s in seats] == [
        ("account", "Ada", None, None),
        ("account", None, expected_pseudonym(bob_made["account"]), None),
        ("bot", None, None, "random"),
    ]
    assert online_game["record"]["players"] == ["Ada", seats[1]["pseudonym"], "bot:random"]
    assert online_game["rated"] is True
    prior = {"mu": 25.0, "sigma": 25 / 3, "rating": 0.0}
    for i in (0, 1):
        assert seats[i]["rating_before"] == prior
        after = seats[i]["rating_after"]
        assert (after["mu"], after["sigma"]) == (
            ratings[i]["rating"]["mu"],
            ratings[i]["rating"]["sigma"],
        )
    assert (
        seats[2]["rating_before"]
        == seats[2]["rating_after"]
        == {"mu": 15.0, "sigma": 1.0, "rating": 12.0}
    )
    assert games[1]["seats"][0]["kind"] == "guest" and games[1]["day"] is not None
    # nothing secret: no token, hash, address, session, password, room id
    text = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(path.read_bytes())).read().decode()
    for secret in [
        *hashes,
        t0,
        t1,
        made["host_token"],
        PASSWORD,
        room,
        ada_made["account"],
        "10.0.",
    ]:
        assert secret not in text
    # replay and stats read it directly
    replayed = CliRunner().invoke(cli, ["replay", "--json", str(path)])
    assert replayed.exit_code == 0, replayed.output
    results = [json.loads(line) for line in replayed.output.splitlines()]
    assert [r["valid"] for r in results] == [True, True]
    assert results[0]["scores"] == online_game["scores"]
    stats = CliRunner().invoke(cli, ["stats", "--json", str(path)])
    assert stats.exit_code == 0, stats.output
    facts = json.loads(stats.output)["exports"][0]
    assert facts["games"] == 2 and facts["kinds"] == {"account": 2, "bot": 1, "guest": 1}
    # a changed byte fails the checksum
    raw = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(path.read_bytes())).read()
    bad = tmp_path / "bad.jsonl.zst"
    bad.write_bytes(zstandard.ZstdCompressor().compress(raw.replace(b'"Ada"', b'"Eve"', 1)))
    refused = CliRunner().invoke(cli, ["replay", str(bad)])
    assert refused.exit_code == 1 and "checksum mismatch" in refused.output


def _guest(client: TestClient) -> str:
    r = client.post("/api/players", json={"name": "Zoé"})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def test_the_command_writes_a_finished_month_with_its_checksum(db_url: str, tmp_path: Path) -> None:
    out = tmp_path / "2026-01.jsonl.zst"
    r = CliRunner().invoke(
        cli,
        ["export", "--month", "2026-01", "--out", str(out), "--db", db_url, "--json"],
        env={"METROGAMES_EXPORT_SECRET": SECRET},
    )
    assert r.exit_code == 0, r.output
    facts = json.loads(r.output)
    assert facts["complete"] is True and facts["from"] == "2026-01-01T00:00:00Z"
    assert facts["until"] == "2026-02-01T00:00:00Z"
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert facts["sha256"] == digest
    assert (tmp_path / "2026-01.jsonl.zst.sha256").read_text() == f"{digest}  2026-01.jsonl.zst\n"
    assert [d["format"] for _, d in read_export(out)] == ["metrogames-export/1"]
    bad = CliRunner().invoke(
        cli, ["export", "--month", "2026-1", "--out", str(out), "--db", db_url]
    )
    assert bad.exit_code == 2 and "not a month" in bad.output
    wrong = CliRunner().invoke(
        cli, ["export", "--month", "2026-01", "--out", str(tmp_path / "x.json")]
    )
    assert wrong.exit_code == 2


@pytest.mark.parametrize(
    ("url", "served"),
    [("sqlite://", False), ("sqlite:///:memory:", False), ("sqlite:///var/x.db", True),
     ("postgresql+psycopg://u@h/db", True), (None, False)],
)  # fmt: skip
def test_a_download_needs_a_database_its_writer_process_can_open(
    url: str | None, served: bool
) -> None:
    """The month is written by a process of its own (``web/exports/writer.py``), which cannot
    open a database in this process's memory: such a server refuses with 503 ``unavailable``
    (and holds nothing)."""
    exports = Exports(sessionmaker(), b"k" * 32, url)
    if served:
        exports.hold()
        exports.release()
    else:
        with pytest.raises(RoomError) as refused:
            exports.hold()
        assert (refused.value.status, refused.value.reason) == (503, "unavailable")


def test_a_bot_accounts_seat_is_marked_a_bot_and_named_as_any_account() -> None:
    """A seat tied to a bot account is ``bot`` in an export (docs/exports.md), shown by name
    only if its owner allows it, as any account; a server bot's seat names its code."""
    from metrogames.web.exports.games import SeatFacts, identity, is_bot

    secret = b"s"
    shown = identity(secret, SeatFacts(True, None, "b1", "Robo", True, bot_account=True))
    assert shown == {"kind": "bot", "name": "Robo", "pseudonym": None, "bot": None, "label": "Robo"}
    hidden = identity(secret, SeatFacts(True, None, "b1", "Robo", False, bot_account=True))
    assert hidden["kind"] == "bot" and hidden["name"] is None
    assert str(hidden["pseudonym"]).startswith("p-") and hidden["label"] == hidden["pseudonym"]
    person = identity(secret, SeatFacts(True, None, "a1", "Ada", True))
    assert person["kind"] == "account" and not is_bot(SeatFacts(True, None, "a1", "Ada", True))
    server_bot = identity(secret, SeatFacts(False, "greedy", None, None, False))
    assert server_bot == {"kind": "bot", "name": None, "pseudonym": None, "bot": "greedy", "label": "bot:greedy"}
