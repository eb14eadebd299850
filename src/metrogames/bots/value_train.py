"""Offline training of a learned position value (:mod:`metrogames.bots.value`), the work of
``metrogames train value`` (``docs/research.md``, "A learned position value").

Data: ``games`` solo games of the game, game ``i`` on the deal of seed ``seed + i`` (or line
``i`` of a deal manifest), played by the greedy bot (seeded ``seed + i``) except that with
probability ``explore`` a decision is a uniformly random legal action instead (more varied
positions). Every position where a card is due (the afterstates the value search values) gives
one example: the player's features (``ValueFeatured``) and a target in points still to come:

* ``deep`` (default): the game's deep estimate (``DeepEvaluated``, a one-card-lookahead greedy
  playout on the deal's real card order) minus ``scores()`` now — what the expert's own
  estimate says the rest of the game is worth;
* ``final``: the game's final score minus ``scores()`` now (the behaviour policy's return).

Fit: the last tenth of the games is held out; the network (``hidden`` tanh units) is fitted by
full-batch Adam on the mean squared error for ``steps`` steps, from weights drawn with the seed,
so the same command and seed give the same weights file. A checkpoint (``.npz``) keeps the data
collected and the fit's progress; resuming from it gives the weights an uninterrupted run gives,
and refuses a checkpoint of another configuration.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from metrogames.bots.base import make_bot
from metrogames.bots.value import Array, ValueModel, WeightsError
from metrogames.core.capabilities import DeepEvaluated, ValueFeatured
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.core.rng import Rng
from metrogames.games import game_engine, load_game

TARGETS = ("deep", "final")
LEARNING_RATE = 0.01
CHECKPOINT_STEPS = 250
"""Fit steps between two checkpoints."""


@dataclass(frozen=True)
class TrainConfig:
    """One training run: the game, games played, base seed, target (:data:`TARGETS`),
    exploration rate, hidden units and fit steps; ``deals``: a manifest's deal records instead
    of seeded deals (its length fixes ``games``)."""

    game: str
    games: int
    seed: int
    target: str = "deep"
    explore: float = 0.1
    hidden: int = 32
    steps: int = 1500

    def check(self) -> None:
        """Raises ValueError for a setting out of range."""
        if self.games < 2:
            raise ValueError(f"training needs at least 2 games, not {self.games}")
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r} (known: {', '.join(TARGETS)})")
        if not 0 <= self.explore <= 1:
            raise ValueError(f"the exploration rate is a probability, not {self.explore}")
        if self.hidden < 0 or self.steps < 0:
            raise ValueError("hidden units and fit steps cannot be negative")


def first_states(
    game: str, config: TrainConfig, deals: Sequence[object] | None
) -> list[State[Action]]:
    """The first state of every training game: a manifest's deals (refused when they are
    another game's: the engine's ``RecordError``) or the seeded deals ``seed + i``."""
    if deals is not None:
        engine = game_engine(game)
        return [engine.from_deal(deal, 1) for deal in deals]
    rules = load_game(game, players=1)
    return [rules.new_game(config.seed + i) for i in range(config.games)]


def play_examples(
    start: State[Action], config: TrainConfig, index: int
) -> tuple[list[list[float]], list[float]]:
    """Game ``index`` of the run played from ``start`` (see the module docstring): its
    examples' features and targets."""
    state = start.clone()
    if not isinstance(state, ValueFeatured) or (
        config.target == "deep" and not isinstance(state, DeepEvaluated)
    ):
        raise ValueError(f"{state.game.name} has no value features or deep estimate to learn")
    bot = make_bot("greedy", config.seed + index)
    rng = Rng(config.seed + index, "explore")
    xs: list[list[float]] = []
    nows: list[int] = []
    deep: list[float] = []
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            xs.append(state.value_features(0))
            nows.append(state.scores()[0])
            if config.target == "deep":
                assert isinstance(state, DeepEvaluated)
                deep.append(state.deep_heuristic(0))
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        legal = state.legal_actions(0)
        if rng.below(1_000_000) < config.explore * 1_000_000:
            action = rng.choice(legal)
        else:
            action = bot.decide(state.view(0), 0, legal)
        state.apply_in_place(0, action, check=False)
    final = state.scores()[0]
    ends = deep if config.target == "deep" else [float(final)] * len(nows)
    return xs, [e - now for e, now in zip(ends, nows, strict=True)]


@dataclass
class Progress:
    """A run's state, kept in its checkpoint: games played, their examples (features, targets,
    game of each), the fit's parameters, Adam moments and steps done."""

    games_done: int
    x: list[list[float]]
    y: list[float]
    game_of: list[int]
    params: dict[str, Array] | None = None
    moments: dict[str, Array] | None = None
    step: int = 0


def save_checkpoint(path: Path, config: TrainConfig, progress: Progress) -> None:
    """Write ``progress`` of the run ``config`` to the checkpoint ``path`` (whole, then
    renamed)."""
    arrays: dict[str, Any] = {  # Any: as ValueModel.save's (np.savez's **arrays)
        "config": np.array(json.dumps(asdict(config), sort_keys=True)),
        "games_done": np.array(progress.games_done),
        "x": np.array(progress.x, dtype=np.float64).reshape(len(progress.x), -1),
        "y": np.array(progress.y, dtype=np.float64),
        "game_of": np.array(progress.game_of, dtype=np.int64),
        "step": np.array(progress.step),
    }
    for prefix, part in (("p_", progress.params), ("m_", progress.moments)):
        for name, value in (part or {}).items():
            arrays[prefix + name] = value
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def load_checkpoint(path: Path, config: TrainConfig) -> Progress:
    """The progress kept in checkpoint ``path``.

    Raises:
        WeightsError: an unreadable checkpoint, or one of another configuration (the message
            names the file and the settings that differ).
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            saved = json.loads(str(data["config"]))
            if saved != asdict(config):
                differ = sorted(
                    k
                    for k in saved.keys() | asdict(config).keys()
                    if saved.get(k) != asdict(config).get(k)
                )
                raise WeightsError(
                    f"{path}: a checkpoint of another run (differs in {', '.join(differ)})"
                )
            part = {
                p: {k[2:]: data[k] for k in data.files if k.startswith(p)} for p in ("p_", "m_")
            }
            x = data["x"].tolist()
            return Progress(
                int(data["games_done"]),
                x,
                data["y"].tolist(),
                data["game_of"].tolist(),
                part["p_"] or None,
                part["m_"] or None,
                int(data["step"]),
            )
    except FileNotFoundError:
        raise WeightsError(f"{path}: no such checkpoint") from None
    except (OSError, KeyError, ValueError, EOFError) as exc:
        if isinstance(exc, WeightsError):
            raise
        raise WeightsError(f"{path}: not a readable training checkpoint ({exc})") from None


def init_params(features: int, hidden: int, seed: int, y_mean: float) -> dict[str, Array]:
    """The network's first weights, drawn from ``seed`` (the output bias: the mean target)."""
    rng = np.random.default_rng(seed)
    if hidden:
        return {
            "w1": rng.normal(0, 1 / np.sqrt(features), (features, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden),
            "b2": np.array([y_mean]),
        }
    return {
        "w1": np.zeros((features, 0)),
        "b1": np.zeros(0),
        "w2": np.zeros(features),
        "b2": np.array([y_mean]),
    }


def gradients(params: dict[str, Array], z: Array, y: Array) -> tuple[float, dict[str, Array]]:
    """The mean squared error of the network on standardised features ``z`` ``(n, F)`` and
    targets ``y`` ``(n,)``, and its gradient by parameter."""
    n = len(y)
    if params["b1"].shape[0]:
        h = np.tanh(z @ params["w1"] + params["b1"])
        err = h @ params["w2"] + params["b2"][0] - y
        g_out = 2 * err / n
        g_h = np.outer(g_out, params["w2"]) * (1 - h * h)
        grads = {
            "w1": z.T @ g_h,
            "b1": g_h.sum(0),
            "w2": h.T @ g_out,
            "b2": np.array([g_out.sum()]),
        }
    else:
        err = z @ params["w2"] + params["b2"][0] - y
        g_out = 2 * err / n
        grads = {
            "w1": params["w1"] * 0,
            "b1": params["b1"] * 0,
            "w2": z.T @ g_out,
            "b2": np.array([g_out.sum()]),
        }
    return float(np.mean(err * err)), grads


def adam_step(
    params: dict[str, Array], moments: dict[str, Array], grads: dict[str, Array], step: int
) -> None:
    """One Adam step (β 0.9, 0.999; :data:`LEARNING_RATE`) in place; ``step`` counts from 1."""
    for name, g in grads.items():
        m = moments[f"{name}_m"] = 0.9 * moments[f"{name}_m"] + 0.1 * g
        v = moments[f"{name}_v"] = 0.999 * moments[f"{name}_v"] + 0.001 * g * g
        m_hat = m / (1 - 0.9**step)
        v_hat = v / (1 - 0.999**step)
        params[name] = params[name] - LEARNING_RATE * m_hat / (np.sqrt(v_hat) + 1e-8)


def train(
    config: TrainConfig,
    checkpoint: Path | None = None,
    deals: Sequence[object] | None = None,
    report: Callable[[str], None] = lambda _: None,
    resume: bool = False,
) -> ValueModel:
    """Run ``config`` (see the module docstring) and return the model; with ``checkpoint``,
    keep the progress there (every few games and :data:`CHECKPOINT_STEPS` fit steps) and,
    with ``resume``, continue from it. ``report`` receives one-line progress messages.

    Raises:
        ValueError: a bad setting, or a game without value features.
        RecordError: a manifest of another game.
        WeightsError: a checkpoint that cannot be resumed.
    """
    config.check()
    if not isinstance(load_game(config.game).new_game(config.seed), ValueFeatured):
        raise ValueError(f"{config.game} has no value features (ValueFeatured): nothing to train")
    starts = first_states(config.game, config, deals)
    progress = (
        load_checkpoint(checkpoint, config) if resume and checkpoint else Progress(0, [], [], [])
    )
    spec_state = starts[0]
    assert isinstance(spec_state, ValueFeatured)  # checked above
    version, names = spec_state.value_feature_spec()
    every = max(1, len(starts) // 10)
    for i in range(progress.games_done, len(starts)):
        xs, ys = play_examples(starts[i], config, i)
        progress.x += xs
        progress.y += ys
        progress.game_of += [i] * len(ys)
        progress.games_done = i + 1
        if checkpoint and (i + 1) % every == 0:
            save_checkpoint(checkpoint, config, progress)
            report(f"games {i + 1}/{len(starts)}: {len(progress.y)} examples")
    x = np.array(progress.x, dtype=np.float64)
    y = np.array(progress.y, dtype=np.float64)
    held = np.array(progress.game_of) >= len(starts) - max(1, len(starts) // 10)
    fit_x, fit_y = x[~held], y[~held]
    mean = fit_x.mean(0)
    std = fit_x.std(0)
    std[std == 0] = 1.0
    z = (fit_x - mean) / std
    if progress.params is None or progress.moments is None:
        progress.params = init_params(len(names), config.hidden, config.seed, float(fit_y.mean()))
        progress.moments = {
            f"{k}_{s}": np.zeros_like(v) for k, v in progress.params.items() for s in "mv"
        }
    loss = float("nan")
    while progress.step < config.steps:
        loss, grads = gradients(progress.params, z, fit_y)
        progress.step += 1
        adam_step(progress.params, progress.moments, grads, progress.step)
        if checkpoint and progress.step % CHECKPOINT_STEPS == 0:
            save_checkpoint(checkpoint, config, progress)
            report(f"fit step {progress.step}/{config.steps}: training RMSE {loss**0.5:.2f}")
    p = progress.params
    model = ValueModel(
        config.game, version, tuple(names), mean, std, p["w1"], p["b1"], p["w2"], p["b2"]
    )
    held_rmse = float(np.sqrt(np.mean((model.predict(x[held]) - y[held]) ** 2)))
    fit_rmse = float(np.sqrt(np.mean((model.predict(fit_x) - fit_y) ** 2)))
    base = float(np.sqrt(np.mean((y[held] - fit_y.mean()) ** 2)))
    model.training = {
        **asdict(config),
        "examples": len(y),
        "held_out_examples": int(held.sum()),
        "rmse_fit": round(fit_rmse, 3),
        "rmse_held_out": round(held_rmse, 3),
        "rmse_held_out_constant": round(base, 3),
        "manifest": deals is not None,
    }
    if checkpoint:
        save_checkpoint(checkpoint, config, progress)
    return model
