"""The first schema: rooms, seats, actions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("turn_clock", sa.Integer(), nullable=True),
        sa.Column("host_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column(
            "room_id", sa.String(8), sa.ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("human", sa.Boolean(), nullable=False),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "actions",
        sa.Column(
            "room_id", sa.String(8), sa.ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("step", sa.Integer(), primary_key=True),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_table("rooms")
