"""Schema migrations (Alembic), for SQLite and PostgreSQL alike.

``upgrade(engine)`` brings a database to the newest schema; the store calls it when it opens, and
``varaq db upgrade`` calls it on its own.  New schema changes are new files in ``versions/``
(``alembic revision`` with this folder as the script location, or by hand: each file names the
revision it follows).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

__all__ = ["upgrade", "current", "HEAD"]

HERE = Path(__file__).parent
#: The newest revision in ``versions/``.
HEAD = "0008"


def _config(connection: object) -> object:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Apply every migration the database has not had yet (safe to call at each start); the
    revision it was at before (``None``: empty), read under the same lock, so that of several
    upgrades at once only the one that migrated reports the old revision."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import text

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Several processes may start at once on one database: one migrates at a time
            # (the lock ends with this transaction).
            connection.execute(text("SELECT pg_advisory_xact_lock(4251977011)"))
        before = MigrationContext.configure(connection).get_current_revision()
        command.upgrade(_config(connection), revision)  # type: ignore[arg-type]
    return before


def current(engine: Engine) -> str | None:
    """The revision the database is at, or ``None`` for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
