"""Alembic's entry point: runs the migrations on the connection the caller handed over."""

from __future__ import annotations

from alembic import context

from varaq.service.store import Base

connection = context.config.attributes["connection"]
# batch mode: SQLite cannot alter a column in place, so Alembic rebuilds the table instead.
context.configure(
    connection=connection, target_metadata=Base.metadata, render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
