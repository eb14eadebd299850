"""PettingZoo: Next Station (London, Paris) as a Parallel environment for 1–4 players.

Made by :func:`metrogames.envs.nextstation_parallel_env`. Every player acts on each card at
once, as at the table. Contract in ``docs/research.md``, "Common rules" and
"Observations: Next Station".
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from metrogames.core.protocol import Action, JsonValue, State
from metrogames.envs.common import (
    IllegalMode,
    Info,
    MaskedObservation,
    action_mask,
    advance_chance,
    check_illegal_mode,
    deal_seed,
    legal_by_index,
    resolve_action,
)
from metrogames.envs.encoders import NextStationEncoder
from metrogames.envs.flat import (
    FlatLayout,
    FlatObservations,
    ObservationMode,
    check_observation_mode,
)
from metrogames.envs.gym_nextstation import render_text
from metrogames.envs.pz_metro import agent_name
from metrogames.games import load_game

Obs = MaskedObservation

_NAMES: dict[ObservationMode, str] = {
    "box": "metrogames_nextstation_v1",
    "fields": "metrogames_nextstation_v0",
}
"""The environment's name (``metadata["name"]``) by observation mode: ``v1`` flat."""


class NextStationParallelEnv(FlatObservations, ParallelEnv[str, Obs, int]):  # type: ignore[misc]
    """Next Station, one agent per seat (``player_0`` …), all acting on each card together.

    * Observations: ``{"observation": ..., "action_mask": int8}`` per agent, built from that
      agent's ``state.view(seat)``: the :class:`~metrogames.envs.encoders.NextStationEncoder`
      fields flattened into one ``int16`` array (a ``Box``; ``observation="box"``, the
      default, ``metrogames_nextstation_v1``; the fields back: :meth:`~metrogames.envs.flat.FlatObservations.unflatten`) or as a
      ``Dict`` of named arrays (``"fields"``, ``metrogames_nextstation_v0``).
    * Actions: ``Discrete(game.num_distinct_actions)``; ``step`` needs one action per agent.
      An illegal action: ``illegal_action="pass"`` (default) plays ``pass`` instead and adds
      ``illegal_penalty`` to that agent's reward (``infos[agent]["illegal_action"]``);
      ``"raise"`` raises :class:`~metrogames.core.errors.IllegalActionError` before any
      agent's action is applied.
    * Rewards: each agent's change of total score; an episode's rewards add up to the final
      score (plus penalties).
    * ``reset(seed=s)`` deals ``new_game(s)``; card flips happen inside ``reset``/``step``.
    """

    encoder: NextStationEncoder  # (the drawing reads its city)
    metadata = {  # noqa: RUF012  (PettingZoo's class attribute)
        "render_modes": ["ansi"],
        "render_fps": 1,
        "name": "metrogames_nextstation_v1",
    }

    def __init__(
        self,
        city: str = "london",
        players: int = 2,
        render_mode: str | None = None,
        illegal_action: str = "pass",
        illegal_penalty: float = -1.0,
        observation: str = "box",
        **options: JsonValue,
    ) -> None:
        self.game = load_game(city, players=players, **options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.illegal_action: IllegalMode = check_illegal_mode(illegal_action, self.game)
        self.illegal_penalty = float(illegal_penalty)
        self.observation: ObservationMode = check_observation_mode(observation)
        self.metadata = {**type(self).metadata, "name": _NAMES[self.observation]}
        self.encoder = NextStationEncoder(self.game)
        self.layout = FlatLayout(self.encoder.space)
        self.fields_space: spaces.Dict = self.encoder.space
        """The named fields' ``Dict`` space, whatever the observation mode."""
        inner = self.layout.space if self.observation == "box" else self.encoder.space
        self.possible_agents = [agent_name(s) for s in range(players)]
        self.agents: list[str] = []
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
        self._legal: dict[str, dict[int, Action]] = {}
        self._scores: list[int] = [0] * players
        self.deal = 0

    def observation_space(self, agent: str) -> spaces.Space[object]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def engine_state(self) -> State[Action]:
        """The engine state of the episode (a full state: it shows the decks).

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

    def _observe_all(self) -> dict[str, Obs]:
        state = self.engine_state
        size = self.game.num_distinct_actions
        self._legal = {
            a: legal_by_index(self.game, state, s) for a, s in self._seat.items()
        }
        return {
            a: {
                "observation": self._encode(state, s),
                "action_mask": action_mask(size, self._legal[a]),
            }
            for a, s in self._seat.items()
        }

    def reset(
        self, seed: int | None = None, options: Info | None = None
    ) -> tuple[dict[str, Obs], dict[str, Info]]:
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
        return self._observe_all(), {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, Info],
    ]:
        """Play one card: every agent to move acts (``actions[agent]``, a dense index), then
        the card flips up to the next turn.

        Raises:
            RuntimeError: the game is over (call ``reset``).
            KeyError: an agent to move has no action.
            IllegalActionError: an illegal action in the ``raise`` mode (nothing applied).
        """
        state = self.engine_state
        if state.is_over() or not self.agents:
            raise RuntimeError("the game is over: call reset()")
        chosen: list[tuple[int, Action]] = []
        illegal: dict[str, bool] = {}
        for agent in self.agents:
            seat = self._seat[agent]
            if seat not in state.to_move():
                continue
            if agent not in actions:
                raise KeyError(f"{agent} is to move and has no action")
            action, was_illegal = resolve_action(
                self.game, state, seat, actions[agent], self._legal[agent], self.illegal_action
            )
            chosen.append((seat, action))
            illegal[agent] = was_illegal
        for seat, action in chosen:
            state.apply_in_place(seat, action, check=False)
        advance_chance(state, self._rng())
        scores = list(state.scores())
        rewards = {
            a: float(scores[s] - self._scores[s])
            + (self.illegal_penalty if illegal.get(a) else 0.0)
            for a, s in self._seat.items()
        }
        self._scores = scores
        obs = self._observe_all()
        over = state.is_over()
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, Info] = {a: {"illegal_action": illegal.get(a, False)} for a in self.agents}
        if over:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """``ansi``: seat 0's view (round, card, scores, every seat's lines)."""
        if self.render_mode != "ansi":
            return None
        return render_text(self.engine_state, self.encoder, 0)

    def close(self) -> None:
        """Nothing to release."""
