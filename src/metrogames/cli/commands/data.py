"""``metrogames ratings recompute``, ``export`` and ``train value``: the web table's data
(ratings replayed from stored games, a month's open-data export) and the bots' offline
training (``docs/notation.md``, "Command line")."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from metrogames.cli.files import read_documents
from metrogames.cli.lang import say, tr
from metrogames.core.errors import MetrogamesError
from metrogames.games import (
    game_engine,
    game_names,
)

if TYPE_CHECKING:
    pass  # the web extra: imported by serve only
from metrogames.cli.app import (
    JsonFlag,
    _check_out,
    _check_seeds,
    app,
    emit_json,
    err,
    fail,
    out,
    said,
)

ratings_app = typer.Typer(
    no_args_is_help=True, help="Ratings of online play in the web table's database."
)


app.add_typer(ratings_app, name="ratings")


@ratings_app.command("recompute")
def ratings_recompute(
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL (default: METROGAMES_DB, else sqlite:///var/metrogames.db)."
        ),
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Store the recomputed ratings in place of the stored.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Rate every rated online game again from its stored actions, in the order they were
    rated, and compare with the stored ratings: exit 0 when they match number for number,
    1 (listing the differences) when not; --write stores the recomputed ones."""
    try:
        from metrogames.web.infra.config import Settings
        from metrogames.web.infra.db import migrate, open_database, session_factory
        from metrogames.web.ratings.service import check_database
    except ImportError as exc:
        raise fail(f"ratings need the web extra (pip install 'metrogames[web]'): {exc}") from None
    try:
        engine = open_database(db or Settings().db)
        migrate(engine)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    try:
        result = check_database(session_factory(engine), store=write)
    finally:
        engine.dispose()
    if as_json:
        emit_json(
            {"games": result.games, "ratings": result.ratings, "differences": result.differences}
        )
    else:
        out.print(
            f"{result.games} rated games replayed, {result.ratings} ratings recomputed: "
            + (
                "they match the stored ratings"
                if not result.differences
                else f"{len(result.differences)} differ from the stored ratings"
            ),
            highlight=False,
        )
        for line in result.differences:
            out.print(line, highlight=False, markup=False)
    if result.differences and not write:
        raise typer.Exit(1)


@app.command("export")
def export_month(
    month: Annotated[str, typer.Option(help="The month exported, YYYY-MM (UTC).")],
    out_file: Annotated[Path, typer.Option("--out", help="The export file, NAME.jsonl.zst.")],
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL (default: METROGAMES_DB, else sqlite:///var/metrogames.db)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Write the month's export of every finished online and daily game (docs/exports.md),
    one game at a time, and its checksum beside it (FILE.sha256); a month not over is
    exported up to now and says so."""
    import time

    try:
        from metrogames.web.errors import RoomError
        from metrogames.web.exports.fileformat import SUFFIX, write_export
        from metrogames.web.exports.games import MonthGames
        from metrogames.web.exports.months import parse_month
        from metrogames.web.exports.service import export_secret
        from metrogames.web.infra.config import Settings
        from metrogames.web.infra.db import migrate, open_database, session_factory
    except ImportError as exc:
        raise fail(f"export needs the web extra (pip install 'metrogames[web]'): {exc}") from None
    if not out_file.name.endswith(SUFFIX):
        raise fail(
            tr("--out {path}: the file must end in {suffix}", path=out_file, suffix=SUFFIX), 2
        )
    _check_out(out_file)
    try:
        chosen = parse_month(month)
    except RoomError as exc:
        raise fail(f"--month: {say(exc.text) if exc.text else exc.message}", 2) from None
    settings = Settings()
    try:
        engine = open_database(db or settings.db)
        migrate(engine)
    except Exception as exc:  # a bad URL, an unreachable database, a failed migration
        raise fail(f"cannot open the database: {exc}") from None
    try:
        sessions = session_factory(engine)
        games = MonthGames(
            sessions, export_secret(sessions, settings.export_secret), chosen, time.time()
        )
        counted = _Counted(games.lines())
        size, sha256 = write_export(out_file, games.header(), counted)
    except OSError as exc:
        raise fail(tr("cannot write {path}: {why}", path=out_file, why=exc.strerror), 2) from None
    finally:
        engine.dispose()
    facts = {
        **games.header(),
        "games": counted.count,
        "file": str(out_file),
        "bytes": size,
        "sha256": sha256,
    }
    if as_json:
        emit_json(facts)
    else:
        line = tr(
            "{games} games of {month} written to {file} ({bytes} bytes, sha256 {sha256})", **facts
        )
        if not facts["complete"]:
            line += " " + tr("(the month is not over: games until {until})", until=facts["until"])
        out.print(line, markup=False, highlight=False)


T = TypeVar("T")


class _Counted(Iterable[T]):
    """An iterable that counts what it hands on (``count``)."""

    def __init__(self, items: Iterable[T]) -> None:
        self.items = items
        self.count = 0

    def __iter__(self) -> Iterator[T]:
        for item in self.items:
            self.count += 1
            yield item


train_app = typer.Typer(
    no_args_is_help=True, help="Offline training for the bots (docs/research.md)."
)


app.add_typer(train_app, name="train")


@train_app.command("value")
def train_value(
    game: Annotated[str, typer.Argument(help="A game with value features: london, paris.")],
    games: Annotated[int, typer.Option(help="Training games (game i: the deal of seed+i).")] = 2000,
    out_file: Annotated[
        Path, typer.Option("--out", help="The weights file to write (.npz).")
    ] = Path("weights.npz"),
    seed: Annotated[int, typer.Option(help="Base seed: deals, behaviour bot, first weights.")] = 1,
    deals: Annotated[
        Path | None, typer.Option(help="A JSON-lines manifest of deal records instead of seeds.")
    ] = None,
    target: Annotated[str, typer.Option(help="deep (the game's deep estimate) or final.")] = "deep",
    explore: Annotated[float, typer.Option(help="Probability of a random decision.")] = 0.1,
    hidden: Annotated[int, typer.Option(help="Hidden tanh units (0: linear).")] = 32,
    steps: Annotated[int, typer.Option(help="Full-batch Adam steps.")] = 1500,
    checkpoint: Annotated[
        Path | None, typer.Option(help="Keep the run's progress in this .npz file.")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Continue the run kept in this checkpoint (and keep it).")
    ] = None,
) -> None:
    """Train a position value for the value search (`valuesearch`) and write its weights:
    reproducible from the command and its seed (docs/research.md, "A learned position value")."""
    try:
        from metrogames.bots.value import WeightsError
        from metrogames.bots.value_train import TrainConfig, train
    except ImportError as exc:
        raise fail(f"training needs numpy (pip install 'metrogames[rl]'): {exc}") from None
    if game not in game_names():
        raise fail(f"unknown game {game!r} (known: {', '.join(game_names())})", 2)
    records: list[object] | None = None
    if deals is not None:
        records = _training_deals(game, deals)
        games = len(records)
    config = TrainConfig(game, games, seed, target, explore, hidden, steps)
    kept = resume or checkpoint
    _check_seeds(seed, games)
    _check_out(out_file)
    try:
        model = train(
            config,
            kept,
            records,
            lambda line: err.print(line, highlight=False),
            resume=resume is not None,
        )
    except WeightsError as exc:
        raise fail(str(exc)) from None
    except (MetrogamesError, ValueError) as exc:
        raise fail(said(exc), 2) from None
    try:
        model.save(out_file)
    except OSError as exc:
        raise fail(f"cannot write {out_file}: {exc.strerror}", 2) from None
    out.print(f"{out_file}: {json.dumps(model.training)}", highlight=False)


def _training_deals(game: str, deals: Path) -> list[object]:
    """The deal records of a training manifest, each checked to be a solo deal of ``game``
    (exit 1 naming the line)."""
    engine = game_engine(game)
    try:
        docs = list(read_documents(deals))
    except MetrogamesError as exc:
        raise fail(said(exc)) from None
    for label, doc in docs:
        if isinstance(doc, MetrogamesError):
            raise fail(said(doc))
        try:
            engine.from_deal(doc, 1)
        except MetrogamesError as exc:
            raise fail(f"{label}: {said(exc)}") from None
        except ValueError as exc:  # a game that takes no solo deal
            raise fail(said(exc), 2) from None
    return [doc for _, doc in docs]
