"""Rich tables for score sheets (``score``) and simulation summaries (``simulate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from metrogames.cli.render import renderer_for
from metrogames.games import game_type

if TYPE_CHECKING:
    from metrogames.sim.stats import Paired


def print_sheet(console: Console, game: str, result: dict[str, Any]) -> None:
    """Print a ``score --json`` result of ``game`` as its renderer's score sheet table."""
    console.print(renderer_for(game_type(game)).sheet(game, result))


def print_summary(
    console: Console, game: str, bots: list[str], games: int, summary: list[dict[str, Any]]
) -> None:
    """Print a simulation summary, one column per seat: mean, standard deviation, min, max,
    wins (with several seats) and the mean of each score component."""
    table = Table(title=f"{game}: {games} games", title_style="bold")
    table.add_column("")
    for seat, code in enumerate(bots):
        table.add_column(f"seat {seat}: {code}", justify="right")
    stats = [s["score"] for s in summary]
    table.add_row("mean", *(f"{st.mean:.2f}" for st in stats))
    table.add_row("std", *(f"{st.std:.2f}" for st in stats))
    table.add_row("min", *(f"{st.min:.0f}" for st in stats))
    table.add_row("max", *(f"{st.max:.0f}" for st in stats))
    if len(bots) > 1:
        table.add_row("wins", *(f"{s['wins']:.1f}" for s in summary))
    for name in summary[0]["components"] if summary else []:
        table.add_row(f"mean {name}", *(f"{s['components'][name]:.2f}" for s in summary))
    console.print(table)


def print_paired(console: Console, pair: Paired) -> None:
    """Print a paired comparison: deals, mean difference, its confidence interval, and how
    often each side scored more."""
    data = pair.to_json()
    table = Table(title=f"paired: {pair.a} − {pair.b}", title_style="bold")
    table.add_column("")
    table.add_column("per deal", justify="right")
    table.add_row("deals", str(pair.n))
    table.add_row("mean difference", f"{pair.mean:.2f}")
    table.add_row("std (n-1)", f"{pair.sd:.2f}")
    table.add_row("std error", f"{pair.se:.2f}")
    table.add_row(f"{pair.level:.0%} CI", f"[{data['low']:.2f}, {data['high']:.2f}]")
    table.add_row("first scores more", str(data["a_better"]))
    table.add_row("second scores more", str(data["b_better"]))
    table.add_row("ties", str(data["ties"]))
    console.print(table)
