"""Gymnasium: solo Next Station (London, Paris) as a single-agent environment.

``gymnasium.make("metrogames/London-v0")`` / ``"metrogames/Paris-v0"`` after ``import
metrogames.envs`` (options as keyword arguments, e.g. ``powers="random"``,
``observation="box"``); ``gymnasium.make_vec`` with the same ids and options. Contract in
``docs/research.md``, "Common rules", "Observations: Next Station" and "Flat observations".
"""

from __future__ import annotations

from typing import cast

import gymnasium
import numpy as np
from gymnasium import spaces

from metrogames.core.protocol import Action, JsonValue, State
from metrogames.envs.common import (
    IllegalMode,
    Info,
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
from metrogames.games import load_game

SEAT = 0
Obs = dict[str, np.ndarray] | np.ndarray
"""An observation: the named fields (``observation="fields"``) or one flat array (``"box"``)."""


class NextStationSoloEnv(FlatObservations, gymnasium.Env[Obs, np.int64]):
    """One player's game of Next Station (``city`` ``london`` or ``paris``).

    * Actions: ``Discrete(game.num_distinct_actions)``, the dense action index
      (``docs/notation.md``, "Dense action index"); ``info["action_mask"]`` and
      :meth:`action_masks` give the legal ones.
    * Observations: the :class:`~metrogames.envs.encoders.NextStationEncoder` fields, built
      from ``state.view(0)`` (``docs/research.md``): ``observation="fields"`` (the default)
      a ``Dict`` of named arrays; ``"box"`` one flat ``int16`` array, a ``Box``
      (:class:`~metrogames.envs.flat.FlatLayout`), whose fields :meth:`~metrogames.envs.flat.FlatObservations.unflatten` gives
      back.
    * Reward: the change of the player's total score (``state.scores()[0]``), so an episode's
      rewards add up to the final score; plus ``illegal_penalty`` for each illegal action.
    * ``reset(seed=s)`` deals ``game.new_game(s)``; ``reset()`` draws the deal's seed from the
      environment's generator. Card flips happen inside ``reset`` and ``step``.
    * An illegal action (``illegal_action``): ``"pass"`` (default) plays ``pass`` instead,
      adds ``illegal_penalty`` to the reward and sets ``info["illegal_action"]``; ``"raise"``
      raises :class:`~metrogames.core.errors.IllegalActionError` naming the rule broken, and
      the state is unchanged.

    Raises:
        OptionError: (on construction) an unknown city or option.
        ValueError: (on construction) an unknown ``render_mode``, ``illegal_action`` or
            ``observation``.
    """

    encoder: NextStationEncoder  # (the drawing reads its city)
    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012  (gymnasium's)

    def __init__(
        self,
        city: str = "london",
        *,
        render_mode: str | None = None,
        illegal_action: str = "pass",
        illegal_penalty: float = -1.0,
        observation: str = "fields",
        **options: JsonValue,
    ) -> None:
        self.game = load_game(city, players=1, **options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.illegal_action: IllegalMode = check_illegal_mode(illegal_action, self.game)
        self.illegal_penalty = float(illegal_penalty)
        self.observation: ObservationMode = check_observation_mode(observation)
        self.encoder = NextStationEncoder(self.game)
        self.layout = FlatLayout(self.encoder.space)
        self.fields_space: spaces.Dict = self.encoder.space
        """The named fields' ``Dict`` space, whatever the observation mode."""
        chosen = self.layout.space if self.observation == "box" else self.encoder.space
        self.observation_space = cast(spaces.Space[Obs], chosen)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        self._state: State[Action] | None = None
        self._legal: dict[int, Action] = {}
        self._score = 0
        self._deal = 0

    @property
    def engine_state(self) -> State[Action]:
        """The engine state of the episode (a full state: it shows the deck order).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _observe(self) -> tuple[Obs, Info]:
        state = self.engine_state
        self._legal = legal_by_index(self.game, state, SEAT)
        obs: Obs = self._encode(state, SEAT)
        info: Info = {
            "action_mask": action_mask(self.game.num_distinct_actions, self._legal),
            "deal": self._deal,
            "score": self._score,
        }
        return obs, info

    def reset(
        self, *, seed: int | None = None, options: Info | None = None
    ) -> tuple[Obs, Info]:
        """Deal a new game: ``new_game(seed)`` when ``seed`` is given (``options`` are not
        used; game options are given to the constructor)."""
        super().reset(seed=seed)
        self._deal = deal_seed(seed, self.np_random)
        state = self.game.new_game(self._deal)
        advance_chance(state, self.np_random)
        self._state = state
        self._score = state.scores()[SEAT]
        return self._observe()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Obs, float, bool, bool, Info]:
        """Play ``action`` (a dense index), then the card flips up to the next turn.

        Raises:
            RuntimeError: the episode is over (call ``reset``).
            IllegalActionError: an illegal action in the ``raise`` mode.
        """
        state = self.engine_state
        if state.is_over():
            raise RuntimeError("the game is over: call reset()")
        chosen, illegal = resolve_action(
            self.game, state, SEAT, action, self._legal, self.illegal_action
        )
        state.apply_in_place(SEAT, chosen, check=False)
        advance_chance(state, self.np_random)
        score = state.scores()[SEAT]
        reward = float(score - self._score) + (self.illegal_penalty if illegal else 0.0)
        self._score = score
        obs, info = self._observe()
        info["illegal_action"] = illegal
        return obs, reward, state.is_over(), False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now as booleans (the ``MaskablePPO`` convention)."""
        return action_mask(self.game.num_distinct_actions, self._legal).astype(bool)

    def render(self) -> str | None:
        """``ansi``: the position as text (round, card, score, the snapshot)."""
        if self.render_mode != "ansi":
            return None
        state = self.engine_state
        return render_text(state, self.encoder, SEAT)


def render_text(state: State[Action], encoder: NextStationEncoder, seat: int) -> str:
    """A short text picture of what ``seat`` sees of the full ``state``: round, card, scores,
    lines and the view's snapshot."""
    obs = encoder.encode(state.view(seat), seat)
    card = [encoder.cards[i] for i in np.flatnonzero(obs["card"])]
    rounds = np.flatnonzero(obs["round"])
    out = [
        f"{state.game.name}: round {int(rounds[0]) + 1 if len(rounds) else 'over'}, "
        f"card {card[0] if card else '-'}, scores {state.scores()}"
    ]
    for rel in range(encoder.players):
        for c, colour in enumerate(encoder.colours):
            links = np.flatnonzero(obs["lines"][rel, c])
            if len(links):
                drawn = " ".join(
                    f"{encoder.station_names[encoder.link_ends[j][0]]}-"
                    f"{encoder.station_names[encoder.link_ends[j][1]]}"
                    for j in links
                )
                out.append(f"  seat {(seat + rel) % encoder.players} {colour}: {drawn}")
    out.append(state.view(seat).snapshot())
    return "\n".join(out) + "\n"
