"""Metro (Dirk Henn): the tile-laying rules engine. See ``rules/metro.md``."""
from metrogames.games.metro.options import MetroOptions
from metrogames.games.metro.state import MetroGame, MetroState

__all__ = ["MetroGame", "MetroOptions", "MetroState"]
