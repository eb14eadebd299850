"""Helpers of the web tests: create rooms, play them out with a seeded random legal policy and
check the final position against an independent replay of the room's record."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games import replay_record
from metrogames.games.nextstation.sheet import score_sheet
from metrogames.web.infra.config import Settings


def run_async(coroutine: Coroutine[Any, Any, Any], timeout: float = 120.0) -> Any:
    """``asyncio.run(coroutine)`` on a thread of its own: the main thread may already run an
    event loop (the browser tests' Playwright keeps one there for the whole session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout)


def make_settings(db_url: str, **kw: Any) -> Settings:
    """Test settings: bots play at once, a turn-clock second lasts 10 ms, no daily expert
    (its games take seconds of CPU) unless asked for, and no flood limit on a seat's
    messages (tests play as fast as a machine) unless asked for, and job processes started
    at their first jobs (most tests run none) unless asked for."""
    kw.setdefault("daily_expert", "")
    kw.setdefault("job_warm", False)
    kw.setdefault("socket_rate", 1_000_000)
    kw.setdefault("socket_burst", 1_000_000)
    kw.setdefault("rate_sockets", "1000000/minute")
    kw.setdefault("rate_lobby", "1000000/minute")  # tests wait for the lobby by asking it
    kw.setdefault("rate_quickmatch", "1000000/minute")
    return Settings(db=db_url, bot_delay=kw.pop("bot_delay", 0), clock_unit=0.01, **kw)


def later(client: TestClient, seconds: float) -> None:
    """Move the room service's presence clock ``seconds`` on (seat handover's grace period)."""
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    clock = rooms.clock
    rooms.clock = lambda: clock() + seconds


def run_clock_out(client: TestClient, room: str) -> None:
    """Run the room's turn clock out now (its deadline set to this moment, on the app's event
    loop): a test plays the turn on a long clock, then lets the time run out when it chooses,
    whatever the machine's speed."""
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    table = rooms.tables[room]

    def expire() -> None:
        assert table.deadline is not None, "the room has no running turn clock"
        rooms.scheduler.stop_clock(table)
        table.deadline = time.time()
        rooms.scheduler.start_clock(table)

    client.portal.call(expire)  # type: ignore[union-attr]


Rows = list[dict[str, Any]]


def _every_write(_statement: Any, _rows: Rows) -> bool:
    return True


@contextmanager
def failing_writes(
    client: TestClient, when: Callable[[Any, Rows], bool] = _every_write
) -> Iterator[list[str]]:
    """Every write statement (INSERT, UPDATE, DELETE: an ORM flush's or a Core one) the app's
    database runs for which ``when(statement, rows)`` holds (``rows``: its parameter dicts)
    raises after it ran, so its transaction must be rolled back; yields the list of failures
    injected."""
    engine = client.app.state.rooms.sessions.kw["bind"]  # type: ignore[attr-defined]
    failed: list[str] = []

    def fail(_conn: Any, statement: Any, multiparams: Any, params: Any, *_rest: Any) -> None:
        rows = list(multiparams) or [params]
        if getattr(statement, "is_dml", False) and when(statement, rows):
            failed.append("write")
            raise RuntimeError("injected: the database failed")

    event.listen(engine, "after_execute", fail)
    try:
        yield failed
    finally:
        event.remove(engine, "after_execute", fail)


JSON = {"Content-Type": "application/json"}
"""The header every request that changes something carries, body or not (the server refuses
others: ``docs/web-api.md``, "Errors")."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def view(client: TestClient, room: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}/view", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def act(client: TestClient, room: str, token: str, action: Any, step: int) -> Any:
    return client.post(
        f"/api/rooms/{room}/actions", headers=auth(token), json={"action": action, "step": step}
    )


class Player:
    """Plays the human seats of one room and remembers every action it sent, per seat.

    The policy is a seeded random legal one: a uniformly random action of the view's ``legal``
    other than ``pass`` (``pass`` only when nothing else is legal), drawn from
    ``Rng(seed, "test-policy")``; with ``passing=True`` it sends ``pass`` every turn (Next
    Station). The first legal action would be ``pass`` in Next Station: a game played by it
    draws nothing and tests nothing.
    """

    def __init__(
        self, room: str, tokens: dict[str, str], seed: int = 0, passing: bool = False
    ) -> None:
        self.room = room
        self.tokens = tokens
        self.rng = Rng(seed, "test-policy")
        self.passing = passing
        self.sent: dict[int, list[Any]] = {int(seat): [] for seat in tokens}

    def choose(self, legal: list[Any]) -> Any:
        assert legal, "a seat to move has no legal action"
        if self.passing:
            assert "pass" in legal
            return "pass"
        moves = [a for a in legal if a != "pass"]
        return self.rng.choice(moves) if moves else "pass"

    def act(self, client: TestClient, seat: int | str = 0) -> dict[str, Any] | None:
        """One action of ``seat`` if it is to move; returns the view it acted on (else
        ``None``)."""
        token = self.tokens[str(seat)]
        v = view(client, self.room, token)
        if v["status"] == "finished" or int(seat) not in v["to_move"]:
            return None
        action = self.choose(v["legal"])
        r = act(client, self.room, token, action, v["step"])
        assert r.status_code == 200, r.text
        self.sent[int(seat)].append(action)
        return v

    def play_out(self, client: TestClient, limit: int = 2000) -> dict[str, Any]:
        """Play every human seat until the game ends; returns the final spectator view."""
        for _ in range(limit):
            moved = [self.act(client, seat) is not None for seat in self.tokens]
            if not any(moved):
                final = view(client, self.room, next(iter(self.tokens.values())))
                assert final["status"] == "finished", "no human could move"
                return final
        raise AssertionError("the game did not end")

    def check(self, client: TestClient) -> dict[str, Any]:
        """:func:`check_finished` with the actions this player sent."""
        return check_finished(client, self.room, self.sent, next(iter(self.tokens.values())))


def play_out(
    client: TestClient, room: str, tokens: dict[str, str], seed: int = 0
) -> dict[str, Any]:
    """Play every human seat by the seeded random legal policy of :class:`Player` until the
    game ends, then check the end against the record (:func:`check_finished`); returns the
    final spectator view."""
    player = Player(room, tokens, seed)
    player.play_out(client)
    return player.check(client)


def record(client: TestClient, room: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}/record", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def engine_replay(rec: dict[str, Any]) -> Any:
    """The final state of a record replayed by the engine, in this process (not by the server)."""
    return replay_record(rec)


def recorded_actions(rec: dict[str, Any], state: Any) -> dict[int, list[Any]]:
    """Every player action of a record, per seat, in order, as the record writes it.

    Next Station: ``rounds[r].turns[t][seat]``. Metro: the ``turns`` list, each attributed to
    the seat the replayed ``state`` says played it."""
    seats: dict[int, list[Any]] = {p: [] for p in range(len(rec["players"]))}
    if rec["game"] == "metro":
        order = [p for p, _ in state.history() if p != CHANCE]
        assert len(order) == len(rec["turns"])
        for p, action in zip(order, rec["turns"], strict=True):
            seats[p].append(action)
        return seats
    for rnd in rec["rounds"]:
        for turn in rnd["turns"]:
            assert len(turn) == len(seats)
            for p, action in enumerate(turn):
                seats[p].append(action)
    return seats


def drawing_order(departure: str, sections: list[list[str]]) -> list[list[str]]:
    """``sections`` (in any order and direction) redrawn from ``departure`` outward, each
    ``[from, to]`` from a station already on the line: the order a score sheet needs."""
    reached = {departure}
    left = [tuple(s) for s in sections]
    out: list[list[str]] = []
    while left:
        nxt = next(s for s in left if s[0] in reached or s[1] in reached)
        left.remove(nxt)
        a, b = nxt if nxt[0] in reached else (nxt[1], nxt[0])
        assert b not in reached, f"{a}-{b} closes a loop"
        reached.add(b)
        out.append([a, b])
    return out


def sheet_from_view(board: dict[str, Any], final: dict[str, Any], seat: int) -> dict[str, Any]:
    """The score sheet (``metrogames score`` input) of ``seat``'s drawn lines in a view."""
    lines = final["players"][seat]["lines"]
    sheet: dict[str, Any] = {
        "game": final["game"],
        "lines": {
            colour: drawing_order(board["departures"][colour], line["sections"])
            for colour, line in lines.items()
        },
        "objectives": final["objectives"],
    }
    circled = {c: line["circled"] for c, line in lines.items() if line["circled"]}
    if circled:
        sheet["circled"] = circled
    return sheet


def check_finished(
    client: TestClient, room: str, sent: dict[int, list[Any]], token: str | None = None
) -> dict[str, Any]:
    """Check a finished room against numbers recomputed without the server; returns the final
    view (a spectator's, or ``token``'s seat's: a daily game of an open day has no spectators).

    The room's record (``GET /api/rooms/{room}/record``) replayed by the engine gives the
    final scores and winners, and holds exactly the actions each human seat sent, in order.
    Next Station also: each seat's sheet in the view equals ``metrogames score`` of a score
    sheet built from its drawn lines (another path to the same numbers).
    """
    final = view(client, room, token)
    assert final["status"] == "finished" and final["to_move"] == []
    rec = record(client, room, token)
    state = engine_replay(rec)
    assert state.is_over()
    assert state.scores() == final["scores"]
    assert state.winners() == final["winners"]
    recorded = recorded_actions(rec, state)
    for seat, actions in sent.items():
        assert recorded[seat] == actions, f"seat {seat}: the record is not what was sent"
    if final["game"] != "metro":
        board = client.get(f"/api/games/{final['game']}/board").json()
        for seat, player in enumerate(final["players"]):
            city, breakdown = score_sheet(sheet_from_view(board, final, seat))
            assert breakdown.to_json(city) == player["sheet"], f"seat {seat}"
            assert breakdown.total == final["scores"][seat]
    return final


def cli_replay(rec: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """``metrogames replay --json`` of a record."""
    path = tmp / "record.json"
    path.write_text(json.dumps(rec))
    result = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)
