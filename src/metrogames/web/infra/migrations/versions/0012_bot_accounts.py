"""Bot accounts: ``accounts.bot``, ``accounts.bot_games`` and ``accounts.human_pools``; their
API tokens (``bot_tokens``, SHA-256 digests only) and invitations to a seat of a room
(``invitations``, at most one pending per seat).

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("bot_games", sa.Text(), nullable=True))
        batch.add_column(
            sa.Column("human_pools", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "bot_tokens",
        sa.Column("id", sa.String(10), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("revoked", sa.Float(), nullable=True),
    )
    op.create_index("ix_bot_tokens_account_id", "bot_tokens", ["account_id"])
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(10), primary_key=True),
        sa.Column(
            "room_id", sa.String(8), sa.ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column(
            "sender_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column(
            "target_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_index("ix_invitations_target", "invitations", ["target_id", "status"])
    op.create_index(
        "ux_invitations_pending",
        "invitations",
        ["room_id", "seat"],
        unique=True,
        sqlite_where=sa.text("status = 'pending'"),
        postgresql_where=sa.text("status = 'pending'"),
    )


def downgrade() -> None:
    op.drop_index("ux_invitations_pending", "invitations")
    op.drop_index("ix_invitations_target", "invitations")
    op.drop_table("invitations")
    op.drop_index("ix_bot_tokens_account_id", "bot_tokens")
    op.drop_table("bot_tokens")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("human_pools")
        batch.drop_column("bot_games")
        batch.drop_column("bot")
