"""The stored tables (SQLAlchemy 2 declarative): rooms, seats and every action of a game.

A game is stored as its record's ingredients: the secret ``seed``, the ``options`` asked for,
and each action in order (chance included) as notation JSON; the state is rebuilt from them.
Seat and host tokens are kept only as SHA-256 hex digests. The schema is created and upgraded
by the Alembic migrations in :mod:`metrogames.web.migrations` — keep both in step.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the web tables."""


class RoomRow(Base):
    """A room: ``id`` (8 lowercase letters/digits), ``game``, ``mode``, ``options`` (JSON
    text), ``seed`` (secret until the game ends), ``status`` (waiting/playing/finished),
    ``turn_clock`` (seconds or null), ``host_hash`` (SHA-256 of the host token), ``created``
    (epoch seconds)."""

    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    turn_clock: Mapped[int | None] = mapped_column(Integer, nullable=True)
    host_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[float] = mapped_column(Float)


class SeatRow(Base):
    """A seat of a room: ``name``, ``human`` (a player's seat, possibly handed to a bot for a
    while), ``bot`` (the bot code playing it now, or null), ``token_hash`` (SHA-256 of the seat
    token once claimed)."""

    __tablename__ = "seats"

    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    human: Mapped[bool] = mapped_column(Boolean)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ActionRow(Base):
    """Action number ``step`` (0-based) of a room's game: ``player`` (-1 for chance) and the
    ``action`` in notation JSON (a card id or tile code for chance). The primary key makes a
    step unique, so an action can never be stored twice."""

    __tablename__ = "actions"

    room_id: Mapped[str] = mapped_column(
        String(8), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
