"""The daily challenge's reads of stored games: leaderboards, published deals, the best
scores, the players' pages and histories (``docs/web-api.md``, "The daily challenge (v1)").

* **Leaderboards** (the accounts' and the guests') list ranked, shared, finished attempts by
  score, then finishing time; equal scores share a rank (1, 2, 2, 4). Sharing is chosen at the
  first start (default: not shared); a player's history shows an unshared ranked game to its
  owner only.
* **Publishing**: once a day has closed its seed, deal record and the records of its
  leaderboard's games are public (``/deal``, by pages of at most 1,000 games); before, a
  finished daily room's record hides its seed and decks. A finished game's record never
  changes, so each is replayed once (on the room service's worker threads) and kept, as JSON
  text, in a cache bounded by size (:data:`RECORD_CACHE_BYTES`); only the player's current name
  is put in at each request.

Reads that grow with the stored games (leaderboards, histories, the best scores) are sync
methods here, run on worker threads by :mod:`metrogames.web.api.daily`, so they never hold up
the event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import cast

from cachetools import LRUCache
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, aliased

from metrogames.core.protocol import JsonObject
from metrogames.games import daily_games
from metrogames.i18n import N_, Message, msg
from metrogames.web.accounts.players import Player, Players
from metrogames.web.daily import deal as dd
from metrogames.web.daily.rules import DailyRules
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import AccountRow, DailyAttemptRow, PlayerRow
from metrogames.web.rooms.service import RoomService

MAX_LIMIT = 1000
RECORD_CACHE_BYTES = 64 * 1024 * 1024
"""The published games' records kept as JSON text (a London game: about 2.3 KB)."""


def check_limit(value: int, what: str, high: int = MAX_LIMIT) -> int:
    """A ``limit``/``offset`` query value in 0..``high``.

    Raises:
        RoomError: 400 ``bad-request``.
    """
    if not 0 <= value <= high:
        raise RoomError(400, "bad-request", f"{what} must be from 0 to {high}")
    return value


def not_begun(game: str, day: str) -> Message:
    return msg(N_("the {game} challenge of {day} has not begun"), game=game, day=day)


BOARDS = ("accounts", "guests")
"""The two lists of a day: the leaderboard (accounts) and the guests list."""


def _listed(query: Select[DailyAttemptRow, str], board: str) -> Select[DailyAttemptRow, str]:
    """``query`` (over attempts joined to their players) kept to ``board``: the attempts of
    accounts' own players, or of everyone else (guests, and games a claimed guest played)."""
    own = select(AccountRow.player_id).where(AccountRow.player_id == DailyAttemptRow.player_id)
    return query.where(own.exists() if board == "accounts" else ~own.exists())


def board_query(game: str, day: str, board: str = "accounts") -> Select[DailyAttemptRow, str]:
    """A list's rows: ranked, shared, finished attempts of ``game`` on ``day`` on ``board``,
    each with its player's name."""
    a = DailyAttemptRow
    query = (
        select(a, PlayerRow.name)
        .join(PlayerRow, PlayerRow.id == a.player_id)
        .where(a.game == game, a.day == day, a.ranked, a.shared, a.score.is_not(None))
    )
    return _listed(query, board)


class DailyBoards:
    """The daily challenge's lists and published games.

    Args:
        rooms: the room service (its sessions and reader threads; daily rooms are its rooms).
        players: the players.
        rules: the daily rules (seeds, today).
    """

    def __init__(self, rooms: RoomService, players: Players, rules: DailyRules) -> None:
        self.rooms = rooms
        self.players = players
        self.rules = rules
        self.sessions = rooms.sessions
        self.records: LRUCache[str, str] = LRUCache(RECORD_CACHE_BYTES, getsizeof=len)
        """Published games' records by room, as JSON text without ``players`` (touched on the
        event loop only)."""
        self._building: dict[str, asyncio.Future[dict[str, str]]] = {}
        """Records being built, by room (a request waits for the build another started)."""

    # -- leaderboards -------------------------------------------------------------------------
    def _check_begun(self, game: str, day: str) -> tuple[str, str]:
        game, day = dd.check_game(game), dd.check_day(day)
        if day > self.rules.today():
            raise RoomError(409, "day-not-open", not_begun(game, day))
        return game, day

    def leaderboard(
        self, game: str, day: str, limit: int, offset: int, board: str = "accounts"
    ) -> JsonObject:
        """``GET /api/daily/{game}/{day}/leaderboard`` (accounts) and ``.../guests``
        (``board`` ``guests``): ``{"date", "game", "open", "entries": [{"rank", "player",
        "account" (its profile; null for a guest), "name", "score", "finished_at"}],
        "total"}``.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (limit, offset); 409
                ``day-not-open``.
        """
        game, day = self._check_begun(game, day)
        limit, offset = check_limit(limit, "limit"), check_limit(offset, "offset", 10**9)
        a = DailyAttemptRow
        with self.sessions() as session:
            listing = board_query(game, day, board)
            total = session.scalar(select(func.count()).select_from(listing.subquery())) or 0
            rows = session.execute(
                listing.order_by(a.score.desc(), a.finished_at, a.id).offset(offset).limit(limit)
            ).all()
            first_rank = offset + 1
            if rows and offset:
                sub = listing.subquery()
                better = select(func.count()).select_from(sub).where(sub.c.score > rows[0][0].score)
                first_rank = 1 + (session.scalar(better) or 0)
            owners = {
                player: account
                for player, account in session.execute(
                    select(AccountRow.player_id, AccountRow.id).where(
                        AccountRow.player_id.in_([r[0].player_id for r in rows])
                    )
                )
            }
        scores = [int(r[0].score or 0) for r in rows]
        ranks = dd.competition_ranks(scores, offset, first_rank)
        return {
            "date": day,
            "game": game,
            "open": day == self.rules.today(),
            "entries": [
                {
                    "rank": rank,
                    "player": row.player_id,
                    "account": owners.get(row.player_id),
                    "name": name,
                    "score": score,
                    "finished_at": row.finished_at,
                }
                for (row, name), score, rank in zip(rows, scores, ranks, strict=True)
            ],
            "total": total,
        }

    async def deal(
        self, game: str, day: str, limit: int, offset: int, board: str = "accounts"
    ) -> str:
        """``GET /api/daily/{game}/{day}/deal?limit=&offset=&board=`` once the day has closed,
        as JSON text: ``{"seed", "deal": <deal record>, "games": [<record of each game of the
        page of ``board``'s list — the accounts' leaderboard, or ``guests`` — in its order>],
        "total"}``; each game record has its seed and decks and ``meta`` ``{"daily",
        "player", "score"}``.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (limit, offset, board); 409
                ``day-not-open`` (future), ``day-open`` (today).
        """
        if board not in BOARDS:
            raise RoomError(400, "bad-request", f"board must be one of {', '.join(BOARDS)}")
        game, day = self._check_begun(game, day)
        if day == self.rules.today():
            raise RoomError(
                409, "day-open", f"the {game} deal of {day} is public once the day ends"
            )
        limit, offset = check_limit(limit, "limit"), check_limit(offset, "offset", 10**9)
        seed = self.rules.seed(game, day)
        rows, total = await asyncio.to_thread(self._deal_page, game, day, limit, offset, board)
        records = await self._records([room for room, *_ in rows], seed)
        games = []
        for room, player, name, score in rows:
            meta = {"daily": day, "player": player, "score": score}
            head = json.dumps({"players": [name], "meta": meta})
            games.append(f"{head[:-1]}, {records[room][1:]}")
        deal = json.dumps(dd.deal_record(game, seed, day))
        return (
            f'{{"seed": {seed}, "deal": {deal}, "games": [{", ".join(games)}], "total": {total}}}'
        )

    def _deal_page(
        self, game: str, day: str, limit: int, offset: int, listed: str
    ) -> tuple[list[tuple[str, str, str, int]], int]:
        """A page of the day's games on list ``listed``: (room, player, name, score) each,
        and the list's size."""
        a = DailyAttemptRow
        board = board_query(game, day, listed)
        with self.sessions() as session:
            total = session.scalar(select(func.count()).select_from(board.subquery())) or 0
            rows = session.execute(
                board.order_by(a.score.desc(), a.finished_at, a.id).offset(offset).limit(limit)
            ).all()
        return [(r.room_id, r.player_id, name, int(r.score or 0)) for r, name in rows], total

    async def _records(self, rooms: list[str], seed: int) -> dict[str, str]:
        """The records of finished rooms (with ``seed``, decks revealed, without
        ``players``) as JSON text: from the cache, else built on the room service's worker
        threads (once, however many requests ask for a room at the same time)."""
        found: dict[str, str] = {}
        waiting: list[asyncio.Future[dict[str, str]]] = []
        todo: list[str] = []
        for room in rooms:
            text = self.records.get(room)
            if text is not None:
                found[room] = text
            elif room in self._building:
                waiting.append(self._building[room])
            else:
                todo.append(room)
        if todo:
            build = asyncio.ensure_future(self.rooms.store.offload(self._build_records, todo, seed))
            for room in todo:
                self._building[room] = build
            try:
                built = await build
            finally:
                for room in todo:
                    self._building.pop(room, None)
            for room, text in built.items():
                self.records[room] = text
            found.update(built)
        for other in waiting:
            found.update(await other)
        return {room: found[room] for room in rooms}

    def _build_records(self, rooms: list[str], seed: int) -> dict[str, str]:
        """On a worker thread: each finished room's record as JSON text, ``players`` and
        ``meta`` left out (the daily player's current name and the deal's meta go in at each
        request)."""
        out = {}
        for room in rooms:
            state = self.rooms.snapshot(room).progress.state
            record = dict(state.game.to_record(state, [""], seed=seed, reveal=True))
            del record["players"]
            record.pop("meta", None)  # the deal's own meta goes in at each request
            out[room] = json.dumps(record)
        return out

    def best(self, game: str, limit: int) -> list[JsonObject]:
        """``GET /api/daily/{game}/best``: the best shared ranked scores of accounts on all
        days, ``[{"date", "player", "name", "score"}]`` (earlier finish first on equal
        scores).

        Raises:
            RoomError: 404 ``not-found``, 400 ``bad-request``.
        """
        game = dd.check_game(game)
        limit = check_limit(limit, "limit", 100)
        a = DailyAttemptRow
        query = (
            _listed(
                select(a, PlayerRow.name)
                .join(PlayerRow, PlayerRow.id == a.player_id)
                .where(a.game == game, a.ranked, a.shared, a.score.is_not(None)),
                "accounts",
            )
            .order_by(a.score.desc(), a.finished_at, a.id)
            .limit(limit)
        )
        with self.sessions() as session:
            rows = session.execute(query).all()
        return [
            {"date": r.day, "player": r.player_id, "name": name, "score": r.score}
            for r, name in rows
        ]

    # -- players ------------------------------------------------------------------------------
    def _finished_days(self, session: Session, player: str, game: str | None) -> set[str]:
        a = DailyAttemptRow
        query = select(a.day).where(a.player_id == player, a.ranked, a.score.is_not(None))
        if game is not None:
            query = query.where(a.game == game)
        return set(session.scalars(query))

    def me(self, player: Player) -> JsonObject:
        """``GET /api/players/me``: ``{"player", "name", "streak" (any game), "best": {game:
        best ranked score | null}}``."""
        a = DailyAttemptRow
        with self.sessions() as session:
            days = self._finished_days(session, player.id, None)
            rows = session.execute(
                select(a.game, func.max(a.score))
                .where(a.player_id == player.id, a.ranked, a.score.is_not(None))
                .group_by(a.game)
            ).all()
        best = {str(game): score for game, score in rows}
        return {
            "player": player.id,
            "name": player.name,
            "streak": dd.streak(days, self.rules.today()),
            "best": {g: best.get(g) for g in daily_games()},
        }

    def history(
        self, player_id: str, game: str | None, limit: int, owner: bool = False
    ) -> JsonObject:
        """``GET /api/players/{player}/history?game=``: ``{"player", "name", "streak",
        "days": [{"date", "game", "score", "rank", "ranked"}]}``, newest first; practice
        games included (``ranked`` false, no rank); ``score`` is null while in progress;
        ``rank`` only for shared ranked games (one query: each rank is 1 + the number of
        better scores on that day's list). An unshared ranked game is listed only for its
        ``owner`` (the player's token, or its account signed in). The streak counts the
        given game (any without).

        Raises:
            RoomError: 404 ``not-found``, 400 ``bad-request``.
        """
        player = self.players.get(player_id)
        if game is not None:
            game = dd.check_game(game)
        limit = check_limit(limit, "limit", MAX_LIMIT)
        with self.sessions() as session:
            finished = self._finished_days(session, player.id, game)
            days = self.days(session, [player.id], game, limit, owner)
        return {
            "player": player.id,
            "name": player.name,
            "streak": dd.streak(finished, self.rules.today()),
            "days": days,
        }

    def days(
        self, session: Session, players: list[str], game: str | None, limit: int, owner: bool
    ) -> list[JsonObject]:
        """The daily games of ``players``, newest first, at most ``limit``:
        ``[{"date", "game", "score", "rank", "ranked"}]`` (see :meth:`history`)."""
        a, b = DailyAttemptRow, aliased(DailyAttemptRow)
        own = select(AccountRow.player_id).where(AccountRow.player_id == b.player_id).exists()
        mine = select(AccountRow.player_id).where(AccountRow.player_id == a.player_id).exists()
        better = (
            select(func.count())
            .where(
                b.game == a.game,
                b.day == a.day,
                b.ranked,
                b.shared,
                b.score > a.score,
                own == mine,  # the same list: accounts' or guests'
            )
            .correlate(a)
            .scalar_subquery()
        )
        query = select(a, better).where(a.player_id.in_(players))
        if game is not None:
            query = query.where(a.game == game)
        if not owner:
            query = query.where(~a.ranked | a.shared)
        days: list[JsonObject] = []
        rows = session.execute(query.order_by(a.day.desc(), a.id.desc()).limit(limit))
        for row, above in cast(Iterable[tuple[DailyAttemptRow, int]], rows):
            ranked = row.ranked and row.shared and row.score is not None
            days.append(
                {
                    "date": row.day,
                    "game": row.game,
                    "score": row.score,
                    "rank": 1 + above if ranked else None,
                    "ranked": row.ranked,
                }
            )
        return days
