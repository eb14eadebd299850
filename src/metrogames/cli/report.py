"""Rich tables for score sheets (``score``) and simulation summaries (``simulate``), in the
terminal's language (labels and numbers; ``--json`` and result files stay English)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from metrogames.cli.lang import _, decimal, ntr, tr
from metrogames.cli.render import renderer_for
from metrogames.games import game_type

if TYPE_CHECKING:
    from metrogames.core.protocol import JsonObject
    from metrogames.sim.runner import SeatSummary
    from metrogames.sim.stats import Paired


def print_sheet(console: Console, game: str, result: JsonObject) -> None:
    """Print a ``score --json`` result of ``game`` as its renderer's score sheet table."""
    console.print(renderer_for(game_type(game)).sheet(game, result))


def print_summary(
    console: Console, game: str, bots: list[str], games: int, summary: list[SeatSummary]
) -> None:
    """Print a simulation summary, one column per seat: mean, standard deviation, min, max,
    wins (with several seats) and the mean of each score component."""
    title = ntr("{game}: {n} game", "{game}: {n} games", games, game=game)
    table = Table(title=title, title_style="bold")
    table.add_column("")
    for seat, code in enumerate(bots):
        table.add_column(tr("seat {seat}: {code}", seat=seat, code=code), justify="right")
    stats = [s["score"] for s in summary]
    table.add_row(_("mean"), *(decimal(st.mean, "0.00") for st in stats))
    table.add_row(_("std"), *(decimal(st.std, "0.00") for st in stats))
    table.add_row(_("min"), *(decimal(st.min, "0") for st in stats))
    table.add_row(_("max"), *(decimal(st.max, "0") for st in stats))
    if len(bots) > 1:
        table.add_row(_("wins"), *(decimal(s["wins"], "0.0") for s in summary))
    for name in summary[0]["components"] if summary else []:
        label = tr("mean {component}", component=_(name).replace("_", " "))
        table.add_row(label, *(decimal(s["components"][name], "0.00") for s in summary))
    console.print(table)


def print_paired(console: Console, pair: Paired) -> None:
    """Print a paired comparison: deals, mean difference, its confidence interval, and how
    often each side scored more."""
    data = pair.to_json()
    table = Table(title=tr("paired: {a} − {b}", a=pair.a, b=pair.b), title_style="bold")
    table.add_column("")
    table.add_column(_("per deal"), justify="right")
    table.add_row(_("deals"), str(pair.n))
    table.add_row(_("mean difference"), decimal(pair.mean, "0.00"))
    table.add_row(_("std (n-1)"), decimal(pair.sd, "0.00"))
    table.add_row(_("std error"), decimal(pair.se, "0.00"))
    low, high = (decimal(x, "0.00") for x in pair.interval)
    level = decimal(100 * pair.level, "0")
    table.add_row(tr("{level}% CI", level=level), tr("[{low}, {high}]", low=low, high=high))
    table.add_row(_("first scores more"), str(data["a_better"]))
    table.add_row(_("second scores more"), str(data["b_better"]))
    table.add_row(_("ties"), str(data["ties"]))
    console.print(table)
