"""Play now, tied to the rooms (``docs/web-api.md``, "Play now").

:meth:`Matchmaker.ask` checks a request and queues it (the player's earlier one leaves);
:meth:`Matchmaker.run` is each worker's matchmaker: every :data:`ROUND_SECONDS` (jittered),
and at once when a request comes to this worker, it reads the waiting requests, groups them
(:func:`~.matching.groups`), claims each group atomically (:meth:`~.queue.Queue.claim`: with
several workers both may group the same requests; one claim wins, the other takes nothing)
and opens its table: an ``online`` room started at once, each seat holding its player's token
and tied to its account (rated as any online game), with the turn clock of its kind. A
table that cannot be opened puts its requests back. A request waiting longer than
``quickmatch_expiry`` leaves. A waiting page learns its seat from :meth:`Matchmaker.wait`
(told at once of a seating on any worker: :meth:`~.queue.Queue.watch`), and after
``quickmatch_bots_after`` seconds may take the same table with bots in the other seats
(:meth:`Matchmaker.with_bots`). No lock is held while anything waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from metrogames.core.protocol import JsonObject
from metrogames.games import game_names, game_type
from metrogames.i18n import N_, msg
from metrogames.web.accounts.service import Account
from metrogames.web.checks import bot_name, hash_token, new_token
from metrogames.web.errors import RoomError, bad_request, shown
from metrogames.web.infra.config import Settings
from metrogames.web.infra.events import AccountEvents
from metrogames.web.infra.models import AccountRow, RatingRow, SeatRow
from metrogames.web.matchmaking.matching import (
    CLOCKS,
    Pairing,
    Ticket,
    Windows,
    everyone,
    groups,
)
from metrogames.web.matchmaking.queue import Queue, Seating
from metrogames.web.rooms.listeners import Origin
from metrogames.web.rooms.service import RoomService
from metrogames.web.rooms.tables import Seat, Table

log = logging.getLogger("metrogames.web.matchmaking")
ROUND_SECONDS = 0.5
"""The longest a worker's matchmaker waits between two rounds."""

BOT = "medium"
"""The bot that fills the seats of a table taken with bots."""
MIN_PLAYERS = 2
"""Play now seats at least two players (one player plays solo from the home page)."""


@dataclass(frozen=True)
class Ask:
    """A request as asked: ``game``, ``players`` (the count), ``clock`` (one of
    :data:`~.matching.CLOCKS`) and the guest's seat ``name`` (``None``: the account's name, or
    ``Player``)."""

    game: str
    players: int
    clock: str
    name: str | None = None


def check_ask(ask: Ask) -> None:
    """The request names a served game, a player count it takes (at least
    :data:`MIN_PLAYERS`) and a clock kind.

    Raises:
        RoomError: 400 ``bad-request`` naming the field (``play now: game: …``).
    """
    names = game_names()
    if ask.game not in names:
        raise bad_request(
            f"play now: game: unknown game {shown(ask.game)} (one of {', '.join(names)})"
        )
    counts = [n for n in game_type(ask.game).players if n >= MIN_PLAYERS]
    if ask.players not in counts:
        detail = (
            f"{ask.game} is played by {counts[0]} to {counts[-1]} players"
            if counts
            else (f"{ask.game} is not played by several players")
        )
        raise bad_request(f"play now: players: {detail}")
    if ask.clock not in CLOCKS:
        raise bad_request(f"play now: clock: {shown(ask.clock)} is not one of {', '.join(CLOCKS)}")


def rating_of(session: Session, account: str, game: str, players: int) -> float:
    """The account's shown rating (``mu - 3 sigma``) for the game and player count; 0 before
    its first rated game."""
    row = session.scalar(
        select(RatingRow).where(
            RatingRow.account_id == account, RatingRow.game == game, RatingRow.players == players
        )
    )
    return 0.0 if row is None else row.mu - 3 * row.sigma


class Matchmaker:
    """Play now on this worker.

    Args:
        settings: the ``quickmatch_*`` settings are read here.
        rooms: the room service the tables open in.
        queue: the queue (in memory, or in Redis with several workers).
        pairing: the round's pairing predicate: may two requests sit together (besides their
            ratings); default: yes (the app plugs in the blocks between accounts:
            :func:`~metrogames.web.matchmaking.blocks.block_pairing`).
        clock: epoch seconds (tests replace it).
        on_seated: told of each request seated, with its seating and the table's game, once
            the table is open (the bot API tells a bot's event stream ``gameStart``).
    """

    def __init__(
        self,
        settings: Settings,
        rooms: RoomService,
        queue: Queue,
        pairing: Pairing = everyone,
        clock: Callable[[], float] = time.time,
        on_seated: Callable[[Ticket, Seating, str], Awaitable[None]] | None = None,
    ) -> None:
        self.settings = settings
        self.on_seated = on_seated
        self.rooms = rooms
        self.queue = queue
        self.pairing = pairing
        self.clock = clock
        self.windows = Windows(settings.quickmatch_window, settings.quickmatch_widen)
        self.seated = 0
        """Tables this worker opened (tests and the metrics read it)."""
        self._wake = asyncio.Event()
        self._told: dict[str, asyncio.Event] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- asking -----------------------------------------------------------------------------
    async def ask(
        self, ask: Ask, account: Account | None, origin: Origin, pool: str | None = None
    ) -> tuple[Ticket, str]:
        """Queue a request (checked: :func:`check_ask`) of ``account`` (or a guest known by
        its address, ``origin[0]``); its player's earlier waiting request leaves. ``pool``:
        a bot account's request (``bot``: its own pool; ``human``: its owner opted into the
        people's), ``None`` for a person's.

        Returns:
            The ticket and the token of the seat it will hold (shown once).

        Raises:
            RoomError: 400 ``bad-request`` (nothing queued).
        """
        check_ask(ask)
        rating = 0.0
        if account is not None:
            rating = await asyncio.to_thread(self._rating, account.id, ask.game, ask.players)
        token = new_token()
        ticket = Ticket(
            id=secrets.token_hex(8),
            player=f"account:{account.id}" if account else f"guest:{origin[0]}",
            game=ask.game,
            players=ask.players,
            clock=ask.clock,
            rating=rating,
            joined=self.clock(),
            token_hash=hash_token(token),
            name=account.name if account else (ask.name or "Player"),
            account=account.id if account else None,
            address=origin[0],
            session=origin[1],
            bot=pool is not None,
            pool=pool or "human",
        )
        replaced = await self.queue.join(ticket)
        if replaced is not None:
            self.wake_stream(replaced)  # its stream says it is gone
        self._wake.set()
        return ticket, token

    def _rating(self, account: str, game: str, players: int) -> float:
        with self.rooms.sessions() as session:
            return rating_of(session, account, game, players)

    async def mine(self, ticket_id: str, token: str | None) -> Ticket:
        """The waiting request ``ticket_id`` if ``token`` is its token.

        Raises:
            RoomError: 401 ``bad-token`` without a token, 403 for another token; 404
                ``not-found`` when it no longer waits (seated, cancelled, replaced, expired).
        """
        if not token:
            raise RoomError(401, "bad-token", msg(N_("this needs the request's token")))
        ticket = await self.queue.get(ticket_id)
        if ticket is None:
            raise RoomError(404, "not-found", msg(N_("this request no longer waits")))
        if not secrets.compare_digest(ticket.token_hash, hash_token(token)):
            raise RoomError(403, "bad-token", msg(N_("this token is not the request's")))
        return ticket

    async def cancel(self, ticket: Ticket) -> bool:
        """Take the request out of the queue (False: it was seated meanwhile)."""
        left = await self.queue.leave(ticket.id)
        self.wake_stream(ticket.id)
        return left

    async def with_bots(self, ticket: Ticket) -> Seating:
        """Seat the request at once at its table with bots (:data:`BOT`) in the other seats,
        once it has waited ``quickmatch_bots_after`` seconds.

        Raises:
            RoomError: 409 ``too-early`` before that; 409 ``seated`` when it was seated
                meanwhile (its seating is sent on its stream).
        """
        waited = self.clock() - ticket.joined
        if waited < self.settings.quickmatch_bots_after:
            left = self.settings.quickmatch_bots_after - waited
            message = msg(N_("the bots are offered after {n} more seconds"), n=int(left) + 1)
            raise RoomError(409, "too-early", message)
        if not await self.queue.claim([ticket]):
            raise RoomError(409, "seated", msg(N_("this request was seated meanwhile")))
        seating = await self._open([ticket])
        if seating is None:
            raise RoomError(503, "unavailable", msg(N_("the table could not be opened; try again")))
        return seating

    # -- waiting ----------------------------------------------------------------------------
    async def wait(self, ticket_id: str, timeout: float) -> Seating | None:
        """Where the request sat, waiting for it at most ``timeout`` seconds (``None``: not
        seated by then): told at once of a seating by any worker (:meth:`~.queue.Queue.watch`),
        and looking again at the end (a message Redis lost). The wake-up is armed before the
        first look and stays set until a wait consumes it, so news told while a look is under
        way, or between two waits, wakes the next wait at once instead of after ``timeout``."""
        told = self._told.setdefault(ticket_id, asyncio.Event())
        found = await self.queue.seating(ticket_id)
        if found is not None:
            return found
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(told.wait(), timeout)
        told.clear()  # consumed: what it told is in the queue, read below and by the caller
        return await self.queue.seating(ticket_id)

    def wake_stream(self, ticket_id: str) -> None:
        """A request was seated (here or on another worker), or left the queue here: wake its
        stream here, if it has one."""
        told = self._told.get(ticket_id)
        if told is not None:
            told.set()

    def forget(self, ticket_id: str) -> None:
        """A waiting page's stream ended: stop keeping its wake-up."""
        self._told.pop(ticket_id, None)

    def abandon(self, ticket_id: str) -> None:
        """The client waiting for the request left: take it out of the queue, in the
        background (called where nothing may be awaited: a stream's end)."""
        task = asyncio.get_running_loop().create_task(self._leave(ticket_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _leave(self, ticket_id: str) -> None:
        try:
            await self.queue.leave(ticket_id)
        except Exception:
            log.exception("play now: an abandoned request could not leave the queue")

    # -- matching ---------------------------------------------------------------------------
    async def run(self) -> None:
        """Until cancelled: a round (:meth:`round`) every :data:`ROUND_SECONDS` (±20 %: two
        workers' rounds drift apart) or at once when a request comes in."""
        watching = asyncio.get_running_loop().create_task(self.queue.watch(self.wake_stream))
        try:
            await self._rounds()
        finally:
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watching

    async def _rounds(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.round()
            except Exception:
                log.exception("play now: a round failed")
            wait = ROUND_SECONDS * random.uniform(0.8, 1.2)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)

    async def round(self) -> int:
        """Drop the expired requests, seat every group found now; returns the tables opened."""
        now = self.clock()
        waiting = await self.queue.waiting()
        expired = [t for t in waiting if now - t.joined > self.settings.quickmatch_expiry]
        for ticket in expired:
            await self.queue.leave(ticket.id)  # its stream tells it: gone
        live = [t for t in waiting if t not in expired]
        found = groups(live, self.windows, now, await self.pairing(live))
        won = [g for g in found if await self.queue.claim(g)]
        opened = await asyncio.gather(*(self._open(g) for g in won))
        return sum(1 for seating in opened if seating is not None)

    def _bot_accounts(self, accounts: list[str | None]) -> set[str | None]:
        """Which of ``accounts`` are bot accounts (their seats read ``kind: "bot"``)."""
        wanted = [a for a in accounts if a is not None]
        if not wanted:
            return set()
        with self.rooms.sessions() as session:
            found = session.scalars(
                select(AccountRow.id).where(AccountRow.id.in_(wanted), AccountRow.bot)
            )
            return set(found)

    async def _open(self, group: list[Ticket]) -> Seating | None:
        """Open the table of claimed requests (bots in the seats left), record each one's
        seating and tell its stream; a table that cannot be opened puts them back (``None``)."""
        first = group[0]
        players = list(group)
        random.SystemRandom().shuffle(players)
        bots = await asyncio.to_thread(self._bot_accounts, [t.account for t in players])
        seats = [
            Seat(i, t.name, True, None, t.token_hash, t.account in bots)
            for i, t in enumerate(players)
        ]
        for k in range(1, first.players - len(players) + 1):
            name = bot_name(None, BOT) + (f" {k}" if k > 1 else "")
            seats.append(Seat(len(seats), name, False, BOT, None))
        claims: dict[int, Origin] = {i: (t.address, t.session) for i, t in enumerate(players)}
        accounts = {i: t.account for i, t in enumerate(players) if t.account is not None}

        def tie(session: Session, table: Table) -> None:
            for seat, account in accounts.items():
                session.execute(
                    update(SeatRow)
                    .where(SeatRow.room_id == table.id, SeatRow.seat == seat)
                    .values(account_id=account)
                )

        clock = (
            self.settings.quickmatch_live_clock
            if first.clock == "live"
            else self.settings.quickmatch_turn_clock
        )
        try:
            table = await self.rooms.create_dealt(
                first.game, "online", secrets.randbits(63), seats, tie, clock, claims, public=True
            )
        except Exception:
            log.exception("play now: a %s table could not be opened", first.game)
            await self.queue.restore(group)
            return None
        self.seated += 1
        mine: Seating | None = None
        for i, ticket in enumerate(players):
            seating = Seating(room=table.id, seat=i)
            await self.queue.seat(ticket.id, seating)
            if self.on_seated is not None:
                try:
                    await self.on_seated(ticket, seating, table.game)
                except Exception:  # a listener's fault leaves the table as it is
                    log.exception("play now: telling %s of its seat failed", ticket.id)
            if ticket is first:
                mine = seating
        return mine


def bot_seated(events: AccountEvents) -> Callable[[Ticket, Seating, str], Awaitable[None]]:
    """The matchmaker's ``on_seated`` of the app: a bot account's request, seated, tells the
    bot's event stream ``gameStart`` ``{"room", "seat", "game"}`` on every worker
    (``docs/web-api.md``, "Bot accounts"), as a seat the bot takes itself does."""

    async def told(ticket: Ticket, seating: Seating, game: str) -> None:
        if ticket.bot and ticket.account is not None:
            event: JsonObject = {
                "type": "gameStart",
                "room": seating["room"],
                "seat": seating["seat"],
                "game": game,
            }
            await events.publish(ticket.account, event)

    return told
