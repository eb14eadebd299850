"""Rich tables for score breakdowns and simulation summaries."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from metrogames.games.nextstation.citymap import CityMap
from metrogames.games.nextstation.scoring import Breakdown


def breakdown_table(city: CityMap, sheet: Breakdown, title: str | None = None) -> Table:
    """A table of one player's sheet: each line's districts × best district (+ river,
    monuments) = score, then tourist sites, interchanges, bridges, objectives and the total."""
    data = sheet.to_json(city)
    table = Table(title=title or f"{city.title}: score", show_lines=False)
    table.add_column("item")
    table.add_column("detail")
    table.add_column("points", justify="right")
    for colour, line in data["lines"].items():
        detail = f"{line['districts']} districts × {line['max_in_district']}"
        if "thames" in line:
            detail += f" + {line['thames']} Thames × {city.river_points}"
        if "monuments" in line:
            detail += f" + {line['monuments']} monuments × {city.monument_points}"
        if "circled" in line:
            detail += f" (circled {line['circled']})"
        table.add_row(f"{colour} line", detail, str(line["score"]))
    if "tourist" in data:
        table.add_row("tourist sites", f"{data['tourist']['boxes']} boxes", str(data["tourist"]["points"]))
    inter = data["interchanges"]
    counts = ", ".join(f"{inter[k]} on {k} lines" for k in inter if k != "points")
    table.add_row("interchanges", counts, str(inter["points"]))
    if "bridges" in data:
        b = data["bridges"]
        table.add_row("bridges", f"{b['single']} single, {b['double']} double", str(b["points"]))
    objectives = {k: v for k, v in data["objectives"].items() if k != "points"}
    if objectives:
        met = ", ".join(f"{k} {'✔' if v else '✘'}" for k, v in objectives.items())
        table.add_row("objectives", met, str(data["objectives"]["points"]))
    table.add_row("[bold]total[/bold]", "", f"[bold]{data['total']}[/bold]")
    return table


def print_breakdown(console: Console, city: CityMap, sheet: Breakdown) -> None:
    """Print :func:`breakdown_table`."""
    console.print(breakdown_table(city, sheet))


def print_summary(
    console: Console, game: str, bots: list[str], games: int, summary: list[dict[str, Any]]
) -> None:
    """Print a simulation summary: per seat the mean, standard deviation, min, max, wins and
    the mean of each score component."""
    table = Table(title=f"{game}: {games} games")
    table.add_column("seat")
    table.add_column("bot")
    for name in ("mean", "std", "min", "max", "wins"):
        table.add_column(name, justify="right")
    components = list(summary[0]["components"]) if summary else []
    for name in components:
        table.add_column(f"mean {name}", justify="right")
    for seat, s in enumerate(summary):
        st = s["score"]
        table.add_row(
            str(seat),
            bots[seat],
            f"{st.mean:.2f}",
            f"{st.std:.2f}",
            f"{st.min:.0f}",
            f"{st.max:.0f}",
            f"{s['wins']:.1f}",
            *(f"{s['components'][c]:.2f}" for c in components),
        )
    console.print(table)
