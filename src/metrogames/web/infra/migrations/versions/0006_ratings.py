"""Ratings of online play: each account's Weng–Lin rating per game and player count, and the
rated games in the order they were rated.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rated_games",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "room_id",
            sa.String(8),
            sa.ForeignKey("rooms.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("finished", sa.Float(), nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "account_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("players", sa.Integer(), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("rated_id", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_table("rated_games")
