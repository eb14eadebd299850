"""The daily challenge's days and deals: pure functions, no storage.

Rule (``docs/web-api.md``, "The daily challenge (v1)"): a day is a UTC date ``YYYY-MM-DD``,
open from 00:00 UTC to 24:00 UTC. The deal of ``game`` on ``day`` is the solo game
``load_game(game, players=1)`` without modules dealt with ``new_game(seed)``, where

    seed = int.from_bytes(HMAC-SHA256(secret, "metrogames/daily/v1/{game}/{day}")[:8], "big")

and ``secret`` is the UTF-8 bytes of the server's daily secret. The engine derives the colour
order and the four rounds' card orders from the seed by its version-stable method
(:mod:`metrogames.core.rng`), so the mapping never changes between releases; golden tests pin
it for a fixed test secret. The reference bot's score on a deal is the ``medium`` level's
(seeded with the deal's seed; in London and Paris it plays exactly as the greedy bot) playing the
deal to the end; the ``expert`` level's is shown beside it once computed (about 10–20 s of engine
time per deal, once: in the background).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import UTC, date, datetime, timedelta

from metrogames.bots.base import make_bot
from metrogames.bots.play import play_bots
from metrogames.core.capabilities import SoloRated
from metrogames.core.protocol import Action, JsonObject, State, is_object
from metrogames.games import daily_games, load_game
from metrogames.web.errors import RoomError

LABEL = "metrogames/daily/v1/{game}/{day}"
"""The HMAC message of a day's deal (v1: never change it, or every past deal changes)."""
BOT = "medium"
"""The reference bot (a level) whose score on the deal is shown after playing."""
DAY_SECONDS = 86400
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def daily_seed(secret: bytes, game: str, day: str) -> int:
    """The seed (0..2**64-1) of ``game``'s deal on ``day`` (see the module docstring)."""
    message = LABEL.format(game=game, day=day).encode("utf-8")
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:8], "big")


def check_game(game: str) -> str:
    """``game`` when it has a daily challenge (``GameType.daily``: the registry's
    :func:`~metrogames.games.daily_games`).

    Raises:
        RoomError: 404 ``not-found``.
    """
    games = daily_games()
    if game not in games:
        raise RoomError(
            404, "not-found", f"no daily challenge for {game[:20]!r} ({', '.join(games)})"
        )
    return game


def check_day(text: str) -> str:
    """``text`` when it is a real date written ``YYYY-MM-DD``.

    Raises:
        RoomError: 404 ``not-found``.
    """
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise RoomError(404, "not-found", f"no day {text[:20]!r} (days are YYYY-MM-DD, UTC)")


def day_of(epoch: float) -> str:
    """The UTC date of an epoch time, ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


def day_opens(day: str) -> float:
    """The epoch time at which ``day`` opens (00:00 UTC); it closes one day later."""
    return datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC).timestamp()


def shift(day: str, days: int) -> str:
    """The date ``days`` days after ``day`` (before, when negative)."""
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def deal_state(game: str, seed: int) -> State[Action]:
    """The first state of the daily deal (one player, no modules)."""
    return load_game(game, players=1).new_game(seed)


def deal_record(game: str, seed: int, day: str) -> JsonObject:
    """The deal record (``docs/notation.md``: every round's deck, the colour cycle, no
    turns) of the daily deal, ``meta`` naming the day."""
    record = dict(load_game(game, players=1).deal_record(seed))
    record["meta"] = {"daily": day, "seed": seed}
    return record


def bot_score(game: str, seed: int, code: str = BOT) -> int:
    """The score of the bot ``code`` (seeded with ``seed``) playing the deal of ``seed`` to
    the end (the :data:`BOT`: about 0.1 s of engine time; the expert: 10–20 s, a heavy job:
    :mod:`metrogames.web.infra.jobs`)."""
    state = play_bots(deal_state(game, seed), [make_bot(code, seed=seed)])
    return int(state.scores()[0])


def rating(state: State[Action]) -> JsonObject | None:
    """The printed solo rating of a finished daily game (no modules): ``{"band", "range",
    "low", "high", "phrase"}`` (as the state's ``solo_result`` gives them: ``SoloRated``), or
    ``None`` for a game without one (Paris)."""
    result = state.solo_result() if isinstance(state, SoloRated) else None
    rated = result.get("rating") if result is not None else None
    if not is_object(rated):
        return None
    return {k: rated[k] for k in ("band", "range", "low", "high", "phrase")}


def streak(days: set[str], today: str) -> int:
    """Consecutive UTC days in ``days`` ending today, or yesterday when today is not in."""
    day = today if today in days else shift(today, -1)
    count = 0
    while day in days:
        count += 1
        day = shift(day, -1)
    return count


def competition_ranks(scores: list[int], offset: int, first_rank: int) -> list[int]:
    """Ranks of a page of ``scores`` (sorted best first, the page starting at position
    ``offset`` of the whole board) when equal scores share a rank (1, 2, 2, 4): the page's
    first score has ``first_rank`` (1 + the number of better scores); any later score below
    its predecessor ranks by its position."""
    ranks: list[int] = []
    for i, score in enumerate(scores):
        if i == 0:
            ranks.append(first_rank)
        elif score == scores[i - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(offset + i + 1)
    return ranks
