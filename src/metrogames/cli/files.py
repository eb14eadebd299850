"""Reading the JSON files users hand to the command line, with size limits and clear errors.

Errors are :class:`~metrogames.core.errors.RecordError` raised with a translatable
:class:`~metrogames.i18n.Message` (``str(error)`` is English; the command line shows it in the
terminal's language, ``--json`` output keeps the English)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from metrogames.core.errors import RecordError
from metrogames.core.protocol import JsonObject, JsonValue
from metrogames.i18n import N_, Message, msg, verbatim

MAX_FILE = 256 * 1024 * 1024
"""Largest records file read (bytes); a JSON-lines file of many games may be large."""
MAX_DOCUMENT = 4 * 1024 * 1024
"""Largest single JSON document (one record, one sheet, one line of a JSON-lines file)."""


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    """``object_pairs_hook``: refuse a key given twice (json keeps the last one silently, so a
    sheet could circle two stations of a line, or a typo could go unnoticed)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return out


def _loads(text: str) -> JsonValue:
    value: JsonValue = json.loads(text, object_pairs_hook=_no_duplicates)
    return value


def _too_large(where: object, limit: int) -> RecordError:
    return RecordError(msg(N_("{where}: larger than {limit} bytes"), where=where, limit=limit))


def _unreadable(path: Path, exc: OSError | UnicodeDecodeError) -> RecordError:
    """``cannot read PATH: no such file`` — the cause in the project's words (the system's
    own text, English, only for a rare cause)."""
    cause: Message
    if isinstance(exc, UnicodeDecodeError):
        cause = msg(N_("not UTF-8 text"))
    elif isinstance(exc, FileNotFoundError):
        cause = msg(N_("no such file"))
    elif isinstance(exc, IsADirectoryError):
        cause = msg(N_("it is a folder"))
    elif isinstance(exc, PermissionError):
        cause = msg(N_("permission denied"))
    else:
        cause = verbatim(exc.strerror or str(exc))
    return RecordError(msg(N_("cannot read {path}: {cause}"), path=path, cause=cause))


def _decode(text: str, where: str) -> JsonValue:
    if len(text) > MAX_DOCUMENT:
        raise _too_large(where, MAX_DOCUMENT)
    try:
        return _loads(text)
    except _DuplicateKeyError as exc:
        raise RecordError(
            msg(
                N_("{where}: key {key} given twice in one object"),
                where=where,
                key=repr(str(exc)[:40]),
            )
        ) from None
    except json.JSONDecodeError as exc:
        raise RecordError(
            msg(
                N_("{where}: not valid JSON (line {line}, column {column}: {problem})"),
                where=where,
                line=exc.lineno,
                column=exc.colno,
                problem=verbatim(exc.msg),
            )
        ) from None
    except RecursionError:
        raise RecordError(msg(N_("{where}: JSON nested too deeply"), where=where)) from None


def read_json(path: Path) -> JsonValue:
    """One JSON document from ``path``.

    Raises:
        RecordError: missing or unreadable file, too large, or not valid JSON.
    """
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT:
            raise _too_large(path, MAX_DOCUMENT)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc) from None
    return _decode(text, str(path))


def read_documents(path: Path) -> Iterator[tuple[str, JsonValue | RecordError]]:
    """The JSON documents of ``path``: a single document, or JSON lines (one per non-blank
    line). Yields ``(label, value)`` with ``label`` like ``games.jsonl:3``; a line that is not
    JSON yields a :class:`RecordError` as its value, so one bad line does not hide the rest.

    Raises:
        RecordError: a missing, unreadable or oversized file, or a single document (one line,
            or several lines none of which is a JSON object alone) that is not valid JSON.
    """
    try:
        if path.stat().st_size > MAX_FILE:
            raise _too_large(path, MAX_FILE)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc) from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(msg(N_("{path}: empty file"), path=path))
    if len(stripped) > MAX_DOCUMENT and not _has_json_line(stripped):
        raise RecordError(
            msg(N_("{path}: one document larger than {limit} bytes"), path=path, limit=MAX_DOCUMENT)
        )
    if len(stripped) <= MAX_DOCUMENT:
        try:
            value = _decode(stripped, str(path))
        except RecordError:
            if "\n" not in stripped or not _has_json_line(stripped):
                # one document (perhaps pretty-printed over many lines): one error, not one
                # per line
                raise
        else:
            yield str(path), value
            return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            label = f"{path}:{number}"
            item: JsonValue | RecordError
            try:
                item = _decode(line, label)
            except RecordError as exc:
                item = exc
            yield label, item


def _has_json_line(text: str) -> bool:
    """True when some line of ``text`` is a JSON object on its own: JSON lines, not a single
    document spread over several lines."""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                if isinstance(_loads(line), dict):
                    return True
            except (ValueError, RecursionError):
                continue
    return False
