"""Account names compared by their confusable skeleton (UTS #39): ``accounts.name_skeleton``,
the SHA-256 of the skeleton, under a unique index, filled for the accounts already there.
The skeleton is this migration's own frozen copy of what
:func:`metrogames.web.accounts.names.skeleton_digest` computed when it was written (a migration
never changes with the code after it).

Existing accounts whose names look alike (the same skeleton: ``Ada`` and ``Аda`` with a
Cyrillic А) keep their names, sessions and sign-ins: the oldest of them (by ``created``, then
id) holds the skeleton, the younger ones get none (``NULL``, which the index does not count), so
their names reserve nothing, and renaming one gives it the skeleton of its new name. The
migration logs how many accounts were left without one, and their ids.

Revision ID: 0010
Revises: 0009
"""

import hashlib
import logging

import icu
import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

log = logging.getLogger("metrogames.web.migrations")
_SPOOF = icu.SpoofChecker()
_FOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_MARKS = icu.Transliterator.createInstance("[[:Mn:]&[:Script=Inherited:]] Remove")


def skeleton_digest(name: str) -> str:
    """The SHA-256 (hex) of ``name``'s skeleton: UTS #39's (ICU's ``SpoofChecker``) of its
    ``NFKC_Casefold``, without the marks of no script (``Script=Inherited``)."""
    skeleton = str(_MARKS.transliterate(_SPOOF.getSkeleton(0, _FOLD.normalize(name))))
    return hashlib.sha256(skeleton.encode()).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(64), nullable=True))
    accounts = sa.table(
        "accounts",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("created", sa.Float),
        sa.column("name_skeleton", sa.String),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.created, accounts.c.id)
    ).all()
    held: set[str] = set()
    lookalikes: list[str] = []
    for account_id, name in rows:
        digest = skeleton_digest(str(name))
        if digest in held:
            lookalikes.append(str(account_id))
            continue
        held.add(digest)
        connection.execute(
            sa.update(accounts).where(accounts.c.id == account_id).values(name_skeleton=digest)
        )
    if lookalikes:
        log.warning(
            "%d accounts have a name that looks like an older account's and hold no skeleton: %s",
            len(lookalikes),
            ", ".join(lookalikes),
        )
    with op.batch_alter_table("accounts") as batch:
        batch.create_unique_constraint("uq_accounts_name_skeleton", ["name_skeleton"])


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_constraint("uq_accounts_name_skeleton", type_="unique")
        batch.drop_column("name_skeleton")
