"""Languages of the messages a player reads: English (the source), French, Dutch and Slovak.

Every layer may import this module (it imports nothing of the project). Code that raises or
prints a player-facing message builds a :class:`Message` with :func:`msg`: an English template
with ``{name}`` placeholders, marked for extraction, and its parameters. The English text is
``message.render()``; an upper layer that knows the reader's language renders it with
``message.render(translations(lang).gettext)``. Plain strings are marked with :func:`N_` and
translated with ``translations(lang).gettext``.

Catalogs are GNU gettext files, domain ``metrogames``, under ``metrogames/locale/<lang>/
LC_MESSAGES/``; :mod:`metrogames.catalogs` extracts, updates and compiles them with Babel (the
compiled ``.mo`` files are committed, so an installed package needs no build step).

The language is chosen by :func:`best_language` (an HTTP ``Accept-Language`` header) or
:func:`environment_language` (``METROGAMES_LANG``, then gettext's ``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``); anything unknown, ``C`` or ``POSIX`` gives English. Under
``LANG=C`` gettext's ``LANGUAGE`` is ignored, as GNU gettext does.
"""

from __future__ import annotations

import gettext as gettext_module
import os
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

DOMAIN = "metrogames"
LOCALE_DIR = Path(__file__).parent / "locale"
SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "fr", "nl", "sk")
"""The languages a player may choose (ISO 639-1 codes); English first, the default."""

Gettext = Callable[[str], str]


def N_(text: str) -> str:  # noqa: N802  (the gettext convention)
    """Mark ``text`` for extraction into the catalogs and return it unchanged (no-op)."""
    return text


def _same(text: str) -> str:
    return text


class Message:
    """A translatable text: an English ``template`` (``str.format`` placeholders) and its
    ``params``; a parameter that is itself a :class:`Message` is rendered in the same language.
    A template missing from the catalogs (e.g. ``"{a}, {b}"``) is used as it is. Treated as
    immutable; equal when template and parameters are."""

    __slots__ = ("params", "template")

    def __init__(self, template: str, params: Mapping[str, object] | None = None) -> None:
        self.template = template
        self.params: Mapping[str, object] = params or {}

    def render(self, gettext: Gettext = _same) -> str:
        """The text in the language of ``gettext`` (English by default)."""
        values = {
            k: v.render(gettext) if isinstance(v, Message) else v for k, v in self.params.items()
        }
        return gettext(self.template).format_map(values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.template == other.template and dict(self.params) == dict(other.params)

    __hash__ = None  # type: ignore[assignment]  # parameters may be unhashable

    def __reduce__(self) -> tuple[type[Message], tuple[str, dict[str, object]]]:
        return type(self), (self.template, dict(self.params))

    def to_json(self) -> dict[str, object]:
        """``{"template", "params"}`` (a :class:`Plural` also ``"plural"``), its parameters
        likewise (else as they are: plain JSON values); :meth:`from_json` reads it back."""
        out: dict[str, object] = {"template": self.template, "params": _params_json(self.params)}
        if isinstance(self, Plural):
            out["plural"] = self.plural
        return out

    @staticmethod
    def from_json(data: object) -> Message | None:
        """The message of :meth:`to_json`'s JSON; ``None`` for anything else."""
        if not isinstance(data, dict):
            return None
        template, params, many = data.get("template"), data.get("params"), data.get("plural")
        if not isinstance(template, str) or not isinstance(params, dict):
            return None
        values = {str(k): Message.from_json(v) or v for k, v in params.items()}
        if isinstance(many, str) and isinstance(values.get("n"), int):
            return Plural(template, many, values)
        return Message(template, values)

    def __repr__(self) -> str:
        return f"Message({self.template!r}, {dict(self.params)!r})"

    def __str__(self) -> str:
        return self.render()


def _params_json(params: Mapping[str, object]) -> dict[str, object]:
    return {k: v.to_json() if isinstance(v, Message) else v for k, v in params.items()}


def msg(template: str, /, **params: object) -> Message:
    """A :class:`Message`; ``template`` is a literal marked for extraction (keyword ``msg``)."""
    return Message(template, params)


class Plural(Message):
    """A counted :class:`Message`: the English ``singular`` and ``plural`` templates and the
    count ``n`` (also a parameter, ``{n}``); each language picks its form by its catalog's
    ``Plural-Forms`` (French ``n > 1``, Slovak one/few/other), via ``ngettext``."""

    __slots__ = ("plural",)

    def __init__(self, singular: str, plural: str, params: Mapping[str, object]) -> None:
        super().__init__(singular, params)
        self.plural = plural

    def render(self, gettext: Gettext = _same) -> str:
        """The text in the language of ``gettext``: a function of :func:`gettext_for` (or a
        catalog's bound ``gettext``) picks that language's form, any other the English one."""
        values = {
            k: v.render(gettext) if isinstance(v, Message) else v for k, v in self.params.items()
        }
        n = int(values["n"])  # type: ignore[call-overload]
        catalog = getattr(gettext, "__self__", None)
        if isinstance(catalog, gettext_module.NullTranslations):
            template = catalog.ngettext(self.template, self.plural, n)
        else:
            template = self.template if n == 1 else self.plural
        return template.format_map(values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plural):
            return NotImplemented
        return (self.template, self.plural, dict(self.params)) == (
            other.template,
            other.plural,
            dict(other.params),
        )

    __hash__ = None

    def __reduce__(self) -> tuple[type[Plural], tuple[str, str, dict[str, object]]]:  # type: ignore[override]
        return type(self), (self.template, self.plural, dict(self.params))

    def __repr__(self) -> str:
        return f"Plural({self.template!r}, {self.plural!r}, {dict(self.params)!r})"


def plural(singular: str, plural: str, n: int, /, **params: object) -> Plural:
    """A :class:`Plural` counting ``n`` (``{n}`` in the templates); both templates are
    literals marked for extraction (keyword ``plural``, like gettext's ``ngettext``)."""
    return Plural(singular, plural, {"n": n, **params})


def verbatim(text: str) -> Message:
    """A :class:`Message` that reads ``text`` in every language (a name, a quoted input)."""
    return Message("{text}", {"text": text})


def join(parts: list[Message], separator: str = ", ") -> Message:
    """The parts rendered and joined with ``separator`` (the same in every language; no
    braces)."""
    template = separator.join(f"{{p{i}}}" for i in range(len(parts)))
    return Message(template, {f"p{i}": p for i, p in enumerate(parts)})


@cache
def translations(lang: str) -> gettext_module.NullTranslations:
    """The catalog of ``lang`` (one of :data:`LANGUAGES`; anything else reads English)."""
    if lang not in LANGUAGES or lang == SOURCE_LANGUAGE:
        return gettext_module.NullTranslations()
    return gettext_module.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def gettext_for(lang: str) -> Gettext:
    """``translations(lang).gettext``: the function that translates a marked string."""
    return translations(lang).gettext


def language_of(tag: str | None) -> str | None:
    """The supported language a locale name or language tag names, else ``None``:
    ``fr_BE.UTF-8`` and ``fr-CA`` give ``fr``; ``C``, ``POSIX`` and ``de`` give ``None``."""
    if not tag:
        return None
    primary = tag.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return primary if primary in LANGUAGES else None


def best_language(accept_language: str | None) -> str:
    """The supported language an HTTP ``Accept-Language`` header prefers most (RFC 9110,
    quality values ``q`` from 0 to 1, order breaking ties), else English."""
    choices: list[tuple[float, int, str]] = []
    for i, item in enumerate((accept_language or "").split(",")[:32]):
        tag, _, rest = item.partition(";")
        quality = 1.0
        if rest.strip().lower().startswith("q="):
            try:
                quality = float(rest.strip()[2:])
            except ValueError:
                quality = 0.0
        lang = language_of(tag)
        if lang is not None and quality > 0:
            choices.append((-quality, i, lang))
    return min(choices)[2] if choices else SOURCE_LANGUAGE


def environment_language(env: Mapping[str, str] | None = None) -> str:
    """The terminal's language: ``METROGAMES_LANG``, else the first of gettext's variables
    ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set;
    English when that names no supported language (``C``, ``POSIX``, unset)."""
    env = os.environ if env is None else env
    if env.get("METROGAMES_LANG"):
        return language_of(env["METROGAMES_LANG"]) or SOURCE_LANGUAGE
    locale = env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or ""
    if language_of(locale) is None and locale.split(".")[0] in ("", "C", "POSIX"):
        return SOURCE_LANGUAGE  # GNU gettext ignores LANGUAGE under the C locale
    for name in (env.get("LANGUAGE") or "").split(":"):
        if (lang := language_of(name)) is not None:
            return lang
    return language_of(locale) or SOURCE_LANGUAGE
