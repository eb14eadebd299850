"""The daily challenge service (``docs/web-api.md``, "The daily challenge (v1)").

One solo deal per game and UTC day (:mod:`~metrogames.web.daily.deal`), played on the server in a room of
mode ``daily`` whose one seat is held by the player token (:mod:`~metrogames.web.accounts.players`), so the rooms'
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
* **Leaderboards**, **publishing** and the players' histories: :mod:`.boards`.

Reads that grow with the stored games (a result's rank) are sync methods here, run on worker
threads by :mod:`metrogames.web.api.daily`, so they never hold up the event loop. The clock is
``now()`` (epoch seconds, :class:`~metrogames.web.daily.rules.DailyRules`), injected so tests
can move time.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import weakref
from functools import lru_cache

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from metrogames.core.protocol import JsonObject
from metrogames.games import daily_games, game_type
from metrogames.i18n import N_, Gettext, msg, plural
from metrogames.web.accounts.players import Player, Players
from metrogames.web.checks import hash_token, new_token
from metrogames.web.daily import deal as dd
from metrogames.web.daily.boards import DailyBoards, board_query, not_begun
from metrogames.web.daily.open_deals import OpenDeals, deal_chances
from metrogames.web.daily.rules import DailyRules
from metrogames.web.errors import RoomError
from metrogames.web.infra.jobs.shapes import ExpertJob
from metrogames.web.infra.models import (
    AccountRow,
    DailyAttemptRow,
    DailyBotScoreRow,
    PlayerRow,
)
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Seat, Table

log = logging.getLogger("metrogames.web.daily")  # the name its log lines always had
EXPERTS_AT_ONCE = 2
"""The daily expert's games under way at once in one serving process (each asked for by a
result that needs its figure; past them, the result asks again later)."""
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
        self.boards = DailyBoards(rooms, players, rules)
        """The leaderboards, the published deals and the players' histories."""
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
    def overview(self, player: Player | None, gettext: Gettext = N_) -> JsonObject:
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
    ) -> JsonObject:
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
            raise RoomError(409, "day-not-open", not_begun(game, day))
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

    async def _resume(self, attempt: DailyAttemptRow, account: bool) -> JsonObject:
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
    async def result(self, player: Player, game: str, day: str) -> JsonObject:
        """``GET /api/daily/{game}/{day}/result``: the player's game of that day (the ranked
        one, else the last practice game): ``{"score", "rank", "of", "board", "percentile",
        "rating", "bot"}``.

        ``board`` is the player's list (``accounts``: the leaderboard, or ``guests``),
        ``rank`` the rank on it (``None`` unshared or practice), ``of`` its size,
        ``percentile`` the share of the games on that same list (this one counted, added
        when it is not on it: unshared or practice) scoring less, equal scores counting half,
        so that rank and percentile speak of one population.

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

    def _result(self, player: Player, game: str, day: str) -> JsonObject:
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
            board = board_query(game, day, listed).subquery()
            of = session.scalar(select(func.count()).select_from(board)) or 0
            listed_here = mine.ranked and mine.shared
            count = select(func.count()).select_from(board)
            better = session.scalar(count.where(board.c.score > score)) or 0
            equal = session.scalar(count.where(board.c.score == score)) or 0
            below = of - better - equal
            rank = 1 + better if listed_here else None
        total = of
        if not listed_here:  # this game counted though it is not on the list
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
        """Have the :attr:`expert` play the day's deal, as a heavy job (:mod:`~metrogames.web.infra.jobs`, the
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
            job: ExpertJob = {"game": game, "seed": self.rules.seed(game, day), "bot": self.expert}
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
