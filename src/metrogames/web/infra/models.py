"""The stored tables (SQLAlchemy 2 declarative): rooms, seats and every action of a game;
the daily challenge's players, attempts, bot scores and server secret; accounts, their
sign-in sessions, bot accounts' API tokens, invitations to a seat, the ratings of online
play, the table chat of online rooms, who follows and who blocks whom, and saved custom maps.

A game is stored as its record's ingredients: the secret ``seed``, the ``options`` asked for,
and each action in order (chance included) as notation JSON; the state is rebuilt from them.
Seat and host tokens are kept only as SHA-256 hex digests. The schema is created and upgraded
by the Alembic migrations in :mod:`metrogames.web.infra.migrations` — keep both in step.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the web tables."""


class RoomRow(Base):
    """A room: ``id`` (8 lowercase letters/digits), ``game``, ``mode``, ``options`` (JSON
    text), ``seed`` (secret until the game ends), ``status`` (waiting/playing/finished),
    ``turn_clock`` (seconds or null), ``host_hash`` (SHA-256 of the host token), ``created``
    (epoch seconds), ``deadline`` (the running turn clock's end, epoch seconds, or null) and
    ``bots_due`` (a bot is to move): a restarted server resumes the rooms whose clock runs or
    whose bots are due (index ``ix_rooms_resume``). ``listed_until``: a room the host listed
    in the lobby, until when (epoch seconds; null: unlisted, link only); ``host_away``: its
    host's seat has no connection (the lobby shows it no more: :mod:`metrogames.web.lobby`,
    index ``ix_rooms_lobby``)."""

    __tablename__ = "rooms"
    __table_args__ = (
        Index("ix_rooms_resume", "status", "bots_due", "deadline"),
        Index("ix_rooms_lobby", "status", "listed_until"),
    )

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    turn_clock: Mapped[int | None] = mapped_column(Integer, nullable=True)
    host_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[float] = mapped_column(Float)
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    bots_due: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    listed_until: Mapped[float | None] = mapped_column(Float, nullable=True)
    host_away: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    finished: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    """When the game ended (epoch seconds; null: not finished): the month a monthly export
    (:mod:`metrogames.web.exports`) puts it in (index ``ix_rooms_finished``)."""


class SeatRow(Base):
    """A seat of a room: ``name``, ``human`` (a player's seat, possibly handed to a bot for a
    while), ``bot`` (the bot code playing it now, or null), ``token_hash`` (SHA-256 of the seat
    token once claimed)."""

    __tablename__ = "seats"
    __table_args__ = (Index("ux_seats_account", "room_id", "account_id", unique=True),)

    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    human: Mapped[bool] = mapped_column(Boolean)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    account_id: Mapped[str | None] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True, index=True
    )
    """The account signed in when the seat was claimed (rated online play), or null (an
    account holds at most one seat of a room: ``ux_seats_account``)."""
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The keyed digest of the client address that claimed the seat (null: not claimed by a
    client, or claimed before this was kept)."""
    session: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The SHA-256 of the sign-in session's token the seat was claimed with, or null."""


class ActionRow(Base):
    """Action number ``step`` (0-based) of a room's game: ``player`` (-1 for chance) and the
    ``action`` in notation JSON (a card id or tile code for chance); ``clock_step``: for an
    action the turn clock played for a late seat, the step at which its time ran out (else
    ``None``). The primary key makes a step unique, so an action can never be stored twice."""

    __tablename__ = "actions"

    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    clock_step: Mapped[int | None] = mapped_column(Integer, nullable=True)


class PlayerRow(Base):
    """A daily-challenge player: ``id`` (10 lowercase letters/digits), display ``name``,
    ``token_hash`` (SHA-256 of the player token; unique), ``created`` (epoch s) and
    ``account_id``, the account that owns it (its own player, or an anonymous player's
    history it claimed), or null for a guest."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[float] = mapped_column(Float)
    account_id: Mapped[str | None] = mapped_column(
        String(10),
        ForeignKey("accounts.id", ondelete="SET NULL", use_alter=True),
        nullable=True,
        index=True,
    )


class DailyAttemptRow(Base):
    """One daily-challenge game of a player: ``game`` and ``day`` (``YYYY-MM-DD``), ``ranked``
    (the day's one ranked attempt; at most one per player, game and day: a partial unique
    index), ``shared`` (on the leaderboard), its ``room_id``, ``started``, ``finished_at``
    (epoch seconds, server clock) and the engine's ``score`` once the game has ended."""

    __tablename__ = "daily_attempts"
    __table_args__ = (
        Index(
            "ux_daily_ranked",
            "player_id",
            "game",
            "day",
            unique=True,
            sqlite_where=text("ranked"),
            postgresql_where=text("ranked"),
        ),
        Index("ix_daily_board", "game", "day", "ranked", "score"),
        Index("ix_daily_shared", "game", "day", "ranked", "shared", "score"),
        Index("ix_daily_best", "game", "ranked", "shared", "score"),
        Index("ix_daily_address", "address", "game", "day"),
        Index("ux_daily_address_slot", "address", "game", "day", "address_slot", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    game: Mapped[str] = mapped_column(String(16))
    day: Mapped[str] = mapped_column(String(10))
    ranked: Mapped[bool] = mapped_column(Boolean)
    shared: Mapped[bool] = mapped_column(Boolean)
    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), unique=True
    )
    started: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A guest's ranked attempt: the keyed hash of the client address that started it
    (the per-address cap on ranked guest games); null otherwise."""
    address_slot: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """A guest's ranked attempt: its place (1, 2, … up to the cap) among its address's ranked
    guest games of the game and day, unique (``ux_daily_address_slot``): the cap holds
    however many starts come at once."""


class DailyBotScoreRow(Base):
    """A bot's score on a day's deal (computed once by the engine): ``game``, ``day``, the
    ``bot`` code (the reference level ``medium``, the ``expert``) and ``score``."""

    __tablename__ = "daily_bot_scores"

    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    bot: Mapped[str] = mapped_column(String(32), primary_key=True)
    score: Mapped[int] = mapped_column(Integer)


class ServerSecretRow(Base):
    """A server secret made once and kept: ``name`` (``daily``) and its ``value`` (text)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class AccountRow(Base):
    """An account: ``id`` (10 lowercase letters/digits), ``name`` (shown), ``name_key`` (the
    name case-folded: unique; a sign-in finds the account by it), ``name_skeleton`` (the
    SHA-256 of the name's confusable skeleton, :func:`~metrogames.web.accounts.names.skeleton_digest`:
    unique; ``None`` for an account that kept, from before skeletons, a name that looks like
    an older account's), ``password_hash`` (argon2id, PHC string), ``player_id`` (the
    account's own daily player, unique) and ``created`` (epoch s)."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(256), unique=True)
    name_skeleton: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    player_id: Mapped[str] = mapped_column(String(10), ForeignKey("players.id"), unique=True)
    created: Mapped[float] = mapped_column(Float)
    export_name: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The owner lets the monthly exports show the account's name (false, the default: a
    stable pseudonym, :mod:`metrogames.web.exports.pseudonyms`)."""
    bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A bot account (:mod:`metrogames.web.accounts.bots`): marked as a bot everywhere."""
    bot_games: Mapped[str | None] = mapped_column(Text, nullable=True)
    """A bot account's declared games, comma-separated (null: not a bot)."""
    human_pools: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A bot account whose owner opted into the human rating pools (else its games rate only
    against other bot accounts)."""


class BotTokenRow(Base):
    """An API token of a bot account: ``id`` (10 letters/digits, named in the owner's list),
    ``token_hash`` (SHA-256 of the token: the token itself is shown once and never kept),
    ``name`` (the owner's label), ``scopes`` (comma-separated: ``read``, ``play``),
    ``created`` and ``revoked`` (epoch s; null: live)."""

    __tablename__ = "bot_tokens"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(64))
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[float | None] = mapped_column(Float, nullable=True)


class InvitationRow(Base):
    """An invitation to a seat of a room, from an account (or a room's anonymous host:
    ``sender_id`` null) to an account: ``status`` pending/accepted/declined/cancelled/expired,
    ``created`` and ``expires`` (epoch s). At most one pending invitation per seat
    (``ux_invitations_pending``)."""

    __tablename__ = "invitations"
    __table_args__ = (
        Index("ix_invitations_target", "target_id", "status"),
        Index(
            "ux_invitations_pending",
            "room_id",
            "seat",
            unique=True,
            sqlite_where=text("status = 'pending'"),
            postgresql_where=text("status = 'pending'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(10), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(8), ForeignKey("rooms.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    sender_id: Mapped[str | None] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    target_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE")
    )
    status: Mapped[str] = mapped_column(String(16))
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float)


class AccountSessionRow(Base):
    """A sign-in session: ``token_hash`` (SHA-256 of the cookie's token), ``account_id``,
    ``created`` and ``expires`` (epoch s)."""

    __tablename__ = "account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float)


class RatingRow(Base):
    """An account's rating for one game and player count (online play): the Weng–Lin
    (OpenSkill, Plackett–Luce) ``mu`` and ``sigma``, the ``games`` rated, and the last rated
    game's ``rated_id`` (:class:`RatedGameRow`)."""

    __tablename__ = "ratings"

    account_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    rated_id: Mapped[int] = mapped_column(Integer)


class RatedGameRow(Base):
    """A finished online game that updated ratings, in the order it did: ``id`` (that
    order), ``room_id`` and ``finished`` (epoch s). Recomputing the ratings replays these
    rooms in this order."""

    __tablename__ = "rated_games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), unique=True
    )
    finished: Mapped[float] = mapped_column(Float)


class RatedSeatRow(Base):
    """A seat's rating in a rated game (:class:`RatedGameRow` ``rated_id``) before and after
    it: ``mu_before``, ``sigma_before``, ``mu_after``, ``sigma_after`` (a bot's fixed rating,
    and an account's prior in its first game, are its before; a bot's after is its before)."""

    __tablename__ = "rated_seats"

    rated_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("rated_games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)


class ChatRow(Base):
    """A table chat message of an online room: its ``seq`` (1, 2, … per room), the ``seat``
    that wrote it, that seat's ``name`` at the time, the ``text`` (1–200 characters, checked
    by :func:`~metrogames.web.checks.chat_text`) and ``time`` (epoch s). Kept with the room's
    game (deleted with the room)."""

    __tablename__ = "chat_messages"

    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(String(200))
    time: Mapped[float] = mapped_column(Float)


class FollowRow(Base):
    """``follower_id`` follows ``followed_id`` (accounts) since ``created`` (epoch s): it sees
    whether the followed account is online and playing (:mod:`metrogames.web.accounts.friends`)."""

    __tablename__ = "follows"

    follower_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    followed_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    created: Mapped[float] = mapped_column(Float)


class BlockRow(Base):
    """``blocker_id`` blocks ``blocked_id`` (accounts) since ``created`` (epoch s): neither
    may invite the other, chat in a room where the other is seated, or be seated with the
    other by play now (``ix_blocks_blocked``: who blocks an account)."""

    __tablename__ = "blocks"
    __table_args__ = (Index("ix_blocks_blocked", "blocked_id"),)

    blocker_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    created: Mapped[float] = mapped_column(Float)


class MapRow(Base):
    """A saved custom map: its content ``hash`` (``sha256:`` and 64 hex digits,
    ``docs/maps.md`` "Content hash"), ``body`` (its canonical JSON text, whose hash that is),
    ``bytes`` (the body's UTF-8 size) and ``created`` (epoch s). Written once and never
    changed: a game on a stored map plays the very map its hash names."""

    __tablename__ = "maps"

    hash: Mapped[str] = mapped_column(String(71), primary_key=True)
    body: Mapped[str] = mapped_column(Text)
    bytes: Mapped[int] = mapped_column(Integer)
    created: Mapped[float] = mapped_column(Float)


class AccountMapRow(Base):
    """A map an account saved: ``account_id``, ``map_hash``, the ``title`` it was saved under
    (the map's own) and when (``saved``, epoch s)."""

    __tablename__ = "account_maps"

    account_id: Mapped[str] = mapped_column(
        String(10), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    map_hash: Mapped[str] = mapped_column(String(71), ForeignKey("maps.hash"), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    saved: Mapped[float] = mapped_column(Float)
