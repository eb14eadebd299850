"""The daily challenge service (``docs/web-api.md``, "The daily challenge (v1)").

One solo deal per game and UTC day (:mod:`.daily_deal`), played on the server in a room of
mode ``daily`` whose one seat is held by the player token (:mod:`.players`), so the rooms'
REST and WebSocket API plays it and the engine checks every action and computes the score.

Rules implemented here:

* **One ranked attempt** per player, game and day: the first start of today's game creates
  the attempt and its room in one transaction (a partial unique index makes a second ranked
  attempt impossible, even from two servers); later starts return the same room while it is
  in progress (a reload continues the game, even after midnight) and are refused with 409
  ``attempt-used`` once it has ended. A closed day's deal is public: each start makes a new
  unranked practice room (unless the player's ranked game of that day is still in progress:
  that room). A day not yet open: 409 ``day-not-open``. Nothing is stored on a refusal.
* **Scores** are written by the room service's finish hook, in the transaction that stores the
  game's last action: the engine's total and the finishing time (the server's clock, ``now``).
  A ranked game must end before its day closes: the day's deal is published at midnight, so a
  game that ends later is kept as practice (not ranked).
* **Leaderboards** list ranked, shared, finished attempts by score, then finishing time; equal
  scores share a rank (1, 2, 2, 4). Sharing is chosen at the first start (default: not shared).
* **Publishing**: once a day has closed its seed, deal record and the records of its
  leaderboard's games are public (``/deal``, by pages of at most 1,000 games); before, a
  finished daily room's record hides its seed and decks. A finished game's record never
  changes, so each is replayed once (on the room service's worker threads) and kept, as JSON
  text, in a cache bounded by size (:data:`RECORD_CACHE_BYTES`); only the player's current name
  is put in at each request.

Reads that grow with the stored games (leaderboards, histories, results, the best scores) are
sync methods here, run on worker threads by :mod:`.daily_api`, so they never hold up the event
loop. The clock is ``now()`` (epoch seconds), injected so tests can move time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Any, cast

from cachetools import LRUCache
from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, sessionmaker

from metrogames.web import daily_deal as dd
from metrogames.web.checks import RoomError
from metrogames.web.models import DailyAttemptRow, DailyBotScoreRow, PlayerRow, ServerSecretRow
from metrogames.web.players import Player, Players
from metrogames.web.rooms import RoomService
from metrogames.web.tables import Progress, Seat, Table

log = logging.getLogger(__name__)
SECRET_NAME = "daily"
MAX_LIMIT = 1000
RECORD_CACHE_BYTES = 64 * 1024 * 1024
"""The published games' records kept as JSON text (a London game: about 2.3 KB)."""


def load_secret(sessions: sessionmaker[Session], configured: str | None) -> bytes:
    """The daily secret: ``configured`` (``METROGAMES_DAILY_SECRET``) when set, else a random
    one made once and kept in ``server_secrets`` (the first server to store it wins)."""
    if configured:
        return configured.encode("utf-8")
    with sessions() as session:
        row = session.get(ServerSecretRow, SECRET_NAME)
        if row is not None:
            return row.value.encode("utf-8")
    try:
        with sessions.begin() as session:
            session.add(ServerSecretRow(name=SECRET_NAME, value=secrets.token_hex(32)))
    except IntegrityError:
        pass  # another server made it first
    with sessions() as session:
        row = session.get(ServerSecretRow, SECRET_NAME)
        assert row is not None
        return row.value.encode("utf-8")


def check_limit(value: int, what: str, high: int = MAX_LIMIT) -> int:
    """A ``limit``/``offset`` query value in 0..``high``.

    Raises:
        RoomError: 400 ``bad-request``.
    """
    if not 0 <= value <= high:
        raise RoomError(400, "bad-request", f"{what} must be from 0 to {high}")
    return value


def _board(game: str, day: str) -> Select[DailyAttemptRow, str]:
    """The leaderboard's rows: ranked, shared, finished attempts of ``game`` on ``day``."""
    a = DailyAttemptRow
    return (
        select(a, PlayerRow.name)
        .join(PlayerRow, PlayerRow.id == a.player_id)
        .where(a.game == game, a.day == day, a.ranked, a.shared, a.score.is_not(None))
    )


class DailyService:
    """The daily challenge over the room service's database.

    Args:
        rooms: the room service (its sessions; daily rooms are its rooms).
        players: the players.
        secret: the daily secret (:func:`load_secret`).
        now: the clock, epoch seconds.
    """

    def __init__(
        self, rooms: RoomService, players: Players, secret: bytes, now: Callable[[], float]
    ) -> None:
        self.rooms = rooms
        self.players = players
        self.sessions = rooms.sessions
        self.secret = secret
        self.now = now
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        """One lock per player starting a game (dropped when no start holds it)."""
        self._seed = lru_cache(maxsize=256)(lambda game, day: dd.daily_seed(secret, game, day))
        self.records: LRUCache[str, str] = LRUCache(RECORD_CACHE_BYTES, getsizeof=len)
        """Published games' records by room, as JSON text without ``players`` (touched on the
        event loop only)."""
        self._building: dict[str, asyncio.Future[dict[str, str]]] = {}
        """Records being built, by room (a request waits for the build another started)."""
        self.expert = rooms.settings.daily_expert
        """The strong bot whose score on a deal is shown too (``""``: none)."""
        self._experts: dict[tuple[str, str], asyncio.Task[None]] = {}
        """The expert's games on a deal being played, by (game, day)."""
        self._stopping = threading.Event()
        self._expert_thread = ThreadPoolExecutor(1, thread_name_prefix="metrogames-expert")
        """One thread for the expert's games (10–20 s each, once per deal)."""
        rooms.on_finish.append(self.finished)
        rooms.hide_seed = self.hide_seed
        rooms.no_hints = self.ranked_in_play

    # -- days ---------------------------------------------------------------------------------
    def today(self) -> str:
        """Today's UTC date by :attr:`now`."""
        return dd.day_of(self.now())

    def seed(self, game: str, day: str) -> int:
        """The seed of ``game``'s deal on ``day``."""
        seed: int = self._seed(game, day)
        return seed

    def hide_seed(self, table: Table) -> bool:
        """True for a daily room of today's deal: its seed is not yet public, and only its
        player may see the game (views, record, replay) until the day closes."""
        return table.mode == "daily" and table.seed == self.seed(table.game, self.today())

    def ranked_in_play(self, table: Table) -> bool:
        """True for a daily room of today's deal: today's game is always the player's ranked
        attempt, and hints are refused in it. (A ranked game still going on after midnight
        ends as practice, so its hints are allowed.)"""
        return self.hide_seed(table)

    def finished(self, session: Session, table: Table, progress: Progress) -> None:
        """The room service's finish hook: a daily attempt's score and finishing time."""
        if table.mode != "daily":
            return
        row = session.scalars(
            select(DailyAttemptRow).where(DailyAttemptRow.room_id == table.id)
        ).first()
        if row is not None:
            row.score = int(progress.state.scores()[0])
            row.finished_at = self.now()
            if row.ranked and row.finished_at >= dd.day_opens(row.day) + dd.DAY_SECONDS:
                row.ranked = False  # its day's deal went public at midnight: practice now

    # -- playing ------------------------------------------------------------------------------
    def overview(self, player: Player | None) -> dict[str, Any]:
        """``GET /api/daily``: ``{"date", "closes_at", "games": [{"game", "played", "room"}]}``
        (``played``: the player has started today's ranked game; ``room``: its room)."""
        today = self.today()
        rooms: dict[str, str] = {}
        if player is not None:
            with self.sessions() as session:
                for row in session.scalars(
                    select(DailyAttemptRow).where(
                        DailyAttemptRow.player_id == player.id,
                        DailyAttemptRow.day == today,
                        DailyAttemptRow.ranked,
                    )
                ):
                    rooms[row.game] = row.room_id
        return {
            "date": today,
            "closes_at": dd.day_opens(today) + dd.DAY_SECONDS,
            "games": [{"game": g, "played": g in rooms, "room": rooms.get(g)} for g in dd.GAMES],
        }

    def _ranked_of(self, player: str, game: str, day: str) -> DailyAttemptRow | None:
        """The player's ranked attempt of ``game`` on ``day`` (on a worker thread)."""
        with self.sessions() as session:
            return session.scalars(
                select(DailyAttemptRow).where(
                    DailyAttemptRow.player_id == player,
                    DailyAttemptRow.game == game,
                    DailyAttemptRow.day == day,
                    DailyAttemptRow.ranked,
                )
            ).first()

    async def start(self, player: Player, game: str, day: str, share: bool) -> dict[str, Any]:
        """``POST /api/daily/{game}/{day}/start`` ``{"share": bool}`` → ``{"room", "ranked"}``.

        Raises:
            RoomError: 404 ``not-found`` (game, day); 400 ``bad-request``; 409
                ``day-not-open`` (a future day), ``attempt-used`` (today's ranked game has
                ended).
        """
        game, day = dd.check_game(game), dd.check_day(day)
        today = self.today()
        if day > today:
            raise RoomError(409, "day-not-open", f"the {game} challenge of {day} has not begun")
        ranked = day == today
        lock = self._locks.get(player.id)
        if lock is None:
            lock = self._locks[player.id] = asyncio.Lock()
        async with lock:
            existing = await asyncio.to_thread(self._ranked_of, player.id, game, day)
            if existing is not None and (ranked or existing.score is None):
                return await self._resume(existing)  # a closed day: its ranked game goes on
            started = self.now()

            def attempt(session: Session, table: Table) -> None:
                session.add(
                    DailyAttemptRow(
                        player_id=player.id,
                        game=game,
                        day=day,
                        ranked=ranked,
                        shared=share and ranked,
                        room_id=table.id,
                        started=started,
                    )
                )

            seat = Seat(0, player.name, True, None, player.token_hash)
            try:
                table = await self.rooms.create_dealt(
                    game, "daily", self.seed(game, day), [seat], attempt
                )
            except IntegrityError:  # another server started this ranked attempt first
                existing = await asyncio.to_thread(self._ranked_of, player.id, game, day)
                if existing is None:
                    raise
                return await self._resume(existing)
        self.play_expert(game, day)
        return {"room": table.id, "ranked": ranked}

    async def _resume(self, attempt: DailyAttemptRow) -> dict[str, Any]:
        if attempt.score is not None:
            raise RoomError(
                409,
                "attempt-used",
                f"today's ranked {attempt.game} game is played; past days can be practised",
            )
        await self.rooms.table(attempt.room_id)
        return {"room": attempt.room_id, "ranked": True}

    # -- results ------------------------------------------------------------------------------
    async def result(self, player: Player, game: str, day: str) -> dict[str, Any]:
        """``GET /api/daily/{game}/{day}/result``: the player's game of that day (the ranked
        one, else the last practice game): ``{"score", "rank", "of", "percentile", "rating",
        "bot"}``.

        ``rank`` is the leaderboard rank (``None`` unshared or practice), ``of`` the
        leaderboard's size, ``percentile`` the share of the day's finished ranked games
        (shared or not, this one counted) scoring less, equal scores counting half.

        Raises:
            RoomError: 404 ``not-found`` (no game that day), 409 ``not-finished``.
        """
        game, day = dd.check_game(game), dd.check_day(day)
        facts = await asyncio.to_thread(self._result, player, game, day)
        facts["bot"] = {"name": dd.BOT, "score": await self.bot_score(game, day)}
        facts["expert"] = None
        if self.expert:
            known = await asyncio.to_thread(self._bot_score_of, game, day, self.expert)
            if known is None:
                self.play_expert(game, day)
            facts["expert"] = {"name": self.expert, "score": known}
        return facts

    def _result(self, player: Player, game: str, day: str) -> dict[str, Any]:
        """:meth:`result` without the bot (on a worker thread: it counts the day's games and
        replays the player's)."""
        a = DailyAttemptRow
        with self.sessions() as session:
            rows = session.scalars(
                select(a)
                .where(a.player_id == player.id, a.game == game, a.day == day)
                .order_by(a.ranked.desc(), a.id.desc())
            ).all()
            if not rows:
                raise RoomError(404, "not-found", f"no {game} game of {day} for this player")
            done = [r for r in rows if r.score is not None]
            if not done:
                raise RoomError(409, "not-finished", "the game has not ended")
            mine = done[0]
            score = int(mine.score or 0)
            board = _board(game, day).subquery()
            of = session.scalar(select(func.count()).select_from(board)) or 0
            rank = None
            if mine.ranked and mine.shared:
                better = select(func.count()).select_from(board).where(board.c.score > score)
                rank = 1 + (session.scalar(better) or 0)
            day_games = (
                select(a.score)
                .where(a.game == game, a.day == day, a.ranked, a.score.is_not(None))
                .subquery()
            )
            below = (
                session.scalar(
                    select(func.count()).select_from(day_games).where(day_games.c.score < score)
                )
                or 0
            )
            equal = (
                session.scalar(
                    select(func.count()).select_from(day_games).where(day_games.c.score == score)
                )
                or 0
            )
            total = session.scalar(select(func.count()).select_from(day_games)) or 0
        if not mine.ranked:
            equal, total = equal + 1, total + 1
        return {
            "score": score,
            "rank": rank,
            "of": of,
            "percentile": round(100.0 * (below + equal / 2) / total, 1),
            "rating": dd.rating(self.rooms.snapshot(mine.room_id).progress.state),
        }

    async def bot_score(self, game: str, day: str) -> int:
        """The reference bot's score on the day's deal, computed once (in a worker thread)
        and kept in ``daily_bot_scores``."""
        known = await asyncio.to_thread(self._bot_score_of, game, day, dd.BOT)
        if known is not None:
            return known
        score = await asyncio.to_thread(dd.bot_score, game, self.seed(game, day))
        await asyncio.to_thread(self._keep_bot_score, game, day, dd.BOT, score)
        return score

    def play_expert(self, game: str, day: str) -> None:
        """Have the :attr:`expert` play the day's deal in the background, unless it is
        playing it already (its score is kept in ``daily_bot_scores``; nothing happens when
        it is known, or without an expert)."""
        key = (game, day)
        if not self.expert or key in self._experts or self._stopping.is_set():
            return
        task = asyncio.get_running_loop().create_task(self._play_expert(game, day))
        self._experts[key] = task
        task.add_done_callback(lambda _task: self._experts.pop(key, None))

    async def _play_expert(self, game: str, day: str) -> None:
        try:
            if await asyncio.to_thread(self._bot_score_of, game, day, self.expert) is not None:
                return
            score = await asyncio.get_running_loop().run_in_executor(
                self._expert_thread,
                dd.bot_score,
                game,
                self.seed(game, day),
                self.expert,
                self._stopping.is_set,
            )
            await asyncio.to_thread(self._keep_bot_score, game, day, self.expert, score)
        except dd.Stopped:
            pass
        except Exception:  # asked again at the next result
            log.exception("the %s bot's %s game of %s failed", self.expert, game, day)

    async def stop(self) -> None:
        """At shutdown: stop the expert's games (between two decisions; asked again later)."""
        self._stopping.set()
        self._expert_thread.shutdown(wait=False, cancel_futures=True)
        await asyncio.gather(*self._experts.values(), return_exceptions=True)

    def _bot_score_of(self, game: str, day: str, bot: str) -> int | None:
        with self.sessions() as session:
            row = session.get(DailyBotScoreRow, (game, day, bot))
            return None if row is None else row.score

    def _keep_bot_score(self, game: str, day: str, bot: str, score: int) -> None:
        try:
            with self.sessions.begin() as session:
                session.add(DailyBotScoreRow(game=game, day=day, bot=bot, score=score))
        except IntegrityError:
            pass  # computed at the same time elsewhere: the same number

    # -- leaderboards -------------------------------------------------------------------------
    def _check_begun(self, game: str, day: str) -> tuple[str, str]:
        game, day = dd.check_game(game), dd.check_day(day)
        if day > self.today():
            raise RoomError(409, "day-not-open", f"the {game} challenge of {day} has not begun")
        return game, day

    def leaderboard(self, game: str, day: str, limit: int, offset: int) -> dict[str, Any]:
        """``GET /api/daily/{game}/{day}/leaderboard``: ``{"date", "game", "open", "entries":
        [{"rank", "player", "name", "score", "finished_at"}], "total"}``.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (limit, offset); 409
                ``day-not-open``.
        """
        game, day = self._check_begun(game, day)
        limit, offset = check_limit(limit, "limit"), check_limit(offset, "offset", 10**9)
        a = DailyAttemptRow
        with self.sessions() as session:
            board = _board(game, day)
            total = session.scalar(select(func.count()).select_from(board.subquery())) or 0
            rows = session.execute(
                board.order_by(a.score.desc(), a.finished_at, a.id).offset(offset).limit(limit)
            ).all()
            first_rank = offset + 1
            if rows and offset:
                sub = board.subquery()
                better = select(func.count()).select_from(sub).where(sub.c.score > rows[0][0].score)
                first_rank = 1 + (session.scalar(better) or 0)
        scores = [int(r[0].score or 0) for r in rows]
        ranks = dd.competition_ranks(scores, offset, first_rank)
        return {
            "date": day,
            "game": game,
            "open": day == self.today(),
            "entries": [
                {
                    "rank": rank,
                    "player": row.player_id,
                    "name": name,
                    "score": score,
                    "finished_at": row.finished_at,
                }
                for (row, name), score, rank in zip(rows, scores, ranks, strict=True)
            ],
            "total": total,
        }

    async def deal(self, game: str, day: str, limit: int, offset: int) -> str:
        """``GET /api/daily/{game}/{day}/deal?limit=&offset=`` once the day has closed, as JSON
        text: ``{"seed", "deal": <deal record>, "games": [<record of each leaderboard game of
        the page, in its order>], "total"}``; each game record has its seed and decks and
        ``meta`` ``{"daily", "player", "score"}``.

        Raises:
            RoomError: 404 ``not-found``; 400 ``bad-request`` (limit, offset); 409
                ``day-not-open`` (future), ``day-open`` (today).
        """
        game, day = self._check_begun(game, day)
        if day == self.today():
            raise RoomError(
                409, "day-open", f"the {game} deal of {day} is public once the day ends"
            )
        limit, offset = check_limit(limit, "limit"), check_limit(offset, "offset", 10**9)
        seed = self.seed(game, day)
        rows, total = await asyncio.to_thread(self._deal_page, game, day, limit, offset)
        records = await self._records([room for room, *_ in rows], seed)
        games = []
        for room, player, name, score in rows:
            meta = {"daily": day, "player": player, "score": score}
            head = json.dumps({"players": [name], "meta": meta})
            games.append(f"{head[:-1]}, {records[room][1:]}")
        deal = json.dumps(dd.deal_record(game, seed, day))
        return f'{{"seed": {seed}, "deal": {deal}, "games": [{", ".join(games)}], "total": {total}}}'

    def _deal_page(
        self, game: str, day: str, limit: int, offset: int
    ) -> tuple[list[tuple[str, str, str, int]], int]:
        """A page of the day's leaderboard games: (room, player, name, score) each, and the
        leaderboard's size."""
        a = DailyAttemptRow
        board = _board(game, day)
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
            build = asyncio.ensure_future(self.rooms.offload(self._build_records, todo, seed))
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

    def best(self, game: str, limit: int) -> list[dict[str, Any]]:
        """``GET /api/daily/{game}/best``: the best shared ranked scores of all days,
        ``[{"date", "player", "name", "score"}]`` (earlier finish first on equal scores).

        Raises:
            RoomError: 404 ``not-found``, 400 ``bad-request``.
        """
        game = dd.check_game(game)
        limit = check_limit(limit, "limit", 100)
        a = DailyAttemptRow
        query = (
            select(a, PlayerRow.name)
            .join(PlayerRow, PlayerRow.id == a.player_id)
            .where(a.game == game, a.ranked, a.shared, a.score.is_not(None))
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

    def me(self, player: Player) -> dict[str, Any]:
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
            "streak": dd.streak(days, self.today()),
            "best": {g: best.get(g) for g in dd.GAMES},
        }

    def history(self, player_id: str, game: str | None, limit: int) -> dict[str, Any]:
        """``GET /api/players/{player}/history?game=``: ``{"player", "name", "streak",
        "days": [{"date", "game", "score", "rank", "ranked"}]}``, newest first; practice
        games included (``ranked`` false, no rank); ``score`` is null while in progress;
        ``rank`` only for shared ranked games (one query: each rank is 1 + the number of
        better scores on that day's leaderboard). The streak counts the given game (any
        without).

        Raises:
            RoomError: 404 ``not-found``, 400 ``bad-request``.
        """
        player = self.players.get(player_id)
        if game is not None:
            game = dd.check_game(game)
        limit = check_limit(limit, "limit", MAX_LIMIT)
        a, b = DailyAttemptRow, aliased(DailyAttemptRow)
        better = (
            select(func.count())
            .where(b.game == a.game, b.day == a.day, b.ranked, b.shared, b.score > a.score)
            .correlate(a)
            .scalar_subquery()
        )
        query = select(a, better).where(a.player_id == player.id)
        if game is not None:
            query = query.where(a.game == game)
        days = []
        with self.sessions() as session:
            finished = self._finished_days(session, player.id, game)
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
        return {
            "player": player.id,
            "name": player.name,
            "streak": dd.streak(finished, self.today()),
            "days": days,
        }
