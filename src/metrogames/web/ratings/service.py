"""Ratings of online play (``docs/web-api.md``, "Ratings"): the Weng–Lin Bayesian rating of
OpenSkill's Plackett–Luce model (``openskill``), which rates a free-for-all of 2–6 players at
once rather than as pairs.

**What is rated.** Only games between distinct people's accounts (and bots) change ratings: a
finished room of mode ``online`` whose human seats — at least two — are each tied to an account
(``seats.account_id``), no two to the same one, and no two claimed from the same client address
or the same sign-in session (``seats.address``, ``seats.session``), updates, in the transaction
that stores its last action (the rooms' finish listener, :class:`Rater`), the rating of each human seat,
for that game and player count (:func:`rated`). So one person holding two seats — an account
and an anonymous seat that passes, two accounts from one browser or one address — rates
nothing. A bot account plays in its own pool: a game whose accounts are bot accounts and
people's is not rated, unless the bot's owner opted into the human pools (:func:`pools`;
the decision is the ``rated_games`` row: recomputing replays those). Bots take part at fixed ratings and are never updated: a bot at its level's
(:data:`BOT_MU`, sigma :data:`BOT_SIGMA`). A seat played for a while by a bot (a handover) is
still its human's.

**The outcome.** Seats are ordered by (winner, score): the engine's winners first, then by
final score; equal (winner, score) pairs tie.

**Recomputing.** Every rated game is listed in ``rated_games`` in the order it was rated;
:func:`recompute` replays each one's stored actions with the engine (through the registry and
the protocol only) and rates them again in that order, from nothing: the result is the stored
ratings, number for number (``metrogames ratings recompute`` checks it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypedDict

from openskill.models import PlackettLuce
from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from metrogames.core.protocol import Action, State
from metrogames.games import game_from_options
from metrogames.web.infra.models import (
    AccountRow,
    ActionRow,
    RatedGameRow,
    RatedSeatRow,
    RatingRow,
    RoomRow,
    SeatRow,
)
from metrogames.web.rooms.tables import Progress, Table, loaded_seed

MODEL = PlackettLuce()
"""The rating model: Plackett–Luce with OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6,
tau 25/300)."""
BOT_MU = {
    "random": 15.0,
    "easy": 15.0,
    "greedy": 22.0,
    "medium": 22.0,
    "montecarlo": 27.0,
    "hard": 27.0,
    "expert": 30.0,
}
"""A bot's fixed rating (mu) by code: each level with the algorithm it plays (``easy`` is
``random``; ``medium`` plays ``greedy`` in Next Station); an unknown code rates at the prior."""
BOT_SIGMA = 1.0
"""The fixed uncertainty of a bot's rating."""

Key = tuple[str, str, int]
"""A rating's key: (account, game, player count)."""



class RatingJson(TypedDict):
    """A rating as the API shows it (:meth:`Rating.as_json`)."""

    mu: float
    sigma: float
    rating: float
    games: int | None
    """The rated games played (``None``: a bot's fixed rating, which no game changes)."""

@dataclass
class Rating:
    """A rating: ``mu``, ``sigma``, ``games`` rated, ``rated_id`` of the last one."""

    mu: float
    sigma: float
    games: int
    rated_id: int

    @property
    def ordinal(self) -> float:
        """The shown rating: ``mu - 3 sigma`` (a conservative estimate; 0 for a newcomer)."""
        return self.mu - 3 * self.sigma

    def as_json(self) -> RatingJson:
        """``{"mu", "sigma", "rating" (the ordinal, 1 decimal), "games"}``."""
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": round(self.ordinal, 1),
            "games": self.games,
        }


@dataclass(frozen=True)
class SeatFacts:
    """What rating needs of a seat: ``human``, its ``bot`` code, its ``account``, and the
    digests of the client ``address`` and sign-in ``session`` that claimed it (``None``:
    unknown)."""

    human: bool
    bot: str | None
    account: str | None
    address: str | None = None
    session: str | None = None


def ranks(state: State[Action]) -> list[int]:
    """Each seat's rank in a finished game (0 best): seats ordered by (winner, score), equal
    pairs sharing a rank."""
    winners = set(state.winners())
    keys = [(seat in winners, score) for seat, score in enumerate(state.scores())]
    return [sum(other > key for other in keys) for key in keys]


def rated(seats: list[SeatFacts]) -> bool:
    """True when a game of these seats is rated: at least two human seats, each tied to an
    account, and no two of them sharing an account, a claiming address or a session (one
    person holding two seats does not rate)."""
    humans = [s for s in seats if s.human]
    if len(humans) < 2 or any(s.account is None for s in humans):
        return False
    for facts in ("account", "address", "session"):
        known = [getattr(s, facts) for s in humans if getattr(s, facts) is not None]
        if len(known) != len(set(known)):
            return False
    return True


@dataclass(frozen=True)
class SeatRating:
    """One seat's rating in a rated game: ``seat``, its rating's ``key`` (``None``: a bot) and
    its ``(mu, sigma)`` ``before`` and ``after`` the game (a bot's after is its before)."""

    seat: int
    key: Key | None
    before: tuple[float, float]
    after: tuple[float, float]


def rate(
    ratings: dict[Key, Rating],
    rated_id: int,
    game: str,
    seats: list[SeatFacts],
    outcome: list[int],
) -> list[SeatRating]:
    """Rate one game of :func:`rated` seats in ``ratings`` (changed in place): the accounts'
    ratings for ``game`` and ``len(seats)`` players move by the outcome's ranks; returns every
    seat's rating before and after, in seat order (none for a game that is not rated)."""
    if not rated(seats):
        return []
    players = len(seats)
    teams = []
    keys: list[Key | None] = []
    for s in seats:
        key = (s.account, game, players) if s.human and s.account else None
        keys.append(key)
        if key is not None and key in ratings:
            mine = ratings[key]
            teams.append([MODEL.rating(mu=mine.mu, sigma=mine.sigma)])
        elif s.human:
            teams.append([MODEL.rating()])
        else:
            teams.append([MODEL.rating(mu=BOT_MU.get(s.bot or "", MODEL.mu), sigma=BOT_SIGMA)])
    after = MODEL.rate(teams, ranks=list(outcome))
    changes = []
    for seat, (key, team, new) in enumerate(zip(keys, teams, after, strict=True)):
        before = (team[0].mu, team[0].sigma)
        if key is None:
            changes.append(SeatRating(seat, None, before, before))
            continue
        games = ratings[key].games + 1 if key in ratings else 1
        ratings[key] = Rating(new[0].mu, new[0].sigma, games, rated_id)
        changes.append(SeatRating(seat, key, before, (new[0].mu, new[0].sigma)))
    return changes


def rated_seat_row(rated_id: int, change: SeatRating) -> RatedSeatRow:
    """The stored row of a seat's rating before and after rated game ``rated_id``."""
    return RatedSeatRow(
        rated_id=rated_id,
        seat=change.seat,
        mu_before=change.before[0],
        sigma_before=change.before[1],
        mu_after=change.after[0],
        sigma_after=change.after[1],
    )


def seat_facts(session: Session, room: str) -> list[SeatFacts]:
    """The stored seats of ``room``, in order."""
    rows = session.scalars(
        select(SeatRow).where(SeatRow.room_id == room).order_by(SeatRow.seat)
    ).all()
    return [SeatFacts(r.human, r.bot, r.account_id, r.address, r.session) for r in rows]


def stored(session: Session, keys: Iterable[Key] | None = None) -> dict[Key, Rating]:
    """The stored ratings (all, or those of ``keys``)."""
    query = select(RatingRow)
    wanted = None if keys is None else set(keys)
    if wanted is not None:
        query = query.where(RatingRow.account_id.in_({k[0] for k in wanted}))
    found = {}
    for r in session.scalars(query):
        key = (r.account_id, r.game, r.players)
        if wanted is None or key in wanted:
            found[key] = Rating(r.mu, r.sigma, r.games, r.rated_id)
    return found


class Rater:
    """The rooms' finish listener that rates finished online games
    (:class:`~metrogames.web.rooms.listeners.RoomListener`; ``now``: the clock of
    ``rated_games.finished``)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now

    def finished(self, session: Session, table: Table, progress: Progress) -> None:
        """Rate ``table``'s game (:func:`finished`), in the transaction that stores its last
        action."""
        finished(session, table, progress, self.now())


def finished(session: Session, table: Table, progress: Progress, now: float) -> None:
    """Rate a finished online game with two humans or more,
    in the transaction that stores its last action."""
    if table.mode != "online":
        return
    seats = seat_facts(session, table.id)
    if not rated(seats) or len(pools(session, seats)) > 1:
        return
    row = RatedGameRow(room_id=table.id, finished=now)
    session.add(row)
    session.flush()
    players = len(seats)
    keys = [(s.account, table.game, players) for s in seats if s.human and s.account]
    ratings = stored(session, keys)
    for change in rate(ratings, row.id, table.game, seats, ranks(progress.state)):
        session.add(rated_seat_row(row.id, change))
        if change.key is not None:  # inserted, or the stored one updated
            session.merge(rating_row(change.key, ratings[change.key]))


def pools(session: Session, seats: list[SeatFacts]) -> set[str]:
    """The rating pools of the seats' accounts: ``bot`` for a bot account (unless its owner
    opted into the human pools), else ``human``. A game whose accounts are of two pools is
    not rated (a bot account is rated in its own pool: :mod:`metrogames.web.accounts.bots`)."""
    ids = {s.account for s in seats if s.account}
    rows = session.execute(
        select(AccountRow.bot, AccountRow.human_pools).where(AccountRow.id.in_(ids))
    ).all()
    return {"bot" if bot and not human else "human" for bot, human in rows}


def final_state(session: Session, room: str) -> State[Action]:
    """The position of a stored room after its stored actions, rebuilt by the engine."""
    row = session.get(RoomRow, room)
    if row is None:
        raise ValueError(f"no room {room!r}")
    count = len(seat_facts(session, room))
    state = game_from_options(row.game, count, json.loads(row.options)).new_game(
        loaded_seed(row.seed)
    )
    for player, action in session.execute(
        select(ActionRow.player, ActionRow.action)
        .where(ActionRow.room_id == room)
        .order_by(ActionRow.step)
    ):
        state.apply_in_place(player, state.action_from_json(player, json.loads(action)), check=True)
    return state


def recompute(session: Session) -> tuple[dict[Key, Rating], dict[int, list[SeatRating]]]:
    """Every rating, rated again from nothing: each rated game's stored actions replayed by
    the engine, in the order the games were rated; and each rated game's seats' ratings
    before and after it (by ``rated_id``)."""
    ratings: dict[Key, Rating] = {}
    games: dict[int, list[SeatRating]] = {}
    for rated_id, room, game in session.execute(
        select(RatedGameRow.id, RatedGameRow.room_id, RoomRow.game)
        .join(RoomRow, RoomRow.id == RatedGameRow.room_id)
        .order_by(RatedGameRow.id)
    ):
        state = final_state(session, room)
        games[rated_id] = rate(ratings, rated_id, game, seat_facts(session, room), ranks(state))
    return ratings, games


def differences(old: dict[Key, Rating], new: dict[Key, Rating]) -> list[str]:
    """Where two sets of ratings differ, one line each (none: they match exactly)."""
    lines = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a != b:
            lines.append(f"{key[0]} {key[1]} {key[2]} players: stored {a}, recomputed {b}")
    return lines


def write(
    session: Session, ratings: dict[Key, Rating], games: dict[int, list[SeatRating]]
) -> None:
    """Replace every stored rating by ``ratings``, and every rated game's seats' ratings
    before and after it by ``games`` (by ``rated_id``)."""
    session.execute(delete(RatingRow))
    session.execute(delete(RatedSeatRow))
    session.add_all(rating_row(key, r) for key, r in ratings.items())
    session.add_all(rated_seat_row(i, c) for i, changes in games.items() for c in changes)


def rating_row(key: Key, rating: Rating) -> RatingRow:
    """The stored row of ``rating`` for ``key`` (account, game, player count)."""
    account, game, players = key
    return RatingRow(
        account_id=account,
        game=game,
        players=players,
        mu=rating.mu,
        sigma=rating.sigma,
        games=rating.games,
        rated_id=rating.rated_id,
    )


@dataclass(frozen=True)
class Check:
    """What :func:`check_database` found: the rated ``games`` replayed, the ``ratings``
    recomputed, and the ``differences`` from the stored ones (empty: they match)."""

    games: int
    ratings: int
    differences: list[str]


def check_database(sessions: sessionmaker[Session], store: bool = False) -> Check:
    """Recompute every rating from the stored games and compare with the stored ratings;
    with ``store``, the recomputed ratings replace the stored ones (one transaction)."""
    with sessions.begin() as session:
        games = len(session.scalars(select(RatedGameRow.id)).all())
        new, seats = recompute(session)
        found = differences(stored(session), new)
        if store:
            write(session, new, seats)
    return Check(games, len(new), found)
