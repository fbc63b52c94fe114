"""Ratings and the match history: ``ratings`` and ``player_matches``.

Revision 0006, after 0005.  ``player_matches`` keeps one row per person per finished match
(the history, the counts a profile sums, the rating after a rated match — so the rating chart
needs no table of its own); ``ratings`` each person's current rating.  Both are derived from
the stored journals and can be made again at any time with ``varaq ratings rebuild``, which
is also how a database that had finished matches before this revision gets its history.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "player_matches",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("seating", sa.JSON, nullable=False),
        sa.Column("badges", sa.JSON, nullable=False),
        sa.Column("total_ns", sa.Integer, nullable=False),
        sa.Column("total_ew", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("conceded", sa.Integer, nullable=True),
        *(sa.Column(name, sa.Integer, nullable=False) for name in (
            "hands", "contracts", "made", "set", "nils", "nils_made", "blind_nils",
            "blind_nils_made", "bags", "points",
        )),
        sa.Column("mu", sa.Float, nullable=True),
        sa.Column("sigma", sa.Float, nullable=True),
    )
    op.create_index("ix_player_matches_user_finished", "player_matches",
                    ["user_id", "finished"])


def downgrade() -> None:
    op.drop_index("ix_player_matches_user_finished", "player_matches")
    op.drop_table("player_matches")
    op.drop_table("ratings")
