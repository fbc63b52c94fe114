"""Where games live between requests and across restarts: the ``games`` table.

One row per game.  ``journal`` rebuilds the game exactly (see :mod:`.journal`); ``record`` is
the same match as a ``varaq-record/1`` document, kept beside it so a download or an analysis
needs no replay.  ``version`` counts the accepted events: a write names the version it follows,
so two writers can never both extend the same game (the second gets :class:`StaleWrite`).

The store is synchronous SQLAlchemy 2; the tables call it through ``asyncio.to_thread`` so a
slow disk never stalls the event loop.  SQLite is the default (no setup); any SQLAlchemy URL
works, PostgreSQL included.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Integer,
    String,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy import update as sql_update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.pool import StaticPool

__all__ = ["Store", "StoredGame", "StaleWrite", "GameRow", "default_db_url"]


class StaleWrite(RuntimeError):
    """The game moved on elsewhere since this writer read it."""


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    level: Mapped[str] = mapped_column(String(16))
    #: The rules spec: a preset name or ``{"preset": …, overrides}``.
    rules: Mapped[Any] = mapped_column(JSON)
    #: The seed the deals come from (also inside the journal; here for queries and humans).
    seed: Mapped[int] = mapped_column(BigInteger)
    journal: Mapped[Any] = mapped_column(JSON)
    record: Mapped[Any] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer)
    #: ``playing`` or ``over``.
    status: Mapped[str] = mapped_column(String(16))


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: str
    level: str
    journal: dict[str, Any]
    version: int
    status: str
    created: datetime


def default_db_url() -> str:
    """``VARAQ_DB`` if set, else a SQLite file in the user's data directory (created)."""
    url = os.environ.get("VARAQ_DB")
    if url:
        return url
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("varaq"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'varaq.db'}"


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    """The ``games`` table behind a few verbs: insert, save (after a version), load."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = _make_engine(url)
        Base.metadata.create_all(self.engine)

    def insert(
        self, game_id: str, level: str, journal: dict[str, Any], record: dict[str, Any],
        version: int, status: str,
    ) -> None:
        now = _now()
        with Session(self.engine) as session, session.begin():
            session.add(GameRow(
                id=game_id, created=now, updated=now, level=level, rules=journal["rules"],
                seed=int(journal["seed"]), journal=journal, record=record, version=version,
                status=status,
            ))

    def save(
        self, game_id: str, after: int, journal: dict[str, Any], record: dict[str, Any],
        version: int, status: str,
    ) -> None:
        """Store a game's new state, only if it is still at version ``after``."""
        stmt = (
            sql_update(GameRow)
            .where(GameRow.id == game_id, GameRow.version == after)
            .values(journal=journal, record=record, version=version, status=status,
                    updated=_now())
        )
        with Session(self.engine) as session, session.begin():
            result = session.execute(stmt)
            if getattr(result, "rowcount", 1) != 1:
                raise StaleWrite(f"game {game_id} is no longer at version {after}")

    def load(self, game_id: str) -> StoredGame | None:
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            return StoredGame(
                row.id, row.level, dict(row.journal), row.version, row.status, row.created
            )

    def record(self, game_id: str) -> dict[str, Any] | None:
        with Session(self.engine) as session:
            doc = session.scalar(select(GameRow.record).where(GameRow.id == game_id))
            return None if doc is None else dict(doc)

    def count(self) -> int:
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)

    def close(self) -> None:
        self.engine.dispose()


def _make_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    if url in ("sqlite://", "sqlite:///:memory:"):
        # One shared connection, or each thread would see its own empty database.
        return create_engine(
            url, poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    path = url.split("///", 1)[1] if "///" in url else ""
    if path and not path.startswith(":"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15})

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
        # WAL lets readers work while a move is written; synchronous=NORMAL is still durable
        # across a process crash (the restart case that matters here).
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine
