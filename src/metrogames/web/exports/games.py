"""The stored games of a month, read in batches, and each one's export line
(``docs/exports.md``, "A game").

A game is in the month it finished in (``rooms.finished``, UTC): every finished room of mode
``online`` or ``daily``, except a daily game whose day is still open (its deal is secret until
the day closes). The rooms are read :data:`BATCH` at a time, in (finish time, id) order, each
batch with its seats, the accounts behind them, its actions and its ratings in one query each;
each game is replayed by the engine (through the registry and protocol) to write its record,
with the seed and the whole deal (a finished game hides nothing). Nothing else of a seat is
read: no token, address, session, password, or chat.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from sqlalchemy import Row, and_, func, or_, select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.core.protocol import JsonObject
from metrogames.games import game_from_options
from metrogames.web.daily.deal import day_of
from metrogames.web.exports.months import Month, iso
from metrogames.web.exports.pseudonyms import game_id, pseudonym
from metrogames.web.infra.models import (
    AccountRow,
    ActionRow,
    DailyAttemptRow,
    PlayerRow,
    RatedGameRow,
    RatedSeatRow,
    RoomRow,
    SeatRow,
)
from metrogames.web.ratings.service import Rating, ranks
from metrogames.web.rooms.tables import loaded_seed

BATCH = 200
"""Rooms read per batch (a batch's actions are in memory at once, a few thousand rows)."""
MODES = ("online", "daily")


RoomFacts: TypeAlias = Row[str, str, str, str, int, float | None, str]
"""A finished room as an export reads it: ``id``, ``game``, ``mode``, ``options`` (JSON text),
``seed``, ``finished`` (epoch s, never null for a finished room) and its daily attempt's ``day``
(``None`` at run time for a room of no daily attempt: an outer join)."""

@dataclass(frozen=True)
class SeatFacts:
    """What an export shows of a seat: ``human``, the ``bot`` code playing it (or null), and
    the ``account`` behind it, with its ``name``, whether it is shown (``export_name``) and
    whether it is a bot account (``bot_account``: docs/web-api.md, "Bot accounts")."""

    human: bool
    bot: str | None
    account: str | None
    name: str | None
    export_name: bool
    bot_account: bool = False


def is_bot(seat: SeatFacts) -> bool:
    """Whether the export marks ``seat`` as a bot: the one place that decides it. A bot is a
    room's bot seat (``seats.human`` false; a human's seat a bot played for a while stays the
    human's) or a seat tied to a bot account."""
    return not seat.human or seat.bot_account


def identity(secret: bytes, seat: SeatFacts) -> JsonObject:
    """A seat's ``kind`` (``bot``, ``account``, ``guest``), ``name`` (an account's, when its
    owner shows it; else null), ``pseudonym`` (an account's otherwise; else null), ``bot``
    (the bot's code, or null) and ``label``, the name in the record's ``players``: the name,
    the pseudonym, ``bot:CODE`` or ``guest``. A bot account's seat is ``bot`` too, named or
    pseudonymous as any account (its ``bot`` code null: it is no server bot)."""
    if not seat.human:
        code = seat.bot or "bot"
        return {"kind": "bot", "name": None, "pseudonym": None, "bot": code, "label": f"bot:{code}"}
    if seat.account is None:
        return {"kind": "guest", "name": None, "pseudonym": None, "bot": None, "label": "guest"}
    name = seat.name if seat.export_name else None
    alias = None if name is not None else pseudonym(secret, seat.account)
    label = name if name is not None else alias
    kind = "bot" if is_bot(seat) else "account"
    return {"kind": kind, "name": name, "pseudonym": alias, "bot": None, "label": label}


def rating_json(mu: float, sigma: float) -> dict[str, float]:
    """``{"mu", "sigma", "rating"}`` (the shown rating, ``mu - 3 sigma``, 1 decimal)."""
    return {"mu": mu, "sigma": sigma, "rating": round(Rating(mu, sigma, 0, 0).ordinal, 1)}


class MonthGames:
    """The games of ``month`` as export lines (:meth:`lines`), read from ``sessions``.

    Args:
        sessions: a migrated database's sessions.
        secret: the export secret (pseudonyms and game ids).
        month: the month exported.
        now: the time of the export (epoch s): games until then, daily games of days closed by
            then.
    """

    def __init__(
        self, sessions: sessionmaker[Session], secret: bytes, month: Month, now: float
    ) -> None:
        self.sessions = sessions
        self.secret = secret
        self.month = month
        self.until = month.until(now)
        self.today = day_of(now)

    def header(self) -> JsonObject:
        """The header's fields: ``month``, ``from`` and ``until`` (ISO UTC; ``until`` is the
        month's end, or the export's time in the month), ``complete`` (the month had ended)."""
        return {
            "month": self.month.name,
            "from": iso(self.month.start),
            "until": iso(self.until),
            "complete": self.until >= self.month.end,
        }

    def lines(self) -> Iterator[JsonObject]:
        """Each game's line, in (finish time, room id) order, :data:`BATCH` rooms read at a
        time."""
        after: tuple[float, str] | None = None
        while True:
            with self.sessions() as session:
                rooms = self._rooms(session, after)
                if not rooms:
                    return
                ids = [r.id for r in rooms]
                seats = self._seats(session, ids)
                actions = self._actions(session, ids)
                rated = self._rated(session, ids)
            for room in rooms:
                if room.mode == "daily" and (room.day is None or room.day >= self.today):
                    continue  # the day is open: its deal is secret
                yield self._game(room, seats[room.id], actions[room.id], rated.get(room.id))
            after = (rooms[-1].finished, rooms[-1].id)

    def _rooms(self, session: Session, after: tuple[float, str] | None) -> Sequence[RoomFacts]:
        query = (
            select(
                RoomRow.id,
                RoomRow.game,
                RoomRow.mode,
                RoomRow.options,
                RoomRow.seed,
                RoomRow.finished,
                DailyAttemptRow.day,
            )
            .outerjoin(DailyAttemptRow, DailyAttemptRow.room_id == RoomRow.id)
            .where(
                RoomRow.status == "finished",
                RoomRow.mode.in_(MODES),
                RoomRow.finished >= self.month.start,
                RoomRow.finished < self.until,
            )
            .order_by(RoomRow.finished, RoomRow.id)
            .limit(BATCH)
        )
        if after is not None:
            query = query.where(
                or_(
                    RoomRow.finished > after[0],
                    and_(RoomRow.finished == after[0], RoomRow.id > after[1]),
                )
            )
        return session.execute(query).all()

    def _seats(self, session: Session, ids: list[str]) -> dict[str, list[SeatFacts]]:
        """Each room's seats in order, with the account behind each: the seat's own (online
        play), else the daily player's owner."""
        daily = (
            select(DailyAttemptRow.room_id, PlayerRow.account_id)
            .join(PlayerRow, PlayerRow.id == DailyAttemptRow.player_id)
            .where(DailyAttemptRow.room_id.in_(ids))
            .subquery()
        )
        owner = func.coalesce(SeatRow.account_id, daily.c.account_id)
        rows = session.execute(
            select(
                SeatRow.room_id,
                SeatRow.human,
                SeatRow.bot,
                AccountRow.id,
                AccountRow.name,
                AccountRow.export_name,
                AccountRow.bot,
            )
            .outerjoin(daily, daily.c.room_id == SeatRow.room_id)
            .outerjoin(AccountRow, AccountRow.id == owner)
            .where(SeatRow.room_id.in_(ids))
            .order_by(SeatRow.room_id, SeatRow.seat)
        ).all()
        seats: dict[str, list[SeatFacts]] = defaultdict(list)
        for room, human, bot, account, name, shown, bot_account in rows:
            seats[room].append(SeatFacts(human, bot, account, name, bool(shown), bool(bot_account)))
        return seats

    def _actions(self, session: Session, ids: list[str]) -> dict[str, list[tuple[int, str]]]:
        rows = session.execute(
            select(ActionRow.room_id, ActionRow.player, ActionRow.action)
            .where(ActionRow.room_id.in_(ids))
            .order_by(ActionRow.room_id, ActionRow.step)
        ).all()
        actions: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for room, player, action in rows:
            actions[room].append((player, action))
        return actions

    def _rated(self, session: Session, ids: list[str]) -> dict[str, dict[int, RatedSeatRow]]:
        rows = session.execute(
            select(RatedGameRow.room_id, RatedSeatRow)
            .join(RatedSeatRow, RatedSeatRow.rated_id == RatedGameRow.id, isouter=True)
            .where(RatedGameRow.room_id.in_(ids))
        ).all()
        rated: dict[str, dict[int, RatedSeatRow]] = {}
        for room, seat in rows:
            kept = rated.setdefault(room, {})  # a rated game; its seats' ratings when kept
            if seat is not None:
                kept[seat.seat] = seat
        return rated

    def _game(
        self,
        room: RoomFacts,
        seats: list[SeatFacts],
        actions: list[tuple[int, str]],
        rated: dict[int, RatedSeatRow] | None,
    ) -> JsonObject:
        """One game's line (its record replayed by the engine from the seed and actions)."""
        options = json.loads(room.options)
        seed = loaded_seed(room.seed)
        state = game_from_options(room.game, len(seats), options).new_game(seed)
        for player, action in actions:
            state.apply_in_place(player, state.action_from_json(player, json.loads(action)))
        who = [identity(self.secret, s) for s in seats]
        labels = [str(w.pop("label")) for w in who]
        order = ranks(state)
        winners = state.winners()
        scores = state.scores()
        shown = []
        for i, facts in enumerate(who):
            kept = (rated or {}).get(i)
            shown.append(
                {
                    "seat": i,
                    **facts,
                    "score": scores[i],
                    "rank": order[i],
                    "winner": i in winners,
                    "rating_before": None
                    if kept is None
                    else rating_json(kept.mu_before, kept.sigma_before),
                    "rating_after": None
                    if kept is None
                    else rating_json(kept.mu_after, kept.sigma_after),
                }
            )
        return {
            "id": game_id(self.secret, room.id),
            "game": room.game,
            "mode": room.mode,
            "day": room.day,
            "finished": iso(room.finished),
            "rated": rated is not None,
            "scores": scores,
            "winners": winners,
            "seats": shown,
            "record": dict(state.game.to_record(state, labels, seed=seed, reveal=True)),
        }
