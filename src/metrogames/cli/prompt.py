"""Reading a move at the terminal: the words every terminal game understands."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.console import Console, RenderableType

from metrogames.cli.lang import say
from metrogames.core.errors import IllegalActionError, message_of

QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"help", "?", "h"})


class QuitGame(Exception):  # noqa: N818 - a signal, not an error
    """The player typed a quit word, or input ended (end of file, Ctrl-C)."""


def read_line(input_fn: Callable[[str], str], prompt: str) -> str:
    """One line from ``input_fn``; a quit word or the end of input raises :class:`QuitGame`."""
    try:
        text = input_fn(prompt)
    except (EOFError, KeyboardInterrupt):
        raise QuitGame from None
    if text.strip().lower() in QUIT_WORDS:
        raise QuitGame
    return text


def read_move(
    input_fn: Callable[[str], str],
    prompt: str,
    console: Console,
    help_text: str,
    commands: Mapping[str, Callable[[], RenderableType]],
    arg_commands: Mapping[str, Callable[[str], RenderableType]] | None = None,
) -> str:
    """Read lines until one is not a command, and return it (a move to parse).

    Blank lines are skipped, ``help``/``?``/``h`` print ``help_text``, a word of ``commands``
    prints what its function returns (``moves``, ``map``, …), and a line whose first word is
    one of ``arg_commands`` what that function returns given the rest of the line (``hint
    D3-G3``).

    Raises:
        QuitGame: a quit word or the end of input.
    """
    while True:
        text = read_line(input_fn, prompt)
        word = text.strip().lower()
        if not word:
            continue
        if word in HELP_WORDS:
            console.print(help_text)
        elif word in commands:
            console.print(commands[word]())
        elif arg_commands and (first := word.split()[0]) in arg_commands:
            console.print(arg_commands[first](text.strip()[len(first) :]))
        else:
            return text


def refusal_text(exc: Exception) -> str:
    """What a player is told when a move is refused: the rule's detail and code for an illegal
    move (without the round/turn prefix they are looking at) in the terminal's language, else
    the error's message."""
    if isinstance(exc, IllegalActionError):
        return f"{say(exc.detail_message())} ({exc.reason})"
    return say(message_of(exc))
