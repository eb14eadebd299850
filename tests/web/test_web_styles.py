"""The client's style sheet: every endless animation stops for a reader who asks for reduced
motion (``prefers-reduced-motion: reduce``) — the Metro guide's pulsing centre once did not."""

from __future__ import annotations

import re
from pathlib import Path

import metrogames.web

CSS = Path(metrogames.web.__file__).parent / "static" / "css" / "app.css"


def _rules(text: str) -> list[tuple[list[str], str]]:
    """``(selectors, body)`` of every plain rule (no nested block) of ``text``, comments
    left out."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return [
        ([" ".join(s.split()) for s in sel.split(",")], body)
        for sel, body in re.findall(r"([^{}@]+)\{([^{}]*)\}", text)
    ]


def _matches(compound: str, simple: str) -> bool:
    """Whether every element ``compound`` selects is one ``simple`` selects (its tag, if it
    names one, and all its classes)."""
    tag = re.match(r"[a-z]+", simple)
    classes = set(re.findall(r"\.([\w-]+)", simple))
    own_tag = re.match(r"[a-z]+", compound)
    if tag and (own_tag is None or own_tag[0] != tag[0]):
        return False
    return classes <= set(re.findall(r"\.([\w-]+)", compound))


def _stopped(selector: str, stopped: set[str]) -> bool:
    """Whether a rule of ``stopped`` (``.a`` or ``.a *``) reaches what ``selector`` selects."""
    if selector in stopped:
        return True
    compounds = selector.replace(">", " ").split()
    for rule in stopped:
        parts = rule.split()
        if len(parts) == 2 and parts[1] == "*":  # every descendant of a match
            if any(_matches(c, parts[0]) for c in compounds[:-1]):
                return True
        elif len(parts) == 1 and _matches(compounds[-1], parts[0]):
            return True
    return False


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
    assert all(_stopped(s, stopped) for s in endless), sorted(
        s for s in endless if not _stopped(s, stopped)
    )


def test_a_reduced_motion_rule_reaches_what_it_names() -> None:
    stopped = {".tut-mark", ".tut-mark *"}
    assert _stopped(".station.tut-mark circle", stopped)  # a descendant
    assert _stopped("rect.central.tut-mark", stopped)  # the element itself
    assert _stopped(".tut-mark > .hit-ring", stopped)
    assert not _stopped(".spinner", stopped)
    assert not _stopped("rect.central", {"rect.central.tut-mark"})  # fewer classes: not all
    assert not _stopped("circle.tut-mark", {"rect.tut-mark"})
