"""Turn clocks and bots: what runs in a room without anyone sending anything.

A turn clock's deadline and whether a bot is to move are stored with the change that sets them
(:mod:`.service`), so a restarted server resumes every such room's clock and bots. Turn clocks
and bots run wherever the room is in memory; each fire takes the room's lock (and, with several
workers, catches up first, so the second finds nothing left to do). The quick bots decide on a
thinking thread of this process; every other bot's decision is a heavy job
(:mod:`metrogames.web.infra.jobs`, the ``play`` lane).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from typing import ParamSpec, TypeVar

from metrogames.bots.base import make_bot
from metrogames.core.protocol import CHANCE, Action, State
from metrogames.web.infra.config import Settings
from metrogames.web.infra.jobs.shapes import DecideJob, PositionJob
from metrogames.web.rooms.changes import Change, apply_change
from metrogames.web.rooms.listeners import JobRunner
from metrogames.web.rooms.tables import Progress, Seat, Table
from metrogames.web.rooms.tutorial import tutorial_bot_move

log = logging.getLogger("metrogames.web.rooms")  # one logger for the room core
T = TypeVar("T")
P = ParamSpec("P")
CLOCK_BOT = "medium"
"""The bot that plays a Metro turn whose clock ran out (a level: the greedy player closes its
own routes too early in Metro)."""
RETRY_SECONDS = 1.0
"""How long a bot or a turn clock whose action could not be stored waits before trying again."""
QUICK_BOTS = frozenset({"easy", "medium", "random", "greedy"})
"""The bots whose decisions take a few milliseconds at most (measured: ``benchmarks/bots.py``):
they decide on a thinking thread of the serving process; every other bot's decision is a
heavy job (:mod:`metrogames.web.infra.jobs`, the ``play`` lane)."""
Play = Callable[[Table, int, Action, int | None], Awaitable[None]]
"""The room service's move: check and store one action for a seat (``clock_step``: played for
the turn clock), under the room's lock."""
Locked = Callable[[Table], AbstractAsyncContextManager[Table]]
"""The room service's lock on a room (across the workers too)."""


def position_job(view: State[Action], seat: int) -> PositionJob:
    """The plain data of a position job (:mod:`metrogames.web.work`): ``seat``'s
    ``view`` as its game, player count, options and snapshot, and the seat."""
    game = view.game
    return {
        "game": game.name,
        "players": game.num_players,
        "options": game.options_json(),
        "snapshot": view.snapshot(),
        "seat": seat,
    }


def seed_of(text: str) -> int:
    """A search's seed (63 bits) derived from ``text``: the same text, the same search."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def bots_to_move(
    table: Table, seats: list[Seat] | None = None, progress: Progress | None = None
) -> list[int]:
    """Bot seats to act now (in ``progress`` with ``seats``; default: the room's): in Next
    Station once every human of the turn has acted; in Metro the seat in turn when it is
    a bot's."""
    seats = table.seats if seats is None else seats
    movers = (table.progress if progress is None else progress).state.to_move()
    bots = [p for p in sorted(movers) if p != CHANCE and seats[p].bot]
    if len(bots) != len(movers):
        return []
    return bots[:1]


class Scheduler:
    """The rooms' turn clocks and bots.

    Args:
        settings: ``bot_delay`` and ``clock_unit`` are read here.
        jobs: where the searching bots decide, out of this process.
        locked: the room's lock (:meth:`~metrogames.web.rooms.sync.RoomSync.locked`).
        play: the room service's move (:data:`Play`).
        clock: idleness (wall-clock seconds: ``Table.touched``).
    """

    def __init__(
        self,
        settings: Settings,
        jobs: JobRunner,
        locked: Locked,
        play: Play,
        clock: Callable[[], float],
    ) -> None:
        self.settings = settings
        self.jobs = jobs
        self.locked = locked
        self.play = play
        self.clock = clock
        self._thinker = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metrogames-think")
        """Two threads for the quick bots' decisions (:data:`QUICK_BOTS`): off the event
        loop; the searching bots and hints are heavy jobs (:attr:`jobs`)."""

    async def think(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn(*args, **kwargs)`` (a quick bot's decision) on a thinking thread and wait
        for its result."""
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._thinker, call)

    async def settle(self, table: Table) -> None:
        """After a change: start the clock of a new turn (its deadline is in the views), tell
        the listeners, then run the bots (inline when ``bot_delay`` is 0, else in a background
        task that spaces their actions out)."""
        self.after_change(table)
        await table.notify()
        if self.settings.bot_delay <= 0 and table.bot_task is None:
            await self.run_bots(table)

    def after_change(self, table: Table, background: bool = False) -> None:
        """Run the turn clock to the room's deadline (started again when the deadline
        changed; stopped once the game is over) and start the bot task when bots are to move
        and ``bot_delay`` > 0 (or ``background``: a resumed room)."""
        table.touched = self.clock()
        if table.status != "playing":
            self.stop_clock(table)
            return
        spaced = self.settings.bot_delay > 0 or background
        if spaced and table.bot_task is None and bots_to_move(table):
            table.bot_task = asyncio.get_running_loop().create_task(self.run_bots(table))
        if table.deadline is None:
            self.stop_clock(table)
        elif table.deadline != table.clock_for:
            self.start_clock(table)

    async def run_bots(self, table: Table, pause: float | None = None) -> None:
        """Play bot actions one step at a time until a human is to move or the game ends,
        ``pause`` seconds before the first (default ``bot_delay``) and ``bot_delay`` between
        the others. A bot action that cannot be stored is tried again later by a background
        task (``RETRY_SECONDS``): the game waits for it, unchanged. The room's lock is taken
        only when its copy has a bot to move (looked at again under the lock): after most
        actions none is, and a bot task is started on the same look (:meth:`after_change`)."""
        delay = self.settings.bot_delay
        pause = delay if pause is None else pause
        failed = False
        try:
            while True:
                if pause > 0:
                    await asyncio.sleep(pause)
                pause = delay
                if table.status != "playing" or not bots_to_move(table):
                    return
                async with self.locked(table):
                    if table.status != "playing":
                        return
                    movers = bots_to_move(table)
                    if not movers:
                        return
                    seat = movers[0]
                    code = table.seats[seat].bot or CLOCK_BOT
                    try:
                        await self.bot_play(table, seat, code)
                    except Exception:
                        log.exception("room %s: seat %d's bot action failed", table.id, seat)
                        failed = True
                        return
                self.after_change(table)
                await table.notify()
        finally:
            if table.bot_task is asyncio.current_task():
                table.bot_task = None
            if failed:
                table.bot_task = asyncio.get_running_loop().create_task(
                    self.run_bots(table, RETRY_SECONDS)
                )

    async def bot_play(
        self, table: Table, seat: int, code: str, clock_step: int | None = None
    ) -> object:
        """One bot action for ``seat`` (it sees the turn's start, or its Metro view; played
        for the turn clock when ``clock_step`` is given: see :meth:`~metrogames.web.rooms.moves.Playing.play`); returns the
        action's JSON."""
        state = table.progress.state
        seen = state.view(seat)
        step = table.progress.step
        seed = seed_of(f"metrogames/bot/{table.seed}/{seat}/{step}")
        scripted = tutorial_bot_move(table.game, table.seed, seat, seen)
        if scripted is not None:  # a guided first game's opening, as its steps tell it
            action = scripted
        elif code in QUICK_BOTS:
            bot = make_bot(code, seed=seed)
            action = await self.think(bot.decide, seen, seat, seen.legal_actions(seat))
        else:  # the room's lock is held meanwhile
            job: DecideJob = {**position_job(seen, seat), "bot": code, "seed": seed}
            decided = await self.jobs.run("decide", job)
            action = seen.action_from_json(seat, decided["action"])
        await self.play(table, seat, action, clock_step)
        return state.action_to_json(seat, action)

    def start_clock(self, table: Table) -> None:
        """Start the turn clock's task: it wakes at the room's deadline."""
        self.stop_clock(table)
        deadline = table.deadline
        assert deadline is not None
        table.clock_for = deadline
        table.clock_task = asyncio.get_running_loop().create_task(self._clock(table, deadline))

    def stop_clock(self, table: Table) -> None:
        """Stop the turn clock's task (unless it is the task running this)."""
        task = table.clock_task
        table.clock_task = None
        table.clock_for = None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _clock(self, table: Table, deadline: float) -> None:
        """When the turn's time runs out: the humans yet to act pass, in a game with a pass
        (Next Station); else a bot plays the turn (``CLOCK_BOT``, Metro). Each such seat is
        told what was played for it (``timed_out`` in its views). An action that cannot be
        stored is tried again ``RETRY_SECONDS`` later."""
        await asyncio.sleep(max(0.0, deadline - time.time()))
        async with self.locked(table):
            if table.clock_task is not asyncio.current_task():
                return
            if table.status != "playing" or table.deadline != deadline:  # done elsewhere
                self.stop_clock(table)
                return
            table.clock_task = None  # clock_for stays: this deadline is spent
            state = table.progress.state
            late = [p for p in sorted(state.to_move()) if p != CHANCE and not table.seats[p].bot]
            if not late:
                return
            pass_action = state.game.pass_action
            step = table.progress.step
            try:
                if pass_action is not None:
                    for p in late:
                        await self.play(table, p, pass_action, step)
                else:
                    actor = late[0]
                    while table.status == "playing" and actor in table.progress.state.to_move():
                        await self.bot_play(table, actor, CLOCK_BOT, step)
            except Exception:
                log.exception("room %s: the turn clock's action failed", table.id)
                retry = time.time() + RETRY_SECONDS  # in memory only: the stored one passed
                apply_change(table, Change(table.progress, table.status, retry, table.bots_due))
        await self.settle(table)

    async def stop(self, tables: Iterable[Table]) -> None:
        """At shutdown: stop every room's clock and bot tasks (what they would do next is
        stored: a restarted server resumes it)."""
        tasks = []
        for table in tables:
            for task in (table.clock_task, table.bot_task, table.refresh_task):
                if task is not None:
                    task.cancel()
                    tasks.append(task)
        await asyncio.gather(*tasks, return_exceptions=True)
