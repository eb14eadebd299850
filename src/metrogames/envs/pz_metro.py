"""PettingZoo: Metro as an AEC (turn-based) environment for 2–6 players.

Made by :func:`metrogames.envs.metro_env`. Contract in ``docs/research.md``, "Common
rules" and "Observations: Metro".
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from metrogames.core.protocol import Action, State
from metrogames.envs.common import (
    Info,
    MaskedObservation,
    action_mask,
    advance_chance,
    deal_seed,
    legal_by_index,
    resolve_action,
)
from metrogames.envs.encoders import MetroEncoder
from metrogames.envs.flat import (
    FlatLayout,
    FlatObservations,
    ObservationMode,
    check_observation_mode,
)
from metrogames.games import load_game


def agent_name(seat: int) -> str:
    """The agent of seat ``seat``: ``player_0``, ``player_1``, …"""
    return f"player_{seat}"

_NAMES: dict[ObservationMode, str] = {
    "box": "metrogames_metro_v1",
    "fields": "metrogames_metro_v0",
}
"""The environment's name (``metadata["name"]``) by observation mode: ``v1`` flat."""


class MetroAECEnv(FlatObservations, AECEnv[str, MaskedObservation, int]):  # type: ignore[misc]
    """Metro, one agent per seat (``player_0`` … ``player_{n-1}``, seat order).

    * ``observe(agent)``: ``{"observation": ..., "action_mask": int8}``, built from
      ``state.view(seat)`` only: another seat's held tiles never reach it. The observation is
      the :class:`~metrogames.envs.encoders.MetroEncoder` fields, flattened into one ``int16``
      array (a ``Box``; ``observation="box"``, the default, ``metrogames_metro_v1``; the
      fields back: :meth:`~metrogames.envs.flat.FlatObservations.unflatten`) or as a ``Dict`` of named arrays (``"fields"``,
      ``metrogames_metro_v0``).
    * Actions: ``Discrete(1537)``, the dense index (``tile * 64 + square``; 1536 = ``draw`` in
      the ``official-hand`` mode); an illegal one raises
      :class:`~metrogames.core.errors.IllegalActionError` (the state is unchanged).
    * Rewards: after each placement, every agent's change of score (a placement can complete
      other seats' routes), so an agent's rewards add up to its final score.
    * ``reset(seed=s)`` deals ``new_game(s)``; tile draws happen inside ``reset``/``step``.
    """

    metadata = {  # noqa: RUF012  (PettingZoo's class attribute)
        "render_modes": ["ansi"],
        "render_fps": 1,
        "name": "metrogames_metro_v1",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        turn_mode: str = "draw",
        one_tile_routes: str = "allowed",
        render_mode: str | None = None,
        observation: str = "box",
    ) -> None:
        super().__init__()
        self.game = load_game(
            "metro", players=players, turn_mode=turn_mode, one_tile_routes=one_tile_routes
        )
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.observation: ObservationMode = check_observation_mode(observation)
        self.metadata = {**type(self).metadata, "name": _NAMES[self.observation]}
        self.encoder = MetroEncoder(self.game)
        self.layout = FlatLayout(self.encoder.space)
        self.fields_space: spaces.Dict = self.encoder.space
        """The named fields' ``Dict`` space, whatever the observation mode."""
        inner = self.layout.space if self.observation == "box" else self.encoder.space
        self.possible_agents = [agent_name(s) for s in range(players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        size = self.game.num_distinct_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {"observation": inner, "action_mask": spaces.MultiBinary(size)}
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._state: State[Action] | None = None
        self._legal: dict[int, Action] = {}
        self._scores: list[int] = [0] * players
        self.deal = 0

    def observation_space(self, agent: str) -> spaces.Space[object]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def engine_state(self) -> State[Action]:
        """The engine state of the episode (a full state: it shows every hand).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _rng(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(None)
        return self._np_random

    def _select(self) -> None:
        state = self.engine_state
        movers = state.to_move()
        if movers:
            (seat,) = movers
            self.agent_selection = agent_name(seat)
        self._legal = legal_by_index(self.game, state, self._seat[self.agent_selection])

    def reset(self, seed: int | None = None, options: Info | None = None) -> None:
        """Deal ``new_game(seed)`` (``seed`` given) or a deal drawn from the environment's
        generator; ``options`` are not used."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        rng = self._rng()
        self.deal = deal_seed(seed, rng)
        state = self.game.new_game(self.deal)
        advance_chance(state, rng)
        self._state = state
        self._scores = list(state.scores())
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, Info] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._select()

    def observe(self, agent: str) -> MaskedObservation:
        seat = self._seat[agent]
        state = self.engine_state
        legal = self._legal if agent == self.agent_selection else {}
        return {
            "observation": self._encode(state, seat),
            "action_mask": action_mask(self.game.num_distinct_actions, legal),
        }

    def step(self, action: int | None) -> None:
        """Play the selected agent's ``action`` (a dense index; ``None`` for an agent whose
        game is over), then the tile draws up to the next placement.

        Raises:
            IllegalActionError: an index the mask does not allow.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is an action only once the game is over")
        state = self.engine_state
        seat = self._seat[agent]
        chosen, _ = resolve_action(self.game, state, seat, action, self._legal, "raise")
        state.apply_in_place(seat, chosen, check=False)
        advance_chance(state, self._rng())
        scores = list(state.scores())
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {
            a: float(scores[s] - self._scores[s]) for a, s in self._seat.items()
        }
        self._scores = scores
        if state.is_over():
            self.terminations = dict.fromkeys(self.agents, True)
            self._legal = {}
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the scores and the public position (the spectator's snapshot)."""
        if self.render_mode != "ansi":
            return None
        state = self.engine_state
        return f"metro: scores {state.scores()}\n{state.view(None).snapshot()}\n"

    def close(self) -> None:
        """Nothing to release."""
