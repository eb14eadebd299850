"""Options whose value may be left out (``--ray`` or ``--ray ADDRESS``), which Typer lacks.

Click has them (``is_flag=False, flag_value=...``); Typer's own parser does not, so a command
built with :func:`optional_value_command` fills in the option's stand-in value before parsing
when the option is last or followed by another option (a word starting with ``-``). The
option is then declared as an ordinary ``str | None`` option. As with Click, a bare option
followed by a positional argument takes that argument as its value.
"""

from __future__ import annotations

from typing import Any

import typer.core


def fill_optional_values(args: list[str], defaults: dict[str, str]) -> list[str]:
    """``args`` with ``defaults[name]`` inserted after each option ``name`` given without a
    value (last, or before ``--``/another option); ``--name=value`` is left as it is."""
    filled: list[str] = []
    for i, word in enumerate(args):
        filled.append(word)
        if word == "--":
            return filled + args[i + 1 :]
        if word in defaults and (i + 1 == len(args) or args[i + 1].startswith("-")):
            filled.append(defaults[word])
    return filled


def optional_value_command(defaults: dict[str, str]) -> type[typer.core.TyperCommand]:
    """A Typer command class (for ``app.command(cls=...)``) in which each option of
    ``defaults`` (``{"--ray": "local"}``) takes its stand-in value when given bare."""

    class OptionalValueCommand(typer.core.TyperCommand):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # Any: typer._click's
            return super().parse_args(ctx, fill_optional_values(list(args), defaults))

    return OptionalValueCommand
