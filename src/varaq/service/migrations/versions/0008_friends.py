"""Friends: who follows whom, who blocked whom, invitations to a table, and who is online.

Revision 0008.  Four small tables, kept by :mod:`varaq.service.friends`:

- ``follows``: one row per person followed (one-sided: following asks nobody's leave, and
  shows only whether the person is online and at which table);
- ``blocks``: one row per person blocked (kept out of the blocker's tables and notices);
- ``invites``: an invitation to a table, with the moment it lapses and how it was answered;
- ``presence``: which server process has a person's page open, refreshed every few seconds,
  so every process of a cluster can say who is online (a row not refreshed lately counts for
  nothing: a process that died stops saying anyone is online).

Nothing to convert: the tables start empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0006"
branch_labels = None
depends_on = None


def _user(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                     primary_key=True)


def upgrade() -> None:
    op.create_table(
        "follows", _user("user_id"), _user("friend_id"),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_follows_friend_id", "follows", ["friend_id"])
    op.create_table(
        "blocks", _user("user_id"), _user("blocked_id"),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "invites",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("from_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("to_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answer", sa.String(16), nullable=True),
    )
    op.create_index("ix_invites_to_id_expires", "invites", ["to_id", "expires"])
    op.create_index("ix_invites_from_id", "invites", ["from_id"])
    op.create_table(
        "presence", _user("user_id"),
        sa.Column("node", sa.String(32), primary_key=True),
        sa.Column("sockets", sa.Integer, nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_presence_node", "presence", ["node"])


def downgrade() -> None:
    op.drop_index("ix_presence_node", "presence")
    op.drop_table("presence")
    op.drop_index("ix_invites_from_id", "invites")
    op.drop_index("ix_invites_to_id_expires", "invites")
    op.drop_table("invites")
    op.drop_index("ix_blocks_blocked_id", "blocks")
    op.drop_table("blocks")
    op.drop_index("ix_follows_friend_id", "follows")
    op.drop_table("follows")
