"""``metrogames daily``: the terminal client of the daily challenge (``cli/daily.py``), driven by
scripted input against the web table served on a free loopback port (a fresh SQLite database).

Needs the ``web`` extra (``./dev`` installs it): without it this module fails to import.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from rich.console import Console
from typer.testing import CliRunner

from metrogames.cli.daily import DailyError, play_daily
from metrogames.cli.main import app
from metrogames.web.app import create_app
from metrogames.web.daily.service import MIDNIGHT_RULE
from metrogames.web.infra.config import Settings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


DATABASES: dict[str, Path] = {}
"""Each test server's SQLite file, by its base URL."""


def made_yesterday(server: str, name: str) -> None:
    """Date the account ``name`` a day back: it may rank today's deal (an account made after
    the day's deal opened cannot: docs/web-api.md, "The account rule")."""
    with sqlite3.connect(DATABASES[server]) as db:
        db.execute("UPDATE accounts SET created = created - 86400 WHERE name = ?", (name,))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a web table running in a thread of this process."""
    port = _free_port()
    db = tmp_path_factory.mktemp("daily") / "daily.db"
    settings = Settings(
        db=f"sqlite:///{db}", port=port, bot_delay=0.0, daily_secret="test", daily_expert="easy"
    )
    srv = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=lambda: asyncio.run(srv.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        DATABASES[f"http://127.0.0.1:{port}"] = db
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=150, color_system=None), buf


def _scripted(buf: io.StringIO, first: list[str]) -> Callable[[str], str]:
    """Types ``first``, then on every move prompt asks for ``moves`` and plays the first
    section listed (``pass`` when none is): only what the client printed is read."""
    pending = list(first)
    state = {"asked": False, "mark": 0}

    def answer(prompt: str) -> str:
        if pending:
            return pending.pop(0)
        if not state["asked"]:
            state["asked"] = True
            state["mark"] = len(buf.getvalue())
            return "moves"
        state["asked"] = False
        listed = buf.getvalue()[state["mark"] :].split()
        sections = [t for t in listed if re.fullmatch(r"[A-Z]+\d+-[A-Z]+\d+", t)]
        return sections[0] if sections else "pass"

    return answer


def _player(token_file: Path, server: str) -> dict[str, Any]:
    entry: dict[str, Any] = json.loads(token_file.read_text(encoding="utf-8"))[server]
    return entry


def _get(server: str, path: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    res = httpx.get(server + path, headers=headers, timeout=15)
    res.raise_for_status()
    return res.json()


def test_daily_london_played_to_the_end_prints_the_servers_result(
    server: str, tmp_path: Path
) -> None:
    console, buf = _console()
    token_file = tmp_path / "player.json"
    # a name, a typo (refused locally), a move the server refuses (a target drawn backwards),
    # then the first listed move each turn
    wrong = {"move": ""}

    def first_turn(prompt: str) -> str:
        if not wrong["move"]:
            view = _current_view(server, token_file)
            a, b = next(x for x in view["legal"] if x != "pass")["sections"][0]
            wrong["move"] = f"{b}-{a}"
            return wrong["move"]
        return "moves"

    script = _scripted(buf, ["Ada", "Q99-Z1"])
    calls = {"n": 0}

    def answer(prompt: str) -> str:
        calls["n"] += 1
        if calls["n"] == 3:
            return first_turn(prompt)
        return script(prompt)

    started = time.monotonic()
    result = play_daily("london", server, token_file, console, answer, share=True)
    text = buf.getvalue()
    assert result is not None
    assert time.monotonic() - started < 120
    assert "unknown station 'Q99'" in text
    refusal = next(line for line in text.splitlines() if "✘ refused:" in line)
    reason = refusal.rsplit("(", 1)[-1]  # the server's reason, printed once
    assert reason.endswith(")") and refusal.count(f"({reason}") == 1, refusal
    me = _player(token_file, server)
    assert me["name"] == "Ada" and me["token"]
    daily = _get(server, "/api/daily", me["token"])
    truth = _get(server, f"/api/daily/london/{daily['date']}/result", me["token"])
    if result["expert"]["score"] is None:  # the expert's game of the deal ends in the background
        assert truth["expert"]["name"] == result["expert"]["name"] == "easy"
        result = {**result, "expert": truth["expert"]}
    assert result == truth
    printed = int(re.search(r"^Score: (\d+)$", text, re.M).group(1))  # type: ignore[union-attr]
    assert printed == truth["score"]
    room = next(g["room"] for g in daily["games"] if g["game"] == "london")
    final = _get(server, f"/api/rooms/{room}/view", me["token"])
    assert final["status"] == "finished" and final["scores"] == [truth["score"]]
    assert f"Rank: {truth['rank']} of {truth['of']}" in text
    assert f"Solo rating: band {truth['rating']['band']}" in text
    assert f"bot scored {truth['bot']['score']} on the same deal" in text
    assert "End of round 4" in text
    assert f"Rank: {truth['rank']} of {truth['of']} (guests' list)" in text
    board = _get(server, f"/api/daily/london/{daily['date']}/guests")  # a guest: listed apart
    assert any(e["player"] == me["player"] for e in board["entries"])

    # a second run: the ranked attempt is used; the result is shown again (exit 0)
    run = CliRunner().invoke(
        app, ["daily", "london", "--server", server, "--token-file", str(token_file)]
    )
    assert run.exit_code == 0, run.output
    assert "one ranked attempt per day" in run.output
    assert f"Score: {truth['score']}" in run.output


def _current_view(server: str, token_file: Path) -> dict[str, Any]:
    me = _player(token_file, server)
    daily = _get(server, "/api/daily", me["token"])
    room = next(g["room"] for g in daily["games"] if g["game"] == "london")
    view: dict[str, Any] = _get(server, f"/api/rooms/{room}/view", me["token"])
    return view


def test_daily_quit_then_continue_the_same_game(server: str, tmp_path: Path) -> None:
    token_file = tmp_path / "p.json"
    runner = CliRunner()
    args = ["daily", "paris", "--server", server, "--token-file", str(token_file), "--no-share"]
    first = runner.invoke(app, [*args, "--name", "Bea"], input="pass\nquit\n")
    assert first.exit_code == 0, first.output
    assert "Stopped" in first.output and "Paris" in first.output
    me = _player(token_file, server)
    daily = _get(server, "/api/daily", me["token"])
    room = next(g["room"] for g in daily["games"] if g["game"] == "paris")
    step = _get(server, f"/api/rooms/{room}/view", me["token"])["step"]
    assert step > 1  # the pass was played
    # input ends at once: the same room is continued (no new game), then left as it is
    again = runner.invoke(app, args, input="")
    assert again.exit_code == 0, again.output
    assert f"room {room}" in again.output
    assert _get(server, f"/api/rooms/{room}/view", me["token"])["step"] == step
    # not shared: absent from the leaderboard once finished (nothing finished yet here)
    board = _get(server, f"/api/daily/paris/{daily['date']}/guests")
    assert all(e["player"] != me["player"] for e in board["entries"])


def test_daily_errors_have_clear_messages_and_exit_codes(server: str, tmp_path: Path) -> None:
    runner = CliRunner()
    token_file = tmp_path / "player.json"
    bad_game = runner.invoke(app, ["daily", "metro", "--server", server])
    assert bad_game.exit_code == 2 and "london or paris" in bad_game.output
    bad_url = runner.invoke(app, ["daily", "london", "--server", "localhost:8000"])
    assert bad_url.exit_code == 2 and "http://" in bad_url.output
    dead = f"http://127.0.0.1:{_free_port()}"
    unreachable = runner.invoke(
        app, ["daily", "london", "--server", dead, "--token-file", str(token_file)]
    )
    assert unreachable.exit_code == 1 and f"cannot reach the server at {dead}" in unreachable.output
    token_file.write_text(json.dumps({server: {"player": "x", "name": "X", "token": "forged"}}))
    forged = runner.invoke(
        app, ["daily", "london", "--server", server, "--token-file", str(token_file)]
    )
    assert forged.exit_code == 1
    assert "does not accept the player token" in forged.output
    token_file.write_text("not json")
    broken = runner.invoke(
        app, ["daily", "london", "--server", server, "--token-file", str(token_file)]
    )
    assert broken.exit_code == 1 and "cannot read the token file" in broken.output


def test_daily_hint_is_refused_in_the_ranked_game(server: str, tmp_path: Path) -> None:
    token_file = tmp_path / "h.json"
    args = ["daily", "london", "--server", server, "--token-file", str(token_file), "--no-share"]
    run = CliRunner().invoke(app, [*args, "--name", "Cy"], input="hint\nhint pass\nquit\n")
    assert run.exit_code == 0, run.output
    refusal = "✘ No hints in a ranked daily game: today's score must be yours alone"
    assert run.output.count(refusal) == 2
    assert "Coach (" not in run.output
    assert "Stopped" in run.output


def test_daily_speaks_the_terminals_language(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METROGAMES_LANG", "nl")
    token_file = tmp_path / "p.json"
    args = ["daily", "paris", "--server", server, "--token-file", str(token_file), "--no-share"]
    first = CliRunner().invoke(app, [*args, "--name", "Cas"], input="quit\n")
    assert first.exit_code == 0, first.output
    text = " ".join(first.output.split())
    assert "Welkom, Cas. Je spelerstoken staat in" in text
    assert "Dagelijkse uitdaging · Next Station: Paris ·" in text
    assert "Gerangschikte poging · kamer " in text and "niet gedeeld op de ranglijst" in text


def test_daily_signed_in_to_an_account_takes_the_ranked_attempt(
    server: str, tmp_path: Path
) -> None:
    """``--account``: the account's session (its cookie in the run's client only, ended at
    the end) plays the ranked attempt; the account is on the accounts' board, not the guests'."""
    password = "correct horse battery"
    made = httpx.post(server + "/api/accounts", json={"name": "Dora", "password": password})
    assert made.status_code == 201, made.text
    made_yesterday(server, "Dora")
    account = made.json()
    cookies: list[str] = []

    def keep_cookie(res: httpx.Response) -> None:
        cookies.extend(v for k, v in res.headers.multi_items() if k == "set-cookie")

    console, buf = _console()
    token_file = tmp_path / "none.json"
    asked: list[str] = []

    def secret(prompt: str) -> str:
        asked.append(prompt)
        return password

    with httpx.Client(timeout=15, event_hooks={"response": [keep_cookie]}) as http:
        result = play_daily(
            "london", server, token_file, console, _scripted(buf, []),
            share=True, account="Dora", password=secret, http=http,
        )  # fmt: skip
        assert not http.cookies  # the session's cookie is gone with the run
    text = buf.getvalue()
    assert asked == ["Password for Dora: "]
    assert "Signed in as Dora (account)" in text and "Ranked attempt" in text
    rule = text.index(" ".join(MIDNIGHT_RULE.split()[:6]))  # the midnight rule, before the start
    assert rule < text.index("Ranked attempt")
    assert " ".join(text[rule:].split()).startswith(MIDNIGHT_RULE)
    assert not token_file.exists()  # nothing kept on disk
    assert result is not None and result.get("board") != "guests"
    date = _get(server, "/api/daily")["date"]
    board = _get(server, f"/api/daily/london/{date}/leaderboard")
    mine = [e for e in board["entries"] if e.get("account") == account["account"]]
    assert len(mine) == 1 and mine[0]["score"] == result["score"]
    guests = _get(server, f"/api/daily/london/{date}/guests")
    assert all(e["player"] != account["player"] for e in guests["entries"])
    assert f"Rank: {result['rank']} of {result['of']}" in text
    # the session was ended on the server: its cookie no longer signs in
    session = cookies[0].split(";", 1)[0]
    me = httpx.get(server + "/api/accounts/me", headers={"Cookie": session}, timeout=15)
    assert me.status_code == 200 and me.json()["account"] is None

    # the command line: the password from the environment; the attempt is used
    runner = CliRunner()
    args = ["daily", "london", "--server", server, "--account", "Dora"]
    again = runner.invoke(app, args, env={"METROGAMES_PASSWORD": password})
    assert again.exit_code == 0, again.output
    assert "one ranked attempt per day" in again.output
    assert f"Score: {result['score']}" in again.output
    # asked without echo when the environment has none; a wrong one is a clear error
    wrong = runner.invoke(app, args, input="not the password\n", env={"METROGAMES_PASSWORD": ""})
    assert wrong.exit_code == 1
    assert "not the password" not in wrong.output
    assert "refused the sign-in of account 'Dora'" in wrong.output
    assert "(bad-password)" in wrong.output
    both = runner.invoke(app, [*args, "--name", "X"])
    assert both.exit_code == 2 and "an account plays under its own name" in both.output


def test_daily_account_whose_claimed_guest_has_played_is_told_why(server: str) -> None:
    """An account that claimed a guest with a ranked game of the day has no attempt left: the
    client says so with the server's reason (exit 0, nothing played)."""
    guest = httpx.post(server + "/api/players", json={"name": "Fay"}, timeout=15).json()
    date = _get(server, "/api/daily")["date"]
    r = httpx.post(
        f"{server}/api/daily/london/{date}/start",
        headers={"Authorization": f"Bearer {guest['token']}"},
        json={},
        timeout=15,
    )
    assert r.status_code == 200, r.text
    password = "another long one"
    with httpx.Client(base_url=server, timeout=15) as browser:
        assert (
            browser.post("/api/accounts", json={"name": "Eve", "password": password}).status_code
            == 201
        )
        made_yesterday(server, "Eve")
        claim = browser.post(
            "/api/accounts/me/claim", headers={"Authorization": f"Bearer {guest['token']}"}, json={}
        )
        assert claim.status_code == 200, claim.text
    run = CliRunner().invoke(
        app,
        ["daily", "london", "--server", server, "--account", "Eve"],
        env={"METROGAMES_PASSWORD": password},
    )
    assert run.exit_code == 0, run.output
    assert "one ranked attempt per day" in run.output
    assert "a guest player this account claimed has played today's ranked london" in run.output
    assert "Score:" not in run.output


def test_daily_errors_in_the_terminals_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METROGAMES_LANG", "nl")
    runner = CliRunner()
    bad_game = runner.invoke(app, ["daily", "metro"])
    text = " ".join(bad_game.output.split())
    assert bad_game.exit_code == 2
    assert text == "fout: de dagelijkse uitdaging is london of paris, niet 'metro'"
    bad_url = runner.invoke(app, ["daily", "london", "--server", "localhost:8000"])
    assert " ".join(bad_url.output.split()) == (
        "fout: --server moet een http://- of https://-URL zijn, niet 'localhost:8000'"
    )
    dead = f"http://127.0.0.1:{_free_port()}"
    args = ["daily", "london", "--server", dead, "--token-file", str(tmp_path / "p.json")]
    unreachable = runner.invoke(app, args)
    assert unreachable.exit_code == 1
    assert " ".join(unreachable.output.split()).startswith(
        f"fout: kan de server op {dead} niet bereiken: "
    )


def test_a_server_answering_something_else_is_named_not_met_half_way(tmp_path: Path) -> None:
    """An answer that is not the web API's (docs/web-api.md, "The daily challenge") is refused
    at once with the fields at fault named; the token file is left alone."""
    answers = {
        "/api/daily": {"date": "2026-12-04", "games": [{"game": "london"}]},  # no closes_at
        "/api/players": {"player": "p1", "name": "Ada"},  # no token: fine for a guest's me
    }

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=answers[request.url.path])

    token_file = tmp_path / "player.json"
    console = Console(file=io.StringIO(), width=100)
    http = httpx.Client(transport=httpx.MockTransport(handle))
    with pytest.raises(DailyError) as caught:
        play_daily("london", "http://table.test", token_file, console, lambda _: "Ada", http=http)
    message = caught.value.message
    assert "GET /api/daily" in message and "closes_at" in message, message
    assert caught.value.code == 1
    assert not token_file.exists()
    answers["/api/daily"] = {"date": "2026-12-04", "games": [], "closes_at": "soon"}
    with pytest.raises(DailyError) as caught:
        play_daily("london", "http://table.test", token_file, console, lambda _: "Ada", http=http)
    assert "closes_at" in caught.value.message, caught.value.message
