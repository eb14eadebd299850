"""``POST /api/rooms/{room}/hint``: the coach for a seat, on its own view only; refusals; bots
thinking off the event loop."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.bots.coach import hints
from metrogames.bots.levels import level_algorithm
from metrogames.core.protocol import Action, State
from metrogames.core.rng import Rng
from metrogames.web.app import create_app
from metrogames.web.rooms import scheduler as rooms_module
from support.daily import Clock, daily_client, new_player, refused, started
from support.web import act, auth, create, make_settings, view


def hint_seed(seen: State[Action], seat: int, about: Any) -> int:
    """The hint search's seed as ``docs/web-api.md`` states it: from the SHA-256 of the
    position's canonical JSON (game, players, options, the seat's snapshot, seat, about)."""
    position = {
        "about": about,
        "game": seen.game.name,
        "options": seen.game.options_json(),
        "players": seen.game.num_players,
        "seat": seat,
        "snapshot": seen.snapshot(),
    }
    text = json.dumps(position, sort_keys=True, separators=(",", ":"))
    key = "hint:" + hashlib.sha256(text.encode()).hexdigest()
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def hint(client: TestClient, room: str, token: str | None, **body: Any) -> Any:
    return client.post(f"/api/rooms/{room}/hint", headers=auth(token) if token else {}, json=body)


def hinted(client: TestClient, room: str, token: str, **body: Any) -> dict[str, Any]:
    r = hint(client, room, token, **body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_solo_seat_gets_three_legal_moves_with_expected_scores(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    got = hinted(client, room, token, step=v["step"], about="pass")
    assert got["step"] == v["step"] and got["seat"] == 0 and got["figure"] == "score"
    moves = got["moves"]
    assert len(moves) == 3 and all(m["action"] in v["legal"] for m in moves)
    assert len({m["text"] for m in moves}) == 3
    scores = [m["score"] for m in moves]
    assert scores == sorted(scores, reverse=True) and all(m["win"] == 1.0 for m in moves)
    assert got["about"]["action"] == "pass" and got["about"]["text"] == "pass"
    # the coach on the seat's own view, seeded from the position as the seat sees it
    table = client.app.state.rooms.tables[room]  # type: ignore[attr-defined]
    seen = table.progress.state.view(0)
    coach = hints(seen, 0, about=seen.game.pass_action, seed=hint_seed(seen, 0, "pass"))
    assert got == {"step": v["step"], "seat": 0, **coach.to_json(seen, 0)}
    assert hinted(client, room, token, step=v["step"], about="pass") == got
    # the step moves on: the old step's hint is refused
    after = act(client, room, token, moves[0]["action"], v["step"]).json()
    refused(hint(client, room, token, step=v["step"]), 409, "stale-step")
    assert hinted(client, room, token, step=after["step"])["step"] == after["step"]


def test_a_metro_hint_is_a_win_probability_and_reads_no_hidden_tile(client: TestClient) -> None:
    """The hint of a Metro seat is the same whatever the other seats hold: the server's state
    replaced by others consistent with the seat's view (other hands, other pile orders) gives
    the same answer."""
    made = create(
        client, game="metro", mode="hotseat", options={"turn_mode": "hand"},
        seats=[{"name": "A"}, {"name": "B"}, {"name": "C"}],
    )  # fmt: skip
    room, tokens = made["room"]["room"], made["tokens"]
    v = view(client, room, tokens["0"])
    seat = v["to_move"][0]
    token = tokens[str(seat)]
    first = hinted(client, room, token, step=v["step"])
    assert first["figure"] == "win" and len(first["moves"]) == 3
    assert all(0 <= m["win"] <= 1 for m in first["moves"])
    table = client.app.state.rooms.tables[room]  # type: ignore[attr-defined]
    true_state = table.progress.state
    seen = true_state.view(seat)
    others = [seen.resample(seat, Rng(k)) for k in (1, 2)]
    assert len({s.snapshot() for s in [true_state, *others]}) == 3  # other hands and piles
    for other in others:
        table.progress.state = other
        assert hinted(client, room, token, step=v["step"]) == first
    table.progress.state = true_state
    # another seat, not to move, gets no hint; nor does a spectator
    idle = next(s for s in ("0", "1", "2") if int(s) != seat)
    refused(hint(client, room, tokens[idle], step=v["step"]), 409, "not-your-turn")
    refused(hint(client, room, None, step=v["step"]), 401, "bad-token")
    refused(hint(client, room, "forged", step=v["step"]), 403, "bad-token")


def test_bad_hint_requests_are_refused(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    step = view(client, room, token)["step"]
    refused(hint(client, room, token, step=step, about="Z9-A1"), 400, "bad-notation")
    refused(
        hint(client, room, token, step=step, about={"sections": [["A1", "A2"]]}),
        400,
        "bad-notation",
    )
    # A10-B10 is a link no departure touches: never legal on a first turn, whatever the deal
    legal = {str(a) for a in view(client, room, token)["legal"]}
    assert str({"sections": [["A10", "B10"]]}) not in legal
    bad = hint(client, room, token, step=step, about={"sections": [["A10", "B10"]]})
    refused(bad, 400, "not-legal")
    assert bad.json()["error"] == "A10-B10 is not a legal move now"
    refused(hint(client, room, token, step="1"), 400, "bad-request")
    refused(hint(client, room, token, step=step, extra=1), 400, "bad-request")
    online = create(client, game="london", mode="online", seats=[{"name": "A"}, {}])
    refused(hint(client, online["room"]["room"], online["tokens"]["0"], step=0), 409, "not-started")


def test_no_hint_after_the_end(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    while v["status"] == "playing":
        v = act(client, room, token, "pass", v["step"]).json()
    refused(hint(client, room, token, step=v["step"]), 409, "game-over")


def test_hints_are_refused_in_a_ranked_daily_game_only(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        _, token = new_player(client, "Ada")
        ranked = started(client, token)
        assert ranked["ranked"] is True
        step = view(client, ranked["room"], token)["step"]
        r = hint(client, ranked["room"], token, step=step)
        refused(r, 409, "ranked-game")
        assert r.json()["error"] == "hints are off in a ranked daily game"
        practice = started(client, token, day="2026-02-27")
        assert practice["ranked"] is False
        step = view(client, practice["room"], token)["step"]
        assert len(hinted(client, practice["room"], token, step=step)["moves"]) == 3


def test_hints_are_rate_limited(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, rate_hints="2/minute"))) as client:
        made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
        room, token = made["room"]["room"], made["tokens"]["0"]
        step = view(client, room, token)["step"]
        for _ in range(2):
            hinted(client, room, token, step=step)
        r = hint(client, room, token, step=step)
        refused(r, 429, "rate-limited")
        assert "too many hints from this address: at most 2 per 1 minute" in r.json()["error"]
        assert int(r.headers["Retry-After"]) >= 1


class Probe:
    """A bot that notes the thread it decides on and plays the first legal action."""

    sees_state = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.threads: list[str] = []

    def decide(self, state: State[Action], player: int, legal: Sequence[Action]) -> Action:
        self.threads.append(threading.current_thread().name)
        return legal[0]


def test_quick_bots_think_off_the_event_loop(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = Probe("medium")
    monkeypatch.setattr(rooms_module, "make_bot", lambda code, seed: probe)
    made = create(client, game="metro", mode="bots", seats=[{"name": "Ada"}, {"bot": "medium"}])
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    assert v["to_move"] == [0]
    after = act(client, room, token, v["legal"][0], v["step"]).json()
    assert after["step"] > v["step"] + 1  # the bot played after the human
    assert probe.threads and all(t.startswith("metrogames-think") for t in probe.threads)


def test_the_seat_menu_lists_the_levels_first_with_what_they_play(client: TestClient) -> None:
    games = {g["game"]: g for g in client.get("/api/games").json()}
    for name, g in games.items():
        assert g["bots"][:4] == ["easy", "medium", "hard", "expert"]
        assert list(g["bot_labels"]) == g["bots"]
        assert g["bot_labels"]["easy"] == "Easy — random"
        assert g["bot_labels"]["random"] == "Algorithm: random", name
    assert games["london"]["bot_labels"]["medium"] == "Medium — greedy"
    played = str(level_algorithm("hard", "metro"))  # lookahead (4 candidates, ...)
    assert played.startswith("lookahead (")
    assert games["metro"]["bot_labels"]["hard"] == f"Hard — {played}"
    assert games["london"]["bot_labels"]["hard"].startswith("Hard — Monte Carlo (")
    assert games["metro"]["bot_labels"]["montecarlo"] == "Algorithm: Monte Carlo"
