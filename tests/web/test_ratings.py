"""Ratings of online play (docs/web-api.md, "Ratings"): seats tied to accounts in the lobby,
ratings updated when an online game with two humans or more finishes (OpenSkill's
Plackett–Luce, bots at fixed ratings, anonymous humans at the prior), shown in the lobby and
on the profile, and recomputed from the stored games by `metrogames ratings recompute` —
on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from sqlalchemy import func, select, update
from typer.testing import CliRunner

from metrogames.cli.main import app as cli
from metrogames.web.infra.models import RatedGameRow, RatingRow
from metrogames.web.ratings import service as ratings
from support.daily import PASSWORD, Clock, daily_client, new_account, refused
from support.web import JSON, Player, auth

RANDOM_BOT = (15.0, 1.0)


def online(
    browser: TestClient,
    seats: list[dict[str, Any]],
    game: str = "london",
    options: dict[str, Any] | None = None,
) -> Any:
    body = {"game": game, "mode": "online", "seats": seats, "options": options or {}}
    r = browser.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def link(browser: TestClient, room: str, seat: int, token: str) -> Any:
    return browser.post(f"/api/rooms/{room}/seats/{seat}/account", headers=auth(token) | JSON)


def join(browser: TestClient, room: str, seat: int, name: str) -> str:
    r = browser.post(f"/api/rooms/{room}/join", json={"seat": seat, "name": name})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def play_out(client: TestClient, room: str, host: str, tokens: dict[str, str], seed: int) -> Any:
    assert client.post(f"/api/rooms/{room}/start", headers=auth(host) | JSON).status_code == 200
    return Player(room, tokens, seed).play_out(client)


def expected(teams: list[tuple[float, float]], final: dict[str, Any]) -> list[Any]:
    """The model's update, computed here from the final view: ranks by (winner, score)."""
    model = PlackettLuce()
    keys = [(seat in final["winners"], score) for seat, score in enumerate(final["scores"])]
    ranks = [sum(other > key for other in keys) for key in keys]
    rated = model.rate([[model.rating(mu=m, sigma=s)] for m, s in teams], ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


def recompute(db_url: str, *args: str) -> Any:
    return CliRunner().invoke(cli, ["ratings", "recompute", "--db", db_url, *args])


def test_online_games_rate_accounts_and_recompute_to_the_same_numbers(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        ada, ada_made = new_account(client, "Ada")
        bob, _ = new_account(client, "Bob")
        made = online(ada, [{"name": "Ada"}, {}, {"bot": "random"}])
        room, host, t0 = made["room"]["room"], made["host_token"], made["tokens"]["0"]
        refused(link(client, room, 0, t0), 401, "bad-session")  # not signed in
        t1 = join(bob, room, 1, "Bob")
        r = link(bob, room, 0, t1)  # not that seat's token; seats named 1-based as on the page
        refused(r, 403, "bad-token")
        assert r.json()["error"] == "this token does not hold seat 1"
        assert link(ada, room, 0, t0).status_code == 200
        lobby = link(bob, room, 1, t1).json()
        assert [(s["name"], s["rating"]) for s in lobby["seats"][:2]] == [
            ("Ada", None),
            ("Bob", None),
        ]
        assert lobby["seats"][2]["rating"]["mu"] == 15.0  # the random bot's fixed rating
        r = link(ada, room, 1, t1)  # Ada holds seat 0 (the page's "Seat 1") already
        refused(r, 409, "seat-taken")
        assert r.json()["error"] == "this account holds seat 1 of this room"
        final = play_out(client, room, host, {"0": t0, "1": t1}, 3)
        after = client.get(f"/api/rooms/{room}/ratings").json()["seats"]
        prior = (25.0, 25 / 3)
        want = expected([prior, prior, RANDOM_BOT], final)
        for seat in (0, 1):
            got = after[seat]["rating"]
            assert (got["mu"], got["sigma"]) == want[seat] and got["games"] == 1
            assert got["rating"] == round(got["mu"] - 3 * got["sigma"], 1)
        refused(link(ada, room, 0, t0), 409, "already-started")
        # a second game, two players: another rating (the player count is part of its key)
        made2 = online(ada, [{"name": "Ada"}, {}])
        room2, t0b = made2["room"]["room"], made2["tokens"]["0"]
        assert link(ada, room2, 0, t0b).status_code == 200
        t1b = join(bob, room2, 1, "Bob")
        assert link(bob, room2, 1, t1b).status_code == 200
        final2 = play_out(client, room2, made2["host_token"], {"0": t0b, "1": t1b}, 4)
        two = client.get(f"/api/rooms/{room2}/ratings").json()["seats"]
        want2 = expected([prior, prior], final2)
        for seat in (0, 1):
            assert (two[seat]["rating"]["mu"], two[seat]["rating"]["sigma"]) == want2[seat]
        # the profile lists the ratings and the games (newest first), each replayable
        profile = client.get(f"/api/accounts/{ada_made['account']}/profile").json()
        assert {(r["game"], r["players"], r["games"]) for r in profile["ratings"]} == {
            ("london", 3, 1),
            ("london", 2, 1),
        }
        assert [(g["room"], g["players"], g["rated"]) for g in profile["games"]] == [
            (room2, 2, True),
            (room, 3, True),
        ]
        assert client.get(f"/api/rooms/{room}/replay").status_code == 200
        # recomputed from the stored games: the same numbers
        ok = recompute(db_url)
        assert ok.exit_code == 0, ok.output
        assert "2 rated games replayed, 4 ratings recomputed: they match" in ok.output
        facts = json.loads(recompute(db_url, "--json").output)
        assert facts == {"games": 2, "ratings": 4, "differences": []}
        nowhere = recompute("nosuchdb://nowhere")
        assert nowhere.exit_code == 1 and "cannot open the database" in nowhere.output
        with client.app.state.rooms.sessions.begin() as session:  # type: ignore[attr-defined]
            assert session.scalar(select(func.count()).select_from(RatedGameRow)) == 2
            session.execute(
                update(RatingRow)
                .where(RatingRow.players == 2, RatingRow.account_id == ada_made["account"])
                .values(mu=99.0)
            )
        bad = recompute(db_url)
        assert bad.exit_code == 1 and "1 differ from the stored ratings" in bad.output
        assert "london 2 players" in bad.output
        assert recompute(db_url, "--write").exit_code == 0
        assert recompute(db_url).exit_code == 0
        fixed = client.get(f"/api/rooms/{room2}/ratings").json()["seats"][0]["rating"]
        assert fixed["mu"] == two[0]["rating"]["mu"]


def test_games_that_are_not_rated(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        ada, _ = new_account(client, "Ada")
        # one human and a bot: not rated, however the account tied its seat
        made = online(ada, [{"name": "Ada"}, {"bot": "random"}])
        room, t0 = made["room"]["room"], made["tokens"]["0"]
        assert link(ada, room, 0, t0).status_code == 200
        play_out(client, room, made["host_token"], {"0": t0}, 1)
        # a hot-seat game: its seats cannot be tied to an account
        hot = ada.post(
            "/api/rooms",
            json={"game": "london", "mode": "hotseat", "seats": [{"name": "A"}, {"name": "B"}]},
        ).json()
        refused(link(ada, hot["room"]["room"], 0, hot["tokens"]["0"]), 400, "bad-request")
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            assert session.scalar(select(func.count()).select_from(RatingRow)) == 0
            assert session.scalar(select(func.count()).select_from(RatedGameRow)) == 0
        assert client.get(f"/api/rooms/{room}/ratings").json()["seats"][0]["rating"] is None
        assert recompute(db_url).exit_code == 0


def _rated_games(client: TestClient) -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(RatedGameRow)) or 0)


def test_one_person_holding_two_seats_rates_nothing(db_url: str) -> None:
    """Fault 9's input: one person ties seat 0 to an account, joins seat 1 as an anonymous
    player and passes — the rating went 0 to 15.0 in 6 games. Only games between distinct
    accounts (and bots) change ratings; seats claimed from one address or one session in a
    game do not rate each other."""
    with daily_client(db_url, Clock()) as client:
        ada, made_ada = new_account(client, "Ada")
        bob, _ = new_account(client, "Bob")

        def game(host: TestClient, other: TestClient, tie_other: bool, passing: bool) -> None:
            made = online(host, [{"name": "Ada"}, {}])
            room, t0 = made["room"]["room"], made["tokens"]["0"]
            assert link(host, room, 0, t0).status_code == 200
            t1 = join(other, room, 1, "Sock")
            if tie_other:
                assert link(other, room, 1, t1).status_code == 200
            r = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
            assert r.status_code == 200, r.text
            Player(room, {"0": t0, "1": t1}, 9, passing=passing).play_out(client)

        # the farm: seat 1 joined anonymously from Ada's own browser (same address, session)
        for _ in range(3):
            game(ada, ada, tie_other=False, passing=True)
        # an anonymous seat from another address: not rated either (not an account)
        stranger = TestClient(client.app, client=("192.0.2.7", 50000))
        game(ada, stranger, tie_other=False, passing=True)
        # two accounts, but both seats claimed from one browser (Bob signed in there later)
        shared = TestClient(client.app, client=("192.0.2.8", 50000))
        assert shared.post("/api/sessions", json={"name": "Bob", "password": PASSWORD}).is_success
        made = online(ada, [{"name": "Ada"}, {}, {}])
        room, t0 = made["room"]["room"], made["tokens"]["0"]
        assert link(ada, room, 0, t0).status_code == 200
        t1 = join(shared, room, 1, "Bob")
        assert link(shared, room, 1, t1).status_code == 200
        t2 = join(shared, room, 2, "Bob again")  # the same browser's other seat
        r = client.post(f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON)
        assert r.status_code == 200, r.text
        Player(room, {"0": t0, "1": t1, "2": t2}, 2).play_out(client)
        assert _rated_games(client) == 0
        profile = client.get(f"/api/accounts/{made_ada['account']}/profile").json()
        assert profile["ratings"] == []
        # Ada and Bob, each from their own browser: rated
        game(ada, bob, tie_other=True, passing=False)
        assert _rated_games(client) == 1
        assert recompute(db_url).exit_code == 0


def test_a_rating_that_cannot_be_stored_leaves_the_game_unfinished(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with daily_client(db_url, Clock()) as client:
        ada, _ = new_account(client, "Ada")
        bob, _ = new_account(client, "Bob")
        made = online(ada, [{"name": "Ada"}, {}])
        room, t0 = made["room"]["room"], made["tokens"]["0"]
        t1 = join(bob, room, 1, "Bob")
        assert link(ada, room, 0, t0).status_code == 200
        assert link(bob, room, 1, t1).status_code == 200
        assert client.post(
            f"/api/rooms/{room}/start", headers=auth(made["host_token"]) | JSON
        ).is_success

        def broken(*_args: Any) -> None:
            raise RuntimeError("injected: the rating failed")

        monkeypatch.setattr(ratings, "finished", broken)
        quiet = TestClient(client.app, raise_server_exceptions=False)
        players = Player(room, {"0": t0, "1": t1}, 5)
        with pytest.raises(AssertionError, match="server-error"):
            for _ in range(2000):
                for seat in ("0", "1"):
                    players.act(quiet, seat)
        # the last action and the rating are one transaction: neither is stored
        assert client.get(f"/api/rooms/{room}").json()["status"] == "playing"
        with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
            assert session.scalar(select(func.count()).select_from(RatingRow)) == 0
            assert session.scalar(select(func.count()).select_from(RatedGameRow)) == 0
        monkeypatch.undo()
        final = players.play_out(client)
        after = client.get(f"/api/rooms/{room}/ratings").json()["seats"]
        want = expected([(25.0, 25 / 3)] * 2, final)
        assert [(s["rating"]["mu"], s["rating"]["sigma"]) for s in after] == want


def test_games_on_custom_maps_share_one_rating_of_their_own(db_url: str) -> None:
    """Every custom map is rated in one pool: the game ``nextstation`` and the player count —
    a game on another map moves the same rating, and London's is another (docs/web-api.md,
    "Ratings")."""
    tiny = json.loads(
        (Path(__file__).parents[1] / "games" / "nextstation" / "maps" / "tinytown.json").read_text()
    )
    prior = (25.0, 25 / 3)
    with daily_client(db_url, Clock()) as client:
        ada, ada_made = new_account(client, "Ada")
        bob, _ = new_account(client, "Bob")
        teams = [prior, prior]
        for title, seed in (("Tinytown", 3), ("Tinytown, redrawn", 4)):  # two maps, two hashes
            options = {"map": {**tiny, "title": title}}
            made = online(ada, [{"name": "Ada"}, {}], game="nextstation", options=options)
            room, t0 = made["room"]["room"], made["tokens"]["0"]
            assert link(ada, room, 0, t0).status_code == 200
            t1 = join(bob, room, 1, "Bob")
            assert link(bob, room, 1, t1).status_code == 200
            final = play_out(client, room, made["host_token"], {"0": t0, "1": t1}, seed)
            after = client.get(f"/api/rooms/{room}/ratings").json()
            assert after["game"] == "nextstation" and after["players"] == 2
            want = expected(teams, final)  # from the rating the other map's game left
            got = [(s["rating"]["mu"], s["rating"]["sigma"]) for s in after["seats"]]
            assert got == want
            teams = got
        london = online(ada, [{"name": "Ada"}, {}])
        room, t0 = london["room"]["room"], london["tokens"]["0"]
        assert link(ada, room, 0, t0).status_code == 200
        t1 = join(bob, room, 1, "Bob")
        assert link(bob, room, 1, t1).status_code == 200
        final = play_out(client, room, london["host_token"], {"0": t0, "1": t1}, 5)
        seats = client.get(f"/api/rooms/{room}/ratings").json()["seats"]
        assert [(s["rating"]["mu"], s["rating"]["sigma"]) for s in seats] == expected(
            [prior, prior], final
        )  # London's rating starts afresh: the custom maps' is not London's
        profile = client.get(f"/api/accounts/{ada_made['account']}/profile").json()
        assert {(r["game"], r["players"], r["games"]) for r in profile["ratings"]} == {
            ("nextstation", 2, 2),
            ("london", 2, 1),
        }
        ok = recompute(db_url)
        assert ok.exit_code == 0, ok.output
