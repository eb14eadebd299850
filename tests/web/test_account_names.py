"""Account names (docs/web-api.md, "Accounts"): PRECIS UsernameCaseMapped (RFC 8265) and
confusable skeletons (UTS #39). Issue 21 item 8: every lookalike of ``Ada48249`` from the
attacker's list is refused or taken, at sign-up and at rename; display names refuse invisible
characters; the migration fills the skeletons of existing accounts and leaves younger
lookalikes without one."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from metrogames.web.accounts.names import skeleton_digest
from metrogames.web.app import create_app
from metrogames.web.infra.db import open_database
from metrogames.web.infra.models import AccountRow
from support.daily import Clock, daily_client, refused
from support.web import make_settings

PASSWORD = "correct horse battery"
ADA = "Ada48249"
INVISIBLE = {
    "U+200B": "Ada\u200b48249",  # zero width space
    "U+200D": "Ada\u200d48249",  # zero width joiner
    "U+2060": "Ada\u206048249",  # word joiner
    "U+00AD": "Ada\u00ad48249",  # soft hyphen
    "U+034F": "Ada\u034f48249",  # combining grapheme joiner
    "U+FE0F": "Ada\ufe0f48249",  # variation selector 16
    "U+E0041": "Ada\U000e004148249",  # tag latin capital letter a
}
"""Refused, the message naming the invisible code point (derived from the input's own code
point: the name's fourth character)."""
LOOKALIKES = [
    "Ada\u030748249",  # a combining dot above: composes into ȧ
    "\u0410da48249",  # Cyrillic capital А
    "\u0391da48249",  # Greek capital Α
    "ADA48249",  # another case
    "\uff21da48249",  # fullwidth Ａ: width-mapped to A
]
"""Valid names whose skeleton is Ada48249's: taken."""


def sign_up(client: TestClient, name: str) -> Any:
    return client.post("/api/accounts", json={"name": name, "password": PASSWORD})


def accounts(client: TestClient) -> int:
    with client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(AccountRow)) or 0)


def test_the_attackers_list_is_refused_or_taken(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        assert sign_up(client, ADA).status_code == 201
        client.cookies.clear()
        for code, name in INVISIBLE.items():
            assert code == f"U+{ord(name[3]):04X}"
            r = sign_up(client, name)
            refused(r, 400, "bad-request")
            assert f"invisible character {code}" in r.json()["error"], r.json()
        r = sign_up(client, "Ada\u00a048249")  # an inner no-break space
        refused(r, 400, "bad-request")
        assert "single spaces (U+0020), not U+00A0" in r.json()["error"]
        for name in LOOKALIKES:
            r = sign_up(client, name)
            refused(r, 409, "name-taken")
            assert "looks the same" in r.json()["error"]
        assert accounts(client) == 1 and "set-cookie" not in r.headers
        # renaming another account to any of them: the same refusals, nothing changed
        assert sign_up(client, "Bea").status_code == 201
        for name in INVISIBLE.values():
            refused(client.patch("/api/accounts/me", json={"name": name}), 400, "bad-request")
        for name in LOOKALIKES:
            refused(client.patch("/api/accounts/me", json={"name": name}), 409, "name-taken")
        assert client.get("/api/accounts/me").json()["name"] == "Bea"
        # an account may change the case or accents of its own name
        r = client.patch("/api/accounts/me", json={"name": "BÉA"})
        assert r.status_code == 200 and r.json()["name"] == "BÉA"


def test_names_of_several_words_and_what_precis_maps(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        r = sign_up(client, "  Ada Lovelace ")
        assert r.status_code == 201 and r.json()["name"] == "Ada Lovelace"
        for bad, words in (
            ("Ada  Lovelace", "single spaces"),
            ("Ada\tLovelace", "U+0009"),
            ("Ada \u2003Lovelace", "U+2003"),
            ("Ada \U0001f469", "U+1F469"),  # an emoji: a symbol
            ("\u2160da", "U+2160"),  # Roman numeral one: a compatibility form
            ("abc\u05d0", "Bidi Rule"),
            ("bot:ada", "bots'"),
            ("x" * 65, "1 to 64"),
            ("e\u0301" * 40, "1 to 64"),  # 80 characters given, 40 once composed: allowed...
        ):
            r = sign_up(client, bad)
            if bad.startswith("e\u0301"):
                assert r.status_code == 201 and r.json()["name"] == "\u00e9" * 40, r.text
                continue
            refused_with(r, words)
        r = client.patch("/api/accounts/me", json={"name": "\uff21\uff44\uff41 Byron"})
        assert r.status_code == 200 and r.json()["name"] == "Ada Byron"  # width-mapped


def refused_with(r: Any, words: str) -> None:
    assert r.status_code == 400 and r.json()["reason"] == "bad-request", r.text
    assert words in r.json()["error"], r.json()


def test_refusals_name_the_rule_in_the_clients_language(db_url: str) -> None:
    with daily_client(db_url, Clock()) as client:
        r = client.post(
            "/api/accounts",
            json={"name": "Ada\u200b", "password": PASSWORD},
            headers={"Accept-Language": "fr"},
        )
        assert r.status_code == 400
        assert "U+200B" in r.json()["error"] and "invisible" in r.json()["error"]
        assert "cannot" not in r.json()["error"], r.json()
        assert sign_up(client, "Ada").status_code == 201
        r = client.post(
            "/api/accounts",
            json={"name": "\u0410da", "password": PASSWORD},
            headers={"Cookie": "lang=nl"},
        )
        assert r.status_code == 409 and "taken" not in r.json()["error"], r.json()


def test_display_names_refuse_invisible_characters_but_an_emojis(client: TestClient) -> None:
    for code, name in INVISIBLE.items():
        r = client.post("/api/players", json={"name": name})
        refused(r, 400, "bad-request")
        assert f"invisible character {code}" in r.json()["error"], r.json()
        r = client.post(
            "/api/rooms", json={"game": "london", "mode": "solo", "seats": [{"name": name}]}
        )
        refused(r, 400, "bad-request")
    for emoji in (
        "Ada \U0001f469\u200d\U0001f4bb",
        "\u2764\ufe0f",
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    ):
        r = client.post("/api/players", json={"name": emoji})
        assert r.status_code == 201 and r.json()["name"] == emoji, r.text
    for half in ("a\u200d\U0001f4bb", "\U0001f3f4\U000e0067", "x\ufe0f"):
        refused(client.post("/api/players", json={"name": half}), 400, "bad-request")


def test_the_skeleton_index_is_unique_in_the_database(db_url: str) -> None:
    """The check is atomic: two lookalike sign-ups cannot both be stored, whatever they read
    before writing."""
    with daily_client(db_url, Clock()) as client:
        assert sign_up(client, ADA).status_code == 201
        sessions = client.app.state.rooms.sessions  # type: ignore[attr-defined]
        with sessions() as session:
            row = session.scalars(select(AccountRow)).one()
            assert row.name_skeleton == skeleton_digest("\u0391DA48249")
            player_id = row.player_id
        with pytest.raises(IntegrityError), sessions.begin() as session:
            session.add(
                AccountRow(
                    id="aaaaaaaaaa",
                    name="\u0410da48249",
                    name_key="\u0430da48249",  # another key: only the skeleton collides
                    name_skeleton=skeleton_digest("\u0410da48249"),
                    password_hash="x",
                    player_id=player_id,
                    created=0.0,
                )
            )


def migrate_to(url: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", "metrogames.web.infra:migrations")
    engine = open_database(url)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        engine.dispose()


def test_the_migration_fills_skeletons_and_leaves_younger_lookalikes_none(
    tmp_path: Path, caplog: Any
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    migrate_to(url, "0008")
    engine = open_database(url)
    names = [
        ("bbbbbbbbbb", "\u0410da", 2.0),
        ("aaaaaaaaaa", "Ada", 1.0),
        ("cccccccccc", "Cy\u200b", 3.0),
    ]
    with engine.begin() as connection:
        for n, (account, name, created) in enumerate(names):
            player = f"player{n:04d}"
            connection.execute(sa.text("INSERT INTO players (id, name, token_hash, created) VALUES (:i, :n, :t, 0)"),
                               {"i": player, "n": name, "t": f"t{n}"})  # fmt: skip
            connection.execute(
                sa.text("INSERT INTO accounts (id, name, name_key, password_hash, player_id, created) "
                        "VALUES (:i, :n, :k, :h, :p, :c)"),
                {"i": account, "n": name, "k": unicodedata.normalize("NFKC", name).casefold(),
                 "h": "x", "p": player, "c": created},
            )  # fmt: skip
    engine.dispose()
    with caplog.at_level("WARNING"):
        app = create_app(make_settings(url))
    assert "1 accounts have a name that looks like an older account's" in caplog.text
    assert "bbbbbbbbbb" in caplog.text
    with TestClient(app) as client, client.app.state.rooms.sessions() as session:  # type: ignore[attr-defined]
        held = dict(session.execute(select(AccountRow.id, AccountRow.name_skeleton)).all())
        assert held == {
            "aaaaaaaaaa": skeleton_digest("Ada"),  # the oldest keeps it
            "bbbbbbbbbb": None,  # younger, looks the same: none
            "cccccccccc": skeleton_digest("Cy"),  # a name of before the rules: its own
        }
        refused(sign_up(client, "ADA"), 409, "name-taken")
        refused(sign_up(client, "Cy"), 409, "name-taken")
