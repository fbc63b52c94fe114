"""The lessons each person has finished, so that progress follows the account.

Revision 0002.  One row per person and lesson: a lesson is finished once (the first time is
kept).  Nothing to convert: before this, progress lived only in the browser.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lessons_done",
        sa.Column("user_id", sa.Integer, primary_key=True),
        sa.Column("lesson", sa.String(40), primary_key=True),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lessons_done")
