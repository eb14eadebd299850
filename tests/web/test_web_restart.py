"""Turn clocks and bots across a restart, and the turn after a clock ran out (docs/web-api.md,
"Rooms", "Views"): a turn's deadline is stored, so a restarted server resumes the same
deadline rather than a fresh turn, and resumes every playing room's clock and bots at start
without anyone opening it; when a clock runs out the next turn's clock starts before its views
are sent, and the seat whose time ran out is told what was played for it. On SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from metrogames.core.protocol import CHANCE
from metrogames.web.app import create_app
from metrogames.web.infra.models import ActionRow, RoomRow
from metrogames.web.rooms.scheduler import Scheduler
from support.web import act, create, make_settings, view


def wait_for(check: Callable[[], bool], seconds: float = 10) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def stored(client: TestClient, room: str) -> tuple[list[tuple[int, str]], float | None, bool]:
    """The room's stored actions (player, action JSON), deadline and ``bots_due``, read from
    the database (not through the API, which would load the room)."""
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        rows = session.scalars(
            select(ActionRow).where(ActionRow.room_id == room).order_by(ActionRow.step)
        ).all()
        row = session.get(RoomRow, room)
        assert row is not None
        return [(a.player, a.action) for a in rows], row.deadline, row.bots_due


def test_a_restart_resumes_clocks_and_bots_without_anyone_opening_the_room(db_url: str) -> None:
    slow_bots = make_settings(db_url, bot_delay=60)  # the bot waits: due at the shutdown
    with TestClient(create_app(slow_bots)) as first:
        clocked = create(
            first,
            game="london",
            mode="hotseat",
            turn_clock=60000,  # 600 s (a clock second is 10 ms in the tests): never runs out here
            seats=[{"name": "A"}, {"name": "B"}],
        )["room"]["room"]
        expired = create(
            first,
            game="london",
            mode="hotseat",
            turn_clock=600,
            seats=[{"name": "C"}, {"name": "D"}],
        )["room"]["room"]
        deadline = view(first, clocked)["clock"]["deadline"]
        made = create(first, game="metro", mode="bots", seats=[{"name": "E"}, {"bot": "random"}])
        bots, token = made["room"]["room"], made["tokens"]["0"]
        v = view(first, bots, token)
        assert v["to_move"] == [0]
        assert act(first, bots, token, v["legal"][0], v["step"]).status_code == 200
        moved, _, due = stored(first, bots)
        assert due and view(first, bots)["to_move"] == [1]
        waiting = create(
            first, game="london", mode="bots", seats=[{"name": "F"}, {"bot": "greedy"}]
        )["room"]["room"]
        assert stored(first, waiting)[2] is False  # the human is to move
    assert stored(first, clocked)[1] == deadline
    with first.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
        # the server was down while this room's time ran out
        session.execute(update(RoomRow).where(RoomRow.id == expired).values(deadline=1.0))
        # as the migration marks every playing room with a bot seat stored before it
        session.execute(update(RoomRow).where(RoomRow.id == waiting).values(bots_due=True))
    before_expiry = stored(first, expired)[0]
    with TestClient(create_app(make_settings(db_url))) as second:
        tables = second.app.state.rooms.tables  # type: ignore[attr-defined]
        wait_for(lambda: {clocked, expired, bots} <= set(tables))
        # the same deadline, not a fresh turn
        assert tables[clocked].deadline == deadline and tables[clocked].clock_for == deadline
        # the bot moved, and the passed deadline ran out: both without a request
        wait_for(lambda: len(stored(second, bots)[0]) > len(moved))
        assert stored(second, bots)[0][len(moved)][0] == 1
        wait_for(lambda: len(stored(second, expired)[0]) > len(before_expiry) + 1)
        passes = stored(second, expired)[0][len(before_expiry) :]
        assert passes[:2] == [(0, '"pass"'), (1, '"pass"')]
        new_deadline = stored(second, expired)[1]
        assert new_deadline is not None and new_deadline > time.time()
        assert view(second, expired)["clock"]["deadline"] == new_deadline
        wait_for(lambda: not stored(second, bots)[2])  # the human is to move again
        wait_for(lambda: not stored(second, waiting)[2])  # checked at the start, and cleared
        assert len(stored(second, waiting)[0]) == len(stored(first, waiting)[0])


@pytest.mark.parametrize("game", ["london", "metro"])
def test_after_a_clock_runs_out_the_views_carry_the_new_deadline_and_the_late_seat_is_told(
    db_url: str, game: str
) -> None:
    settings = make_settings(db_url)
    settings.clock_unit = 0.05  # 10 clock seconds: half a second
    with TestClient(create_app(settings)) as c:
        made = create(
            c, game=game, mode="hotseat", turn_clock=10, seats=[{"name": "A"}, {"name": "B"}]
        )
        room, tokens = made["room"]["room"], made["tokens"]
        first = view(c, room, tokens["0"])
        late = sorted(first["to_move"])
        with c.websocket_connect(f"/ws/rooms/{room}") as ws:
            ws.send_json({"type": "hello", "token": tokens[str(late[0])]})
            v: dict[str, Any] = ws.receive_json()["view"]
            while v["step"] == first["step"]:
                message = ws.receive_json()
                if message["type"] == "view":
                    v = message["view"]
        # the first view after the expiry: the next turn's clock already runs, a whole turn
        # clock (10 × 0.05 s) from the expiry on — read from the deadlines, not from when this
        # client got the view (a loaded machine delivers it after that deadline)
        assert v["clock"] is not None
        assert v["clock"]["deadline"] >= first["clock"]["deadline"] + 10 * 0.05 - 0.01
        told = v["timed_out"]
        assert told is not None and told["step"] == first["step"] and told["actions"]
        if game == "london":
            assert told["actions"] == ["pass"]
        spectator = view(c, room)
        assert spectator["timed_out"] is None
        # the late seat acts: it is no longer told
        mine = view(c, room, tokens[str(late[0])])
        assert mine["timed_out"] == told
        if late[0] in mine["to_move"]:
            r = act(c, room, tokens[str(late[0])], mine["legal"][0], mine["step"])
            assert r.status_code == 200, r.text
            assert view(c, room, tokens[str(late[0])])["timed_out"] is None


@pytest.mark.parametrize("game", ["london", "metro"])
def test_the_late_seat_is_told_after_a_restart_and_by_another_server(
    db_url: str, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock's actions are stored marked with the step its time ran out at, so the
    notice survives a restart and another server process loading the room gives it too,
    until the seat acts."""
    settings = make_settings(db_url)
    settings.clock_unit = 0.05  # the first turn: half a second
    run_out = Scheduler._clock

    async def clock(self: Scheduler, table: Any, deadline: float) -> None:
        # the turns after the first one's time runs out: 1000 s (set at that moment, not
        # after the room is made: a slow machine may answer the creation after half a second)
        await asyncio.sleep(max(0.0, deadline - time.time()))
        settings.clock_unit = 100.0
        await run_out(self, table, deadline)

    monkeypatch.setattr(Scheduler, "_clock", clock)
    with TestClient(create_app(settings)) as first:
        made = create(
            first, game=game, mode="hotseat", turn_clock=10, seats=[{"name": "A"}, {"name": "B"}]
        )
        room, tokens = made["room"]["room"], made["tokens"]
        tables = first.app.state.rooms.tables  # type: ignore[attr-defined]
        # the clock has played the first turn out and started the next (1000 s)
        wait_for(lambda: (tables[room].clock_for or 0) > time.time() + 100)
        rows = stored_rows(first, room)
        step = next(a.clock_step for a in rows if a.clock_step is not None)
        assert all(a.player == CHANCE for a in rows[:step])  # the first turn ran out
        late = sorted({a.player for a in rows if a.clock_step is not None})
        assert {a.clock_step for a in rows} == {None, step}
        told = {seat: view(first, room, tokens[str(seat)])["timed_out"] for seat in (0, 1)}
        for seat in (0, 1):
            if seat in late:
                actions = [json.loads(a.action) for a in rows if a.player == seat]
                assert told[seat] == {"step": step, "actions": actions} and actions
            else:
                assert told[seat] is None
        if game == "london":
            passed = {"step": step, "actions": ["pass"]}
            assert told == {0: passed, 1: passed}
        with TestClient(create_app(make_settings(db_url))) as other:  # a second process
            assert {s: view(other, room, tokens[str(s)])["timed_out"] for s in (0, 1)} == told
            assert view(other, room)["timed_out"] is None  # a spectator
    with TestClient(create_app(make_settings(db_url))) as again:  # after a restart
        assert {s: view(again, room, tokens[str(s)])["timed_out"] for s in (0, 1)} == told
        mine = view(again, room, tokens[str(late[0])])
        if late[0] in mine["to_move"]:  # the seat acts: no longer told, now or after a restart
            r = act(again, room, tokens[str(late[0])], mine["legal"][0], mine["step"])
            assert r.status_code == 200, r.text
            assert view(again, room, tokens[str(late[0])])["timed_out"] is None
            acted = late[0]
        else:
            acted = None
    with TestClient(create_app(make_settings(db_url))) as third:
        for s in (0, 1):
            expected = None if s == acted else told[s]
            assert view(third, room, tokens[str(s)])["timed_out"] == expected


def stored_rows(client: TestClient, room: str) -> list[ActionRow]:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return list(
            session.scalars(
                select(ActionRow).where(ActionRow.room_id == room).order_by(ActionRow.step)
            ).all()
        )
