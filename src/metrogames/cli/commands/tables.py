"""``metrogames play`` and ``daily``: a game in the terminal against bots or hot-seat, and
today's daily challenge against a web table server (``docs/notation.md``, "Command line")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from metrogames.cli.options import game_options_command
from metrogames.cli.play import play_game, resume_game
from metrogames.core.errors import MetrogamesError
from metrogames.core.rng import check_seed
from metrogames.games import (
    game_names,
    game_type,
)

if TYPE_CHECKING:
    pass  # the web extra: imported by serve only
from metrogames.cli.app import _check_out, app, fail, out, said
from metrogames.cli.commands.simulate import _game_of, _options, _parse_bots


@app.command(cls=game_options_command("seed"))
def play(
    ctx: typer.Context,
    game: Annotated[
        str | None,
        typer.Argument(
            help=f"One of: {', '.join(game_names())} (default london; nextstation with --map)."
        ),
    ] = None,
    players: Annotated[int | None, typer.Option(help="Number of players (humans + bots).")] = None,
    bots: Annotated[
        str | None, typer.Option(help="Bot codes for the last seats, e.g. greedy.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Deal seed (random by default).")] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Where to save the record.")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(help="Continue a game saved by this command (its record names its seed)."),
    ] = None,
) -> None:
    """Play in the terminal: solo, hot-seat or against bots; the game is saved as a record."""
    if resume is not None:
        try:
            resume_game(resume, out, input)
        except (MetrogamesError, ValueError) as exc:
            raise fail(said(exc)) from None
        return
    game = _game_of(ctx, game, "london")
    try:
        kind = game_type(game)
    except MetrogamesError as exc:
        raise fail(said(exc), 2) from None
    options = _options(game, ctx)
    codes = _parse_bots(bots) if bots else []
    least = kind.players.start
    n = players if players is not None else max(least, len(codes) + 1 if codes else least)
    if n not in kind.players or len(codes) > n:
        raise fail(
            f"--players must be {least}-{kind.players.stop - 1} and at least the number of "
            f"bots ({len(codes)})",
            2,
        )
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    if out_file is not None:
        _check_out(out_file)
    try:
        check_seed(seed)

        play_game(kind.name, n, codes, options, seed, out_file, out, input)
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2 if isinstance(exc, ValueError) else 1) from None


@app.command()
def daily(
    game: Annotated[str, typer.Argument(help="london or paris.")],
    server: Annotated[str, typer.Option(help="The web table's address.")] = "http://127.0.0.1:8000",
    token_file: Annotated[
        Path, typer.Option("--token-file", help="Where the player token is kept.")
    ] = Path("var/player.json"),
    share: Annotated[
        bool,
        typer.Option("--share/--no-share", help="Show the score on the leaderboard (opt-in)."),
    ] = False,
    name: Annotated[
        str | None, typer.Option(help="Display name for a new player (asked otherwise).")
    ] = None,
    account: Annotated[
        str | None,
        typer.Option(
            envvar="METROGAMES_ACCOUNT",
            help="Sign in to this account to take its ranked attempt (password: "
            "METROGAMES_PASSWORD, or asked). Without it you play as a guest.",
        ),
    ] = None,
) -> None:
    """Play today's daily challenge (London or Paris) against a web table server."""
    try:
        from metrogames.cli.daily import DailyError, play_daily
    except ImportError as exc:
        raise fail(
            f"the daily client needs the web extra (pip install 'metrogames[web]'): {exc}"
        ) from None
    try:
        play_daily(
            game,
            server,
            token_file,
            out,
            input,
            share=share,
            name=name,
            account=account,
            password=_password,
        )
    except DailyError as exc:
        raise fail(exc.message, exc.code) from None
    except MetrogamesError as exc:
        raise fail(said(exc)) from None


def _password(prompt: str) -> str:
    """``METROGAMES_PASSWORD``, or the password typed without echo."""
    secret = os.environ.get("METROGAMES_PASSWORD")
    if secret:
        return secret
    return str(typer.prompt(prompt.rstrip(": "), hide_input=True))
