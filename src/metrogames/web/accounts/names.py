"""Account names: what a name may hold (PRECIS, RFC 8265) and when two names are one (their
confusable skeleton, UTS #39) (``docs/web-api.md``, "Accounts").

An account name (:func:`account_name`) is trimmed of surrounding spaces and is one or more
words separated by single spaces (RFC 8265 §3.3.1: ``username = userpart *(%x20 userpart)``),
each word enforced by the PRECIS profiles ``UsernameCasePreserved`` (the name shown: width-mapped,
NFC) and ``UsernameCaseMapped`` (the ``precis-i18n`` library): letters and digits of any script
and printable ASCII, no invisible (default-ignorable) character, space other than U+0020,
compatibility form, symbol or control, the Bidi Rule (RFC 5893) kept; at most 64 characters,
and not starting ``bot:``. Every refusal names the rule and the code point.

Two names are one when their :func:`skeleton` is: the UTS #39 skeleton (ICU's
``SpoofChecker``, carrying Unicode's confusables data) of the name's ``NFKC_Casefold``
(case-folded, compatibility forms and invisible characters gone), without the marks that belong
to no script (``Script=Inherited``: combining accents, which compose into near-identical
letters, ``Ada`` + U+0307 → ``Adȧ``). So ``Ada``, ``ADA``, ``Аda`` (Cyrillic А) and ``Αda``
(Greek Α) are one name; so are ``Zoe`` and ``Zoë``. The database keeps its SHA-256
(:func:`skeleton_digest`) under a unique index, so that the check is atomic.
"""

from __future__ import annotations

import hashlib
import unicodedata

import icu
import precis_i18n

from metrogames.i18n import N_, Message, msg
from metrogames.web.checks import BOT_PREFIX, MAX_NAME, invisible

WHAT = N_("an account name")
PROFILES = (
    precis_i18n.get_profile("UsernameCasePreserved"),
    precis_i18n.get_profile("UsernameCaseMapped"),
)
"""RFC 8265's two username profiles: the first gives the form shown."""
_SPOOF = icu.SpoofChecker()
_FOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_MARKS = icu.Transliterator.createInstance("[[:Mn:]&[:Script=Inherited:]] Remove")

_COMPAT = N_(
    "{what} cannot hold {char} ({code}): it is a compatibility form of another character "
    "(RFC 8265)"
)
_CLASS = N_(
    "{what} cannot hold {char} ({code}): it is letters and digits of any script and "
    "printable ASCII characters (RFC 8265)"
)
_CONTEXT = N_(
    "{what} cannot hold {code} there: it belongs only beside certain letters of certain "
    "scripts (RFC 5892)"
)
RULES = {
    "has_compat": _COMPAT,
    "zero_width_joiner": _CONTEXT,
    "zero_width_nonjoiner": _CONTEXT,
    "middle_dot": _CONTEXT,
    "greek_keraia": _CONTEXT,
    "hebrew_punctuation": _CONTEXT,
    "katakana_middle_dot": _CONTEXT,
    "arabic_indic": _CONTEXT,
    "extended_arabic_indic": _CONTEXT,
}
"""The refusal of each of ``precis-i18n``'s reasons naming a character (others: :data:`_CLASS`)."""


def account_name(value: str) -> str:
    """The name an account is shown with: ``value`` trimmed, its words enforced by the PRECIS
    username profiles (see the module docstring).

    Raises:
        ValueError: the rule the name breaks, naming the code point (a translatable
            :class:`~metrogames.i18n.Message`; used as a pydantic validator).
    """
    what = Message(WHAT)
    text = value.strip()
    hidden = invisible(text, emoji=False)
    if hidden is not None:
        rule = N_("{what} cannot hold the invisible character {code}")
        raise ValueError(msg(rule, what=what, code=_code(hidden)))
    if not text:  # the length counts once the words are enforced (NFC)
        raise ValueError(msg(N_("{what} is 1 to {limit} characters"), what=what, limit=MAX_NAME))
    words = text.split(" ")
    if "" in words:
        raise ValueError(msg(N_("{what} separates its words by single spaces"), what=what))
    shown = " ".join(_enforce(word, what) for word in words)
    if len(shown) > MAX_NAME:
        raise ValueError(msg(N_("{what} is 1 to {limit} characters"), what=what, limit=MAX_NAME))
    if shown.casefold().startswith(BOT_PREFIX):
        rule = N_("names starting with {prefix} are the bots'")
        raise ValueError(msg(rule, prefix=repr(BOT_PREFIX)))
    return shown


def _enforce(word: str, what: Message) -> str:
    """``word`` (a userpart) as :data:`PROFILES` enforce it (the first's form).

    Raises:
        ValueError: the rule broken.
    """
    try:
        shown: str = PROFILES[0].enforce(word)
        PROFILES[1].enforce(word)
    except UnicodeEncodeError as exc:
        kind = exc.reason.removeprefix("DISALLOWED/")
        if kind == "bidi_rule":
            rule = N_(
                "{what} mixes right-to-left and left-to-right letters in a way that can "
                "display misleadingly (the Bidi Rule, RFC 5893)"
            )
            raise ValueError(msg(rule, what=what)) from None
        char = exc.object[exc.start] if exc.end - exc.start == 1 else exc.object
        if kind == "spaces" or unicodedata.category(char[0]) == "Zs":
            rule = N_("{what} separates its words by single spaces (U+0020), not {code}")
            raise ValueError(msg(rule, what=what, code=_code(char))) from None
        rule = RULES.get(kind, _CLASS)
        raise ValueError(msg(rule, what=what, char=repr(char[:20]), code=_code(char))) from None
    return shown


def _code(char: str) -> str:
    return f"U+{ord(char[0]):04X}"


def skeleton(name: str) -> str:
    """The form two names are compared in (see the module docstring); defined for any text,
    so names kept from before these rules compare too."""
    return str(_MARKS.transliterate(_SPOOF.getSkeleton(0, _FOLD.normalize(name))))


def skeleton_digest(name: str) -> str:
    """The SHA-256 (hex) of :func:`skeleton`: what the database's unique index holds."""
    return hashlib.sha256(skeleton(name).encode()).hexdigest()
