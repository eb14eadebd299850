"""Game options from command-line flags, built from the games' own option specs.

Each option a game offers the command line (an :class:`~metrogames.core.protocol.OptionSpec`
with a ``help``) is a flag named after it (``turn_mode``: ``--turn-mode``) with the game's help
text; the commands that start games (``play``, ``simulate``) take the flags of every known game
(:func:`game_options_command`), and refuse those of another game than the one asked for. A
flag's text becomes the option's JSON value by the game's own syntax where it has one (the
``OptionText`` capability: Next Station's ``--objectives random`` or ``thames-6,all-districts``,
``--powers blue=joker,pink=switch,...``), else as written (Metro's ``--turn-mode hand``).
``--rules NAME`` starts from a game's named rule set (its presets: Metro's ``seed``, ``box``),
which the other flags adjust. The engine checks the values themselves.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core
import typer.main

from metrogames.core.capabilities import OptionText
from metrogames.core.errors import NotationError
from metrogames.core.protocol import JsonObject, JsonValue
from metrogames.games import game_engine, game_names, game_type

RULES = "rules"
"""The name of the ``--rules`` flag among the flags given."""
PARAM_PREFIX = "game_flag__"
"""Click's parameter names of the generated flags (apart from the command's own)."""
GIVEN = "metrogames.game_flags"
"""The key of the flags given (option name -> text or ``None``) in the command's context."""


@dataclass(frozen=True)
class Flag:
    """A game option's command-line flag.

    Attributes:
        option: the option's name (``turn_mode``).
        flag: the flag (``--turn-mode``).
        help: its help line (the games' help texts for the option, each once).
    """

    option: str
    flag: str
    help: str


def flag_of(option: str) -> str:
    """The flag of option ``option``: ``--`` and its name with dashes (``--one-tile-routes``)."""
    return "--" + option.replace("_", "-")


def option_flags() -> list[Flag]:
    """The flags of every known game's options that have a command-line help, in game order
    then option order (an option of several games is one flag)."""
    helps: dict[str, list[str]] = {}
    for name in game_names(unlisted=True):
        for option, spec in game_type(name).options.items():
            if spec.help is not None and spec.help not in helps.setdefault(option, []):
                helps[option].append(spec.help)
    return [
        Flag(option, flag_of(option), " ".join(texts)) for option, texts in helps.items() if texts
    ]


def rules_help() -> str:
    """The ``--rules`` help: what the flag does, then each game's rule sets (its presets, with
    their ``brief``)."""
    games = []
    for name in game_names():
        kind = game_type(name)
        if kind.presets:
            sets = "; ".join(
                f"{key}, {preset.brief}" if preset.brief else key
                for key, preset in kind.presets.items()
            )
            games.append(f"{kind.title}: {sets}")
    listed = f" ({'; '.join(games)})" if games else ""
    return f"A named rule set, adjusted by the other option flags{listed}."


def flag_params() -> list[Any]:  # Any: Typer's private Click's Parameter (typer._click)
    """Typer's (Click) options for :func:`option_flags` and ``--rules`` (each ``str | None``),
    built by Typer itself from a signature, so they read and show like the commands' own."""
    decls = [(PARAM_PREFIX + f.option, f.flag, f.help) for f in option_flags()]
    decls.append((PARAM_PREFIX + RULES, "--rules", rules_help()))
    stub: Any = lambda **_: None  # noqa: E731 - read for its __signature__ (no type has one)
    stub.__signature__ = inspect.Signature(
        [
            inspect.Parameter(
                param,
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[str | None, typer.Option(flag, help=text)],
            )
            for param, flag, text in decls
        ]
    )
    stub.__name__ = "flags"
    app = typer.Typer(add_completion=False)
    app.command()(stub)
    return list(typer.main.get_command(app).params)


def game_options_command(
    before: str, base: type[typer.core.TyperCommand] = typer.core.TyperCommand
) -> type[typer.core.TyperCommand]:
    """A Typer command class (for ``app.command(cls=...)``) with the game option flags and
    ``--rules`` (:func:`flag_params`) listed before its parameter ``before``; the command's
    function takes a ``typer.Context`` and reads them with :func:`given_flags`. A flag that
    would shadow one of the command's own options is left out."""

    class GameOptionsCommand(base):  # type: ignore[valid-type, misc]
        def get_params(self, ctx: typer.Context) -> list[Any]:  # Any: as flag_params'
            params: list[Any] = super().get_params(ctx)
            taken = {opt for p in params for opt in p.opts}
            extra = [p for p in flag_params() if not taken & set(p.opts)]
            at = next(i for i, p in enumerate(params) if p.name == before)
            return params[:at] + extra + params[at:]

        def invoke(self, ctx: typer.Context) -> object:
            ctx.meta[GIVEN] = {
                key.removeprefix(PARAM_PREFIX): ctx.params.pop(key)
                for key in [k for k in ctx.params if k.startswith(PARAM_PREFIX)]
            }
            return super().invoke(ctx)

    return GameOptionsCommand


def given_flags(ctx: typer.Context) -> dict[str, str | None]:
    """The game option flags and ``--rules`` of a :func:`game_options_command` command as
    given: option name (``rules`` for ``--rules``) -> its text, or ``None``."""
    given: dict[str, str | None] = ctx.meta.get(GIVEN, {})
    return given


def game_options(game: str, given: Mapping[str, str | None]) -> dict[str, JsonValue]:
    """The ``options`` object (JSON form) for ``game`` from the flags given (:func:`given_flags`;
    an empty text counts as not given): the named rule set's options first (``rules``:
    ``GameType.presets``), then each flag's value by the game's syntax.

    Raises:
        NotationError: a flag for an option the game does not have, an unknown rule set, or
            bad syntax (the message names the flag).
        OptionError: an unknown game.
    """
    kind = game_type(game)
    options: dict[str, JsonValue] = {}
    rules = given.get(RULES)
    if rules is not None:
        preset = kind.presets.get(rules)
        if preset is None:
            names = ", ".join(kind.presets) or f"none: {game} has no named rule sets"
            raise NotationError(f"--rules: unknown rule set {rules!r:.40} (known: {names})")
        options.update(preset.options)
    engine = game_engine(game)
    for option, text in given.items():
        if option == RULES or not text:
            continue
        spec = kind.options.get(option)
        if spec is None or spec.help is None:
            theirs = [flag_of(o) for o, s in kind.options.items() if s.help is not None]
            raise NotationError(
                f"{flag_of(option)} is not an option of {game} "
                f"(its flags: {', '.join(theirs) or 'none'})"
            )
        if isinstance(engine, OptionText):
            try:
                options[option] = engine.option_from_text(option, text)
            except NotationError as exc:
                raise NotationError(f"{flag_of(option)}: {exc}") from None
        else:
            options[option] = text
    return options


RECORDS = Path("var") / "records"
"""Where terminal games are saved unless ``--out`` says otherwise (relative to the current
folder; the same ``var/`` folder holds the web table's database)."""


def default_record_path(game: str, seed: int) -> Path:
    """``var/records/metrogames-<game>-<seed>.json``, its folder created; when a game of that
    seed was saved there already, ``…-<seed>-2.json``, ``-3`` … (never another game's file)."""
    RECORDS.mkdir(parents=True, exist_ok=True)
    path = RECORDS / f"metrogames-{game}-{seed}.json"
    copy = 2
    while path.exists():
        path = RECORDS / f"metrogames-{game}-{seed}-{copy}.json"
        copy += 1
    return path


def save_record(path: Path, record: JsonObject) -> None:
    """Write ``record`` to ``path`` as JSON (one key per line, readable and diffable)."""
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
