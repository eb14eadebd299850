"""``POST /api/score``: a paper game's score sheet checked and scored (``docs/web-api.md``,
"Score sheets").

The body is a score sheet exactly as ``metrogames score`` reads it (``docs/notation.md``,
"Score sheet"); the answer is the ``score --json`` breakdown. The sheet's game is found in the
registry and scored by its engine (the ``ScoreSheets`` capability,
:mod:`metrogames.core.capabilities`), so every registered game that has score sheets is scored
the same way (another's is a 400 ``bad-request``). Refusals are 4xx ``{"error", "reason"}``: an illegal
drawing is a 400 with the engine's reason (``crosses-section``, ``not-adjacent``, …) and
message, anything else wrong with the sheet a 400 ``bad-request``; bodies are bounded (64 KiB)
and each client address may have :attr:`~metrogames.web.infra.config.Settings.rate_scores` sheets
scored (429 ``rate-limited``). Scoring a sheet takes about a millisecond (a full Metro board
or a long London sheet alike), so it runs on the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field, RootModel

from metrogames.core.capabilities import ScoreSheets
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.games import game_engine, game_type
from metrogames.web.api.bodies import MAX_KEYS, Json
from metrogames.web.api.common import charge, read_body
from metrogames.web.errors import RoomError, bad_request

router = APIRouter(prefix="/api")


class Sheet(RootModel[Annotated[dict[str, Json], Field(max_length=MAX_KEYS)]]):
    """``POST /api/score``: a score sheet (checked by the game's engine)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)


def score(sheet: Mapping[str, object]) -> Mapping[str, object]:
    """The ``score --json`` breakdown of a decoded score sheet.

    Raises:
        RoomError: 400 with the engine's reason and message for an illegal drawing (naming
            the line and section, or the placement), as ``metrogames score`` prints it; 400
            ``bad-request`` with the engine's message for a sheet without a known game or one
            the game cannot read, and for a game record.
    """
    if "format" in sheet:
        raise bad_request("this is a game record, not a score sheet: watch it as a replay")
    if "game" not in sheet:
        raise bad_request('a score sheet: "game" is missing')
    try:
        kind = game_type(sheet["game"])
    except MetrogamesError as exc:
        raise bad_request(str(exc)) from None
    engine = game_engine(kind.name)
    if not isinstance(engine, ScoreSheets):
        raise bad_request(f"{kind.title} has no score sheets")
    try:
        return dict(engine.score_sheet(sheet))
    except IllegalActionError as exc:
        raise RoomError(400, exc.reason, exc.as_message(), item=exc.item) from None
    except MetrogamesError as exc:
        raise bad_request(str(exc)) from None


@router.post("/score")
async def post_score(request: Request) -> Mapping[str, object]:
    """Check and score ``{"game", ...}`` (a score sheet): the ``score --json`` breakdown."""
    sheet = (await read_body(request, Sheet, "a score sheet")).root
    await charge(request, "scores")
    return score(sheet)
