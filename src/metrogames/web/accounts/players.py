"""Anonymous players of the daily challenge (``docs/web-api.md``, "The daily challenge").

A player is a display name and a secret **player token** (no password): the server keeps only
the token's SHA-256 (:func:`~metrogames.web.checks.hash_token`), so a lost token cannot be
recovered and a stolen database does not reveal one. The token goes in
``Authorization: Bearer <token>``; copying it to another device moves the player there.

Errors are :class:`~metrogames.web.errors.RoomError`: 401 ``bad-token`` without a token,
403 ``bad-token`` for a token of no player. Names arrive checked (:class:`~metrogames.web.api.bodies.PlayerBody`).
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.web.checks import hash_token, new_token
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import PlayerRow

PLAYER_ALPHABET = string.ascii_lowercase + string.digits
PLAYER_ID_LENGTH = 10


@dataclass(frozen=True)
class Player:
    """An authenticated player: ``id``, ``name`` and the SHA-256 of its token."""

    id: str
    name: str
    token_hash: str


def valid_player_id(text: str) -> bool:
    """True when ``text`` has the shape of a player id (10 lowercase letters/digits)."""
    return len(text) == PLAYER_ID_LENGTH and set(text) <= set(PLAYER_ALPHABET)


class Players:
    """Players over the database's sessions."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def create(self, name: str) -> tuple[Player, str]:
        """``POST /api/players`` ``{"name"}``: a new player named ``name`` (checked) and its
        token (shown once)."""
        token = new_token()
        player = Player(
            "".join(secrets.choice(PLAYER_ALPHABET) for _ in range(PLAYER_ID_LENGTH)),
            name,
            hash_token(token),
        )
        with self.sessions.begin() as session:
            session.add(
                PlayerRow(
                    id=player.id, name=name, token_hash=player.token_hash, created=time.time()
                )
            )
        return player, token

    def authenticate(self, token: str | None) -> Player:
        """The player holding ``token``.

        Raises:
            RoomError: 401 ``bad-token`` without a token, 403 ``bad-token`` for an unknown one.
        """
        if not token:
            raise RoomError(401, "bad-token", "this needs a player token (Authorization: Bearer)")
        digest = hash_token(token)
        with self.sessions() as session:
            row = session.scalars(select(PlayerRow).where(PlayerRow.token_hash == digest)).first()
        if row is None:
            raise RoomError(403, "bad-token", "this token is no player's token")
        return Player(row.id, row.name, row.token_hash)

    def find(self, token: str | None) -> Player | None:
        """The player holding ``token``, or ``None``."""
        try:
            return self.authenticate(token)
        except RoomError:
            return None

    def get(self, player_id: str) -> Player:
        """The player ``player_id`` (public facts; its token hash included for the server).

        Raises:
            RoomError: 404 ``not-found``.
        """
        row = None
        if valid_player_id(player_id):
            with self.sessions() as session:
                row = session.get(PlayerRow, player_id)
        if row is None:
            raise RoomError(404, "not-found", f"no player {player_id[:20]!r}")
        return Player(row.id, row.name, row.token_hash)

    def rename(self, player: Player, name: str) -> Player:
        """``PATCH /api/players/me`` ``{"name"}``: the leaderboards show the new ``name``
        (checked).

        Raises:
            RoomError: 403 ``bad-token`` when the player is gone.
        """
        with self.sessions.begin() as session:
            row = session.get(PlayerRow, player.id)
            if row is None:
                raise RoomError(403, "bad-token", "this token is no player's token")
            row.name = name
        return Player(player.id, name, player.token_hash)
