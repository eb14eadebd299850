"""The web table's answers that ``metrogames daily`` reads, as pydantic models: each answer is
checked on arrival, so a server that answers something else is reported by name, never met as
a ``KeyError`` half-way through a turn.

Source: ``docs/web-api.md`` — "The daily challenge" (``GET /api/daily``, the start, the result),
"Players" (``/api/players``), "Accounts" (``POST /api/sessions``) and "Views"
(``GET /api/rooms/{room}/view``). Only the fields the client reads are declared; the others are
ignored, so a server that adds a field still serves an older client.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    """A server's answer: unknown fields ignored, the model read-only."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class Player(Answer):
    """A guest player (``/api/players``, ``/api/players/me``) or a signed-in account
    (``POST /api/sessions``: ``account`` set, no ``token``)."""

    player: str
    name: str
    token: str | None = None
    account: str | None = None
    streak: int | None = Field(default=None, ge=0)
    """Days in a row the player has played (``/api/players/me``)."""


class DailyGame(Answer):
    game: str


class Daily(Answer):
    """``GET /api/daily``: today's date (UTC, ``YYYY-MM-DD``), its games, when the day closes
    (seconds since the epoch) and the midnight rule the server states before a ranked start."""

    date: str
    games: list[DailyGame] = []
    closes_at: float
    midnight_rule: str | None = None


class DailyStart(Answer):
    """``POST /api/daily/{game}/{date}/start``: the room, the seat's token (an account's start;
    a guest plays with its player token) and whether the attempt is ranked."""

    room: str
    token: str | None = None
    ranked: bool = False


class RoomView(Answer):
    """The fields of a seat's view (``GET /api/rooms/{room}/view``) the client reads: the
    room's status, its step, the seat (``you``) and the seat's legal actions (JSON)."""

    status: str
    step: int = Field(ge=0)
    you: int | None = Field(default=None, ge=0)
    legal: list[object] = []
    """The legal actions' JSON; only whether there are any is read."""


class Rating(Answer):
    """A solo rating band (the registry's ``solo_result``): its scores (``None`` at an open
    end, points) and its phrase."""

    band: str | int | None = None
    low: int | None = None
    high: int | None = None
    phrase: str | None = None


class BotResult(Answer):
    """A bot's game of the same deal: its level and score (``None`` while it still plays)."""

    name: str | None = None
    score: int | None = None


class Result(Answer):
    """``GET /api/daily/{game}/{date}/result``: the score (points), the list it ranks on
    (``guests`` or the accounts'), rank of ``of`` (``None``: not ranked), percentile (0–100),
    rating band and the reference and expert bots' results."""

    score: int
    board: str | None = None
    rank: int | None = Field(default=None, ge=1)
    of: int | None = Field(default=None, ge=0)
    percentile: float | None = Field(default=None, ge=0, le=100)
    rating: Rating | None = None
    bot: BotResult | None = None
    expert: BotResult | None = None


class Record(Answer):
    """The players of a room's public record (``GET /api/rooms/{room}/record``); the record
    itself is replayed as the JSON it is."""

    players: list[str]


__all__ = [
    "BotResult",
    "Daily",
    "DailyGame",
    "DailyStart",
    "Player",
    "Rating",
    "Record",
    "Result",
    "RoomView",
]
