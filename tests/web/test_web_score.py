"""``POST /api/score`` (``docs/web-api.md``, "Score sheets"): a paper game's sheet is scored as
``metrogames score --json`` scores the same file (the command is run), an illegal drawing is
refused with the engine's reason and message, malformed bodies are 400 ``bad-request`` (413 when
too large), the route is rate-limited, and no generated body makes the server fail."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrogames.web.app import create_app
from support import line3
from support.web import JSON, make_settings

LONDON = {
    "game": "london",
    "lines": {
        "blue": [["F8", "F5"], ["F5", "E4"], ["E4", "F4"], ["F4", "G3"], ["G3", "H4"],
                 ["H4", "J2"], ["J2", "J1"]],
        "pink": [], "purple": [], "green": [],
    },
    "circled": {"blue": "E4"},
    "objectives": ["thames-6"],
}  # fmt: skip
"""The example of ``docs/notation.md`` ("Score sheet"): 27 points."""
PARIS = {
    "game": "paris",
    "lines": {
        "orange": [["D3", "E4"], ["E4", "E5"]],
        "blue": [["H4", "G5"]],
        "green": [["C7", "D6"]],
    },
    "objectives": ["monuments-6", "districts-7"],
}
METRO = {
    "game": "metro",
    "player_count": 2,
    "placements": [
        {"square": "A1", "tile": "baac"},
        {"square": "B1", "tile": "aaaa"},
        {"square": "C1", "tile": "cbaa"},
    ],
    "options": {"one_tile_routes": "forbidden"},
}
CROSSING = {
    "game": "london",
    "lines": {"pink": [["H4", "G3"], ["G3", "G2"], ["G2", "E4"]], "green": [["D3", "G3"]]},
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app on SQLite (scoring stores nothing: one database is enough)."""
    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'web.db'}"))) as c:
        yield c


def cli_score(sheet: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``metrogames score --json`` run on ``sheet`` saved as a file."""
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(sheet), encoding="utf-8")
    command = [sys.executable, "-c", "from metrogames.cli.main import app; app()"]
    return subprocess.run(
        [*command, "score", str(path), "--json"],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def refused(r: Any, status: int, reason: str) -> str:
    assert r.status_code == status, r.text
    # an engine refusal names its item as data (docs/web-api.md, "Errors")
    engine = status == 400 and reason != "bad-request"
    expected = {"error", "reason", "item"} if engine else {"error", "reason"}
    assert set(r.json()) == expected, r.text
    assert r.json()["reason"] == reason, r.text
    message: str = r.json()["error"]
    return message


@pytest.mark.parametrize("sheet", [LONDON, PARIS, METRO], ids=["london", "paris", "metro"])
def test_a_legal_sheet_scores_as_the_command_does(
    client: TestClient, sheet: dict[str, Any], tmp_path: Path
) -> None:
    r = client.post("/api/score", json=sheet)
    assert r.status_code == 200, r.text
    ran = cli_score(sheet, tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert r.json() == json.loads(ran.stdout)


def test_the_documented_numbers(client: TestClient) -> None:
    london = client.post("/api/score", json=LONDON).json()
    assert london["total"] == 27
    assert london["lines"]["blue"] == {
        "districts": 6, "max_in_district": 4, "thames": 1, "circled": "E4", "score": 26,
    }  # fmt: skip
    assert london["objectives"] == {"thames-6": False, "points": 0}
    without = client.post("/api/score", json={**LONDON, "circled": {}}).json()
    assert without["total"] == 21
    metro = client.post("/api/score", json=METRO).json()
    assert metro == {
        "scores": [0, 3],
        "routes": [{"station": 6, "player": 1, "tiles": 3, "central": False, "points": 3}],
    }


def test_any_registered_game_is_scored_by_its_own_hook(client: TestClient) -> None:
    line3.register()  # the test-only game: nothing outside the tests knows it
    try:
        r = client.post("/api/score", json={"game": "line3"})
    finally:
        line3.unregister()
    assert r.status_code == 200 and r.json() == {"total": 0}, r.text
    gone = client.post("/api/score", json={"game": "line3"})
    assert "unknown game 'line3'" in refused(gone, 400, "bad-request")


def test_an_illegal_drawing_names_the_section_and_its_reason(
    client: TestClient, tmp_path: Path
) -> None:
    message = refused(client.post("/api/score", json=CROSSING), 400, "crosses-section")
    assert message == (
        "green line, section 1: section D3-G3 crosses the pink section E4-G2 (crosses-section)"
    )
    ran = cli_score(CROSSING, tmp_path)
    assert ran.returncode != 0 and message in ran.stderr
    circle = {**LONDON, "circled": {"pink": "H4"}}
    assert refused(client.post("/api/score", json=circle), 400, "circle-not-on-line") == (
        "pink line: circled station H4 is not on it (circle-not-on-line)"
    )


def test_an_illegal_metro_placement_names_it(client: TestClient) -> None:
    placements = [*METRO["placements"], {"square": "C1", "tile": "aaaa"}]  # type: ignore[list-item]
    message = refused(
        client.post("/api/score", json={**METRO, "placements": placements}), 400, "square-occupied"
    )
    assert message.startswith("turn 4: ") and "C1" in message
    far = {**METRO, "placements": [{"square": "C3", "tile": "aaaa"}]}
    assert refused(client.post("/api/score", json=far), 400, "not-adjacent").startswith("turn 1")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"", "game"),
        (b"[]", "a score sheet"),
        (b'{"lines": {}}', '"game" is missing'),
        (b'{"game": "chess"}', "unknown game 'chess'"),
        (b'{"game": 3}', "unknown game 3"),
        (b'{"game": "london", "lines": {"blue": [["F8", "Z9"]]}}', "unknown station 'Z9'"),
        (b'{"game": "london", "colour": "blue"}', "unknown key(s) in sheet: colour"),
        (b'{"game": "paris", "circled": {"blue": "H4"}}', "Paris has no circled stations"),
        (b'{"game": "metro", "player_count": 7, "placements": []}', "player_count"),
        (b'{"game": "metro", "player_count": 2, "placements": [{"square": "A1"}]}', "placement 1"),
        (b'{"format": "metrogames/1", "game": "london"}', "a game record, not a score sheet"),
        (b'{"game": "london", "lines": {"blue": NaN}}', "lines"),
        (b'{"game": "\\ud800"}', "valid text"),
        (b"not json", "not JSON"),
        (b"[" * 40 + b"]" * 40, "a score sheet"),
    ],
)
def test_malformed_sheets_are_bad_requests(client: TestClient, body: bytes, words: str) -> None:
    r = client.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    assert words in refused(r, 400, "bad-request")


def test_a_body_over_64_kib_is_too_large(client: TestClient) -> None:
    body = json.dumps({**LONDON, "objectives": ["x" * 70_000]})
    r = client.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    refused(r, 413, "too-large")


def test_scoring_is_rate_limited_per_address(tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'web.db'}", rate_scores="3/minute"))
    with TestClient(app) as c:
        assert (
            c.post("/api/score", content=b"{", headers=JSON).status_code == 400
        )  # not counted: its body
        answers = [c.post("/api/score", json=s).status_code for s in (LONDON, CROSSING, METRO)]
        assert answers == [200, 400, 200]  # an illegal drawing is counted
        r = c.post("/api/score", json=LONDON)
        assert "at most 3 per 1 minute" in refused(r, 429, "rate-limited")
        assert int(r.headers["Retry-After"]) >= 1


keys = st.sampled_from(["game", "lines", "circled", "objectives", "player_count", "placements",
                        "options", "blue", "pink", "square", "tile", "format", "\ud800"])  # fmt: skip
scalars = (
    st.none() | st.booleans() | st.integers(-3, 70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["london", "paris", "metro", "F8", "F5", "E4", "E5", "A1", "baac", "thames-6",
                       "blue", "orange", "forbidden", "Z9", "", "\u202e"])
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(keys, kids, max_size=4),
    max_leaves=16,
)
sheets = st.sampled_from([LONDON, PARIS, METRO, CROSSING]).flatmap(
    lambda base: st.dictionaries(keys, values, max_size=3).map(lambda extra: {**base, **extra})
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sheet=sheets | st.dictionaries(keys, values, max_size=5) | values)
def test_generated_sheets_never_break_the_server(client: TestClient, sheet: Any) -> None:
    body = json.dumps(sheet)  # a lone surrogate goes as its escape, as a browser may send it
    r = client.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        assert {"error", "reason"} <= set(r.json()) <= {"error", "reason", "item"}, r.text
        assert r.json()["error"], r.text
        assert ("item" in r.json()) == (r.json()["reason"] != "bad-request"), r.text
