"""Hindsight analyses over the API (docs/web-api.md, "Playing"): a finished solo room's, an
uploaded record's, the refusals, the cache, the rate limit and the daily challenge's wait."""

from __future__ import annotations

import os
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from metrogames.games import replay_record
from metrogames.web.app import create_app
from metrogames.web.infra.config import Settings
from support.daily import DAY as DAILY_DAY
from support.daily import Clock, daily_client, new_player, play, started
from support.daily import get as daily_get
from support.web import JSON, auth, create, make_settings, play_out, record


def refused(r: Any, status: int, reason: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["reason"] == reason, r.text


def solo_room(client: TestClient, game: str = "london", seed: int = 0) -> tuple[str, str]:
    made = create(client, game=game, mode="solo", seats=[{"name": "Ada"}])
    room = made["room"]["room"]
    play_out(client, room, made["tokens"], seed)
    return room, made["tokens"]["0"]


def test_a_finished_solo_room_is_analysed_once_and_rate_limited(db_url: str) -> None:
    settings = make_settings(db_url, analysis_budget="rough", rate_analyses="1/hour")
    with TestClient(create_app(settings)) as client:
        room, _ = solo_room(client)
        r = client.get(f"/api/rooms/{room}/analysis")
        assert r.status_code == 200, r.text
        doc = r.json()
        rec = record(client, room)
        score = replay_record(rec).scores()[0]
        best = doc["best_found"]
        assert doc["score"] == score and doc["player"] == "Ada"
        assert best["score"] >= score and best["proven_optimal"] is False
        assert "not a proven optimum" in best["note"]
        assert replay_record(best["record"]).scores() == [best["score"]]
        assert doc["views"]["player"]["scores"] == [score]
        assert doc["views"]["best"]["scores"] == [best["score"]]
        assert set(doc["views"]["best"]["players"][0]["lines"]) == {
            "blue",
            "pink",
            "purple",
            "green",
        }
        assert doc["costliest_turn"]["loss"] > 0 and doc["search"]["budget"] == "rough"
        # kept: asking again starts nothing, so the limit is not charged
        for _ in range(3):
            assert client.get(f"/api/rooms/{room}/analysis").text == r.text
        # the same game uploaded under another name is the same analysis (its deal and
        # actions), with the uploader's names in it: nothing new starts, nothing is charged
        up = client.post("/api/analyses", json={**rec, "players": ["Bea"]})
        assert up.status_code == 200, up.text
        assert up.json()["player"] == "Bea" and up.json()["best_found"]["record"]["players"] == [
            "Bea"
        ]
        same = {**up.json(), "player": "Ada"}
        same["best_found"]["record"]["players"] = ["Ada"]
        assert same == doc
        jobs = client.app.state.jobs  # type: ignore[attr-defined]
        assert jobs.started["analysis"] == 1 and os.getpid() not in jobs.ran["analysis"]
        # another game is a new analysis: over the limit (1 an hour: analyses here may take
        # over a minute on a loaded machine)
        other, _ = solo_room(client, "paris", 1)
        r = client.get(f"/api/rooms/{other}/analysis")
        refused(r, 429, "rate-limited")
        assert "analyses" in r.json()["error"] and r.headers["retry-after"]


def test_refusals(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{"name": "Ada"}])
    room = made["room"]["room"]
    refused(client.get(f"/api/rooms/{room}/analysis"), 409, "not-finished")
    made = create(client, game="london", mode="bots", seats=[{"name": "Ada"}, {"bot": "greedy"}])
    room = made["room"]["room"]
    play_out(client, room, {"0": made["tokens"]["0"]})
    refused(client.get(f"/api/rooms/{room}/analysis"), 409, "not-solo")
    refused(client.post("/api/analyses", json=record(client, room)), 409, "not-solo")
    refused(client.get("/api/rooms/nosuchroom/analysis"), 404, "not-found")
    refused(client.post("/api/analyses", json={"game": "london"}), 400, "bad-request")
    refused(client.post("/api/analyses", content=b"[1, 2", headers=JSON), 400, "bad-request")


def test_a_daily_game_is_analysed_once_its_day_has_closed(db_url: str) -> None:
    clock = Clock()
    with daily_client(db_url, clock) as client:
        client.app.state.settings.analysis_budget = "rough"  # type: ignore[attr-defined]
        _, token = new_player(client, "Ada")
        room = started(client, token, share=True)["room"]
        play(client, room, token)
        for who in ({}, auth(token)):
            r = client.get(f"/api/rooms/{room}/analysis", headers=who)
            refused(r, 409, "day-open")
        assert daily_get(client, "/api/daily", token)["date"] == DAILY_DAY
        clock.set("2026-03-01T00:00:01")
        r = client.get(f"/api/rooms/{room}/analysis")
        assert r.status_code == 200, r.text
        assert r.json()["best_found"]["score"] >= r.json()["score"]


@pytest.mark.parametrize(
    ("setting", "value"), [("rate_analyses", "often"), ("analysis_budget", "huge")]
)
def test_bad_analysis_settings_are_refused_by_name(setting: str, value: str) -> None:
    with pytest.raises(ValidationError, match=setting):
        Settings(**{setting: value})
