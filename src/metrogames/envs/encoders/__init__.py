"""Observation encoders: the one per-game part of :mod:`metrogames.envs`.

Everything else in ``envs/`` is game-agnostic and talks to the games through the registry and
the protocol only. An encoder turns what one seat may know — built from ``state.view(seat)``
alone — into fixed-shape NumPy arrays, reading only public, documented formats:

* the view's position snapshot (``docs/notation.md``, "Position snapshot"),
* the game's drawing data, ``game_type(name).board_json()`` (``docs/web-api.md``, "Boards"),
* the game's part of a view, ``game_type(name).view_json(view, seat)`` (``docs/web-api.md``,
  "Views").

No engine class or module is imported here. The fields, their shapes and meanings are listed in
``docs/research.md``.
"""

from metrogames.envs.encoders.metro import MetroEncoder
from metrogames.envs.encoders.nextstation import NextStationEncoder

__all__ = ["MetroEncoder", "NextStationEncoder"]
