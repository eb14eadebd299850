"""The ``metrogames`` command (Typer)."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="metrogames: play, score, replay and simulate metro-building board games.")


@app.callback()
def main() -> None:
    """metrogames: play, score, replay and simulate metro-building board games."""
