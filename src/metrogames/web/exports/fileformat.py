"""An export file (``docs/exports.md``): JSON lines compressed with zstd, written and read
one line at a time.

Its first line is the header (``"format": "metrogames-export/1"``), then one line per game
(``"format": "metrogames-export-game/1"``), then the end line (``"format":
"metrogames-export-end/1"``) with the number of games and the SHA-256 of every byte before it
(uncompressed, newlines included): a file cut short, or changed, fails :func:`read_export`.
This module needs nothing of the server (the command line reads exports with it).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import zstandard

from metrogames.core.protocol import JsonObject

HEADER = "metrogames-export/1"
GAME = "metrogames-export-game/1"
END = "metrogames-export-end/1"
SUFFIX = ".jsonl.zst"
"""An export file's name ends so (the command line tells an export by it)."""
LEVEL = 10
"""The zstd level written (readers take any)."""
CHUNK = 64 * 1024
"""Compressed bytes gathered before they are handed on (a file write, an HTTP body chunk)."""
MAX_LINE = 4 * 1024 * 1024
"""The longest line read (bytes): longer is refused, as the command line's other files."""


class ExportError(ValueError):
    """A file that is not a whole, unchanged export; the message names the line and the
    problem."""


def dumps(document: JsonObject) -> bytes:
    """One line of an export: compact JSON, keys in the order given, UTF-8, ``\\n`` ended."""
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def compressed(header: JsonObject, games: Iterable[JsonObject]) -> Iterator[bytes]:
    """The compressed bytes of the export of ``header`` (without its ``format``, added here)
    and ``games`` (each a game line's fields, without ``format``), in chunks of about
    :data:`CHUNK` bytes, then the end line: one game in memory at a time."""
    digest = hashlib.sha256()
    compressor = zstandard.ZstdCompressor(level=LEVEL).compressobj()
    pending: list[bytes] = []
    size = 0
    count = 0

    def line(document: JsonObject) -> bytes:
        raw = dumps(document)
        digest.update(raw)
        return compressor.compress(raw)

    pending.append(line({"format": HEADER, **header}))
    for game in games:
        count += 1
        out = line({"format": GAME, **game})
        pending.append(out)
        size += len(out)
        if size >= CHUNK:
            yield b"".join(pending)
            pending, size = [], 0
    end = dumps({"format": END, "games": count, "sha256": digest.hexdigest()})
    pending.append(compressor.compress(end))
    pending.append(compressor.flush())
    yield b"".join(pending)


def write_export(
    path: Path, header: JsonObject, games: Iterable[JsonObject]
) -> tuple[int, str]:
    """Write the export (:func:`compressed`) to ``path`` and its checksum to ``path`` +
    ``.sha256`` (``sha256sum`` format: the compressed file's SHA-256, two spaces, its name);
    returns the compressed size in bytes and that SHA-256 (hex)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("wb") as out:
        for chunk in compressed(header, games):
            out.write(chunk)
            digest.update(chunk)
            size += len(chunk)
    path.with_name(path.name + ".sha256").write_text(f"{digest.hexdigest()}  {path.name}\n")
    return size, digest.hexdigest()


def is_export(path: Path) -> bool:
    """Whether ``path`` is named as an export file (ends in :data:`SUFFIX`)."""
    return path.name.endswith(SUFFIX)


def read_export(path: Path) -> Iterator[tuple[int, JsonObject]]:
    """The lines of the export at ``path``, each ``(line number, document)`` (1-based): the
    header first, then each game, decompressed and decoded one line at a time; after the last
    game the end line is checked (the count of games and the SHA-256 of every byte before it).

    Raises:
        ExportError: not zstd, a line that is not JSON or too long, a first line that is not
            a header, a line after the end, no end line (a file cut short), or an end line
            that does not match.
        OSError: the file cannot be opened.
    """
    digest = hashlib.sha256()
    games = 0
    ended = False
    with path.open("rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        lines = io.BufferedReader(reader, buffer_size=CHUNK)
        number = 0
        try:
            for number, line in enumerate(iter(lambda: lines.readline(MAX_LINE + 1), b""), 1):
                if ended:
                    raise ExportError(f"{path}:{number}: a line after the end line")
                document = _decoded(path, number, line)
                kind = document.get("format")
                if number == 1 and kind != HEADER:
                    raise ExportError(f"{path}:1: not an export (its first line is no header)")
                if kind == END:
                    _check_end(path, number, document, games, digest.hexdigest())
                    ended = True
                    continue
                digest.update(line)
                if number > 1:
                    if kind != GAME:
                        raise ExportError(f"{path}:{number}: not a game line ({kind!r})")
                    games += 1
                yield number, document
        except zstandard.ZstdError as exc:
            raise ExportError(f"{path}: not a zstd export ({exc})") from None
    if not ended:
        raise ExportError(f"{path}: no end line after line {number}: the file is cut short")


def _decoded(path: Path, number: int, line: bytes) -> JsonObject:
    if len(line) > MAX_LINE or not line.endswith(b"\n"):
        why = f"longer than {MAX_LINE} bytes" if len(line) > MAX_LINE else "cut short"
        raise ExportError(f"{path}:{number}: line {why}")
    try:
        document = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportError(f"{path}:{number}: not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise ExportError(f"{path}:{number}: a line must be a JSON object")
    return document


def _check_end(path: Path, number: int, end: JsonObject, games: int, sha256: str) -> None:
    if end.get("games") != games:
        raise ExportError(
            f"{path}:{number}: the end line counts {end.get('games')!r} games, the file has {games}"
        )
    if end.get("sha256") != sha256:
        raise ExportError(f"{path}:{number}: checksum mismatch: the file was changed")
