"""Learning environments over the games: Gymnasium and PettingZoo (the ``rl`` extra).

An adapter like ``web/`` and ``cli/``: it reaches the games only through the registry and the
protocol; the per-game observation encoders live in :mod:`metrogames.envs.encoders`. Importing
this package registers the Gymnasium environments:

* ``gymnasium.make("metrogames/London-v0", **options)`` and ``"metrogames/Paris-v0"``: solo
  Next Station (:class:`~metrogames.envs.gym_nextstation.NextStationSoloEnv`), the named
  fields (a ``Dict``) or, with ``observation="box"``, one flat array (a ``Box``); the ids work
  with ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="sync"|"async")`` too;
* :func:`metro_env` — Metro for 2–6 players, a PettingZoo AEC environment;
* :func:`nextstation_parallel_env` — multi-player London or Paris, a PettingZoo Parallel
  environment.

Usage, encodings and the action index: ``docs/research.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import gymnasium

from metrogames.core.protocol import JsonValue

if TYPE_CHECKING:
    from metrogames.envs.pz_metro import MetroAECEnv
    from metrogames.envs.pz_nextstation import NextStationParallelEnv

GYM_IDS = {"london": "metrogames/London-v0", "paris": "metrogames/Paris-v0"}
"""City -> the Gymnasium id of its solo environment."""

for _city, _id in GYM_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point="metrogames.envs.gym_nextstation:NextStationSoloEnv",
            kwargs={"city": _city},
        )


def metro_env(
    players: int = 2,
    turn_mode: str = "draw",
    one_tile_routes: str = "allowed",
    render_mode: str | None = None,
    observation: str = "box",
) -> MetroAECEnv:
    """A PettingZoo AEC environment of Metro (``docs/research.md``, "Common rules",
    "Observations: Metro"): ``obs["observation"]`` one flat array (``observation="box"``,
    ``metrogames_metro_v1``) or the named fields (``"fields"``, ``metrogames_metro_v0``).

    Raises:
        OptionError: a player count or option value Metro does not take.
        ValueError: an unknown ``render_mode`` or ``observation``.
    """
    from metrogames.envs.pz_metro import MetroAECEnv

    return MetroAECEnv(
        players=players,
        turn_mode=turn_mode,
        one_tile_routes=one_tile_routes,
        render_mode=render_mode,
        observation=observation,
    )


def nextstation_parallel_env(
    city: str = "london",
    players: int = 2,
    render_mode: str | None = None,
    illegal_action: str = "pass",
    illegal_penalty: float = -1.0,
    observation: str = "box",
    **options: JsonValue,
) -> NextStationParallelEnv:
    """A PettingZoo Parallel environment of Next Station for 1–4 players
    (``docs/research.md``, "Common rules", "Observations: Next Station"):
    ``obs[agent]["observation"]`` one flat array (``observation="box"``,
    ``metrogames_nextstation_v1``) or the named fields (``"fields"``,
    ``metrogames_nextstation_v0``).

    Raises:
        OptionError: an unknown city, player count or option.
        ValueError: an unknown ``render_mode``, ``illegal_action`` or ``observation``.
    """
    from metrogames.envs.pz_nextstation import NextStationParallelEnv

    return NextStationParallelEnv(
        city=city,
        players=players,
        render_mode=render_mode,
        illegal_action=illegal_action,
        illegal_penalty=illegal_penalty,
        observation=observation,
        **options,
    )


__all__ = ["GYM_IDS", "metro_env", "nextstation_parallel_env"]
