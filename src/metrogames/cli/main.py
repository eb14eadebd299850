"""The ``metrogames`` command (Typer): score, replay, analyse, simulate, stats, deals, play,
daily, bench, serve, map, jobs, bot, ratings, export and train.

Contract: ``docs/notation.md``, "Command line". Every command takes ``--json`` for
machine-readable output on stdout; errors go to stderr with a non-zero exit status and a message
naming the offending item and its reason. The application and what its commands share are in
:mod:`metrogames.cli.app`; the commands in :mod:`metrogames.cli.commands`, imported here in the
order ``--help`` lists them (importing a module registers its commands).
"""

from __future__ import annotations

from metrogames.cli.app import app, console_for
from metrogames.cli.helptext import flow_help

# isort: off
# importing a module registers its commands: this order is the order --help lists them in
from metrogames.cli.commands import records
from metrogames.cli.commands import simulate
from metrogames.cli.commands import tables
from metrogames.cli.commands import running
from metrogames.cli.commands import data

# isort: on
from metrogames.cli.commands.records import replay_one

COMMANDS = (records, simulate, tables, running, data)
"""The command modules, in the order their commands are listed."""

flow_help(app)  # once every command is registered

__all__ = ["COMMANDS", "app", "console_for", "replay_one"]
