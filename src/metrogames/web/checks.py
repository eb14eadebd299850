"""Checking requests: the refusal type, bodies, names, bot codes and seat tokens.

Refusals are :class:`RoomError` (HTTP status, reason code from ``docs/web-api.md``, "Errors",
and a message naming the problem); the API turns them into ``{"error", "reason"}`` bodies.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from metrogames.bots.base import bot_codes

MAX_NAME = 64


class RoomError(Exception):
    """A refusal: ``status`` (4xx), ``reason`` (``docs/web-api.md``, "Errors") and message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message

    def __reduce__(self) -> tuple[type[RoomError], tuple[int, str, str]]:
        return type(self), (self.status, self.reason, self.message)


def bad_request(message: str) -> RoomError:
    """A 400 ``bad-request`` refusal."""
    return RoomError(400, "bad-request", message)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest a token is stored as."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh random token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def check_keys(body: Any, required: set[str], optional: set[str], what: str) -> dict[str, Any]:
    """``body`` as an object with exactly the ``required`` keys and some ``optional`` ones.

    Raises:
        RoomError: ``bad-request``.
    """
    if not isinstance(body, dict):
        raise bad_request(f"{what} must be a JSON object")
    unknown = set(body) - required - optional
    if unknown:
        shown = ", ".join(sorted(str(k)[:40] for k in unknown))
        raise bad_request(f"unknown key(s) in {what}: {shown}")
    missing = required - set(body)
    if missing:
        raise bad_request(f"{what} needs {', '.join(sorted(missing))}")
    return body


def check_int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (bools refused).

    Raises:
        RoomError: ``bad-request``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise bad_request(f"{what} must be a whole number from {low} to {high}")
    return int(value)


def check_name(value: Any, default: str) -> str:
    """A seat name: 1–64 characters of text (``default`` when absent)."""
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise bad_request(f"a name is 1 to {MAX_NAME} characters of text")
    return value.strip()


def check_bot(value: Any) -> str:
    """A known bot code."""
    codes = bot_codes()
    if value not in codes:
        raise bad_request(f"unknown bot {str(value)[:40]!r} (known: {', '.join(codes)})")
    return str(value)


# -- the service ----------------------------------------------------------------------------
