"""The guided first games' fixed deals (docs/web-api.md, "Rooms": ``"tutorial": true``) and the
rules pages the client shows (``static/rules/``, made from docs/ by scripts/build_rules.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from metrogames.core.protocol import CHANCE
from metrogames.games import game_names, game_type, load_game
from metrogames.web.app import static_dir
from support.web import act, auth, create, view

ROOT = Path(__file__).resolve().parents[2]
SOLO = [{"name": "Ada"}]


def tutorial(client: TestClient, game: str = "london", **body: Any) -> dict[str, Any]:
    body.setdefault("mode", "bots" if game == "metro" else "solo")
    body.setdefault("seats", SOLO + ([{"bot": "easy"}] if game == "metro" else []))
    return create(client, game=game, tutorial=True, **body)


def seed_of(game: str) -> int:
    """The seed of ``game``'s guided first game, as the game states it (``GameType.tutorial``)."""
    tutorial = game_type(game).tutorial
    assert tutorial is not None, game
    return tutorial.seed


def refusal(client: TestClient, **body: Any) -> str:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["reason"] == "bad-request"
    return str(r.json()["error"])


@pytest.mark.parametrize("game", ["london", "paris"])
def test_next_station_tutorial_rooms_are_dealt_the_fixed_deal(
    client: TestClient, game: str
) -> None:
    deck = load_game(game, players=1).deal_record(seed_of(game))
    first = deck["rounds"][0]["deck"][0]
    colour = deck["options"]["colour_cycle"][0]
    views = []
    for _ in range(2):
        made = tutorial(client, game)
        v = view(client, made["room"]["room"], made["tokens"]["0"])
        views.append((v["card"], v["players"][0]["colour"], v["legal"]))
    assert views[0] == views[1]
    assert views[0][:2] == (first, colour)
    # the client's London steps are written for this deal: a pentagon, the green pencil
    if game == "london":
        assert views[0][:2] == ("street-pentagon", "green")
        assert {"sections": [["D3", "D7"]]} in views[0][2]


def test_a_finished_tutorial_record_shows_the_fixed_seed(client: TestClient) -> None:
    made = tutorial(client)
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    while v["status"] != "finished":
        r = act(client, room, token, "pass", v["step"])
        assert r.status_code == 200, r.text
        v = r.json()
    record = client.get(f"/api/rooms/{room}/record").json()
    assert record["seed"] == seed_of("london")


def guide(game: str) -> list[dict[str, Any]]:
    data = json.loads((static_dir() / "tutorials.json").read_text(encoding="utf-8"))
    return list(data[game]["steps"])


def my_turn(client: TestClient, room: str, token: str) -> dict[str, Any]:
    """The seat's view once it is to move (the bot of a Metro tutorial plays in between)."""
    for _ in range(200):
        v = view(client, room, token)
        if 0 in v["to_move"] or v["status"] == "finished":
            return v
    raise AssertionError("seat 0 never got the move")


@pytest.mark.parametrize("game", ["london", "paris", "metro"])
def test_every_scripted_move_of_the_guide_is_legal_on_the_fixed_deal(
    client: TestClient, game: str
) -> None:
    made = tutorial(client, game)
    room, token = made["room"]["room"], made["tokens"]["0"]
    steps = guide(game)
    assert steps[-1].get("final") and not any(s.get("final") for s in steps[:-1])
    scripted = 0
    for step in steps:
        if "move" in step or "square" in step:
            v = my_turn(client, room, token)
            if "move" in step:
                action: Any = {"sections": step["move"]}
            else:
                action = {"square": step["square"], "tile": v["drawn"]}
            assert action in v["legal"], (step["text"], v["legal"])
            for name in step.get("mark", []):  # the ringed places are the move's own
                assert name in json.dumps(action), (name, action)
            r = act(client, room, token, action, v["step"])
            assert r.status_code == 200, r.text
            scripted += 1
        elif step.get("refused"):
            raise AssertionError("a refusal is shown with the move that avoids it")
        elif any(k in step for k in ("play", "round", "final")):
            break  # free play from here
    assert scripted == {"london": 4, "paris": 4, "metro": 2}[game]


def test_the_crossing_step_shows_a_station_the_deal_refuses(client: TestClient) -> None:
    made = tutorial(client)
    room, token = made["room"]["room"], made["tokens"]["0"]
    steps = guide("london")
    crossing = next(s for s in steps if s.get("refused"))
    for step in steps[: steps.index(crossing)]:
        if "move" in step:
            v = view(client, room, token)
            assert (
                act(client, room, token, {"sections": step["move"]}, v["step"]).status_code == 200
            )
    v = view(client, room, token)
    assert v["card"] == "underground-triangle"
    assert crossing["refused"] == ["E4"]  # a triangle next to the end C4, behind D3-D7
    assert "E4" not in v["targets"]["C4"] and "B5" in v["targets"]["C4"]


def test_the_guides_cover_the_games_with_a_tutorial_deal() -> None:
    data = json.loads((static_dir() / "tutorials.json").read_text(encoding="utf-8"))
    assert sorted(k for k in data if k != "about") == sorted(
        name for name in game_names() if game_type(name).tutorial is not None
    )


def test_metro_tutorial_plays_against_a_bot_on_the_fixed_tiles(client: TestClient) -> None:
    drawn = []
    for _ in range(2):
        made = tutorial(client, "metro")
        room, token = made["room"]["room"], made["tokens"]["0"]
        v = view(client, room, token)
        r = act(client, room, token, {"square": "D1", "tile": v["drawn"]}, v["step"])
        assert r.status_code == 200, r.text
        drawn.append((v["drawn"], view(client, room, token)["drawn"]))
    assert drawn[0] == drawn[1]
    assert drawn[0][0] == "aacb"  # the tile the client's Metro steps place on D1


def test_ordinary_rooms_are_not_dealt_the_tutorial_seed(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=SOLO)
    table = client.app.state.rooms.tables[made["room"]["room"]]  # type: ignore[attr-defined]
    assert table.seed != seed_of("london")


def test_tutorial_rooms_cannot_pick_a_seed_or_change_the_deal(client: TestClient) -> None:
    base = {"game": "london", "mode": "solo", "seats": SOLO}
    assert "seed" in refusal(client, **base, seed=5)  # no key names a seed
    assert "seed" in refusal(client, **base, tutorial=True, seed=5)
    assert "tutorial" in refusal(client, **base, tutorial=1)  # strictly a boolean
    assert "tutorial" in refusal(client, **base, tutorial="daily")
    assert refusal(client, **base, tutorial=True, options={"powers": "random"}) == (
        "a room: tutorial: a tutorial room takes no options"
    )
    assert refusal(client, **base, tutorial=True, turn_clock=60) == (
        "a room: tutorial: a tutorial room has no turn clock"
    )
    hotseat = {**base, "mode": "hotseat", "seats": [{"name": "Ada"}, {"name": "Bob"}]}
    assert refusal(client, **hotseat, tutorial=True) == (
        "a room: tutorial: a tutorial room is a solo (or bots) room"
    )
    bot_first = {**base, "mode": "bots", "seats": [{"bot": "easy"}, {"name": "Ada"}]}
    assert refusal(client, **bot_first, tutorial=True) == (
        "a room: tutorial: a tutorial room has one human seat, seat 0"
    )
    assert client.get("/api/rooms/nosuchro").status_code == 404


def test_rules_pages_are_the_documents_rendered() -> None:
    spec = importlib.util.spec_from_file_location(
        "build_rules", ROOT / "scripts" / "build_rules.py"
    )
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for game in ("london", "paris", "metro"):
        for lang in ("en", "fr", "nl", "sk"):
            shipped = build.page(game, lang).read_text(encoding="utf-8")
            assert shipped == build.render(game, lang), f"run scripts/build_rules.py ({game})"
            assert "<h1>" in shipped and "<script" not in shipped
    assert build.LANGS == ("fr", "nl", "sk")
    assert sorted(p.name for p in (static_dir() / "rules").iterdir()) == sorted(
        [f"{game}{'' if lang == 'en' else '.' + lang}.html"
         for game in ("london", "paris", "metro")
         for lang in ("en", "fr", "nl", "sk")] + ["diagrams"]
    )  # no stale page of a removed document (the diagrams: tests/web/test_rules_diagrams.py)
    london = (static_dir() / "rules" / "london.html").read_text(encoding="utf-8")
    assert (
        "<h1>Next Station: London" in london
        and "<td>at least 6 sections crossing the Thames</td>" in london
    )


def test_rules_pages_are_served(client: TestClient) -> None:
    r = client.get("/rules/metro.html")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>Metro" in r.text
    for path, words in [("/rules/london.fr.html", "la Tamise"), ("/tutorials.sk.json", "Temžu")]:
        r = client.get(path)  # the translations the client asks for, served as they are
        assert r.status_code == 200 and words in r.text, path


def test_metro_tutorial_bot_opens_as_the_steps_tell_it(client: TestClient) -> None:
    """The third step scores a route across the bot's first tile: the tutorial bot's opening
    is scripted (B1), so B2 then scores 3 for the player, as the step's text says."""
    made = tutorial(client, "metro")
    room, token = made["room"]["room"], made["tokens"]["0"]
    v = view(client, room, token)
    assert act(client, room, token, {"square": "D1", "tile": v["drawn"]}, v["step"]).is_success
    v = my_turn(client, room, token)
    moves = client.get(f"/api/rooms/{room}/moves", headers=auth(token)).json()["moves"]
    assert [m["move"] for m in moves if m["player"] == 1] == ["adad B1"]
    assert act(client, room, token, {"square": "B2", "tile": v["drawn"]}, v["step"]).is_success
    # the position right after B2 (the bot has played on since), replayed by the engine
    moves = client.get(f"/api/rooms/{room}/moves", headers=auth(token)).json()["moves"]
    state = load_game("metro", players=2).new_game(seed_of("metro"))
    for m in moves[:6]:
        player = CHANCE if m["player"] is None else m["player"]
        state.apply_in_place(player, state.string_to_action(player, m["move"]))
    assert moves[5]["move"].endswith("B2") and state.scores()[0] == 3  # a route of 3 tiles
