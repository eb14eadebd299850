"""Rich tables for score sheets (``score``) and simulation summaries (``simulate``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from metrogames.cli.render import renderer_for
from metrogames.games import game_type


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
