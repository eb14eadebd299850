"""``python -m metrogames``: the same command line as the ``metrogames`` script.

Every command, option and exit code is the one documented in ``docs/commands.md``; this module
only names the program so that ``--help`` reads ``metrogames`` rather than ``__main__.py``.
"""

from metrogames.cli.main import app

if __name__ == "__main__":
    app(prog_name="metrogames")
