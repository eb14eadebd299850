"""The server's logs as structured lines: one JSON object per line (``python-json-logger``).

Every line has ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message`` and ``worker`` (the
process id), plus what is known where it was written: ``request`` (an id per HTTP request or
WebSocket, :class:`RequestIds`), ``path``, ``room`` and ``seat`` (:func:`bind`, set by the
WebSocket endpoint), and for uvicorn's access log ``client``, ``method``, ``status``. A
traceback comes as ``exc_info``. ``METROGAMES_LOG_FORMAT=text`` writes plain lines instead (for
development); ``METROGAMES_LOG_LEVEL`` sets the level (``warning`` by default; ``info`` adds
uvicorn's access log, one line per request). :func:`log_config` is the ``logging.config``
dictionary uvicorn applies in each worker (:mod:`.server`).
"""

from __future__ import annotations

import contextvars
import logging
import secrets
from typing import TypeAlias

from starlette.types import ASGIApp, Receive, Scope, Send

FORMATS = ("json", "text")
JSON_FIELDS = "{levelname}{name}{process}{message}"
RENAMED = {"levelname": "level", "name": "logger", "process": "worker"}
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"
LogField: TypeAlias = str | int | None
"""A bound field's value: an id, a path, a seat number."""
_CONTEXT: contextvars.ContextVar[dict[str, LogField]] = contextvars.ContextVar("metrogames_log")
_DENIED: contextvars.ContextVar[bool] = contextvars.ContextVar("metrogames_denied", default=False)
INCOMPLETE_HANDSHAKE = "ASGI callable returned without completing handshake."
"""What uvicorn's WebSocket protocol (websockets-sansio) logs at ERROR after the app refused a
socket with a denial response — a refusal, not an error (:func:`denied`)."""


def bind(**fields: LogField) -> None:
    """Add ``fields`` (e.g. ``room``, ``seat``) to every line logged from now on in this
    context (the current request's or socket's task)."""
    _CONTEXT.set({**_CONTEXT.get({}), **fields})


def context() -> dict[str, LogField]:
    """The fields bound in this context."""
    return dict(_CONTEXT.get({}))


def denied() -> None:
    """Mark this socket's task as refused at its handshake by a denial response:
    :class:`DeniedHandshakes` drops uvicorn's :data:`INCOMPLETE_HANDSHAKE` line for it."""
    _DENIED.set(True)


class DeniedHandshakes(logging.Filter):
    """On ``uvicorn.error``: drops :data:`INCOMPLETE_HANDSHAKE` for a socket the app refused
    (:func:`denied`); the line stays for any other socket (an app that forgot its handshake)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_DENIED.get() and record.msg == INCOMPLETE_HANDSHAKE)


class ContextFields(logging.Filter):
    """Puts the bound fields (:func:`bind`) on each record, and the parts of uvicorn's access
    lines (client, method, path, status) as fields of their own."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _CONTEXT.get({}).items():
            if not hasattr(record, key):
                setattr(record, key, value)
        record.__dict__.pop("color_message", None)  # uvicorn's terminal colours
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            record.client, record.method, record.path, _, record.status = args
        return True


class RequestIds:
    """ASGI middleware: each HTTP request and WebSocket gets a ``request`` id (12 hex digits)
    and its ``path`` in the log context (:func:`bind`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            token = _CONTEXT.set({"request": secrets.token_hex(6), "path": scope.get("path")})
            try:
                await self.app(scope, receive, send)
            finally:
                _CONTEXT.reset(token)
            return
        await self.app(scope, receive, send)


def log_config(fmt: str = "json", level: str = "warning") -> dict[str, object]:
    """The ``logging.config.dictConfig`` dictionary: the root logger (the app's own loggers)
    and uvicorn's (``uvicorn.error``, ``uvicorn.access``) write lines of ``fmt`` (``json`` or
    ``text``) to standard error at ``level``.

    Raises:
        ValueError: an unknown format or level.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown log format {fmt!r} (one of {', '.join(FORMATS)})")
    name = level.upper()
    if not isinstance(logging.getLevelName(name), int):
        raise ValueError(f"unknown log level {level!r}")
    formatter: dict[str, object]
    if fmt == "json":
        formatter = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "style": "{",
            "rename_fields": RENAMED,
            "timestamp": "time",
            "json_ensure_ascii": False,
        }
    else:
        formatter = {"format": TEXT_FORMAT}
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "lines",
        "filters": ["context"],
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": ContextFields}, "denied": {"()": DeniedHandshakes}},
        "formatters": {"lines": formatter},
        "handlers": {"lines": handler},
        "root": {"handlers": ["lines"], "level": name},
        "loggers": {
            "uvicorn": {"handlers": [], "level": name, "propagate": True},
            "uvicorn.error": {
                "handlers": [],
                "level": name,
                "propagate": True,
                "filters": ["denied"],
            },
            "uvicorn.access": {"handlers": [], "level": name, "propagate": True},
        },
    }
