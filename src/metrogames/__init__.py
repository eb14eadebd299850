"""metrogames — the digital table and laboratory for metro-building board games.

The engine (``metrogames.core`` and ``metrogames.games``) imports nothing heavy; adapters
(command line, web, simulation) sit on top of it. See ``docs/architecture.md``.
"""

from metrogames.core.errors import (
    DataError,
    GameOverError,
    IllegalActionError,
    MetrogamesError,
    NotationError,
    NotYourTurnError,
    RecordError,
)

__all__ = [
    "DataError",
    "GameOverError",
    "IllegalActionError",
    "MetrogamesError",
    "NotYourTurnError",
    "NotationError",
    "RecordError",
]

__version__ = "0.1.0"
