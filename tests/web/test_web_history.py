"""Work that grows with the stored games never holds up the server (docs/web-api.md, "The daily
challenge", "Playing"): every request whose cost grows with the history — a published deal, a
leaderboard, a history, the best scores, a result, a replay (stored or uploaded), a room rebuilt
from its actions — runs off the event loop, so another request answers while it works; a
published deal's records are built once and paged. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.games import replay_record
from metrogames.web.app import create_app
from metrogames.web.daily.boards import DailyBoards
from metrogames.web.daily.service import DailyService
from metrogames.web.infra.jobs.service import Jobs
from metrogames.web.rooms.store import RoomStore
from support.daily import DAY, SECRET, Clock, clean, get, new_account, new_player, play_day
from support.web import Player, auth, create, make_settings

NEXT = "2026-03-01"


@pytest.fixture
def app_client(db_url: str) -> Iterator[TestClient]:
    clock = Clock()
    app = create_app(make_settings(db_url, daily_secret=SECRET), now=clock)
    with TestClient(app) as client:
        clean(client)
        client.clock = clock  # type: ignore[attr-defined]
        yield client


def finished_solo(client: TestClient) -> str:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room = made["room"]["room"]
    Player(room, made["tokens"], passing=True).play_out(client)
    return room


class Gate:
    """Makes a sync function block (on whichever thread runs it) until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.timed_out = False

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def gated(*args: Any, **kwargs: Any) -> Any:
            self.entered.set()
            # on the event loop, this would stop every other request until it times out
            self.timed_out = not self.release.wait(10)
            return fn(*args, **kwargs)

        return gated

    def wrap_async(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """The same for a coroutine function (the event loop waits in a thread, not blocked)."""

        async def gated(*args: Any, **kwargs: Any) -> Any:
            self.entered.set()
            self.timed_out = not await asyncio.to_thread(self.release.wait, 10)
            return await fn(*args, **kwargs)

        return gated


HEAVY: dict[str, tuple[Any, str, str]] = {
    # request: (owner, attribute gated, method) ; the path is made by the test
    "deal": (DailyBoards, "_deal_page", "GET"),
    "leaderboard": (DailyBoards, "leaderboard", "GET"),
    "history": (DailyBoards, "history", "GET"),
    "best": (DailyBoards, "best", "GET"),
    "result": (DailyService, "_result", "GET"),
    # a replay is a job run in another process (tests/web/test_web_jobs.py): gated where it waits
    "replay": (Jobs, "run", "GET"),
    "upload": (Jobs, "run", "POST"),
    "load": (RoomStore, "load", "GET"),
}


@pytest.mark.parametrize("kind", list(HEAVY))
def test_a_heavy_request_does_not_hold_up_another(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    c = app_client
    player, token = new_player(c, "Ada")
    room = finished_solo(c)
    record = get(c, f"/api/rooms/{room}/record")
    c.clock.set(f"{NEXT}T12:00:00")  # type: ignore[attr-defined]
    c.app.state.rooms.tables.pop(room)  # type: ignore[attr-defined]  (rebuilt on demand)
    path = {
        "deal": f"/api/daily/london/{DAY}/deal",
        "leaderboard": f"/api/daily/london/{DAY}/leaderboard",
        "history": f"/api/players/{player}/history",
        "best": "/api/daily/london/best",
        "result": f"/api/daily/london/{DAY}/result",
        "replay": f"/api/rooms/{room}/replay",
        "upload": "/api/replays",
        "load": f"/api/rooms/{room}",
    }[kind]
    owner, name, method = HEAVY[kind]
    gate = Gate()
    wrap = gate.wrap_async if owner is Jobs else gate.wrap
    monkeypatch.setattr(owner, name, wrap(getattr(owner, name)))
    with ThreadPoolExecutor(1) as pool:
        heavy = pool.submit(
            c.request, method, path, headers=auth(token), json=record if kind == "upload" else None
        )
        assert gate.entered.wait(10), "the heavy request did not start"
        light = c.get("/api/games")  # answered while the heavy one is still at work
        assert light.status_code == 200 and not heavy.done()
        gate.release.set()
        answer = heavy.result(15)
    assert not gate.timed_out, "the light request waited for the heavy one"
    expected = 404 if kind == "result" else 200  # Ada has no daily game
    assert answer.status_code == expected, answer.text


def test_a_published_deal_is_paged_built_once_and_shows_current_names(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = app_client
    players = [new_account(c, name) for name in ("Ada", "Bob", "Cy")]
    for seed, (browser, _) in enumerate(players):
        play_day(browser, None, policy=seed)
    c.clock.set(f"{NEXT}T00:00:01")  # type: ignore[attr-defined]
    board = get(c, f"/api/daily/london/{DAY}/leaderboard")
    built: list[list[str]] = []
    build = DailyBoards._build_records

    def counted(self: DailyBoards, rooms: list[str], seed: int) -> dict[str, str]:
        built.append(rooms)
        return build(self, rooms, seed)

    monkeypatch.setattr(DailyBoards, "_build_records", counted)
    url = f"/api/daily/london/{DAY}/deal"
    first = get(c, f"{url}?limit=2")
    rest = get(c, f"{url}?limit=2&offset=2")
    assert first["total"] == rest["total"] == board["total"] == 3
    assert first["seed"] == rest["seed"] and first["deal"] == rest["deal"]
    games = first["games"] + rest["games"]
    assert len(first["games"]) == 2 and len(games) == 3
    for rec, entry in zip(games, board["entries"], strict=True):
        assert rec["players"] == [entry["name"]] and rec["seed"] == first["seed"]
        assert rec["meta"] == {"daily": DAY, "player": entry["player"], "score": entry["score"]}
        assert replay_record(rec).scores()[0] == entry["score"]
    assert sorted(map(len, built)) == [1, 2]
    whole = get(c, url)
    assert whole["games"] == games and sorted(map(len, built)) == [1, 2]  # nothing rebuilt
    r = players[0][0].patch("/api/accounts/me", json={"name": "Ada Lovelace"})
    assert r.status_code == 200, r.text
    renamed = get(c, url)["games"]
    mine = [g for g in renamed if g["meta"]["player"] == players[0][1]["player"]]
    assert [g["players"] for g in mine] == [["Ada Lovelace"]]
    assert len(built) == 2
    for bad in ("limit=1001", "limit=-1", "offset=-1"):
        r = c.get(f"{url}?{bad}")
        assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text


def test_a_replay_is_built_once(app_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    c = app_client
    room = finished_solo(c)
    calls: list[str] = []
    run = Jobs.run

    async def counted(self: Jobs, kind: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(kind)
        return await run(self, kind, *args, **kwargs)

    monkeypatch.setattr(Jobs, "run", counted)
    first = get(c, f"/api/rooms/{room}/replay")
    assert get(c, f"/api/rooms/{room}/replay") == first and calls == ["replay"]
    assert first["frames"][-1]["status"] == "finished"
    assert len(first["frames"]) == get(c, f"/api/rooms/{room}/view")["step"] + 1
