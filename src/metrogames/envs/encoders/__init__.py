"""Observation encoders: the one per-game part of :mod:`metrogames.envs`.

Everything else in ``envs/`` is game-agnostic and talks to the games through the registry and
the protocol only. An encoder turns what one seat may know — built from ``state.view(seat)``
alone — into fixed-shape NumPy arrays, through the game's capabilities
(:mod:`metrogames.core.capabilities`) and facts only:

* the view's observation facts, ``view.observe(seat)`` (``Observable``: plain indices; the
  game computes them from its own state, so no encoder parses a position),
* the game's drawing data, the engine's ``board_json()`` (``Boards``; ``docs/web-api.md``,
  "Boards"), whose lists give the indices their meaning,
* the game's ``score_range`` (``GameType``), the bounds of the score fields.

:func:`metrogames.envs.common.encoder_for` picks a game's encoder by its family.

No engine class or module is imported here. The fields, their shapes and meanings are listed in
``docs/research.md``.
"""

from metrogames.envs.encoders.metro import MetroEncoder
from metrogames.envs.encoders.nextstation import NextStationEncoder

__all__ = ["MetroEncoder", "NextStationEncoder"]
