"""The daily deal's bot scores are kept per bot (the reference level and the expert): the
primary key becomes (game, day, bot). The greedy scores stored before are the ``medium``
level's (it plays London and Paris exactly as the greedy bot with the same seed).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _table(name: str) -> None:
    op.create_table(
        name,
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("bot", sa.String(32), primary_key=True),
        sa.Column("score", sa.Integer(), nullable=False),
    )


def upgrade() -> None:
    # a new table, renamed once the old one is gone (PostgreSQL keeps constraint names)
    _table("daily_bot_scores_v2")
    op.execute(
        "INSERT INTO daily_bot_scores_v2 (game, day, bot, score) "
        "SELECT game, day, 'medium', score FROM daily_bot_scores WHERE bot = 'greedy'"
    )
    op.drop_table("daily_bot_scores")
    op.rename_table("daily_bot_scores_v2", "daily_bot_scores")


def downgrade() -> None:
    op.create_table(
        "daily_bot_scores_v1",
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("bot", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
    )
    op.execute(
        "INSERT INTO daily_bot_scores_v1 (game, day, bot, score) "
        "SELECT game, day, 'greedy', score FROM daily_bot_scores WHERE bot = 'medium'"
    )
    op.drop_table("daily_bot_scores")
    op.rename_table("daily_bot_scores_v1", "daily_bot_scores")
