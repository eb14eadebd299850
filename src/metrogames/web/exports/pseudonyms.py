"""The stable pseudonyms of the exports (``docs/exports.md``, "Who is shown").

An account whose owner does not show its name (the default) is shown as ``p-`` and 16
lowercase base-32 characters: the first 80 bits of HMAC-SHA-256, keyed with the server's
export secret (``METROGAMES_EXPORT_SECRET``, else one made once and kept), of
``account:<id>``. The same account has the same pseudonym in every month's export; without the
secret nobody can tell which account it is, nor test a guess. A game's ``id`` is made the same
way from ``room:<id>`` (``g-``): a room's id would open its page, which names its seats.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

SECRET_NAME = "exports"
"""The export secret's name in ``server_secrets``."""


def keyed(secret: bytes, prefix: str, kind: str, value: str) -> str:
    """``prefix`` + the 16 base-32 characters (80 bits) of HMAC-SHA-256(``secret``,
    ``kind:value``)."""
    mac = hmac.new(secret, f"{kind}:{value}".encode(), hashlib.sha256).digest()
    return prefix + base64.b32encode(mac[:10]).decode("ascii").lower()


def pseudonym(secret: bytes, account: str) -> str:
    """The pseudonym of ``account`` (its id), e.g. ``p-mfrggzdfmztwq2lk``."""
    return keyed(secret, "p-", "account", account)


def game_id(secret: bytes, room: str) -> str:
    """The export's id of the game of ``room`` (its id), e.g. ``g-…``."""
    return keyed(secret, "g-", "room", room)
