"""Saved custom maps (``docs/web-api.md``, "Maps"): ``maps`` (a map's canonical JSON text by its
content hash, written once, never changed) and ``account_maps`` (the maps an account saved,
under the title it gave).

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "maps",
        sa.Column("hash", sa.String(71), primary_key=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "account_maps",
        sa.Column(
            "account_id",
            sa.String(10),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("map_hash", sa.String(71), sa.ForeignKey("maps.hash"), primary_key=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("saved", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("account_maps")
    op.drop_table("maps")
