"""Game options from command-line flags, one syntax for every command.

``--objectives random`` or ``--objectives thames-6,all-districts``; ``--powers random``, or
``--powers blue=joker,pink=switch,purple=double-section,green=circle-station``, or the same as
a JSON object; ``--turn-mode`` and ``--one-tile-routes`` for Metro, and ``--rules NAME`` for a
game's named rule set (Metro: ``seed``, ``box``), which the other flags adjust. The engine checks the
values themselves (``Options.from_json``, ``MetroOptions.from_json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from metrogames.core.errors import NotationError
from metrogames.games import game_type


def parse_objectives(text: str) -> str | list[str]:
    """``"random"`` or the comma-separated objective ids."""
    text = text.strip()
    return "random" if text == "random" else [o.strip() for o in text.split(",") if o.strip()]


def parse_powers(text: str) -> str | dict[str, Any]:
    """``"random"``, ``colour=power`` pairs separated by commas, or a JSON object.

    Raises:
        NotationError: anything else, with the syntax in the message.
    """
    text = text.strip()
    if text == "random":
        return "random"
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        raise NotationError(f"--powers: not a JSON object: {text!r:.60}")
    pairs: dict[str, Any] = {}
    for part in text.split(","):
        colour, sep, power = part.partition("=")
        if not sep or not colour.strip() or not power.strip():
            raise NotationError(
                "--powers: write random, colour=power pairs (blue=joker,pink=switch,...) "
                f"or a JSON object, not {part.strip()!r:.40}"
            )
        pairs[colour.strip()] = power.strip()
    return pairs


FLAGS = {
    "objectives": "--objectives",
    "powers": "--powers",
    "turn_mode": "--turn-mode",
    "one_tile_routes": "--one-tile-routes",
}
"""Option name -> the command-line flag that sets it."""


def game_options(
    game: str,
    objectives: str | None = None,
    powers: str | None = None,
    turn_mode: str | None = None,
    one_tile_routes: str | None = None,
    rules: str | None = None,
) -> dict[str, Any]:
    """The ``options`` object (JSON form) for ``game`` from the flags given: the named rule
    set's options first (``--rules box``: ``GameType.presets``), then each flag's.

    Raises:
        NotationError: a flag for an option the game does not have, an unknown rule set, or
            bad syntax.
        OptionError: an unknown game.
    """
    kind = game_type(game)
    base: dict[str, Any] = {}
    if rules is not None:
        preset = kind.presets.get(rules)
        if preset is None:
            names = ", ".join(kind.presets) or f"none: {game} has no named rule sets"
            raise NotationError(f"--rules: unknown rule set {rules!r:.40} (known: {names})")
        base = dict(preset.options)
    given: dict[str, Any] = {
        "objectives": parse_objectives(objectives) if objectives else None,
        "powers": parse_powers(powers) if powers else None,
        "turn_mode": turn_mode or None,
        "one_tile_routes": one_tile_routes or None,
    }
    known = kind.options
    options: dict[str, Any] = base
    for name, value in given.items():
        if value is None:
            continue
        if name not in known:
            theirs = ", ".join(FLAGS[o] for o in known if o in FLAGS) or "none"
            raise NotationError(f"{FLAGS[name]} is not an option of {game} (its flags: {theirs})")
        options[name] = value
    return options


RECORDS = Path("var") / "records"
"""Where terminal games are saved unless ``--out`` says otherwise (relative to the current
folder; the same ``var/`` folder holds the web table's database)."""


def default_record_path(game: str, seed: int) -> Path:
    """``var/records/metrogames-<game>-<seed>.json``, its folder created; when a game of that
    seed was saved there already, ``…-<seed>-2.json``, ``-3`` … (never another game's file)."""
    RECORDS.mkdir(parents=True, exist_ok=True)
    path = RECORDS / f"metrogames-{game}-{seed}.json"
    copy = 2
    while path.exists():
        path = RECORDS / f"metrogames-{game}-{seed}-{copy}.json"
        copy += 1
    return path


def save_record(path: Path, record: dict[str, Any]) -> None:
    """Write ``record`` to ``path`` as JSON (one key per line, readable and diffable)."""
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
