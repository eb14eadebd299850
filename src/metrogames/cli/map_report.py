"""``metrogames map report FILE``: how a custom map plays, against the family's cities.

Each bot level plays the same deals (seeds ``seed .. seed + games - 1``) solo on the map and on
every listed game of the map game's family (London and Paris); the report gives per map and
level the mean score and its spread, the mean of each score component, and how much of the map
the lines use: links drawn per game and the share of the map's links drawn in any game, read
off the records' sections (``docs/notation.md``, "Game record"). Source: ``docs/maps.md``,
"Reporting on a map".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from metrogames.bots.solo import drawn_links
from metrogames.core.capabilities import Boards, MapChecks
from metrogames.core.protocol import JsonObject, JsonValue
from metrogames.games import game_engine, game_names, game_type
from metrogames.sim.runner import Result, Stats, Task, run_many, summarise


@dataclass(frozen=True)
class Row:
    """One map played by one bot level: ``scores`` (points), the mean of each component,
    links drawn per game (mean) and the share of the map's links drawn in any game."""

    map: str
    level: str
    scores: Stats
    components: dict[str, float]
    links_per_game: float
    links_used: float

    def to_json(self) -> JsonObject:
        s = self.scores
        return {
            "map": self.map,
            "level": self.level,
            "score": {"mean": s.mean, "std": s.std, "min": s.min, "max": s.max},
            "components": dict(self.components),
            "links_per_game": self.links_per_game,
            "links_used": self.links_used,
        }


def play_row(
    label: str, game: str, options: dict[str, JsonValue], level: str, seeds: range, workers: int
) -> Row:
    """``level`` playing ``game`` solo on each seed of ``seeds``, summed up as a :class:`Row`."""
    tasks = [Task(game, (level,), seed, options, None, True) for seed in seeds]
    results: Sequence[Result] = list(run_many(tasks, workers))
    links = link_count(game, options)
    drawn = [drawn_links(r.record) for r in results]
    used = set().union(*map(set, drawn)) if drawn else set()
    summary = summarise(results, 1)[0]
    return Row(
        label,
        level,
        summary["score"],
        summary["components"],
        sum(map(len, drawn)) / max(1, len(drawn)),
        len(used) / max(1, links),
    )


def link_count(game: str, options: dict[str, JsonValue]) -> int:
    """The number of links on ``game``'s map: a custom map's from the checker's counts
    (``MapChecks``), a city's from its board (``Boards``); 0 when neither says."""
    engine = game_engine(game)
    if "map" in options and isinstance(engine, MapChecks):
        counts = engine.check_map(options["map"])["counts"]
        found = counts.get("links") if isinstance(counts, dict) else None
        return found if isinstance(found, int) else 0
    if isinstance(engine, Boards):
        links = engine.board_json().get("links")
        return len(links) if isinstance(links, list) else 0
    return 0


def family_games(game: str) -> list[str]:
    """The listed games of ``game``'s renderer family (for ``nextstation``: London, Paris)."""
    family = game_type(game).family
    return [name for name in game_names() if game_type(name).family == family]


def map_rows(
    game: str, data: JsonValue, levels: Sequence[str], seeds: range, workers: int
) -> list[Row]:
    """The report's rows: the map, then each family game, each at every level."""
    rows = [play_row("this map", game, {"map": data}, level, seeds, workers) for level in levels]
    for other in family_games(game):
        rows += [play_row(other, other, {}, level, seeds, workers) for level in levels]
    return rows


def draw_rows(rows: Sequence[Row], path: Path) -> None:
    """``map report --plot``: mean score ± one standard deviation per map and level, and the
    mean score components stacked (by ``path``'s suffix, ``.png`` or ``.svg``; the ``plots``
    extra, imported here only).

    Raises:
        ImportError: matplotlib is missing.
    """
    from matplotlib.figure import Figure

    labels = [f"{row.map}\n{row.level}" for row in rows]
    fig = Figure(figsize=(11.0, 4.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    means = [row.scores.mean for row in rows]
    left.bar(labels, means, yerr=[row.scores.std for row in rows], capsize=4, color="#4c72b0")
    left.set_title("Mean solo score (± 1 std)")
    left.set_ylabel("points")
    names = sorted({n for row in rows for n in row.components if n != "total"})
    bottom = [0.0] * len(rows)
    for name in names:
        heights = [row.components.get(name, 0.0) for row in rows]
        right.bar(labels, heights, bottom=bottom, label=name)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    right.set_title("Mean score components")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.tick_params(axis="x", labelsize=8)
    fig.savefig(path, dpi=100)
