"""The map studio's report panel: how a map plays (``docs/web-api.md``, "Maps";
``docs/maps.md``, "Reporting on a map"), computed by the ``mapreport`` heavy job.

Each bot level of :data:`LEVELS` plays the map solo on each deal of :data:`DEALS` (a game as
``simulate --bots LEVEL --seed S`` plays it: :func:`metrogames.bots.solo.solo_game`): the
figures ``metrogames map report FILE --games 2 --seed 1`` prints for the same map. Two deals
keep the job to seconds (a ``hard`` game on London takes about 7 s of one CPU); the command's
default is 10.
"""

from __future__ import annotations

import math
from collections import Counter

from metrogames.bots.solo import drawn_links, solo_game
from metrogames.core.protocol import JsonObject, JsonValue

LEVELS = ("medium", "hard")
"""The bot levels of the panel."""
DEALS = (1, 2)
"""The deals' seeds (the same for every map: London's and Paris's rows are computed once)."""


def map_report_json(game: str, options: JsonValue) -> JsonObject:
    """How ``game`` with ``options`` (a custom map: ``{"map": …}``) plays: ``{"deals",
    "levels": {level: {"mean", "std", "min", "max", "components", "shares"}}, "stations",
    "links"}``. Scores are points (``std`` the population's); ``components`` each score
    component's mean (``total`` among them), ``shares`` each one's part of the mean total
    (0–1, ``total`` left out); ``stations`` and ``links`` (``"A1-B1"``, the two names in
    order) the share of all the games (every level's) whose lines use the station or draw
    the link — the heat map.

    Raises:
        OptionError: a bad game or options.
    """
    levels: dict[str, JsonValue] = {}
    stations: Counter[str] = Counter()
    links: Counter[str] = Counter()
    played = 0
    for level in LEVELS:
        games = [solo_game(game, options, level, seed) for seed in DEALS]
        totals = [float(g.components["total"]) for g in games]
        mean = sum(totals) / len(totals)
        names = list(games[0].components)
        means = {n: sum(g.components[n] for g in games) / len(games) for n in names}
        levels[level] = {
            "mean": mean,
            "std": math.sqrt(sum((t - mean) ** 2 for t in totals) / len(totals)),
            "min": min(totals),
            "max": max(totals),
            "components": dict(means),
            "shares": {n: means[n] / mean if mean else 0.0 for n in names if n != "total"},
        }
        for g in games:
            drawn = set(drawn_links(g.record))
            links.update("-".join(sorted(link)) for link in drawn)
            stations.update(set().union(*drawn) if drawn else set())
            played += 1
    return {
        "deals": list(DEALS),
        "levels": levels,
        "stations": {k: v / played for k, v in sorted(stations.items())},
        "links": {k: v / played for k, v in sorted(links.items())},
    }
