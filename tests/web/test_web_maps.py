"""Custom maps on the web table (``docs/web-api.md``, "Maps"): ``POST /api/maps/check`` answers
what ``metrogames map check --json`` prints for the same file (the command is run), runs as a
``mapcheck`` heavy job kept by content, refuses bodies over 64 KiB and is rate-limited; a solo
room on a valid map is played to the end with its board served by ``GET
/api/rooms/{room}/board``, its record replays on the map (and not on London); an invalid map
never starts a room."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.web.app import create_app
from support.web import Player, create, make_settings, record

TINYTOWN = Path(__file__).parents[1] / "games" / "nextstation" / "maps" / "tinytown.json"


def tinytown() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TINYTOWN.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app on SQLite, rate-limited to 5 map checks a minute."""
    settings = make_settings(f"sqlite:///{tmp_path / 'web.db'}", rate_maps="5/minute")
    with TestClient(create_app(settings)) as c:
        yield c


def cli_check(data: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "map.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(cli, ["map", "check", str(path), "--json"])
    out: dict[str, Any] = json.loads(result.output)
    return out


def test_a_check_answers_what_the_command_prints(client: TestClient, tmp_path: Path) -> None:
    good = client.post("/api/maps/check", json=tinytown())
    assert good.status_code == 200, good.text
    assert good.json() == cli_check(tinytown(), tmp_path)
    assert good.json()["valid"] is True and good.json()["counts"]["links"] == 49
    broken = tinytown()
    del broken["departures"]["green"]
    bad = client.post("/api/maps/check", json=broken)
    assert bad.status_code == 200, bad.text
    assert bad.json()["valid"] is False
    assert "departures: colour green has no departure" in bad.json()["problems"]
    assert bad.json() == cli_check(broken, tmp_path)


def test_a_check_runs_as_a_heavy_job_kept_by_content(client: TestClient) -> None:
    jobs = client.app.state.jobs  # type: ignore[attr-defined]
    before = jobs.started["mapcheck"]
    for _ in range(2):
        assert client.post("/api/maps/check", json=tinytown()).json()["valid"]
    assert jobs.started["mapcheck"] == before + 1  # the second answered from the cache
    assert jobs.ran["mapcheck"] and os.getpid() not in jobs.ran["mapcheck"]  # off this process


def test_bad_bodies_are_refused(client: TestClient) -> None:
    big = tinytown()
    big["source"] = "x" * (65 * 1024)
    r = client.post("/api/maps/check", json=big)
    assert r.status_code == 413 and r.json()["reason"] == "too-large", r.text
    for body in ([1, 2], "a map", {"stations": {"a": [[[[]]]] * 3}, "grid": float("1e400")}):
        r = client.post(
            "/api/maps/check",
            content=json.dumps(body) if not isinstance(body, dict) else '{"grid": 1e400}',
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text


def test_a_check_speaks_the_request_s_language(client: TestClient) -> None:
    broken = tinytown()
    broken["links"].append(["A1", "E1"])  # through C1
    del broken["check_values"]["links"]
    jobs = client.app.state.jobs  # type: ignore[attr-defined]
    before = jobs.started["mapcheck"]
    expected = {
        "fr": "la liaison A1-E1 passe par la station C1",
        "nl": "verbinding A1-E1 loopt door station C1",
        "sk": "spojenie A1-E1 prechádza stanicou C1",
    }
    for lang, text in expected.items():
        client.cookies.set("lang", lang)
        r = client.post("/api/maps/check", json=broken)
        assert r.status_code == 200, r.text
        assert r.json()["problems"] == [text] and r.json()["codes"] == ["link-through-station"]
        assert r.json()["valid"] is False and r.json()["counts"]["links"] == 50
    client.cookies.set("lang", "xx")  # unknown: the header's language, as any answer
    r = client.post("/api/maps/check", json=broken, headers={"Accept-Language": "nl-BE"})
    assert r.json()["problems"] == [expected["nl"]]
    assert jobs.started["mapcheck"] == before + 1  # one job, its messages translated per request
    client.cookies.set("lang", "sk")
    room = client.post(
        "/api/rooms",
        json={"game": "nextstation", "mode": "solo", "seats": [{}], "options": {"map": broken}},
    )
    assert room.status_code == 400 and expected["sk"] in room.json()["error"], room.text
    assert "neplatná mapa" in room.json()["error"]


def test_a_report_on_an_invalid_map_is_refused_before_any_game(client: TestClient) -> None:
    jobs = client.app.state.jobs  # type: ignore[attr-defined]
    broken = tinytown()
    broken["links"].append(["A1", "E1"])  # through C1
    del broken["check_values"]["links"]
    client.cookies.set("lang", "fr")
    r = client.post("/api/maps/report", json=broken)
    assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text
    assert r.json()["error"] == (
        "le rapport d'un plan : plan invalide : la liaison A1-E1 passe par la station C1"
    )
    big = tinytown()
    big["source"] = "x" * (65 * 1024)
    assert client.post("/api/maps/report", json=big).status_code == 413
    bad = client.post("/api/maps/report", content="[1]", headers={"Content-Type": "application/json"})
    assert bad.status_code == 400
    assert jobs.started["mapreport"] == 0


def test_checks_are_rate_limited_per_address(client: TestClient) -> None:
    codes = [client.post("/api/maps/check", json=tinytown()).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]


def test_a_solo_game_on_a_map_plays_to_the_end_and_replays_on_it(
    client: TestClient, tmp_path: Path
) -> None:
    made = create(
        client, game="nextstation", mode="solo", seats=[{"name": "Designer"}],
        options={"map": tinytown()},
    )  # fmt: skip
    room = made["room"]["room"]
    board = client.get(f"/api/rooms/{room}/board")
    assert board.status_code == 200, board.text
    stations = {s["name"] for s in board.json()["stations"]}
    assert stations == {s["name"] for s in tinytown()["stations"]}
    assert len(board.json()["links"]) == 49
    final = Player(room, made["tokens"], seed=3).play_out(client)
    assert final["status"] == "finished"
    rec = record(client, room, made["tokens"]["0"])
    assert rec["game"] == "nextstation" and rec["map_hash"].startswith("sha256:")
    path, city = tmp_path / "record.json", tmp_path / "tinytown.json"
    path.write_text(json.dumps(rec))
    city.write_text(json.dumps(tinytown()))
    ok = CliRunner().invoke(cli, ["replay", str(path), "--map", str(city), "--json"])
    assert ok.exit_code == 0, ok.output
    replayed = json.loads(ok.output)
    assert replayed["valid"] and replayed["finished"] and replayed["scores"] == final["scores"]
    london = Path(__file__).parents[2] / "src" / "metrogames" / "data" / "london.json"
    other = CliRunner().invoke(cli, ["replay", str(path), "--map", str(london)])
    assert other.exit_code != 0 and "map hash mismatch" in other.output


def test_an_uploaded_record_of_a_custom_map_brings_its_board(
    client: TestClient, tmp_path: Path
) -> None:
    made = create(client, game="nextstation", mode="solo", seats=[{}], options={"map": tinytown()})
    room = made["room"]["room"]
    Player(room, made["tokens"], seed=2).play_out(client)
    rec = record(client, room, made["tokens"]["0"])
    uploaded = client.post("/api/replays", json=rec)
    assert uploaded.status_code == 200, uploaded.text
    assert uploaded.json()["board"] == client.get(f"/api/rooms/{room}/board").json()
    assert uploaded.json()["board"]["title"] == tinytown()["title"]
    london = create(client, game="london", mode="solo", seats=[{}])
    Player(london["room"]["room"], london["tokens"], seed=2).play_out(client)
    city = client.post("/api/replays", json=record(client, london["room"]["room"], london["tokens"]["0"]))
    assert city.status_code == 200 and "board" not in city.json()  # a listed game's: GET /api/games
    edited = copy.deepcopy(rec)
    edited["map"]["title"] = "Another town"  # the map no longer hashes to map_hash
    refused = client.post("/api/replays", json=edited)
    assert refused.status_code == 400 and "map hash mismatch" in refused.json()["error"]


def test_an_invalid_map_never_starts_a_room(client: TestClient) -> None:
    broken = copy.deepcopy(tinytown())
    broken["links"].append(["A1", "E1"])  # through C1
    r = client.post(
        "/api/rooms",
        json={"game": "nextstation", "mode": "solo", "seats": [{}], "options": {"map": broken}},
    )
    assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text
    assert "link A1-E1 passes through station C1" in r.json()["error"]
    none = client.post("/api/rooms", json={"game": "nextstation", "mode": "solo", "seats": [{}]})
    assert none.status_code == 400 and "a custom map is needed" in none.json()["error"]
    assert client.get("/api/rooms/zzzzzzzz/board").status_code == 404


def test_a_listed_game_s_room_board_is_its_game_s_board(client: TestClient) -> None:
    made = create(client, game="london", mode="solo", seats=[{}])
    room = made["room"]["room"]
    assert (
        client.get(f"/api/rooms/{room}/board").json()
        == client.get("/api/games/london/board").json()
    )


def test_a_room_on_a_map_is_checked_off_the_serving_process(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrogames.games.nextstation import mapcheck

    def never(data: object) -> object:
        raise AssertionError("the serving process ran the checker")

    monkeypatch.setattr(mapcheck, "check_map", never)
    fresh = tinytown()
    fresh["title"] = "Tinytown, checked in a job"  # a map this process has not seen
    made = create(client, game="nextstation", mode="solo", seats=[{}], options={"map": fresh})
    assert made["room"]["game"] == "nextstation"
    board = client.get(f"/api/rooms/{made['room']['room']}/board").json()
    assert board["title"] == "Tinytown, checked in a job"


def test_a_room_on_a_map_reloaded_after_a_restart_is_checked_in_a_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart: the room's map is forgotten by this process; the room is rebuilt from its
    rows with its map checked by the mapcheck job (a process of the pool), never by the
    serving process (the checker here refuses to run), and plays on."""
    import weakref
    from collections import OrderedDict

    from metrogames.games.nextstation import citymap, mapcheck

    settings = make_settings(f"sqlite:///{tmp_path / 'web.db'}")
    fresh = tinytown()
    fresh["title"] = "Tinytown, after a restart"
    with TestClient(create_app(settings)) as first:
        made = create(first, game="nextstation", mode="solo", seats=[{}], options={"map": fresh})
    room, token = made["room"]["room"], made["tokens"]["0"]
    monkeypatch.setattr(citymap, "_CUSTOM", OrderedDict())  # a new process: no map known
    monkeypatch.setattr(citymap, "_LIVE", weakref.WeakValueDictionary())

    def never(data: object) -> object:
        raise AssertionError("the serving process ran the checker")

    monkeypatch.setattr(mapcheck, "check_map", never)
    with TestClient(create_app(settings)) as second:
        jobs = second.app.state.jobs  # type: ignore[attr-defined]
        board = second.get(f"/api/rooms/{room}/board")
        assert board.status_code == 200, board.text
        assert board.json()["title"] == "Tinytown, after a restart"
        assert jobs.started["mapcheck"] == 1 and os.getpid() not in jobs.ran["mapcheck"]
        assert citymap.city_known(citymap.map_hash(fresh))
        final = Player(room, {"0": token}, seed=5).play_out(second)
        assert final["status"] == "finished"


def sign_up(client: TestClient, name: str) -> None:
    r = client.post("/api/accounts", json={"name": name, "password": "correct horse 42"})
    assert r.status_code in (200, 201), r.text


def test_an_account_saves_a_valid_map_by_its_content_hash(client: TestClient) -> None:
    signed_out = client.post("/api/maps", json=tinytown())
    assert signed_out.status_code == 401 and signed_out.json()["reason"] == "bad-session"
    sign_up(client, "Designer")
    data = tinytown()
    data["title"] = "<b>Tiny</b> & co"  # kept as text: the client shows it escaped
    saved = client.post("/api/maps", json=data)
    assert saved.status_code == 201, saved.text
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert saved.json()["hash"] == digest and saved.json()["title"] == "<b>Tiny</b> & co"
    assert saved.json()["hash"] == client.post("/api/maps/check", json=data).json()["hash"]
    again = client.post("/api/maps", json=json.loads(json.dumps(data, indent=3)))
    assert again.status_code == 201 and again.json()["hash"] == digest  # the same map, once
    listed = client.get("/api/maps").json()["maps"]
    assert [m["hash"] for m in listed] == [digest]
    stored = client.get(f"/api/maps/{digest}")
    assert stored.status_code == 200 and stored.text == text  # exactly the canonical text
    assert json.loads(stored.text) == data
    assert client.get("/api/maps/sha256:" + "0" * 64).status_code == 404
    assert client.get("/api/maps/..%2Fetc").status_code == 404


def test_an_invalid_map_is_never_stored(client: TestClient) -> None:
    sign_up(client, "Breaker")
    broken = tinytown()
    broken["links"].append(["A1", "E1"])
    r = client.post("/api/maps", json=broken)
    assert r.status_code == 400 and "passes through station C1" in r.json()["error"], r.text
    big = tinytown()
    big["source"] = "x" * (65 * 1024)
    assert client.post("/api/maps", json=big).status_code == 413
    assert client.get("/api/maps").json() == {"maps": []}


def test_a_stored_map_opens_an_online_room(client: TestClient) -> None:
    sign_up(client, "Host")
    digest = client.post("/api/maps", json=tinytown()).json()["hash"]
    data = json.loads(client.get(f"/api/maps/{digest}").text)
    made = create(
        client, game="nextstation", mode="online", seats=[{"name": "Host"}, {}],
        options={"map": data},
    )  # fmt: skip
    assert made["room"]["status"] == "waiting"
    board = client.get(f"/api/rooms/{made['room']['room']}/board").json()
    assert board["title"] == tinytown()["title"]


def test_an_account_keeps_a_bounded_number_of_maps(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrogames.web.accounts import maps

    monkeypatch.setattr(maps, "MAX_SAVED", 2)
    sign_up(client, "Collector")
    for i in range(2):
        data = {**tinytown(), "title": f"Tinytown {i}"}
        assert client.post("/api/maps", json=data).status_code == 201
    third = client.post("/api/maps", json={**tinytown(), "title": "Tinytown 2"})
    assert third.status_code == 409 and third.json()["reason"] == "too-many-maps", third.text
    assert "at most 2 maps" in third.json()["error"]
    assert len(client.get("/api/maps").json()["maps"]) == 2
