"""The map checker's problems: a stable code and a translatable sentence each.

Source: ``docs/maps.md`` ("The checker"). A :class:`Problem` is what :mod:`.mapcheck` (and
:meth:`.citymap.CityMap.problems`) finds: its ``code`` (``station-outside-grid``,
``link-not-straight``, ``format``…: the same in every language, for a client to decide on) and
its ``text``, an English :class:`~metrogames.i18n.Message` the catalogs translate (``fr``,
``nl``, ``sk``). The format's model refuses in pydantic's words; :func:`schema_problems`
words the usual refusals as messages the catalogs know (their English exactly pydantic's), any
other in pydantic's English.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from metrogames.i18n import Message, msg, plural, verbatim

MAX_SHOWN = 50
"""The most problems a report lists (a broken file could have thousands)."""


@dataclass(frozen=True)
class Problem:
    """One problem of a map: ``code`` (stable, ``docs/maps.md``) and ``text`` (English
    :class:`~metrogames.i18n.Message`; ``str()`` is its English rendering)."""

    code: str
    text: Message

    def __str__(self) -> str:
        return self.text.render()

    def to_json(self) -> dict[str, Any]:
        """``{"code", "template", "params"}``: the problem across a process boundary (the
        ``mapcheck`` job; :meth:`~metrogames.i18n.Message.from_json` reads the text back)."""
        return {"code": self.code, **self.text.to_json()}


def schema_problems(exc: ValidationError) -> list[Problem]:
    """The format model's refusals (code ``format``): ``{place}: {what}``, the place in the
    map's own keys (``grid.columns``, ``stations[0].symbol``)."""
    out = []
    for error in exc.errors()[:MAX_SHOWN]:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p:.40}" for p in error["loc"])
        out.append(
            Problem(
                "format",
                msg("{place}: {rule}", place=where.lstrip(".") or "map", rule=_rule(error)),
            )
        )
    return out


_FIXED = {
    "missing": msg("Field required"),
    "extra_forbidden": msg("Extra inputs are not permitted"),
    "int_type": msg("Input should be a valid integer"),
    "int_parsing": msg("Input should be a valid integer, unable to parse string as an integer"),
    "int_from_float": msg("Input should be a valid integer, got a number with a fractional part"),
    "float_type": msg("Input should be a valid number"),
    "string_type": msg("Input should be a valid string"),
    "bool_type": msg("Input should be a valid boolean"),
    "list_type": msg("Input should be a valid list"),
    "tuple_type": msg("Input should be a valid tuple"),
    "dict_type": msg("Input should be a valid dictionary"),
    "model_type": msg("Input should be an object"),
}
"""Pydantic's refusals without parameters, by error type."""


def _rule(error: Any) -> Message:
    """Pydantic's sentence for ``error`` as a message the catalogs know, when one words it
    exactly as pydantic did (else pydantic's English, as it is)."""
    kind, ctx, said = error["type"], error.get("ctx") or {}, error["msg"]
    found: Message | None = _FIXED.get(kind)
    if kind == "less_than_equal":
        found = msg("Input should be less than or equal to {le}", le=ctx.get("le"))
    elif kind == "greater_than_equal":
        found = msg("Input should be greater than or equal to {ge}", ge=ctx.get("ge"))
    elif kind == "literal_error":
        found = msg("Input should be {expected}", expected=ctx.get("expected"))
    elif kind == "string_pattern_mismatch":
        found = msg("String should match pattern '{pattern}'", pattern=ctx.get("pattern"))
    elif kind == "string_too_long":
        found = plural(
            "String should have at most {n} character",
            "String should have at most {n} characters",
            int(ctx.get("max_length", 0)),
        )
    elif kind == "string_too_short":
        found = plural(
            "String should have at least {n} character",
            "String should have at least {n} characters",
            int(ctx.get("min_length", 0)),
        )
    elif kind in ("too_long", "too_short"):
        found = _length(kind, ctx)
    return found if found is not None and found.render() == said else verbatim(said)


def _length(kind: str, ctx: Any) -> Message | None:
    """``List should have at most 4 items after validation, not 5`` (lists, tuples and
    dictionaries)."""
    what = {"List": msg("List"), "Tuple": msg("Tuple"), "Dictionary": msg("Dictionary")}
    field = what.get(str(ctx.get("field_type")))
    if field is None:
        return None
    actual = ctx.get("actual_length")
    if kind == "too_long":
        return plural(
            "{what} should have at most {n} item after validation, not {actual}",
            "{what} should have at most {n} items after validation, not {actual}",
            int(ctx.get("max_length", 0)),
            what=field,
            actual=actual,
        )
    return plural(
        "{what} should have at least {n} item after validation, not {actual}",
        "{what} should have at least {n} items after validation, not {actual}",
        int(ctx.get("min_length", 0)),
        what=field,
        actual=actual,
    )
