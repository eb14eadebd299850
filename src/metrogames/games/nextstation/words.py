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
)
"""Colours (London, Paris), symbols (``any``: every card reaches it), pencil powers, card
kinds and faces, rivers."""


_TERMS = {word: Message(word) for word in WORDS}


def term(word: str) -> Message:
    """``word`` as a message, translated when it is one of :data:`WORDS` (else as it is)."""
    return _TERMS.get(word) or verbatim(word)
