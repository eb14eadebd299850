"""Regenerate ``docs/web-schema.json``, the JSON Schema of the web table's views, room summaries,
replays and WebSocket messages, from the code (:func:`metrogames.web.api.schema.schema_document`).

``tests/web/test_web_schema.py`` checks that the committed file is what this script writes, so
run it after changing a view's shape (``web/rooms/views.py``, a game's ``shapes.py``):

    .venv/bin/python scripts/build_schema.py
"""

from __future__ import annotations

import json
from pathlib import Path

from metrogames.web.api.schema import schema_document

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "web-schema.json"


def render() -> str:
    """The file's text: the document, indented, keys in the code's order, one final newline."""
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
