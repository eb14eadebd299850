"""The language of a request or WebSocket: the ``lang`` cookie (``en``, ``fr``, ``nl`` or
``sk``, set by the client when the player picks one), else the best match of the
``Accept-Language`` header, else English (``docs/web-api.md``, "Errors")."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from metrogames.i18n import LANGUAGES, Gettext, best_language, gettext_for

COOKIE = "lang"


def connection_language(connection: HTTPConnection) -> str:
    """The language code for ``connection`` (a request or a WebSocket)."""
    chosen = connection.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    return best_language(connection.headers.get("accept-language"))


def connection_gettext(connection: HTTPConnection) -> Gettext:
    """The function translating marked messages into ``connection``'s language."""
    return gettext_for(connection_language(connection))
