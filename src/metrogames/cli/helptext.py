"""``--help`` texts that flow at any width: Typer keeps the single line breaks of a command's
docstring (the source's wrapping) in the commands' list and in the paragraphs after the first,
so a description broke mid-sentence at any terminal width. :func:`flow_help` joins each
paragraph's lines into one, which the help then wraps at the terminal's width."""

from __future__ import annotations

import inspect

import typer


def flow(text: str) -> str:
    """``text`` (a docstring) with each paragraph on one line; paragraphs stay apart (a blank
    line), and a paragraph Click keeps as written (starting ``\\b``) is kept."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs
    )


def flow_help(app: typer.Typer) -> None:
    """Flow the help of every command of ``app`` and of its sub-apps (their docstrings and
    ``help`` texts), in place; called once every command is registered."""
    for command in app.registered_commands:
        if command.help:
            command.help = flow(command.help)
        elif command.callback is not None and command.callback.__doc__:
            command.help = flow(command.callback.__doc__)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            flow_help(group.typer_instance)
