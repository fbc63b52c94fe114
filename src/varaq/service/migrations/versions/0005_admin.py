"""Administration: suspended accounts, one-time password-reset codes, and the audit log.

Revision 0005, after 0004.  ``varaq admin`` acts on the database directly, with no server
running, so what it decides has to live in rows every process reads:

- ``users.banned`` (when the account was suspended; null while it is not) and
  ``users.ban_reason``, the sentence the person is shown when they try to sign in or play;
- ``reset_codes``: a one-time code an operator hands to someone who lost their password.  Only
  a SHA-256 of the code is kept (as with sessions: whoever reads a backup cannot use it), with
  when it stops working and when it was used;
- ``audit``: one row per administrative act — who (the operator's name), when, what, to whom
  and why — which is never updated or deleted by Varaq.

Both new columns are nullable, so SQLite adds them in place (no table rebuild).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("banned", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("ban_reason", sa.String(200), nullable=True))
    op.create_table(
        "reset_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_reset_codes_user_id", "reset_codes", ["user_id"])
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("detail", sa.String(200), nullable=True),
    )
    op.create_index("ix_audit_at", "audit", ["at"])


def downgrade() -> None:
    op.drop_index("ix_audit_at", "audit")
    op.drop_table("audit")
    op.drop_index("ix_reset_codes_user_id", "reset_codes")
    op.drop_table("reset_codes")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("ban_reason")
        batch.drop_column("banned")
