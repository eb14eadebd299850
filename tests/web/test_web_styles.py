"""The client's style sheet: every endless animation stops for a reader who asks for reduced
motion (``prefers-reduced-motion: reduce``) — the Metro guide's pulsing centre once did not."""

from __future__ import annotations

import re
from pathlib import Path

import metrogames.web

CSS = Path(metrogames.web.__file__).parent / "static" / "css" / "app.css"


def _rules(text: str) -> list[tuple[list[str], str]]:
    """``(selectors, body)`` of every plain rule (no nested block) of ``text``."""
    return [
        ([s.strip() for s in sel.split(",")], body)
        for sel, body in re.findall(r"([^{}@]+)\{([^{}]*)\}", text)
    ]


def _reduced_motion_blocks(text: str) -> str:
    """The contents of every ``@media (prefers-reduced-motion: reduce)`` block."""
    found = []
    for match in re.finditer(r"@media \(prefers-reduced-motion: reduce\)\s*\{", text):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        found.append(text[match.end() : i - 1])
    return "".join(found)


def test_every_endless_animation_stops_for_reduced_motion() -> None:
    text = CSS.read_text(encoding="utf-8")
    reduced = _reduced_motion_blocks(text)
    stopped = {
        s for selectors, body in _rules(reduced) if "animation: none" in body for s in selectors
    }
    endless = {
        s
        for selectors, body in _rules(text.replace(reduced, ""))
        if re.search(r"animation:[^;]*infinite", body)
        for s in selectors
    }
    assert endless, "the sheet has endless animations (the spinning start mark, the pulses)"
    assert endless <= stopped, sorted(endless - stopped)
