"""Sessions the server can end: one row per sign-in, keyed by a hash of its id.

Revision 0004, after 0003.  Before this a session was only a signed cookie holding the user id,
which nothing on the server could take back: signing out merely asked the browser to forget
it.  Now the cookie holds a random session id and the row says whether it still stands, so a
sign-out (or "sign out everywhere") ends it for every process that shares the database.  Only
a SHA-256 of the id is stored.  Nothing to convert: the old cookies hold no session id, so
everyone signed in before this signs in once more.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended", sa.DateTime(timezone=True), nullable=True),
        sa.Column("agent", sa.String(120), nullable=True),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires", "sessions", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_sessions_expires", "sessions")
    op.drop_index("ix_sessions_user_id", "sessions")
    op.drop_table("sessions")
