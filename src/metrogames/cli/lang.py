"""The terminal's language (``metrogames.i18n.environment_language``: ``METROGAMES_LANG``,
``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; English for ``C``, ``POSIX`` or unset).

Messages shown during play, scores and refusals are translated; ``--help``, ``--json`` output
and the files of ``docs/notation.md`` stay English. ``_("text")`` and ``tr("template", **p)``
are the extraction keywords of the terminal's own texts, ``ntr(singular, plural, n, **p)``
the counted ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from babel.numbers import format_decimal

from metrogames.i18n import Message, Plural, environment_language, gettext_for


def _(text: str) -> str:
    """``text`` (a literal English message) in the terminal's language."""
    return gettext_for(environment_language())(text)


def tr(template: str, /, **params: object) -> str:
    """``template`` (a literal with ``{name}`` placeholders) translated, then filled in."""
    return _(template).format(**params)


def say(message: Message) -> str:
    """A translatable message (e.g. a refusal's) in the terminal's language."""
    return message.render(gettext_for(environment_language()))


def ntr(singular: str, plural: str, n: int, /, **params: object) -> str:
    """The form of ``singular``/``plural`` (literals with ``{n}`` and other placeholders) for
    the count ``n`` in the terminal's language (its catalog's ``Plural-Forms``), filled in."""
    return Plural(singular, plural, {"n": n, **params}).render(gettext_for(environment_language()))


def decimal(value: float, pattern: str = "0.0") -> str:
    """``value`` written the terminal language's way with Babel's number ``pattern`` (``0.0``:
    one decimal): ``134.7`` in English, ``134,7`` in French, Dutch and Slovak."""
    return format_decimal(value, format=pattern, locale=environment_language())


def band_range(rating: Mapping[str, object]) -> str:
    """A solo rating band's scores (``low``/``high`` of the registry's ``solo_result``, ``None``
    at an open end) in words: ``90 or less``, ``106–120``, ``151 or more``."""
    low, high = rating.get("low"), rating.get("high")
    if low is None:
        return tr("{score} or less", score=high)
    if high is None:
        return tr("{score} or more", score=low)
    return f"{low}–{high}"
