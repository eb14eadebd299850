"""Rooms keep their turn clock's deadline and whether a bot is to move, so a restarted server
resumes them; indexes for the leaderboards of shared games and the all-time best.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("deadline", sa.Float(), nullable=True))
        batch.add_column(
            sa.Column("bots_due", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # rooms stored before: any playing room with a bot seat may have a bot to move (the
    # server checks at its next start and clears the flag where none is)
    op.execute(
        "UPDATE rooms SET bots_due = TRUE WHERE status = 'playing' AND id IN "
        "(SELECT room_id FROM seats WHERE bot IS NOT NULL)"
    )
    op.create_index("ix_rooms_resume", "rooms", ["status", "bots_due", "deadline"])
    op.create_index(
        "ix_daily_shared", "daily_attempts", ["game", "day", "ranked", "shared", "score"]
    )
    op.create_index("ix_daily_best", "daily_attempts", ["game", "ranked", "shared", "score"])


def downgrade() -> None:
    op.drop_index("ix_daily_best", "daily_attempts")
    op.drop_index("ix_daily_shared", "daily_attempts")
    op.drop_index("ix_rooms_resume", "rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("bots_due")
        batch.drop_column("deadline")
