"""The table chat of online rooms: each message with its room, sequence number, seat, the
seat's name at the time, text and time.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column(
            "room_id",
            sa.String(8),
            sa.ForeignKey("rooms.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("time", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("chat_messages")
