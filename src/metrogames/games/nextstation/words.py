"""The Next Station words that appear inside messages: line colours, station symbols, powers.

Messages name them in English (``docs/notation.md``); :func:`term` makes one translatable, so a
refusal reads ``… n'est pas sur la ligne rose`` in French. Every colour, symbol and power of the
city data is one of :data:`WORDS` (checked by the catalog tests).
"""

from __future__ import annotations

from metrogames.i18n import N_, Message, verbatim

WORDS = (
    N_("blue"),
    N_("pink"),
    N_("purple"),
    N_("green"),
    N_("orange"),
    N_("square"),
    N_("circle"),
    N_("triangle"),
    N_("pentagon"),
    N_("any"),
    N_("double-section"),
    N_("joker"),
    N_("switch"),
    N_("circle-station"),
    N_("street"),
    N_("underground"),
    N_("metro"),
    N_("free-entry"),
    N_("Thames"),
    N_("Seine"),
    N_("lines"),
    N_("tourist"),
    N_("interchanges"),
    N_("bridges"),
    N_("objectives"),
)
"""Colours (London, Paris), symbols (``any``: every card reaches it), pencil powers, card
kinds and faces, rivers, and the score components (``score_components`` keys, which the
terminal's ``simulate`` table names)."""


DATA_TEXTS = (
    N_("at least 8 interchange stations"),
    N_("at least one station in each of the 13 districts"),
    N_("all 5 tourist sites on the map's lines"),
    N_("all 9 stations of the central district (D4-G7, including \"?\")"),
    N_("at least 6 sections crossing the Thames"),
    N_("this turn, draw exactly two sections, both to stations of the flipped symbol"),
    N_("treat this turn's card as a joker"),
    N_("this turn's section may start from any station of the line"),
    N_("circle one station of the current line: it counts as 2 stations of its district for this line"),
    N_("you know the Underground like the back of your hand"),
    N_("at least 3 stations where 3 or more lines meet"),
    N_("one line visits at least 7 districts"),
    N_("at least 2 overhead crossings used by two lines"),
    N_("at least 6 different monuments on the map's lines"),
)
"""The city data's sentences a player reads (objectives, pencil powers, the solo rating's top
phrase), marked so the catalogs translate them: ``gettext(text)`` of the data's English text
(every one is here: checked by the catalog tests)."""


_TERMS = {word: Message(word) for word in WORDS}


def term(word: str) -> Message:
    """``word`` as a message, translated when it is one of :data:`WORDS` (else as it is)."""
    return _TERMS.get(word) or verbatim(word)
