"""The ``metrogames`` command's Typer application and what its commands share: the
consoles, the ``--version`` and ``--lang`` options, errors (:func:`fail`), JSON output and the
simulator's runners and resumable results files.

Contract: ``docs/notation.md``, "Command line". Every command takes ``--json`` for
machine-readable output on stdout; errors go to stderr with a non-zero exit status and a message
naming the offending item and its reason. The commands themselves are in
:mod:`metrogames.cli.commands`; :mod:`metrogames.cli.main` registers them all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from metrogames import __version__
from metrogames.cli.lang import _, say, tr
from metrogames.core.errors import IllegalActionError, message_of
from metrogames.core.rng import MAX_SEED, check_seed
from metrogames.sim.runner import Result, Task

if TYPE_CHECKING:
    pass  # the web extra: imported by serve only


app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="metrogames: play, score, replay and simulate metro-building board games.",
)


def console_for(**options: Any) -> Console:  # Any: rich's Console keyword arguments, passed on
    """A Rich console (``options``: :class:`rich.console.Console`'s) for a command's output: in
    a terminal, sentences wrap between words at its width (a map is cut at its edge instead:
    ``render.canvas.Fitted``); into a pipe or a file, each printed line stays one line, for
    scripts to read (an error message among them: ``docs/notation.md``, "Command line")."""
    console = Console(**options)
    console.soft_wrap = not console.is_terminal
    return console


out = console_for()


err = console_for(stderr=True)


JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"metrogames {__version__}\n")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """metrogames: play, score, replay and simulate metro-building board games."""


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` to stderr and return the exit to raise."""
    # escaped: messages quote user input ("[from, to]", a name like "[/x]") that rich would
    # otherwise read as markup, dropping text or raising MarkupError
    label = escape(_("error:"))
    err.print(f"[red]{label}[/red] {escape(message)}", markup=True, highlight=False)
    return typer.Exit(code)


def said(exc: BaseException) -> str:
    """An error's message in the terminal's language (an illegal action with its place and
    reason code, as ``play`` shows it; an error raised with plain text stays as it is)."""
    return say(exc.as_message() if isinstance(exc, IllegalActionError) else message_of(exc))


def emit_json(value: object) -> None:
    """One compact JSON document on its own line of stdout (``value``: JSON values, typed
    dicts of them included).

    Raises:
        TypeError: a value ``json`` cannot encode.
    """
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


def _check_out(path: Path) -> None:
    """Refuse (exit 2) an output path that cannot be written: a folder, or in a missing one."""
    if path.is_dir():
        raise fail(tr("cannot write {path}: it is a folder", path=path), 2)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise fail(tr("cannot write {path}: no folder {parent}", path=path, parent=parent), 2)


Runner = Callable[[list[Task]], Iterable[Result]]
"""Plays tasks, yielding their results in order
(:func:`metrogames.cli.commands.simulate._runner`)."""


def _check_seeds(seed: int, count: int) -> None:
    """Exit 2 unless seeds ``seed`` … ``seed + count - 1`` are all valid."""
    try:
        check_seed(seed)
    except ValueError as exc:
        raise fail(f"--seed: {exc}", 2) from None
    if count < 1:
        raise fail("--games must be at least 1", 2)
    if seed + count - 1 > MAX_SEED:
        raise fail(
            f"--seed {seed} with {count} games needs seeds up to {seed + count - 1}, "
            "past the largest seed 2**64-1",
            2,
        )
