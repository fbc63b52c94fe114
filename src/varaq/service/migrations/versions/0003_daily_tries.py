"""The daily game's tries: one row per try, with what the day's leaderboard needs.

Revision 0003, after 0002.  A person has one try per date (``day``, ``user_id`` unique; a
guest's ``user_id`` is null, and nulls never clash, so guests may try as often as they like).
A try goes with its table: pruning an abandoned table removes its try too.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_tries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column(
            "table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"),
            nullable=False, unique=True,
        ),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("counted", sa.Boolean, nullable=False),
        sa.Column("late", sa.Boolean, nullable=False),
        sa.Column("hands", sa.JSON, nullable=False),
        sa.Column("total_ns", sa.Integer, nullable=False),
        sa.Column("total_ew", sa.Integer, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("conceded", sa.Boolean, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("day", "user_id", name="uq_daily_tries_day_user"),
    )
    op.create_index("ix_daily_tries_day", "daily_tries", ["day", "counted", "finished"])
    op.create_index("ix_daily_tries_user", "daily_tries", ["user_id", "day"])


def downgrade() -> None:
    op.drop_index("ix_daily_tries_user", "daily_tries")
    op.drop_index("ix_daily_tries_day", "daily_tries")
    op.drop_table("daily_tries")
