"""The process that writes one month's export to its standard output (``python -m
metrogames.web.exports.writer``): the server streams a download from it, so replaying a month
of games never runs in the interpreter that serves moves (``docs/web-api.md``, "Open data").

Input, from the environment (never the command line, which other users of the machine can
read): ``METROGAMES_EXPORT_DB`` (the database URL), ``METROGAMES_EXPORT_KEY`` (the export
secret, hexadecimal), ``METROGAMES_EXPORT_MONTH`` (``YYYY-MM``) and ``METROGAMES_EXPORT_NOW``
(the server's time, seconds since the epoch: a month not over is exported up to it). Output:
the compressed export (:func:`~metrogames.web.exports.fileformat.compressed`), chunk by chunk;
exit status 0 once it is whole, 1 (nothing more written) on any failure.
"""

from __future__ import annotations

import os
import sys

from metrogames.web.exports.fileformat import compressed
from metrogames.web.exports.games import MonthGames
from metrogames.web.exports.months import parse_month
from metrogames.web.infra.db import open_database, session_factory

NICE = 10
"""How much lower than the serving process the writer runs (``os.nice``), as the job pool's
slow lane does."""


def main() -> int:
    """Write the export the environment names to standard output; the exit status."""
    os.nice(NICE)
    month = parse_month(os.environ["METROGAMES_EXPORT_MONTH"])
    engine = open_database(os.environ["METROGAMES_EXPORT_DB"])
    try:
        games = MonthGames(
            session_factory(engine),
            bytes.fromhex(os.environ["METROGAMES_EXPORT_KEY"]),
            month,
            float(os.environ["METROGAMES_EXPORT_NOW"]),
        )
        out = sys.stdout.buffer
        for chunk in compressed(games.header(), games.lines()):
            out.write(chunk)
        out.flush()
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the download was given up: the server closed the pipe
        sys.exit(1)
