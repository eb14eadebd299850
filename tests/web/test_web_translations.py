"""The translated rules pages (``static/rules/{game}.{lang}.html``) and guided first games
(``static/tutorials.{lang}.json``) say what the English ones say: same sections, same tables,
same numbers, same identifiers; only the words a player reads change."""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from typing import Any

import pytest

from metrogames.web.app import static_dir
from metrogames.web.checks import human_name

GAMES = ("london", "paris", "metro")
LANGS = ("fr", "nl", "sk")
DECISION = {"en": "Decision", "fr": "Décision", "nl": "Beslissing", "sk": "Rozhodnutie"}
"""The word that opens a Decision line, per language (scripts/build_rules.py's INTRO uses it)."""
BLOCKS = {"h1", "h2", "h3", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td"}
NUMBER = re.compile(r"\d+")


class Outline(HTMLParser):
    """A rules page read as its block structure, its code spans, its Decision lines and the
    numbers of each section (an ``h2`` starts a section)."""

    def __init__(self, decision: str) -> None:
        super().__init__()
        self.decision = decision
        self.blocks: list[str] = []
        self.codes: list[str] = []
        self.decisions = 0
        self.numbers: list[Counter[str]] = [Counter()]
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCKS:
            self.blocks.append(tag)
        if tag == "h2":
            self.numbers.append(Counter())
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.open.pop()

    def handle_data(self, data: str) -> None:
        tag = self.open[-1] if self.open else ""
        if tag == "code":
            self.codes.append(data)
        if tag == "strong" and data.startswith(self.decision):
            self.decisions += 1
        self.numbers[-1].update(NUMBER.findall(data))


def outline(game: str, lang: str) -> Outline:
    name = f"{game}.html" if lang == "en" else f"{game}.{lang}.html"
    read = Outline(DECISION[lang])
    read.feed((static_dir() / "rules" / name).read_text(encoding="utf-8"))
    return read


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", GAMES)
def test_a_translated_rules_page_has_the_english_sections(game: str, lang: str) -> None:
    english, page = outline(game, "en"), outline(game, lang)
    assert page.blocks == english.blocks  # headings, paragraphs, list items, table cells
    assert page.blocks.count("h2") >= 4
    assert page.codes == english.codes  # identifiers (objective ids, options) stay as they are
    assert page.decisions == english.decisions
    for number, (mine, theirs) in enumerate(zip(page.numbers, english.numbers, strict=True)):
        assert mine == theirs, (number, mine - theirs, theirs - mine)


def test_the_outline_sees_a_changed_number() -> None:
    read = Outline("Decision")
    read.feed("<h1>T</h1><h2>A</h2><p><strong>Decision</strong>: 6×3 + <code>x</code></p>")
    assert read.blocks == ["h1", "h2", "p"] and read.codes == ["x"] and read.decisions == 1
    assert read.numbers == [Counter(), Counter({"6": 1, "3": 1})]


TEXTS = {"text", "hint"}
"""The keys of a tutorial step a player reads (a seat's ``name`` is read too)."""
TOKEN = re.compile(r"\{\w*\}|\b[A-J]\d{1,2}\b|\d+|[◇◆→]")
"""What a translation keeps as it is: placeholders, station and square names, numbers, map
symbols."""


def tutorials(lang: str) -> dict[str, Any]:
    name = "tutorials.json" if lang == "en" else f"tutorials.{lang}.json"
    data: dict[str, Any] = json.loads((static_dir() / name).read_text(encoding="utf-8"))
    return data


def differences(english: Any, mine: Any, where: str = "") -> list[str]:
    """Where ``mine`` departs from ``english`` other than in a player-read text."""
    if isinstance(english, dict) and isinstance(mine, dict):
        if english.keys() != mine.keys():
            return [f"{where}: keys {sorted(english)} != {sorted(mine)}"]
        out = []
        for key in english:
            text = key in TEXTS or (key == "name" and where.endswith("]") and "seats" in where)
            if text:
                if not isinstance(mine[key], str) or not mine[key].strip():
                    out.append(f"{where}.{key}: missing or empty")
                elif Counter(TOKEN.findall(mine[key])) != Counter(TOKEN.findall(english[key])):
                    out.append(f"{where}.{key}: {TOKEN.findall(mine[key])}")
            else:
                out += differences(english[key], mine[key], f"{where}.{key}")
        return out
    if isinstance(english, list) and isinstance(mine, list) and len(english) == len(mine):
        pairs = enumerate(zip(english, mine, strict=True))
        return [d for i, (a, b) in pairs for d in differences(a, b, f"{where}[{i}]")]
    return [] if english == mine else [f"{where}: {mine!r} != {english!r}"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_translated_guide_is_the_english_one_in_other_words(lang: str) -> None:
    english, mine = tutorials("en"), tutorials(lang)
    assert differences(english, mine) == []
    texts = [s["text"] for g in GAMES for s in mine[g]["steps"]]
    assert not set(texts) & {s["text"] for g in GAMES for s in english[g]["steps"]}
    for game in GAMES:  # the guide's seat names are names a room accepts
        assert all(human_name(s["name"]) == s["name"] for s in mine[game]["seats"] if "name" in s)


def test_the_guide_comparison_sees_what_a_translation_must_keep() -> None:
    english = {"seats": [{"name": "You"}, {"bot": "easy"}], "steps": [
        {"text": "Click D7, then {n} tiles.", "move": [["D3", "D7"]], "hint": "D7"},
    ]}  # fmt: skip
    good = {"seats": [{"name": "Vous"}, {"bot": "easy"}], "steps": [
        {"text": "{n} tuiles, puis cliquez D7.", "move": [["D3", "D7"]], "hint": "D7 !"},
    ]}  # fmt: skip
    assert differences(english, good) == []
    bad = json.loads(json.dumps(good))
    bad["steps"][0].update(text="Cliquez D8, puis {m}.", hint=" ", move=[["D3", "D8"]])
    bad["seats"][1]["bot"] = "facile"
    assert differences(english, bad) == [
        ".seats[1].bot: 'facile' != 'easy'",
        ".steps[0].text: ['D8', '{m}']",
        ".steps[0].move[0][1]: 'D8' != 'D7'",
        ".steps[0].hint: missing or empty",
    ]
