"""Friends (``docs/web-api.md``, "Friends and invitations"): ``follows`` (an account follows
another) and ``blocks`` (an account blocks another, under ``ix_blocks_blocked``: who blocks
an account). Both start empty.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _pair(first: str, second: str) -> list[sa.Column[str]]:
    return [
        sa.Column(
            name,
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        )
        for name in (first, second)
    ]


def upgrade() -> None:
    op.create_table(
        "follows",
        *_pair("follower_id", "followed_id"),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "blocks",
        *_pair("blocker_id", "blocked_id"),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked_id"])


def downgrade() -> None:
    op.drop_index("ix_blocks_blocked", table_name="blocks")
    op.drop_table("blocks")
    op.drop_table("follows")
