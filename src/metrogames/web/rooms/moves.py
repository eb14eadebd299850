"""The game's use cases: starting it, playing an action, asking for a hint.

Contract: ``docs/web-api.md``, "Playing". Each action is checked by the engine on a copy of the
game; the action and what it changes of the room are stored in one transaction (:mod:`.store`),
and only once that committed the copy becomes the room's game
(:func:`~metrogames.web.rooms.changes.apply_change`). Nothing is stored when it is refused.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence

from sqlalchemy.exc import IntegrityError

from metrogames.core.errors import (
    GameOverError,
    IllegalActionError,
    MetrogamesError,
    NotYourTurnError,
    message_of,
)
from metrogames.core.protocol import CHANCE, Action, JsonObject, JsonValue
from metrogames.games import game_type
from metrogames.i18n import N_, Message, msg, plural
from metrogames.web.checks import hash_token, seat_label
from metrogames.web.errors import RoomError
from metrogames.web.infra import metrics
from metrogames.web.infra.config import Settings
from metrogames.web.infra.jobs.shapes import HintJob
from metrogames.web.rooms.access import check_host, check_playing, check_seat_token, seat_of
from metrogames.web.rooms.changes import Change, apply_change
from metrogames.web.rooms.listeners import JobRunner, RoomRules
from metrogames.web.rooms.requests import ActionRequest, HintRequest
from metrogames.web.rooms.scheduler import Locked, bots_to_move, position_job, seed_of
from metrogames.web.rooms.seats import Held, Settle
from metrogames.web.rooms.store import Moves, RoomChange, RoomStore
from metrogames.web.rooms.tables import Progress, Table

HINT_MOVES = 3
"""How many moves a hint shows."""


def _digest(data: object) -> str:
    """The SHA-256 of ``data``'s canonical JSON (hex)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _stale(step: int, current: int) -> Message:
    return msg(N_("step {step} is not the current step {current}"), step=step, current=current)


def new_deadline(table: Table, clock_unit: float) -> float | None:
    """The deadline of a turn beginning now (``None`` without a turn clock; ``clock_unit``:
    seconds per unit of the room's ``turn_clock``)."""
    if table.turn_clock is None:
        return None
    return time.time() + table.turn_clock * clock_unit


class Playing:
    """The rooms' games.

    Args:
        settings: ``clock_unit`` is read here.
        store: the rooms' rows.
        rules: where hints are off.
        jobs: where hints are searched, out of this process.
        held, locked, settle: the room service's room, lock and what follows a change.
        clock: seat presence (wall-clock seconds).
    """

    def __init__(
        self,
        settings: Settings,
        store: RoomStore,
        rules: RoomRules,
        jobs: JobRunner,
        held: Held,
        locked: Locked,
        settle: Settle,
        clock: Callable[[], float],
    ) -> None:
        self.settings = settings
        self.store = store
        self.rules = rules
        self.jobs = jobs
        self.held = held
        self.locked = locked
        self.settle = settle
        self.clock = clock

    async def start(self, room: str, host: str | None) -> Table:
        """``POST /api/rooms/{room}/start`` (host): deal and play the first chance actions.

        Raises:
            RoomError: ``bad-token``; 409 ``already-started``; 409 ``seats-open`` while a human
                seat is unclaimed.
        """
        async with self.held(room) as table:
            check_host(table, host)
            async with self.locked(table):
                if table.status != "waiting":
                    raise RoomError(409, "already-started", msg(N_("the game has already started")))
                open_seats = [s.seat for s in table.seats if s.human and s.token_hash is None]
                if open_seats:
                    raise RoomError(
                        409,
                        "seats-open",
                        plural(
                            "seat {seats} waits for a player",
                            "seats {seats} wait for players",
                            len(open_seats),
                            seats=", ".join(str(seat_label(s)) for s in open_seats),
                        ),
                    )
                await self._start(table)
            await self.settle(table)
        return table

    async def _start(self, table: Table) -> None:
        trial = table.progress.copy()
        moves = trial.chance_actions()
        await self._store(table, trial, moves, status="playing")

    async def act(
        self,
        room: str,
        token: str | None,
        body: ActionRequest,
        admit: Callable[[str, int], None] | None = None,
    ) -> tuple[Table, int]:
        """``POST /api/rooms/{room}/actions``: play ``{"action", "step"}`` for the token's seat
        (``admit(room, seat)`` first: the seat's flood control, :mod:`~metrogames.web.infra.flood`).

        Returns:
            The table and the acting seat (bots that follow have played when ``bot_delay`` is
            0, else they play in the background).

        Raises:
            RoomError: ``bad-token``; ``bad-request``; 409 ``not-started``, ``game-over``,
                ``stale-step``, ``not-your-turn``; 400 with the engine's reason
                (``bad-notation`` for an action that does not parse).
        """
        async with self.held(room) as table:
            seat = seat_of(table, token)
            if admit is not None:
                admit(table.id, seat)
            await self.act_as(table, seat, body, hash_token(token or ""))
        return table, seat

    async def act_as(
        self, table: Table, seat: int, body: ActionRequest, token_hash: str | None
    ) -> None:
        """Play ``{"action", "step"}`` for ``seat``, whose token (``token_hash``, its digest)
        is checked again under the room's lock, the room caught up (a token replaced since
        the caller saw it no longer acts); errors as :meth:`act`."""
        step = body.step
        async with self.locked(table):
            check_seat_token(table, seat, token_hash)
            check_playing(table)
            if not self._step_current(table, seat, step):
                raise RoomError(409, "stale-step", _stale(step, table.progress.step))
            if table.seats[seat].bot is not None:
                raise RoomError(
                    409,
                    "not-your-turn",
                    msg(N_("seat {seat} is played by a bot; reclaim it first"), seat=seat_label(seat)),
                )
            state = table.progress.state
            try:
                action = state.action_from_json(seat, body.action)
            except MetrogamesError as exc:
                raise RoomError(400, "bad-notation", message_of(exc)) from None
            await self.play(table, seat, action)
            table.present[seat] = self.clock()
        await self.settle(table)

    async def hint(
        self, room: str, token: str | None, body: HintRequest, who: Sequence[str] = ()
    ) -> JsonObject:
        """``POST /api/rooms/{room}/hint``: the coach's best moves for the token's seat at
        ``step`` (:func:`metrogames.bots.coach.hints` on the seat's own view, never the full
        state), with the estimate of ``about`` when given. The search is a heavy job
        (:mod:`~metrogames.web.infra.jobs`, for the requesters ``who``) keyed by the position as the seat sees it
        and ``about`` (:func:`position_job`), its seed derived from that key: the same
        position gets the same hints in any room, computed once. It runs without the room's
        lock: the position it read stays the answer's ``step``.

        Returns:
            ``{"step", "seat", "figure", "moves": [...], "about": ... | null}``.

        Raises:
            RoomError: ``bad-token``; 409 ``ranked-game`` (a ranked daily game),
                ``not-started``, ``game-over``, ``stale-step``, ``not-your-turn`` (the seat
                is not to move, or played by a bot); 400 ``bad-notation`` (``about`` does not
                parse), ``not-legal`` (``about`` is not a legal move now); the refusals of
                :meth:`~metrogames.web.infra.jobs.service.Jobs.run` (429, 503 ``busy``).
        """
        async with self.held(room) as table:
            seat = seat_of(table, token)
            if self.rules.hints_off(table):
                raise RoomError(409, "ranked-game", msg(N_("hints are off in a ranked daily game")))
            check_playing(table)
            step = body.step
            if not self._step_current(table, seat, step):
                raise RoomError(409, "stale-step", _stale(step, table.progress.step))
            state = table.progress.state
            if seat not in state.to_move() or table.seats[seat].bot is not None:
                raise RoomError(
                    409, "not-your-turn", msg(N_("seat {seat} is not to move"), seat=seat_label(seat))
                )
            view = state.view(seat)
            about = None
            if body.about is not None:
                try:
                    about = view.action_from_json(seat, body.about)
                except MetrogamesError as exc:
                    raise RoomError(400, "bad-notation", message_of(exc)) from None
                if not view.is_legal(seat, about):
                    text = view.action_to_string(seat, about)
                    raise RoomError(
                        400, "not-legal", msg(N_("{move} is not a legal move now"), move=text)
                    )
            where = position_job(view, seat)
            asked: JsonValue = None if about is None else view.action_to_json(seat, about)
            key = "hint:" + _digest({**where, "about": asked})
            job: HintJob = {**where, "about": asked, "seed": seed_of(key), "k": HINT_MOVES}
            found = await self.jobs.run("hint", job, key=key, who=who)
        return {"step": step, "seat": seat, **found}

    @staticmethod
    def _step_current(table: Table, seat: int, step: int) -> bool:
        """Whether an action sent at ``step`` is for the position now. In a simultaneous Next
        Station turn the other seats' actions move the step on without changing what ``seat``
        decides, so any step since the turn's card counts while ``seat`` has not acted; a
        resent action (the seat has acted since) or one from an earlier turn does not."""
        progress = table.progress
        if step == progress.step:
            return True
        return (
            game_type(table.game).dynamics == "simultaneous"
            and progress.turn_step <= step < progress.step
            and seat in progress.state.to_move()
        )

    async def play(
        self, table: Table, seat: int, action: Action, clock_step: int | None = None
    ) -> None:
        """Check and store one player action and the chance actions it makes due (with the new
        turn's deadline when a turn begins). ``clock_step``: the turn clock plays the action
        for ``seat``, whose time ran out at that step (the seat is told, :attr:`Table.timed_out`);
        any other action of the seat ends that notice."""
        before = table.progress.state
        trial = table.progress.copy()
        try:
            trial.apply(seat, action)
        except NotYourTurnError:  # the engine's text names players 0-based: say it as the page
            message = msg(N_("seat {seat} is not to move"), seat=seat_label(seat))
            raise RoomError(409, "not-your-turn", message) from None
        except GameOverError as exc:
            raise RoomError(409, "game-over", exc.detail_message()) from None
        except IllegalActionError as exc:
            raise RoomError(400, exc.reason, exc.as_message(), item=exc.item) from None
        moves = [(seat, action), *trial.chance_actions()]
        status = "finished" if trial.state.is_over() else None
        await self._store(table, trial, moves, status, clock_step)
        metrics.child(metrics.ACTIONS, table.game).inc()
        if clock_step is None:
            table.timed_out.pop(seat, None)
        else:
            notice = table.timed_out.get(seat)
            if notice is None or notice["step"] != clock_step:
                notice = table.timed_out[seat] = {"step": clock_step, "actions": []}
            notice["actions"].append(before.action_to_json(seat, action))

    async def _store(
        self,
        table: Table,
        trial: Progress,
        moves: Moves,
        status: str | None,
        clock_step: int | None = None,
    ) -> None:
        """Write ``moves`` (and what they change of the room: its status, the turn clock's
        deadline when a turn begins — in Metro every action, in Next Station a card flip —,
        whether a bot is to move) in one transaction, then adopt ``trial``. The write runs on
        the writer thread (the room's lock is held), so other rooms go on."""
        state = table.progress.state
        playing = (status or table.status) == "playing"
        deadline = table.deadline if playing else None
        sequential = game_type(table.game).dynamics == "sequential"
        if playing and (sequential or any(p == CHANCE for p, _ in moves)):
            deadline = new_deadline(table, self.settings.clock_unit)
        due = playing and bool(bots_to_move(table, progress=trial))
        room: RoomChange = {}
        if status is not None:
            room["status"] = status
        if status == "finished":
            room["finished"] = time.time()
        if deadline != table.deadline:
            room["deadline"] = deadline
        if due != table.bots_due:
            room["bots_due"] = due
        try:
            texts = await self.store.on_writer(
                self.store.write, table, trial, moves, room, state, clock_step
            )
        except IntegrityError:
            table.stale, table.version = True, None  # another worker played: catch up next
            raise RoomError(409, "stale-step", msg(N_("another action took this step"))) from None
        apply_change(table, Change(trial, status or table.status, deadline, due))
        if table.written is not None:
            table.written += (f"[{p},{text}]" for (p, _), text in zip(moves, texts, strict=True))
