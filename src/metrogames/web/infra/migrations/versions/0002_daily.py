"""The daily challenge: players, daily attempts, daily bot scores, server secrets.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(10), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "daily_attempts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "player_id",
            sa.String(10),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column(
            "room_id",
            sa.String(8),
            sa.ForeignKey("rooms.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("started", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
    )
    op.create_index("ix_daily_attempts_player_id", "daily_attempts", ["player_id"])
    op.create_index(
        "ux_daily_ranked",
        "daily_attempts",
        ["player_id", "game", "day"],
        unique=True,
        sqlite_where=sa.text("ranked"),
        postgresql_where=sa.text("ranked"),
    )
    op.create_index("ix_daily_board", "daily_attempts", ["game", "day", "ranked", "score"])
    op.create_table(
        "daily_bot_scores",
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("bot", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_table("daily_bot_scores")
    op.drop_index("ix_daily_board", "daily_attempts")
    op.drop_index("ux_daily_ranked", "daily_attempts")
    op.drop_index("ix_daily_attempts_player_id", "daily_attempts")
    op.drop_table("daily_attempts")
    op.drop_table("players")
