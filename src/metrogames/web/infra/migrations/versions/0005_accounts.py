"""Accounts and their sign-in sessions; players owned by an account (its own, or a claimed
anonymous player's history); seats claimed by a signed-in account; the keyed client address
of a guest's ranked daily attempt (the per-address cap on ranked guest games).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(10), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(256), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column(
            "player_id", sa.String(10), sa.ForeignKey("players.id"), nullable=False, unique=True
        ),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("account_id", sa.String(10), nullable=True))
        batch.create_foreign_key(
            "fk_players_account", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_players_account_id", ["account_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("account_id", sa.String(10), nullable=True))
        batch.create_foreign_key(
            "fk_seats_account", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_seats_account_id", ["account_id"])
    with op.batch_alter_table("daily_attempts") as batch:
        batch.add_column(sa.Column("address", sa.String(64), nullable=True))
        batch.create_index("ix_daily_address", ["address", "game", "day"])


def downgrade() -> None:
    with op.batch_alter_table("daily_attempts") as batch:
        batch.drop_index("ix_daily_address")
        batch.drop_column("address")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_account_id")
        batch.drop_constraint("fk_seats_account", type_="foreignkey")
        batch.drop_column("account_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_account_id")
        batch.drop_constraint("fk_players_account", type_="foreignkey")
        batch.drop_column("account_id")
    op.drop_index("ix_account_sessions_account_id", "account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
