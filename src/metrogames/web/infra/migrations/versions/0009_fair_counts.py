"""Counts that cannot be raced, and who claimed each seat.

* ``daily_attempts.address_slot``: a guest's ranked attempt takes a numbered place among its
  address's ranked guest games of that game and day (1, 2, … up to the cap), unique per
  (address, game, day): two starts at once — on one server or two — cannot both take the last
  place (index ``ux_daily_address_slot``). Attempts stored before have none (they count, as
  before, by their address).
* ``seats.address`` and ``seats.session``: the keyed digest of the client address that claimed
  a seat and the digest of its sign-in session (null without one), so that seats held from one
  address or one browser session in a game do not rate each other (``web/ratings/service.py``). Seats
  stored before have none (they rate as before).
* ``ux_seats_account``: an account holds at most one seat of a room (it was checked, then
  written: two links at once could both pass).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("daily_attempts") as batch:
        batch.add_column(sa.Column("address_slot", sa.Integer(), nullable=True))
    op.create_index(
        "ux_daily_address_slot",
        "daily_attempts",
        ["address", "game", "day", "address_slot"],
        unique=True,
    )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("address", sa.String(64), nullable=True))
        batch.add_column(sa.Column("session", sa.String(64), nullable=True))
    op.create_index("ux_seats_account", "seats", ["room_id", "account_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_seats_account", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("session")
        batch.drop_column("address")
    op.drop_index("ux_daily_address_slot", table_name="daily_attempts")
    with op.batch_alter_table("daily_attempts") as batch:
        batch.drop_column("address_slot")
