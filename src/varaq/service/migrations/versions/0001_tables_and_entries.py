"""Tables as a row plus one entry per accepted input; people and their seats.

Revision 0001, the first.  A database made by Varaq 0.1.0 (one ``games`` row per game, holding
the whole journal as JSON and rewritten on every move) is converted: each game becomes a
``solo`` table whose journal entries become ``entries`` rows, and ``games`` is dropped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SEATS = "NESW"


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("code", sa.String(16), nullable=True, unique=True),
        sa.Column("host", sa.Integer, nullable=True),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("start", sa.JSON, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tables_status_updated", "tables", ["status", "updated"])
    op.create_table(
        "entries",
        sa.Column(
            "table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("entry", sa.String(64), nullable=False),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password", sa.String(255), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("played", sa.Integer, nullable=False, server_default="0"),
        sa.Column("won", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "seats",
        sa.Column(
            "table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=False),
    )
    op.create_index("ix_seats_user_id", "seats", ["user_id"])
    if "games" in sa.inspect(op.get_bind()).get_table_names():
        _convert_games()
        op.drop_table("games")


def _convert_games() -> None:
    """Move each 0.1.0 game (a ``varaq-journal/1`` document) into ``tables`` and ``entries``."""
    bind = op.get_bind()
    games = sa.table(
        "games", sa.column("id"), sa.column("created"), sa.column("updated"),
        sa.column("level"), sa.column("journal", sa.JSON), sa.column("version"),
        sa.column("status"),
    )
    tables = sa.table(
        "tables", *(sa.column(c) for c in (
            "id", "kind", "code", "host", "level", "seed", "status", "version", "created",
            "updated",
        )),
        sa.column("rules", sa.JSON), sa.column("start", sa.JSON), sa.column("options", sa.JSON),
    )
    entries = sa.table("entries", sa.column("table_id"), sa.column("version"), sa.column("entry"))
    now = datetime.now(UTC)
    for row in bind.execute(sa.select(games)).mappings():
        journal: dict[str, Any] = row["journal"]
        if isinstance(journal, str):
            journal = json.loads(journal)
        start = journal.get("start") or {}
        total = start.get("total") or {}
        bags = start.get("bags") or {}
        dealer = journal.get("dealer")
        lines = [str(e) for e in journal.get("entries", [])]
        bind.execute(tables.insert().values(
            id=row["id"], kind="solo", code=None, host=None, level=row["level"],
            rules=journal["rules"], seed=str(journal["seed"]),
            start={
                "total": [total.get("NS", 0), total.get("EW", 0)],
                "bags": [bags.get("NS", 0), bags.get("EW", 0)],
                "dealer": None if dealer is None else SEATS.index(dealer),
            },
            options={}, status=row["status"], version=len(lines),
            created=row["created"] or now, updated=row["updated"] or now,
        ))
        if lines:
            bind.execute(entries.insert(), [
                {"table_id": row["id"], "version": i + 1, "entry": e}
                for i, e in enumerate(lines)
            ])


def downgrade() -> None:
    op.drop_index("ix_seats_user_id", "seats")
    op.drop_table("seats")
    op.drop_table("users")
    op.drop_table("entries")
    op.drop_index("ix_tables_status_updated", "tables")
    op.drop_table("tables")
