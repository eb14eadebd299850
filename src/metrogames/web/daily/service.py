"""The daily challenge service (``docs/web-api.md``, "The daily challenge (v1)").

One solo deal per game and UTC day (:mod:`.daily_deal`), played on the server in a room of
mode ``daily`` whose one seat is held by the player token (:mod:`.players`), so the rooms'
REST and WebSocket API plays it and the engine checks every action and computes the score.

Rules implemented here:

* **Who ranks.** The leaderboard lists accounts only (an account plays with its own player,
  signed in: :mod:`.accounts`); anonymous players (guests) play the same deal and are listed
  apart, on the guests list, and one client address may start at most
  ``daily_guest_ranked`` ranked guest games of a game per UTC day (409 ``guest-limit``). An
  account's daily seat is held by a seat token made for the room (a restart of the game
  makes a new one); a guest's by the player token.
* **One ranked attempt** per player, game and day: the first start of today's game creates
  the attempt and its room in one transaction (a partial unique index makes a second ranked
  attempt impossible, even from two servers); later starts return the same room while it is
  in progress (a reload continues the game, even after midnight) and are refused with 409
  ``attempt-used`` once it has ended. A closed day's deal is public: each start makes a new
  unranked practice room (unless the player's ranked game of that day is still in progress:
  that room). A day not yet open: 409 ``day-not-open``. Nothing is stored on a refusal.
* **Scores** are written by the daily rules' finish listener (:mod:`.rules`), in the transaction that stores the
  game's last action: the engine's total and the finishing time (the server's clock, ``now``).
  :data:`MIDNIGHT_RULE` decides whether a ranked game that ends after midnight still ranks.
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

Reads that grow with the stored games (leaderboards, histories, results, the best scores) are
sync methods here, run on worker threads by :mod:`.daily_api`, so they never hold up the event
loop. The clock is ``now()`` (epoch seconds), injected so tests can move time.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import weakref
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, cast

from cachetools import LRUCache
from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from metrogames.games import daily_games, game_type
from metrogames.i18n import N_, Gettext, Message, msg, plural
from metrogames.web.accounts.players import Player, Players
from metrogames.web.checks import hash_token, new_token
from metrogames.web.daily import deal as dd
from metrogames.web.daily.open_deals import OpenDeals, deal_chances
from metrogames.web.daily.rules import DailyRules
from metrogames.web.errors import RoomError
from metrogames.web.infra.models import (
    AccountRow,
    DailyAttemptRow,
    DailyBotScoreRow,
    PlayerRow,
)
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Seat, Table

log = logging.getLogger("metrogames.web.daily")  # the name its log lines always had
MAX_LIMIT = 1000
EXPERTS_AT_ONCE = 2
"""The daily expert's games under way at once in one serving process (each asked for by a
result that needs its figure; past them, the result asks again later)."""
RECORD_CACHE_BYTES = 64 * 1024 * 1024
"""The published games' records kept as JSON text (a London game: about 2.3 KB)."""
MIDNIGHT_RULE = N_(
    "A ranked game counts for the day it was started only if it ends before midnight UTC "
    "(24:00) of that day: the day's deal is published at midnight, so a game that ends later "
    "is kept as practice and never ranked."
)
"""The one rule for a ranked game still in progress at midnight UTC, as ``docs/web-api.md``
states it and ``GET /api/daily`` sends it in the request's language (the page shows it before
a ranked start)."""
ACCOUNT_RULE = N_(
    "Today's leaderboard ranks accounts made before today's deal opened (midnight UTC). An "
    "account made today ranks from tomorrow's deal on (today's deal can be practised once the "
    "day has closed): nobody can rehearse the day's deal as a guest and rank it with a fresh "
    "account."
)
"""Who may take today's ranked attempt, as ``docs/web-api.md`` states it and ``GET
/api/daily`` sends it (``account_rule``, in the request's language; the page shows it before a
ranked start)."""


def check_limit(value: int, what: str, high: int = MAX_LIMIT) -> int:
    """A ``limit``/``offset`` query value in 0..``high``.

    Raises:
        RoomError: 400 ``bad-request``.
    """
    if not 0 <= value <= high:
        raise RoomError(400, "bad-request", f"{what} must be from 0 to {high}")
    return value


def _not_begun(game: str, day: str) -> Message:
    return msg(N_("the {game} challenge of {day} has not begun"), game=game, day=day)


BOARDS = ("accounts", "guests")
"""The two lists of a day: the leaderboard (accounts) and the guests list."""


def _listed(query: Select[DailyAttemptRow, str], board: str) -> Select[DailyAttemptRow, str]:
    """``query`` (over attempts joined to their players) kept to ``board``: the attempts of
    accounts' own players, or of everyone else (guests, and games a claimed guest played)."""
    own = select(AccountRow.player_id).where(AccountRow.player_id == DailyAttemptRow.player_id)
    return query.where(own.exists() if board == "accounts" else ~own.exists())


def _board(game: str, day: str, board: str = "accounts") -> Select[DailyAttemptRow, str]:
    """A list's rows: ranked, shared, finished attempts of ``game`` on ``day`` on ``board``,
    each with its player's name."""
    a = DailyAttemptRow
    query = (
        select(a, PlayerRow.name)
        .join(PlayerRow, PlayerRow.id == a.player_id)
        .where(a.game == game, a.day == day, a.ranked, a.shared, a.score.is_not(None))
    )
    return _listed(query, board)


class DailyService:
    """The daily challenge over the room service's database.

    Args:
        rooms: the room service (its sessions; daily rooms are its rooms).
        players: the players.
        rules: the daily rules (the secret, the clock, which rooms are private), shared with
            the room service (:class:`~metrogames.web.daily.rules.DailyRules`).
        guest_ranked: ``daily_guest_ranked``.
    """

    def __init__(
        self,
        rooms: RoomService,
        players: Players,
        rules: DailyRules,
        guest_ranked: int = 3,
    ) -> None:
        self.rooms = rooms
        self.guest_ranked = guest_ranked
        self.players = players
        self.sessions = rooms.sessions
        self.rules = rules
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        """One lock per player starting a game (dropped when no start holds it)."""
        self._chances = lru_cache(maxsize=16)(
            lambda game, day: deal_chances(game, rules.seed(game, day))
        )
        self.records: LRUCache[str, str] = LRUCache(RECORD_CACHE_BYTES, getsizeof=len)
        """Published games' records by room, as JSON text without ``players`` (touched on the
        event loop only)."""
        self._building: dict[str, asyncio.Future[dict[str, str]]] = {}
        """Records being built, by room (a request waits for the build another started)."""
        self.expert = rooms.settings.daily_expert
        """The strong bot whose score on a deal is shown too (``""``: none)."""
        self._experts: dict[tuple[str, str], asyncio.Task[None]] = {}
        """The expert's games on a deal being played, by (game, day)."""
        self._stopping = False

    # -- days ---------------------------------------------------------------------------------
    def open_deals(self) -> OpenDeals:
        """Today's deals, by game: their chance outcomes (the server's searches refuse a
        record on one of them: :mod:`.open_deals`), computed once a day."""
        today = self.rules.today()
        return {game: self._chances(game, today) for game in self.rules.games}

    # -- playing ------------------------------------------------------------------------------
    def overview(self, player: Player | None, gettext: Gettext = N_) -> dict[str, Any]:
        """``GET /api/daily``: ``{"date", "closes_at", "midnight_rule", "account_rule",
        "guest_ranked", "games": [{"game", "played", "room"}]}`` (``played``: the player has started today's
        ranked game; ``room``: its room; ``guest_ranked``: the cap on ranked guest games per
        address, game and day; ``midnight_rule`` in the language of ``gettext``)."""
        today = self.rules.today()
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
            "midnight_rule": gettext(MIDNIGHT_RULE),
            "account_rule": gettext(ACCOUNT_RULE),
            "guest_ranked": self.guest_ranked,
            "games": [
                {"game": g, "played": g in rooms, "room": rooms.get(g)} for g in daily_games()
            ],
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

    def _claimed_ranked(self, player: str, game: str, day: str) -> bool:
        """True when another player of ``player``'s account — a guest it claimed — has a
        ranked attempt of ``game`` on ``day`` (on a worker thread)."""
        account = select(PlayerRow.account_id).where(PlayerRow.id == player).scalar_subquery()
        with self.sessions() as session:
            found = session.scalar(
                select(DailyAttemptRow.id)
                .join(PlayerRow, PlayerRow.id == DailyAttemptRow.player_id)
                .where(
                    PlayerRow.account_id == account,
                    PlayerRow.id != player,
                    DailyAttemptRow.game == game,
                    DailyAttemptRow.day == day,
                    DailyAttemptRow.ranked,
                )
                .limit(1)
            )
        return found is not None

    def address_key(self, address: str) -> str:
        """The keyed hash a guest's ranked attempt keeps of its client address (HMAC-SHA256
        with the daily secret: the stored value names no address)."""
        return hmac.new(self.rules.secret, f"address/{address}".encode(), hashlib.sha256).hexdigest()

    def _guest_games(self, key: str, game: str, day: str) -> int:
        """How many ranked guest games of ``game`` on ``day`` the address ``key`` started."""
        a = DailyAttemptRow
        with self.sessions() as session:
            query = select(func.count()).where(
                a.address == key, a.game == game, a.day == day, a.ranked
            )
            return session.scalar(query) or 0

    async def start(
        self,
        player: Player,
        game: str,
        day: str,
        share: bool,
        account: bool = False,
        address: str = "",
    ) -> dict[str, Any]:
        """``POST /api/daily/{game}/{day}/start`` ``{"share": bool}`` → ``{"room", "ranked",
        "token"}``: ``player`` is an account's own player (``account``; ``token`` is the seat
        token of the room, new at each call) or a guest (``token`` null: the player token
        plays); ``address`` is the client address (the cap on ranked guest games).

        Raises:
            RoomError: 404 ``not-found`` (game, day); 400 ``bad-request``; 409
                ``day-not-open`` (a future day), ``attempt-used`` (today's ranked game has
                ended, or for an account, a guest it claimed has a ranked game of the day),
                ``account-too-new`` (an account made after today's deal opened:
                :data:`ACCOUNT_RULE`), ``guest-limit`` (the address has started its ranked
                guest games of the day: counted in the transaction that stores the attempt,
                each taking a numbered place, so starts at once cannot pass the cap).
        """
        game, day = dd.check_game(game), dd.check_day(day)
        today = self.rules.today()
        if day > today:
            raise RoomError(409, "day-not-open", _not_begun(game, day))
        ranked = day == today
        capped = ranked and not account
        key = self.address_key(address) if capped else None
        # a guest's ranked start also waits for the same address's other starts (the cap)
        name = f"address:{key}" if key else player.id
        lock = self._locks.get(name)
        if lock is None:
            lock = self._locks[name] = asyncio.Lock()
        async with lock:
            existing = await asyncio.to_thread(self._ranked_of, player.id, game, day)
            if existing is not None and (ranked or existing.score is None):
                # a closed day: its ranked game goes on
                return await self._resume(existing, account)
            if ranked and account:
                await asyncio.to_thread(self._check_account, player.id, game, day)
            for _ in range(3):  # another start took the same place at once: count again
                try:
                    table, token = await self._open_attempt(
                        player, game, day, ranked, share, key, account
                    )
                    break
                except IntegrityError:
                    existing = await asyncio.to_thread(self._ranked_of, player.id, game, day)
                    if existing is not None:  # another server started this ranked attempt
                        return await self._resume(existing, account)
            else:
                raise RoomError(503, "unavailable", "the server is busy; try again")
        return {"room": table.id, "ranked": ranked, "token": token}

    def _check_account(self, player: str, game: str, day: str) -> None:
        """Refuse a ranked start of ``game`` on ``day`` by the account of ``player`` when the
        account was made after the day's deal opened, or a guest it claimed has played that
        ranked game (on a worker thread).

        Raises:
            RoomError: 409 ``account-too-new``, ``attempt-used``.
        """
        with self.sessions() as session:
            created = session.scalar(
                select(AccountRow.created).where(AccountRow.player_id == player)
            )
        if created is not None and created >= dd.day_opens(day):
            raise RoomError(409, "account-too-new", msg(ACCOUNT_RULE))
        if self._claimed_ranked(player, game, day):
            raise RoomError(
                409,
                "attempt-used",
                f"a guest player this account claimed has played today's ranked {game} "
                "game: one ranked attempt per account; past days can be practised",
            )

    def _guest_limit(self, game: str) -> RoomError:
        return RoomError(
            409,
            "guest-limit",
            plural(
                "this address has started {n} ranked guest game of {title} today: "
                "sign in to play ranked, or practise a past day",
                "this address has started {n} ranked guest games of {title} today: "
                "sign in to play ranked, or practise a past day",
                self.guest_ranked,
                title=game_type(game).title,
            ),
        )

    async def _open_attempt(
        self,
        player: Player,
        game: str,
        day: str,
        ranked: bool,
        share: bool,
        key: str | None,
        account: bool,
    ) -> tuple[Table, str | None]:
        """Create the attempt's room and row in one transaction; a guest's ranked attempt
        (``key``: its address's digest) takes the next place among its address's, refused
        past the cap. Returns the room and, for an ``account``, its new seat token (a guest
        plays with its player token: ``None``).

        Raises:
            RoomError: 409 ``guest-limit``.
            IntegrityError: a place or the ranked attempt taken at the same time elsewhere.
        """
        if key and await asyncio.to_thread(self._guest_games, key, game, day) >= self.guest_ranked:
            raise self._guest_limit(game)  # (the count that decides is the one below)
        started = self.rules.now()
        cap = self.guest_ranked

        def attempt(session: Session, table: Table) -> None:
            slot = None
            if key:
                a = DailyAttemptRow
                used = session.scalar(
                    select(func.count()).where(
                        a.address == key, a.game == game, a.day == day, a.ranked
                    )
                )
                if (used or 0) >= cap:
                    raise self._guest_limit(game)
                slot = (used or 0) + 1
            session.add(
                DailyAttemptRow(
                    player_id=player.id,
                    game=game,
                    day=day,
                    ranked=ranked,
                    shared=share and ranked,
                    room_id=table.id,
                    started=started,
                    address=key,
                    address_slot=slot,
                )
            )

        token = new_token() if account else None
        seat = Seat(0, player.name, True, None, hash_token(token) if token else player.token_hash)
        table = await self.rooms.create_dealt(game, "daily", self.rules.seed(game, day), [seat], attempt)
        return table, token

    async def _resume(self, attempt: DailyAttemptRow, account: bool) -> dict[str, Any]:
        if attempt.score is not None:
            raise RoomError(
                409,
                "attempt-used",
                msg(
                    N_("today's ranked {game} game is played; past days can be practised"),
                    game=attempt.game,
                ),
            )
        table = await self.rooms.table(attempt.room_id)
        # an account's seat token is not kept: a new one (an older one stops working)
        token = await self.rooms.seats.new_seat_token(table, 0) if account else None
        return {"room": attempt.room_id, "ranked": True, "token": token}

    async def retire_token(self, player: str, token_hash: str) -> int:
        """A guest ``player`` was claimed: its player token (``token_hash``, its digest) stops
        playing its daily rooms too — each room's seat it held gets a new token nobody holds
        (stored, and caught up by every worker, as any seat change); returns how many rooms.
        """
        retired = 0
        for room in await asyncio.to_thread(self._rooms_of, player):
            table = await self.rooms.table(room)
            if table.seats[0].token_hash == token_hash:
                await self.rooms.seats.new_seat_token(table, 0)
                retired += 1
        return retired

    def _rooms_of(self, player: str) -> list[str]:
        """The rooms of ``player``'s daily games (on a worker thread)."""
        with self.sessions() as session:
            query = select(DailyAttemptRow.room_id).where(DailyAttemptRow.player_id == player)
            return list(session.scalars(query))

    # -- results ------------------------------------------------------------------------------
    async def result(self, player: Player, game: str, day: str) -> dict[str, Any]:
        """``GET /api/daily/{game}/{day}/result``: the player's game of that day (the ranked
        one, else the last practice game): ``{"score", "rank", "of", "board", "percentile",
        "rating", "bot"}``.

        ``board`` is the player's list (``accounts``: the leaderboard, or ``guests``),
        ``rank`` the rank on it (``None`` unshared or practice), ``of`` its size,
        ``percentile`` the share of the day's finished ranked games (accounts' and guests',
        shared or not, this one counted) scoring less, equal scores counting half.

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
            own = select(AccountRow.id).where(AccountRow.player_id == player.id)
            listed = "accounts" if session.scalar(own) is not None else "guests"
            board = _board(game, day, listed).subquery()
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
            "board": listed,
            "percentile": round(100.0 * (below + equal / 2) / total, 1),
            "rating": dd.rating(self.rooms.snapshot(mine.room_id).progress.state),
        }

    async def bot_score(self, game: str, day: str) -> int:
        """The reference bot's score on the day's deal, computed once (in a worker thread)
        and kept in ``daily_bot_scores``."""
        known = await asyncio.to_thread(self._bot_score_of, game, day, dd.BOT)
        if known is not None:
            return known
        score = await asyncio.to_thread(dd.bot_score, game, self.rules.seed(game, day))
        await asyncio.to_thread(self._keep_bot_score, game, day, dd.BOT, score)
        return score

    def play_expert(self, game: str, day: str) -> None:
        """Have the :attr:`expert` play the day's deal, as a heavy job (:mod:`.jobs`, the
        ``slow`` lane; 10–20 s), unless it is playing it already or :data:`EXPERTS_AT_ONCE`
        games are under way (its score is kept in ``daily_bot_scores``; a result that finds
        none asks again; nothing happens without an expert)."""
        key = (game, day)
        if not self.expert or key in self._experts or self._stopping:
            return
        if len(self._experts) >= EXPERTS_AT_ONCE:
            return
        task = asyncio.get_running_loop().create_task(self._play_expert(game, day))
        self._experts[key] = task
        task.add_done_callback(lambda _task: self._experts.pop(key, None))

    async def _play_expert(self, game: str, day: str) -> None:
        try:
            if await asyncio.to_thread(self._bot_score_of, game, day, self.expert) is not None:
                return
            job = {"game": game, "seed": self.rules.seed(game, day), "bot": self.expert}
            key = f"expert:{self.expert}:{game}:{day}"  # one game per deal across the workers
            score = await self.rooms.jobs.run("expert", job, key=key)
            await asyncio.to_thread(self._keep_bot_score, game, day, self.expert, int(score))
        except RoomError as exc:  # busy: asked again at the next result
            log.info("the %s bot's %s game of %s waits: %s", self.expert, game, day, exc)
        except Exception:  # asked again at the next result
            log.exception("the %s bot's %s game of %s failed", self.expert, game, day)

    async def stop(self) -> None:
        """At shutdown: give up the expert's games (their jobs are stopped; asked again
        later)."""
        self._stopping = True
        for task in self._experts.values():
            task.cancel()
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
        if day > self.rules.today():
            raise RoomError(409, "day-not-open", _not_begun(game, day))
        return game, day

    def leaderboard(
        self, game: str, day: str, limit: int, offset: int, board: str = "accounts"
    ) -> dict[str, Any]:
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
            listing = _board(game, day, board)
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
        board = _board(game, day, listed)
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

    def best(self, game: str, limit: int) -> list[dict[str, Any]]:
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
            "streak": dd.streak(days, self.rules.today()),
            "best": {g: best.get(g) for g in daily_games()},
        }

    def history(
        self, player_id: str, game: str | None, limit: int, owner: bool = False
    ) -> dict[str, Any]:
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
    ) -> list[dict[str, Any]]:
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
        days = []
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
