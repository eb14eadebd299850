"""Reading the JSON files users hand to the command line, with size limits and clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from metrogames.core.errors import RecordError

MAX_FILE = 256 * 1024 * 1024
"""Largest records file read (bytes); a JSON-lines file of many games may be large."""
MAX_DOCUMENT = 4 * 1024 * 1024
"""Largest single JSON document (one record, one sheet, one line of a JSON-lines file)."""


def _decode(text: str, where: str) -> Any:
    if len(text) > MAX_DOCUMENT:
        raise RecordError(f"{where}: larger than {MAX_DOCUMENT} bytes")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise RecordError(f"{where}: JSON nested too deeply") from None


def read_json(path: Path) -> Any:
    """One JSON document from ``path``.

    Raises:
        RecordError: missing or unreadable file, too large, or not valid JSON.
    """
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT:
            raise RecordError(f"{path}: larger than {MAX_DOCUMENT} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {path}: {exc}") from None
    return _decode(text, str(path))


def read_documents(path: Path) -> Iterator[tuple[str, Any]]:
    """The JSON documents of ``path``: a single document, or JSON lines (one per non-blank
    line). Yields ``(label, value)`` with ``label`` like ``games.jsonl:3``; a line that is not
    JSON yields a :class:`RecordError` as its value, so one bad line does not hide the rest.

    Raises:
        RecordError: a missing, unreadable or oversized file.
    """
    try:
        if path.stat().st_size > MAX_FILE:
            raise RecordError(f"{path}: larger than {MAX_FILE} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {path}: {exc}") from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{path}: empty file")
    if len(stripped) <= MAX_DOCUMENT:
        try:
            yield str(path), json.loads(stripped)
            return
        except json.JSONDecodeError as exc:
            if "\n" not in stripped:
                raise RecordError(
                    f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
                ) from None
        except RecursionError:
            raise RecordError(f"{path}: JSON nested too deeply") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            label = f"{path}:{number}"
            try:
                yield label, _decode(line, label)
            except RecordError as exc:
                yield label, exc
