"""The figure of ``metrogames stats --plot`` (the ``plots`` extra: matplotlib, Agg backend,
its own DejaVu fonts). Panels: the score distribution of each bot and seat, the mean score
components, and — for paired runs — the per-deal difference with its confidence interval."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from metrogames.sim.stats import Paired, Run

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FORMATS = (".png", ".svg")


def series(runs: Sequence[Run]) -> list[tuple[str, int, Run]]:
    """``(label, seat, run)`` for every seat of every run: ``greedy (seat 0)``, prefixed by
    the file's label when there are several runs."""
    out = []
    for run in runs:
        for seat, bot in enumerate(run.bots):
            label = f"{bot} (seat {seat})" if len(run.bots) > 1 else bot
            if len(runs) > 1:
                label = f"{run.label}: {label}"
            out.append((label, seat, run))
    return out


def draw(runs: Sequence[Run], pair: Paired | None, path: Path) -> None:
    """Write the figure to ``path`` (``.png`` or ``.svg``, by its suffix).

    Raises:
        ValueError: another suffix.
    """
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"--plot {path}: the file must end in .png or .svg")
    from matplotlib.figure import Figure  # Figure alone: no pyplot, no GUI backend

    lines = series(runs)
    panels = 3 if pair is not None else 2
    fig = Figure(figsize=(6.0 * panels, 4.8), layout="constrained")
    axes = fig.subplots(1, panels)
    title = ", ".join(f"{r.label}: {r.game}, {len(r.games)} games" for r in runs)
    fig.suptitle(title, fontsize=11)
    _distributions(axes[0], lines)
    _components(axes[1], lines)
    if pair is not None:
        _paired(axes[2], pair)
    fig.savefig(path, dpi=100)


def _distributions(ax: Axes, lines: list[tuple[str, int, Run]]) -> None:
    scores = [[g.scores[seat] for g in run.games] for _, seat, run in lines]
    low = min(min(s) for s in scores)
    high = max(max(s) for s in scores)
    width = max(1, (high - low + 1) // 30)
    bins = list(range(low, high + width + 1, width))
    for (label, _, _), values in zip(lines, scores, strict=True):
        mean = sum(values) / len(values)
        ax.hist(values, bins=bins, histtype="step", linewidth=1.6,
                label=f"{label}: mean {mean:.1f}")  # fmt: skip
    ax.set_title("Score distribution")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)


def _components(ax: Axes, lines: list[tuple[str, int, Run]]) -> None:
    """Mean components per series: stacked when they add up to the total in every game
    (Next Station), else side by side with the total (Metro's longest route is in tiles)."""
    names: list[str] = []
    means: list[dict[str, float]] = []
    additive = True
    for _, seat, run in lines:
        comp: dict[str, float] = {}
        for g in run.games:
            parts = g.components[seat]
            additive &= sum(v for k, v in parts.items() if k != "total") == parts.get("total")
            for name, value in parts.items():
                comp[name] = comp.get(name, 0.0) + value / len(run.games)
                if name not in names:
                    names.append(name)
        means.append(comp)
    if additive:
        names = [n for n in names if n != "total"]
    labels = [label for label, _, _ in lines]
    ys = list(range(len(lines)))
    colours = _colours(len(names))
    if additive:
        pos = [0.0] * len(lines)
        neg = [0.0] * len(lines)
        for name, colour in zip(names, colours, strict=True):
            values = [m.get(name, 0.0) for m in means]
            lefts = [pos[i] if v >= 0 else neg[i] + v for i, v in enumerate(values)]
            ax.barh(ys, [abs(v) for v in values], left=lefts, color=colour, label=name,
                    edgecolor="white", linewidth=0.5)  # fmt: skip
            for i, v in enumerate(values):
                if v >= 0:
                    pos[i] += v
                else:
                    neg[i] += v
        ax.set_title("Mean score components")
    else:
        height = 0.8 / len(names)
        for k, (name, colour) in enumerate(zip(names, colours, strict=True)):
            offsets = [y - 0.4 + height * (k + 0.5) for y in ys]
            ax.barh(offsets, [m.get(name, 0.0) for m in means], height=height, color=colour,
                    label=name)  # fmt: skip
        ax.set_title("Mean score components (not parts of the total)")
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("mean points" if additive else "mean (each component in its own unit)")
    ax.legend(
        fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=min(4, len(names) or 1)
    )


def _paired(ax: Axes, pair: Paired) -> None:
    diffs = pair.differences
    low, high = min(diffs), max(diffs)
    width = max(1, (high - low + 1) // 30)
    ax.hist(diffs, bins=list(range(low, high + width + 1, width)),
            color="#8da0cb", edgecolor="white")  # fmt: skip
    lo, hi = pair.interval
    ax.axvspan(lo, hi, color="#fc8d62", alpha=0.35,
               label=f"{pair.level:.0%} CI [{lo:.2f}, {hi:.2f}]")  # fmt: skip
    ax.axvline(pair.mean, color="#d95f02", linewidth=2,
               label=f"mean {pair.mean:.2f}")  # fmt: skip
    ax.axvline(0, color="black", linewidth=0.8, linestyle="--")
    ax.set_title(f"Per-deal difference ({pair.n} deals)")
    ax.set_xlabel(f"{pair.a}  −  {pair.b}", fontsize=8)
    ax.set_ylabel("deals")
    ax.legend(fontsize=8)


def _colours(n: int) -> list[str]:
    base = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
            "#666666", "#1f78b4", "#b2df8a"]  # fmt: skip
    return [base[i % len(base)] for i in range(n)]
