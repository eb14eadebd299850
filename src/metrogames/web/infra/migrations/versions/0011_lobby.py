"""The lobby of open tables: ``rooms.listed_until`` (a room its host listed, until when;
null: unlisted, as every room stored before) and ``rooms.host_away`` (its host's seat has no
connection), under the index ``ix_rooms_lobby`` the lobby reads by.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("listed_until", sa.Float(), nullable=True))
        batch.add_column(
            sa.Column("host_away", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.create_index("ix_rooms_lobby", ["status", "listed_until"])


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_lobby")
        batch.drop_column("host_away")
        batch.drop_column("listed_until")
