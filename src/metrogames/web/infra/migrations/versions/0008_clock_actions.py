"""An action the turn clock played for a late seat is marked with the step at which the time
ran out (``actions.clock_step``), so that the seat is told after a restart or by another
server process (the view's ``timed_out``). Actions stored before are the players' own.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("clock_step", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("clock_step")
