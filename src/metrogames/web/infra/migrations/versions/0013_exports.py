"""Open data (monthly exports, ``docs/exports.md``): ``rooms.finished`` (when a game ended,
epoch seconds; the month an export puts it in) under the index ``ix_rooms_finished``,
``accounts.export_name`` (the owner lets exports show the account's name; false: a stable
pseudonym) and ``rated_seats`` (each seat's rating before and after a rated game).

Rooms finished before this revision take the time their game was rated, else their daily
attempt's end, else their creation; their rated seats are filled by ``metrogames ratings
recompute --write``.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("finished", sa.Float(), nullable=True))
        batch.create_index("ix_rooms_finished", ["finished"])
    op.execute(
        "UPDATE rooms SET finished = COALESCE("
        "(SELECT r.finished FROM rated_games r WHERE r.room_id = rooms.id),"
        "(SELECT d.finished_at FROM daily_attempts d WHERE d.room_id = rooms.id),"
        "rooms.created) WHERE status = 'finished'"
    )
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(
            sa.Column("export_name", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "rated_seats",
        sa.Column(
            "rated_id",
            sa.Integer(),
            sa.ForeignKey("rated_games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rated_seats")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("export_name")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_finished")
        batch.drop_column("finished")
