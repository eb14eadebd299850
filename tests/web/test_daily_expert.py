"""The daily deal's bots: the reference level (``medium``) and the expert, whose game on the
deal is played once in the background and kept; the bot scores' migration."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.web.app import create_app
from metrogames.web.daily import deal as dd
from metrogames.web.infra.db import migrate, open_database
from support.daily import DAY, Clock, clean, get, new_player, play, started
from support.web import make_settings

SECRET = "metrogames-test-secret"
INSERT = "INSERT INTO daily_bot_scores (game, day, bot, score) VALUES"


def test_the_reference_bot_is_medium_and_plays_london_as_greedy() -> None:
    assert dd.BOT == "medium"
    seed = dd.daily_seed(SECRET.encode(), "london", DAY)
    greedy = play_bots(dd.deal_state("london", seed), [make_bot("greedy", seed=seed)])
    assert dd.bot_score("london", seed) == greedy.scores()[0]


def _result(client: TestClient, token: str) -> dict[str, Any]:
    out: dict[str, Any] = get(client, f"/api/daily/london/{DAY}/result", token)
    return out


def test_the_experts_score_is_computed_once_in_the_background(db_url: str) -> None:
    clock = Clock()
    settings = make_settings(db_url, daily_secret=SECRET, daily_expert="easy")
    with TestClient(create_app(settings, now=clock)) as client:
        clean(client)
        _, token = new_player(client, "Ada")
        room = started(client, token)["room"]  # the expert starts playing the deal now
        final = play(client, room, token)
        first = _result(client, token)
        assert first["score"] == final["scores"][0]
        assert first["expert"]["name"] == "easy"
        daily = client.app.state.daily  # type: ignore[attr-defined]
        playing = daily._experts.get(("london", DAY))
        if playing is not None:  # wait for the expert's game (on its own thread) to end

            async def ended() -> None:
                await asyncio.wait([playing])

            client.portal.call(ended)  # type: ignore[union-attr]
        result = _result(client, token)
        seed = dd.daily_seed(SECRET.encode(), "london", DAY)
        assert result["expert"]["score"] == dd.bot_score("london", seed, "easy")
        assert result["bot"] == {"name": "medium", "score": dd.bot_score("london", seed)}
        assert daily._experts == {}  # kept, not played again
        assert _result(client, token)["expert"] == result["expert"]
        assert daily._experts == {}


def test_greedy_scores_stored_before_become_the_medium_levels(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = open_database(url)
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("metrogames.web.infra").joinpath("migrations"))
    )
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
        connection.execute(text(f"{INSERT} ('london', :d, 'greedy', 97)"), {"d": DAY})
    migrate(engine)
    with engine.begin() as connection:
        rows = connection.execute(text("SELECT game, day, bot, score FROM daily_bot_scores")).all()
        assert [tuple(r) for r in rows] == [("london", DAY, "medium", 97)]
        # a second bot on the same deal
        connection.execute(text(f"{INSERT} ('london', :d, 'expert', 150)"), {"d": DAY})
    engine.dispose()


def test_practice_starts_play_no_expert_and_results_start_few(db_url: str) -> None:
    # 20 practice starts of 20 past days start no expert game; results that need the figure
    # start at most EXPERTS_AT_ONCE at a time, one per deal
    from metrogames.web.daily.service import EXPERTS_AT_ONCE

    clock = Clock()
    settings = make_settings(db_url, daily_secret=SECRET, daily_expert="expert")
    with TestClient(create_app(settings, now=clock)) as client:
        clean(client)
        _, token = new_player(client, "Ada")
        days = [dd.shift(DAY, -d) for d in range(1, 21)]
        for day in days:
            started(client, token, day=day)
        daily = client.app.state.daily  # type: ignore[attr-defined]
        jobs = client.app.state.jobs  # type: ignore[attr-defined]
        assert daily._experts == {} and jobs.started["expert"] == 0

        async def ask() -> int:
            for day in days + days:  # asked twice for each deal
                daily.play_expert("london", day)
            await asyncio.sleep(0.5)
            return len(daily._experts)

        assert client.portal.call(ask) == EXPERTS_AT_ONCE  # type: ignore[union-attr]
        assert jobs.started["expert"] == EXPERTS_AT_ONCE
