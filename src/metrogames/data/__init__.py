"""The games' data files (maps, decks, tiles), shipped in the package."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from metrogames.core.errors import DataError


def load_json(name: str) -> Any:
    """Read the package data file ``name`` (e.g. ``"london.json"``).

    Raises:
        DataError: the file is missing or is not valid JSON.
    """
    try:
        text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read data file {name}: {exc}") from exc
