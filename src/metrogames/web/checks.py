"""Checking requests: names, bot codes, seat tokens and safe messages.

Refusals are :class:`~metrogames.web.errors.RoomError` (:mod:`metrogames.web.errors`).
Request bodies themselves are declared in :mod:`metrogames.web.api.bodies`.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

import icu

from metrogames.bots.base import bot_codes
from metrogames.i18n import N_, Message, msg
from metrogames.web.errors import shown

MAX_NAME = 64
MAX_CHAT = 200
"""The longest table chat message (characters, after NFC and trimming)."""
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""The Unicode ``Bidi_Control`` characters: marks, embeddings, overrides and isolates, which
would reorder the text shown after a name."""
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
"""Control characters, lone surrogates and line/paragraph separators."""
BLANK_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Cn", "Mn", "Me"})
"""Characters that show nothing on their own (spaces, format characters, combining marks)."""
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as blank space (Hangul fillers, the blank Braille pattern)."""
DEFAULT_IGNORABLE = icu.UnicodeSet("[:Default_Ignorable_Code_Point:]")
"""Unicode's ``Default_Ignorable_Code_Point``s: drawn as nothing (zero-width spaces and
joiners, the soft hyphen, variation selectors, tags, U+034F, fillers...)."""
_EMOJI = icu.UnicodeSet("[:Emoji:]")
_PICTOGRAPHIC = icu.UnicodeSet("[[:Extended_Pictographic:][:Emoji_Modifier:]]")
ZWJ, VS15, VS16, BLACK_FLAG, CANCEL_TAG = "\u200d", "\ufe0e", "\ufe0f", "\U0001f3f4", "\U000e007f"


def seat_label(seat: int) -> int:
    """The number people read for the 0-based ``seat`` (the page's "Seat 2" for seat 1):
    every human-readable message names seats so; JSON fields keep the 0-based number."""
    return seat + 1


def hash_token(token: str) -> str:
    """The SHA-256 hex digest a token is stored as."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh random token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def normal_name(value: str) -> str:
    """A display name: NFC-normalised, surrounding spaces removed, 1–64 characters, with
    something visible and without control characters, line separators, bidi controls or
    invisible (default-ignorable) characters but those of an emoji (:func:`invisible`).

    Raises:
        ValueError: the rule the name breaks (used as a pydantic validator).
    """
    text = clean_text(value, N_("a name"), MAX_NAME)
    hidden = invisible(text)
    if hidden is not None:
        rule = N_("{what} cannot hold the invisible character {code}")
        code = f"U+{ord(hidden):04X}"
        raise ValueError(msg(rule, what=Message(N_("a name")), code=code))
    return text


def invisible(text: str, emoji: bool = True) -> str | None:
    """The first default-ignorable character of ``text`` (:data:`DEFAULT_IGNORABLE`), or
    ``None``. With ``emoji``, those that are part of an emoji (UTS #51) are not counted: a
    variation selector after an emoji character, a zero-width joiner between two pictographs
    (``👩‍💻``), a flag's tags after U+1F3F4 up to U+E007F."""
    for i, c in enumerate(text):
        if not DEFAULT_IGNORABLE.contains(c):
            continue
        if not emoji or not _in_emoji(text, i):
            return c
    return None


def _in_emoji(text: str, i: int) -> bool:
    c, before = text[i], text[:i].rstrip(VS16)
    if c in (VS15, VS16):
        return i > 0 and _EMOJI.contains(text[i - 1])
    if c == ZWJ:
        after = text[i + 1 : i + 2]
        return bool(before and after) and all(_PICTOGRAPHIC.contains(x) for x in (before[-1], after))
    if "\U000e0020" <= c <= CANCEL_TAG:
        start = len(text[:i].rstrip("".join(map(chr, range(0xE0020, 0xE007F)))))
        run = text[start:]
        end = run.find(CANCEL_TAG)
        return start > 0 and text[start - 1] == BLACK_FLAG and end >= 0 and start + end >= i
    return False


def chat_text(value: str) -> str:
    """A table chat message: the rules of :func:`normal_name`, 1–200 characters.

    Raises:
        ValueError: the rule the text breaks (used as a pydantic validator).
    """
    # the body is "a chat message" already: its field's rule says "the text", not that again
    return clean_text(value, N_("the text"), MAX_CHAT)


def clean_text(value: str, what: str, limit: int) -> str:
    """``value`` NFC-normalised and trimmed: 1 to ``limit`` characters, something visible,
    no control character, line/paragraph separator or bidi control.

    Raises:
        ValueError: the rule broken, naming ``what`` (e.g. ``a name is 1 to 64 characters``),
            its argument a translatable :class:`~metrogames.i18n.Message` (``what`` is one).
    """
    text = unicodedata.normalize("NFC", value).strip()
    item = Message(what)
    if not text or len(text) > limit:
        raise ValueError(msg(N_("{what} is 1 to {limit} characters"), what=item, limit=limit))
    for c in text:
        code = f"U+{ord(c):04X}"
        if unicodedata.category(c) in REFUSED_CATEGORIES:
            rule = N_("{what} cannot hold the control character {code}")
            raise ValueError(msg(rule, what=item, code=code))
        if c in BIDI_CONTROLS:
            raise ValueError(
                msg(N_("{what} cannot hold the bidi control {code}"), what=item, code=code)
            )
    if all(unicodedata.category(c) in BLANK_CATEGORIES or c in BLANK_LETTERS for c in text):
        raise ValueError(msg(N_("{what} needs a visible character"), what=item))
    return text


BOT_PREFIX = "bot:"
"""How a bot's name starts (``docs/notation.md``, "Names": a bot is written ``bot:NAME``)."""


def human_name(value: str) -> str:
    """:func:`normal_name` that does not pose as a bot (names starting ``bot:`` are theirs).

    Raises:
        ValueError: the rule the name breaks.
    """
    name = normal_name(value)
    if name.casefold().startswith(BOT_PREFIX):
        raise ValueError(
            msg(N_("names starting with {prefix} are the bots'"), prefix=repr(BOT_PREFIX))
        )
    return name


def bot_name(name: str | None, code: str) -> str:
    """A bot seat's name: ``bot:`` and the name given (default: the bot's code)."""
    if name is None:
        return BOT_PREFIX + code
    return name if name.casefold().startswith(BOT_PREFIX) else BOT_PREFIX + name


def known_bot(value: str) -> str:
    """A known bot code.

    Raises:
        ValueError: an unknown code (used as a pydantic validator).
    """
    codes = bot_codes()
    if value not in codes:
        raise ValueError(
            msg(
                N_("unknown bot {name} (known: {codes})"), name=shown(value), codes=", ".join(codes)
            )
        )
    return value
