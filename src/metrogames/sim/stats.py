"""Statistics of results files (``metrogames stats``): a summary per seat and the paired
difference between two bots on the same deals, with a Student-t confidence interval.

Pure Python (no NumPy or SciPy): the t quantile is found by bisection on the t distribution's
CDF, computed from the regularized incomplete beta function.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from metrogames.sim.results import GameResult
from metrogames.sim.runner import SeatSummary, summarise


@dataclass(frozen=True)
class Run:
    """The games of one results file: its label (the file name), game, bots."""

    label: str
    games: list[GameResult]

    @property
    def game(self) -> str:
        return self.games[0].game if self.games else ""

    @property
    def bots(self) -> tuple[str, ...]:
        return self.games[0].bots if self.games else ()

    def summary(self) -> list[SeatSummary]:
        """:func:`metrogames.sim.runner.summarise` of the run's games."""
        return summarise([g.result() for g in self.games], len(self.bots))


@dataclass(frozen=True)
class Paired:
    """Per-deal differences ``a - b`` and their mean with a confidence interval.

    Attributes:
        a, b: what is compared (``"greedy (seat 0)"``, or a file's label).
        differences: one per deal, in the order of the first run.
        level: the confidence level (0.95).
    """

    a: str
    b: str
    differences: list[int]
    level: float = 0.95

    @property
    def n(self) -> int:
        return len(self.differences)

    @property
    def mean(self) -> float:
        return sum(self.differences) / self.n if self.n else 0.0

    @property
    def sd(self) -> float:
        """Sample standard deviation (``n - 1``)."""
        if self.n < 2:
            return 0.0
        m = self.mean
        return math.sqrt(sum((d - m) ** 2 for d in self.differences) / (self.n - 1))

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The two-sided ``level`` interval of the mean difference (the mean itself with
        fewer than two deals)."""
        if self.n < 2:
            return (self.mean, self.mean)
        half = t_quantile(0.5 + self.level / 2, self.n - 1) * self.se
        return (self.mean - half, self.mean + half)

    def to_json(self) -> dict[str, object]:
        low, high = self.interval
        return {
            "a": self.a,
            "b": self.b,
            "deals": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "se": self.se,
            "level": self.level,
            "low": low,
            "high": high,
            "a_better": sum(d > 0 for d in self.differences),
            "b_better": sum(d < 0 for d in self.differences),
            "ties": sum(d == 0 for d in self.differences),
        }


def paired(runs: Sequence[Run], seat: int = 0) -> Paired | None:
    """The paired comparison the runs allow: two runs of one game — seat ``seat`` of the
    first minus the same seat of the second, on the deals both played (paired by manifest
    line or seed); one run with two seats or more — seat 0 minus seat 1, game by game (the
    same deal at one table). ``None`` otherwise.

    Raises:
        ValueError: two runs of different games, a seat they do not have, or no common deal.
    """
    if len(runs) == 1 and len(runs[0].bots) >= 2:
        run = runs[0]
        diffs = [g.scores[0] - g.scores[1] for g in run.games]
        return Paired(f"{run.bots[0]} (seat 0)", f"{run.bots[1]} (seat 1)", diffs)
    if len(runs) != 2:
        return None
    first, second = runs
    if first.game != second.game:
        raise ValueError(f"cannot pair {first.label} ({first.game}) with {second.label} "
                         f"({second.game}): not the same game")  # fmt: skip
    if not (seat < len(first.bots) and seat < len(second.bots)):
        raise ValueError(f"--seat {seat}: both runs need that seat")
    other = {g.key: g for g in second.games}
    diffs = [g.scores[seat] - other[g.key].scores[seat] for g in first.games if g.key in other]
    if not diffs:
        raise ValueError(f"{first.label} and {second.label} have no deal in common")
    label = f" (seat {seat})" if len(first.bots) > 1 else ""
    return Paired(
        f"{first.label}: {first.bots[seat]}{label}",
        f"{second.label}: {second.bots[seat]}{label}",
        diffs,
    )


# -- the t distribution --------------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
        + b * math.log1p(-x)
    )  # fmt: skip
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be between 0 and 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2.0
