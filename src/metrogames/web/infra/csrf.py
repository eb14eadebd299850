"""Refusing other sites' requests (cross-site request forgery, ``docs/web-api.md``, "Errors").

:class:`SameSite` is an ASGI middleware in front of every route, present and future: a request
that may change something — any method but ``GET``, ``HEAD``, ``OPTIONS`` and ``TRACE`` — is
refused, before any route reads it, unless

- it says ``Content-Type: application/json`` (parameters allowed; a ``charset`` only
  ``utf-8``), with a body or without: 415 ``not-json``. A page of another site can send a form
  (``text/plain``, ``application/x-www-form-urlencoded``, ``multipart/form-data``) without
  asking, but a JSON request only after a CORS preflight, which this server never grants;
- its ``Origin``, when sent, is the server's own (the request's scheme and ``Host``) or one of
  ``METROGAMES_ALLOWED_ORIGINS``, and its ``Sec-Fetch-Site``, when sent, is ``same-origin`` or
  ``none`` (or anything, with an allowed other origin): 403 ``cross-site``.

A WebSocket upgrade whose ``Origin`` is another site's is refused the same way (an HTTP 403
``cross-site`` body where the server can send one, else closed with code 1008) before the
socket is accepted. A refusal reads no body, stores nothing and sets no cookie; its message is
in the client's language (:mod:`.language`).
"""

from __future__ import annotations

import functools
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from metrogames.i18n import N_, msg
from metrogames.web.errors import RoomError, shown
from metrogames.web.infra.language import connection_gettext

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
"""The methods that change nothing (RFC 9110 §9.2.1); every other one is checked."""
JSON_TYPE = "application/json"
SAME_SITE_FETCHES = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request the site's own page (or the user) made."""
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
SCHEMES = {"ws": "http", "wss": "https"}
"""A WebSocket's scheme named as its page's origin names it."""


@functools.lru_cache(maxsize=512)
def origin_of(text: str) -> str | None:
    """``scheme://host[:port]`` of an origin or URL, lowercase, the scheme's default port
    left out (``HTTP://Example.org:80`` → ``http://example.org``), or ``None`` for anything
    that is no ``http``/``https`` origin (``null``, a path, another scheme)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port in (None, DEFAULT_PORTS[scheme]) else f":{port}")


def own_origin(scope: Scope) -> str | None:
    """The origin this request was sent to: its scheme (after the trusted proxies' headers)
    and its ``Host`` header; ``None`` without a ``Host``."""
    host = Headers(scope=scope).get("host")
    if not host:
        return None
    scheme = str(scope.get("scheme", "http"))
    return origin_of(f"{SCHEMES.get(scheme, scheme)}://{host}")


def parse_origins(text: str) -> frozenset[str]:
    """The origins of ``METROGAMES_ALLOWED_ORIGINS`` (comma-separated), normalised
    (:func:`origin_of`).

    Raises:
        ValueError: an entry that is no ``http``/``https`` origin, named.
    """
    found = set()
    for entry in filter(None, (e.strip() for e in text.split(","))):
        origin = origin_of(entry)
        if origin is None:
            raise ValueError(f"{entry!r} is no origin (scheme://host[:port], http or https)")
        found.add(origin)
    return frozenset(found)


def _foreign(origin: str) -> RoomError:
    return RoomError(
        403,
        "cross-site",
        msg(
            N_("this site accepts changes only from its own pages, not from {origin}"),
            origin=shown(origin, 80),
        ),
    )


def check_origin(scope: Scope, allowed: frozenset[str]) -> None:
    """Refuse a request (or WebSocket upgrade) of another site.

    Raises:
        RoomError: 403 ``cross-site``: an ``Origin`` neither the server's own nor allowed, or
            a ``Sec-Fetch-Site`` other than ``same-origin``/``none`` from no allowed origin.
    """
    headers = Headers(scope=scope)
    sent = headers.get("origin")
    origin = None if sent is None else origin_of(sent)
    if sent is not None:
        if origin is not None and origin in allowed:
            return  # a configured other site: its Sec-Fetch-Site says cross-site, rightly
        if origin is None or origin != own_origin(scope):
            raise _foreign(sent)
    fetch = headers.get("sec-fetch-site")
    if fetch is not None and fetch.strip().lower() not in SAME_SITE_FETCHES:
        raise RoomError(
            403,
            "cross-site",
            msg(
                N_(
                    "this site accepts changes only from its own pages, not from a "
                    "request its browser calls {fetch} (Sec-Fetch-Site)"
                ),
                fetch=shown(fetch),
            ),
        )


def check_json(scope: Scope) -> None:
    """Refuse a state-changing request that does not say ``Content-Type: application/json``.

    Raises:
        RoomError: 415 ``not-json`` naming the type sent (or its absence), or a ``charset``
            other than UTF-8.
    """
    method = str(scope.get("method", "POST"))
    values = Headers(scope=scope).getlist("content-type")
    if not values:
        rule = N_(
            "a {method} request says Content-Type: application/json, with a body or "
            "without (this one has no Content-Type)"
        )
        raise RoomError(415, "not-json", msg(rule, method=method))
    media, *params = (part.strip() for part in values[0].split(";"))
    if len(values) > 1 or media.lower() != JSON_TYPE:
        rule = N_(
            "a {method} request says Content-Type: application/json, with a body or "
            "without (this one says {found})"
        )
        raise RoomError(415, "not-json", msg(rule, method=method, found=shown(", ".join(values))))
    for param in params:
        key, _, value = param.partition("=")
        charset = value.strip().strip('"').lower()
        if key.strip().lower() == "charset" and charset not in ("utf-8", "utf8"):
            rule = N_("a request's JSON is UTF-8: Content-Type charset {charset} is not accepted")
            raise RoomError(415, "not-json", msg(rule, charset=shown(value.strip())))


class SameSite:
    """ASGI middleware: :func:`check_origin` and :func:`check_json` on every state-changing
    request, :func:`check_origin` on every WebSocket upgrade; ``allowed``: the other origins
    trusted (:func:`parse_origins`)."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            if scope["type"] == "websocket":
                check_origin(scope, self.allowed)
            elif scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
                check_origin(scope, self.allowed)
                check_json(scope)
        except RoomError as exc:
            await refuse(scope, receive, send, exc)
            return
        await self.app(scope, receive, send)


async def refuse(scope: Scope, receive: Receive, send: Send, exc: RoomError) -> None:
    """Answer ``exc`` as ``{"error", "reason"}`` in the client's language; a WebSocket
    upgrade gets it as its HTTP answer, or (where the server cannot send one) a close 1008."""
    body = exc.body(connection_gettext(HTTPConnection(scope)))
    response = JSONResponse(body, status_code=exc.status)
    if scope["type"] == "http":
        await response(scope, receive, send)
        return
    socket = WebSocket(scope, receive, send)
    if "websocket.http.response" in scope.get("extensions", {}):
        await socket.send_denial_response(response)
    else:
        reason = exc.message.encode()[:120].decode("utf-8", "ignore")  # a close reason: 123 bytes
        await socket.close(code=1008, reason=reason)
