"""Where tables live between requests and across restarts: SQLAlchemy 2, SQLite by default.

A table is one row of ``tables`` (who made it, its rules, its seed, its status) and one row of
``entries`` per accepted input, in order: ``deal``, ``N bid 4``, ``S QS``, ``sit E u7``…
(:mod:`.journal` reads and writes them).  Storing a move is *appending one small row*, never
rewriting a document, and the record a player downloads is built from the entries when it is
asked for.  ``tables.version`` is the number of entries; an append names the version it
follows and is refused (:class:`StaleWrite`) if the table moved on, so two writers can never
both extend one table.

Appends go through :class:`Appender`, one writer thread that commits whatever appends are
waiting *together* in one transaction (group commit): with many tables busy at once, one
commit carries many moves, and SQLite never sees two writers of this process at once.  The
caller awaits its append before it tells anyone about the move, so whatever a player has
been shown is stored.

People are ``users`` rows, and each of their sign-ins a ``sessions`` row keyed by a hash of its
id (:mod:`varaq.web.sessions`), so that any process can end a session.  What an operator does
(``varaq admin``: suspending an account, a password-reset code, closing a table) is rows as
well — ``users.banned``, ``reset_codes``, ``audit`` — since it is done with no server running.

Schema changes are Alembic migrations (``migrations/``), applied when the store opens (or by
``varaq db upgrade``).  A 0.1.0 database (one ``games`` row per game holding a whole journal)
is converted by the first migration.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.pool import StaticPool

__all__ = [
    "Store", "StoredTable", "StaleWrite", "StoreError", "Append", "Appender", "LoopAppender",
    "Checkpointer", "make_appender", "UserRow", "LessonRow", "SessionRow", "LiveSession",
    "TableRow", "EntryRow", "SeatRow", "ResetCodeRow", "AuditRow", "default_db_url", "data_dir",
]

log = logging.getLogger("varaq.store")


class StaleWrite(RuntimeError):
    """The table moved on elsewhere since this writer read it."""


class StoreError(RuntimeError):
    """The database refused or failed; the message says what, in one line."""


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: ``solo`` (one person and three computer players), ``private`` (a code to join),
    #: ``quick`` (seated by the quick-match queue) or ``daily``.
    kind: Mapped[str] = mapped_column(String(16))
    #: The short code people type to join a private table.
    code: Mapped[str | None] = mapped_column(String(16), unique=True, nullable=True)
    host: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The computer players' strength.
    level: Mapped[str] = mapped_column(String(16))
    #: The rules spec: a preset name or ``{"preset": …, overrides}``.
    rules: Mapped[Any] = mapped_column(JSON)
    #: What the deals come from; text so a daily's keyed seed fits as well as a number.
    seed: Mapped[str] = mapped_column(String(128))
    #: ``{"total": [ns, ew], "bags": [ns, ew], "dealer": seat or null}``.
    start: Mapped[Any] = mapped_column(JSON)
    #: Table options: bots fill empty seats, turn timer, pace, daily date…
    options: Mapped[Any] = mapped_column(JSON)
    #: ``seating``, ``playing``, ``over``, or ``closed`` (by an administrator).
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_tables_status_updated", "status", "updated"),)


class EntryRow(Base):
    __tablename__ = "entries"

    table_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry: Mapped[str] = mapped_column(String(64))


class UserRow(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(32))
    #: The name folded for comparison, so "Ana" and "ana" cannot both exist.
    name_key: Mapped[str] = mapped_column(String(32), unique=True)
    #: An argon2id hash; never sent anywhere.
    password: Mapped[str] = mapped_column(String(255))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    #: When an administrator suspended the account (null: it is not suspended).
    banned: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Why, in the words the person is shown.
    ban_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)


class ResetCodeRow(Base):
    """A one-time password-reset code an operator handed out (``varaq admin reset-password``).
    Only its SHA-256 is kept, so a copy of the database holds no usable code."""

    __tablename__ = "reset_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When it was used, or made void by a newer code (null: still usable until it expires).
    used: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_reset_codes_user_id", "user_id"),)


class AuditRow(Base):
    """One administrative act: who, when, what, to which account or table, and why."""

    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The operator: ``--by NAME`` or the operating-system user who ran the command.
    actor: Mapped[str] = mapped_column(String(64))
    #: ``ban``, ``unban``, ``reset-password``, ``end-sessions``, ``close-table``.
    action: Mapped[str] = mapped_column(String(32))
    #: The account's name or the table's id.
    target: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: What the act did, in a few words ("ended 2 sessions").
    detail: Mapped[str | None] = mapped_column(String(200), nullable=True)

    __table_args__ = (Index("ix_audit_at", "at"),)


class SessionRow(Base):
    """A signed-in browser (:mod:`varaq.web.sessions`): one row per sign-in, shared by every
    process that uses this database, so any of them can end it."""

    __tablename__ = "sessions"

    #: SHA-256 of the session id, in hex.  The id itself is only ever in the person's cookie,
    #: so whoever reads this table (a backup, a leaked dump) cannot use the sessions in it.
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When the session was last used, refreshed at most every few minutes.
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When it ends unless used again: the sooner of ``last_seen`` plus the idle time and
    #: ``created`` plus the longest a session lasts.
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When it was signed out (null while it lasts).
    ended: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The browser's own description of itself, cut short, for a list of one's sessions.
    agent: Mapped[str | None] = mapped_column(String(120), nullable=True)

    __table_args__ = (
        Index("ix_sessions_user_id", "user_id"), Index("ix_sessions_expires", "expires"),
    )


@dataclass(frozen=True, slots=True)
class LiveSession:
    """A session that has not ended: whose it is, and its times (all UTC)."""

    user_id: int
    created: datetime
    last_seen: datetime
    expires: datetime


class LessonRow(Base):
    """A lesson a person has finished (``varaq.lessons``), kept with the account."""

    __tablename__ = "lessons_done"

    user_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lesson: Mapped[str] = mapped_column(String(40), primary_key=True)
    finished: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeatRow(Base):
    """Who sits where, kept beside the entries so "your tables" is one query."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, index=True)


@dataclass(frozen=True, slots=True)
class StoredTable:
    id: str
    kind: str
    code: str | None
    host: int | None
    level: str
    rules: Any
    seed: str
    start: dict[str, Any]
    options: dict[str, Any]
    status: str
    version: int
    created: datetime
    updated: datetime
    entries: tuple[str, ...]


@dataclass(slots=True)
class Append:
    """Entries to add to one table after version ``after``, and what they change on its row."""

    table_id: str
    after: int
    entries: Sequence[str]
    status: str | None = None
    #: Seat changes: seat -> user id, or None for a seat no person holds any more.
    seats: dict[int, int | None] = field(default_factory=dict)
    #: Other columns of the table row to set (``options``…).
    values: dict[str, Any] = field(default_factory=dict)


def data_dir() -> Path:
    """The user's data directory for Varaq (created): the default database, the secret."""
    from platformdirs import user_data_dir

    folder = Path(os.environ.get("VARAQ_HOME") or user_data_dir("varaq"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def default_db_url() -> str:
    """``VARAQ_DB`` if set, else a SQLite file in the user's data directory."""
    url = os.environ.get("VARAQ_DB")
    if url:
        return url
    return f"sqlite:///{data_dir() / 'varaq.db'}"


def _now() -> datetime:
    return datetime.now(UTC)


def _stored(row: TableRow, entries: tuple[str, ...]) -> StoredTable:
    return StoredTable(
        row.id, row.kind, row.code, row.host, row.level, row.rules, row.seed,
        dict(row.start or {}), dict(row.options or {}), row.status, row.version,
        _aware(row.created), _aware(row.updated), entries,
    )


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Store:
    """The database behind a few verbs.  Synchronous: the service calls it from threads."""

    def __init__(self, url: str, *, migrate: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url)
        #: SQLite's own connection for appends (see :meth:`_append_sqlite`), made on first use.
        self._raw: Any = None
        self._raw_lock = threading.Lock()
        if migrate:
            from .migrations import upgrade

            upgrade(self.engine)

    # -- tables ------------------------------------------------------------------------------

    def create_table(
        self, *, table_id: str, kind: str, level: str, rules: Any, seed: str,
        start: dict[str, Any], options: dict[str, Any], status: str, entries: Sequence[str],
        code: str | None = None, host: int | None = None, seats: dict[int, int] | None = None,
    ) -> None:
        now = _now()
        try:
            with Session(self.engine) as session, session.begin():
                session.add(TableRow(
                    id=table_id, kind=kind, code=code, host=host, level=level, rules=rules,
                    seed=seed, start=start, options=options, status=status,
                    version=len(entries), created=now, updated=now,
                ))
                session.flush()
                session.add_all(
                    EntryRow(table_id=table_id, version=i + 1, entry=e)
                    for i, e in enumerate(entries)
                )
                session.add_all(
                    SeatRow(table_id=table_id, seat=s, user_id=u) for s, u in (seats or {}).items()
                )
        except IntegrityError as e:
            raise StaleWrite(f"table {table_id} or code {code} exists already") from e

    def append_many(self, appends: Sequence[Append]) -> list[BaseException | None]:
        """Commit several appends in one transaction; the result says, per append, why it was
        refused (``None``: stored).  A refused append changes nothing; the others still land.

        Written in SQLAlchemy Core on one connection (not the ORM): this is the server's
        hottest write, one version check per table and one insert for all the lines.
        """
        if self.url.startswith("sqlite") and not any(a.seats or a.values for a in appends):
            try:
                return self._append_sqlite(appends)
            except sqlite3.IntegrityError:
                return self._one_by_one(appends)
        results: list[BaseException | None] = [None] * len(appends)
        now = _now()
        try:
            with self.engine.begin() as connection:
                lines: list[dict[str, Any]] = []
                for i, a in enumerate(appends):
                    results[i] = _append_in(connection, a, now, lines)
                if lines:
                    connection.execute(_INSERT_ENTRY, lines)
        except IntegrityError:
            return self._one_by_one(appends)
        return results

    def _one_by_one(self, appends: Sequence[Append]) -> list[BaseException | None]:
        if len(appends) == 1:
            return [StaleWrite(f"table {appends[0].table_id} has entries past its version")]
        # One bad append spoiled the batch: commit each alone to find it.
        return [self.append_many([a])[0] for a in appends]

    def _append_sqlite(self, appends: Sequence[Append]) -> list[BaseException | None]:
        """The common append (lines, maybe a status) straight through sqlite3.

        The same statements as :func:`_append_in`, on one connection kept for appends: the
        SQL toolkit's layers cost more than SQLite's own work here, and this runs for every
        move of every table.
        """
        with self._raw_lock:
            if self._raw is None:
                self._raw = self.engine.raw_connection()
            db = self._raw.driver_connection
            # SQLAlchemy's own text form of a datetime in SQLite (and so comparable with it).
            now = _now().strftime("%Y-%m-%d %H:%M:%S.%f")
            results: list[BaseException | None] = []
            lines: list[tuple[str, int, str]] = []
            try:
                for a in appends:
                    cursor = db.execute(_ADVANCE_SQL, (
                        a.after + len(a.entries), now, a.status, a.table_id, a.after,
                    ))
                    if cursor.rowcount != 1:
                        results.append(
                            StaleWrite(f"table {a.table_id} is no longer at version {a.after}")
                        )
                        continue
                    results.append(None)
                    lines.extend(
                        (a.table_id, a.after + i + 1, e) for i, e in enumerate(a.entries)
                    )
                if lines:
                    db.executemany(_INSERT_SQL, lines)
                db.commit()
            except BaseException:
                db.rollback()
                raise
            return results

    def load_table(self, table_id: str) -> StoredTable | None:
        with Session(self.engine) as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            entries = session.scalars(
                select(EntryRow.entry).where(EntryRow.table_id == table_id)
                .order_by(EntryRow.version)
            ).all()
            return _stored(row, tuple(entries))

    def load_tables(self, table_ids: Sequence[str]) -> dict[str, StoredTable]:
        """Several tables in two queries (the rows, then every line of them all): what a
        process taking over a leaving process's tables reads, a wave at a time, where one
        read per table would be a hundred round trips.  Unknown ids are left out."""
        ids = list(dict.fromkeys(table_ids))
        if not ids:
            return {}
        with Session(self.engine) as session:
            rows = session.scalars(select(TableRow).where(TableRow.id.in_(ids))).all()
            lines: dict[str, list[str]] = {row.id: [] for row in rows}
            for table_id, entry in session.execute(
                select(EntryRow.table_id, EntryRow.entry).where(EntryRow.table_id.in_(ids))
                .order_by(EntryRow.table_id, EntryRow.version)
            ):
                lines[table_id].append(entry)
            return {row.id: _stored(row, tuple(lines[row.id])) for row in rows}

    def table_by_code(self, code: str) -> str | None:
        with Session(self.engine) as session:
            return session.scalar(select(TableRow.id).where(TableRow.code == code))

    def tables_of(self, user_id: int, limit: int = 20) -> list[tuple[str, str, str, int]]:
        """(table id, kind, status, seat) of the tables a person sits at, newest first."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(TableRow.id, TableRow.kind, TableRow.status, SeatRow.seat)
                .join(SeatRow, SeatRow.table_id == TableRow.id)
                .where(SeatRow.user_id == user_id)
                .order_by(TableRow.updated.desc())
                .limit(limit)
            ).all()
            return [(r[0], r[1], r[2], r[3]) for r in rows]

    def count(self) -> int:
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count()).select_from(TableRow)) or 0)

    def prune(self, older_than: timedelta) -> int:
        """Delete unfinished tables nobody has touched for ``older_than``; finished ones stay,
        and so do tables an administrator closed (the record of why is worth keeping)."""
        cutoff = _now() - older_than
        with Session(self.engine) as session, session.begin():
            ids = session.scalars(
                select(TableRow.id).where(TableRow.status.not_in(("over", "closed")),
                                          TableRow.updated < cutoff)
            ).all()
            for chunk in _chunks(list(ids), 500):
                session.execute(delete(EntryRow).where(EntryRow.table_id.in_(chunk)))
                session.execute(delete(SeatRow).where(SeatRow.table_id.in_(chunk)))
                session.execute(delete(TableRow).where(TableRow.id.in_(chunk)))
            return len(ids)

    def closed_since(self, moment: datetime) -> list[str]:
        """The ids of the tables closed by an administrator and changed after ``moment``: one
        query on the (status, updated) index, however many tables a process holds."""
        with self.engine.connect() as connection:
            return list(connection.scalars(
                select(TableRow.id).where(TableRow.status == "closed",
                                          TableRow.updated > moment)
            ).all())

    # -- sessions ----------------------------------------------------------------------------

    def create_session(
        self, id_hash: str, user_id: int, *, now: datetime, expires: datetime,
        agent: str | None = None, replaces: str | None = None,
    ) -> None:
        """A new session; ``replaces`` (the hash of the session this browser had) ends with it."""
        with self.engine.begin() as connection:
            if replaces is not None:
                connection.execute(
                    update(SessionRow).where(SessionRow.id_hash == replaces,
                                             SessionRow.ended.is_(None)).values(ended=now)
                )
            connection.execute(insert(SessionRow).values(
                id_hash=id_hash, user_id=user_id, created=now, last_seen=now, expires=expires,
                ended=None, agent=agent[:120] if agent else None,
            ))

    def live_session(self, id_hash: str, now: datetime) -> LiveSession | None:
        """The session with this hash if it has neither ended nor expired at ``now``.

        One lookup by primary key, in Core: it runs on the request's own thread."""
        with self.engine.connect() as connection:
            row = connection.execute(_LIVE_SESSION, {"id_hash": id_hash, "now": now}).first()
        if row is None:
            return None
        return LiveSession(int(row[0]), _aware(row[1]), _aware(row[2]), _aware(row[3]))

    def live_sessions_of(self, user_ids: Sequence[int], now: datetime,
                         ) -> dict[str, LiveSession]:
        """Every live session of these people, by hash, in one query (a process about to
        take their tables reads them before their pages arrive)."""
        return self._live_sessions(SessionRow.user_id.in_(sorted(set(user_ids))), now)

    def live_sessions(self, id_hashes: Sequence[str], now: datetime) -> dict[str, LiveSession]:
        """Those of these sessions that are still live, by hash, in one query (a process
        re-reads the sessions in use together instead of one at each request)."""
        return self._live_sessions(SessionRow.id_hash.in_(sorted(set(id_hashes))), now)

    def _live_sessions(self, which: Any, now: datetime) -> dict[str, LiveSession]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(SessionRow.id_hash, SessionRow.user_id, SessionRow.created,
                       SessionRow.last_seen, SessionRow.expires)
                .where(which, SessionRow.ended.is_(None), SessionRow.expires > now)
            ).all()
        return {str(r[0]): LiveSession(int(r[1]), _aware(r[2]), _aware(r[3]), _aware(r[4]))
                for r in rows}

    def touch_session(self, id_hash: str, now: datetime, expires: datetime) -> None:
        """The session was used at ``now``: it now lasts until ``expires`` (unless ended)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(SessionRow).where(SessionRow.id_hash == id_hash,
                                         SessionRow.ended.is_(None))
                .values(last_seen=now, expires=expires)
            )

    def end_session(self, id_hash: str, now: datetime) -> int | None:
        """Sign one session out; the user id it belonged to (``None``: no such live session)."""
        with self.engine.begin() as connection:
            user_id = connection.scalar(
                select(SessionRow.user_id).where(SessionRow.id_hash == id_hash,
                                                 SessionRow.ended.is_(None))
            )
            connection.execute(
                update(SessionRow).where(SessionRow.id_hash == id_hash,
                                         SessionRow.ended.is_(None)).values(ended=now)
            )
        return None if user_id is None else int(user_id)

    def end_sessions_of(self, user_id: int, now: datetime) -> int:
        """Sign a person out everywhere; how many sessions were still live."""
        with self.engine.begin() as connection:
            result = connection.execute(
                update(SessionRow).where(SessionRow.user_id == user_id,
                                         SessionRow.ended.is_(None), SessionRow.expires > now)
                .values(ended=now)
            )
            return int(result.rowcount or 0)

    def prune_sessions(self, now: datetime | None = None) -> int:
        """Delete the sessions that were signed out or have expired; how many went."""
        moment = now or _now()
        with self.engine.begin() as connection:
            result = connection.execute(
                delete(SessionRow).where(
                    or_(SessionRow.ended.is_not(None), SessionRow.expires <= moment)
                )
            )
            return int(result.rowcount or 0)

    # -- people ------------------------------------------------------------------------------

    def create_user(self, name: str, name_key: str, password_hash: str) -> int:
        try:
            with Session(self.engine) as session, session.begin():
                row = UserRow(
                    name=name, name_key=name_key, password=password_hash, created=_now(),
                    played=0, won=0,
                )
                session.add(row)
                session.flush()
                return int(row.id)
        except IntegrityError:
            raise StaleWrite(f"the name {name!r} is taken") from None

    def user(self, user_id: int) -> UserRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return session.get(UserRow, user_id)

    def user_names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names of these accounts in one query (unknown ids are left out)."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        with Session(self.engine) as session:
            return {int(uid): str(name) for uid, name in session.execute(
                select(UserRow.id, UserRow.name).where(UserRow.id.in_(ids)))}

    def lessons_done(self, user_id: int) -> list[str]:
        """The lessons a person has finished, in the order they finished them."""
        with Session(self.engine) as session:
            return list(session.scalars(
                select(LessonRow.lesson).where(LessonRow.user_id == user_id)
                .order_by(LessonRow.finished, LessonRow.lesson)
            ).all())

    def finish_lessons(self, user_id: int, lessons: Iterable[str]) -> list[str]:
        """Mark ``lessons`` finished for a person (those already finished stay as they were);
        returns every lesson the person has finished."""
        with Session(self.engine) as session, session.begin():
            done = set(session.scalars(
                select(LessonRow.lesson).where(LessonRow.user_id == user_id)
            ).all())
            now = _now()
            session.add_all(
                LessonRow(user_id=user_id, lesson=lesson, finished=now)
                for lesson in dict.fromkeys(lessons) if lesson not in done
            )
        return self.lessons_done(user_id)

    def user_by_key(self, name_key: str) -> UserRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return session.scalar(select(UserRow).where(UserRow.name_key == name_key))

    def suspension(self, user_id: int) -> str | None:
        """Why the account is suspended (``None``: it is not, or does not exist)."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(UserRow.banned, UserRow.ban_reason).where(UserRow.id == user_id)
            ).first()
        if row is None or row[0] is None:
            return None
        return str(row[1] or "no reason was given")

    def use_reset_code(self, user_id: int, code_hash: str, password_hash: str,
                       now: datetime) -> int | None:
        """Spend a password-reset code: set the new password and end every session of the
        person, in one transaction.  How many sessions ended, or ``None`` when the code is not
        this person's, was used, or has expired (then nothing changes)."""
        with self.engine.begin() as connection:
            spent = connection.execute(
                update(ResetCodeRow).where(
                    ResetCodeRow.code_hash == code_hash, ResetCodeRow.user_id == user_id,
                    ResetCodeRow.used.is_(None), ResetCodeRow.expires > now,
                ).values(used=now)
            )
            if spent.rowcount != 1:
                return None
            connection.execute(
                update(UserRow).where(UserRow.id == user_id).values(password=password_hash)
            )
            ended = connection.execute(
                update(SessionRow).where(SessionRow.user_id == user_id,
                                         SessionRow.ended.is_(None), SessionRow.expires > now)
                .values(ended=now)
            )
            return int(ended.rowcount or 0)

    def set_password(self, user_id: int, password_hash: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(UserRow).where(UserRow.id == user_id).values(password=password_hash)
            )

    def count_results(self, played: Iterable[int], won: Iterable[int]) -> None:
        """A finished online match: each person played one more; the winners won one more."""
        with Session(self.engine) as session, session.begin():
            for uid in played:
                session.execute(
                    update(UserRow).where(UserRow.id == uid).values(played=UserRow.played + 1)
                )
            for uid in won:
                session.execute(
                    update(UserRow).where(UserRow.id == uid).values(won=UserRow.won + 1)
                )

    def warm(self) -> int:
        """Open the pool's connections now (a server database only), and how many.

        A process that has just started takes a stopping peer's tables and, at once, the
        requests of their people: each would otherwise open its database connection on the
        event loop (a new PostgreSQL connection costs milliseconds of the process's time),
        just when the loop is busiest.  Run it in a thread at start."""
        if self.url.startswith("sqlite"):
            return 0
        size = self.engine.pool.size() if hasattr(self.engine.pool, "size") else 0
        opened = []
        try:
            for _ in range(size):
                opened.append(self.engine.connect())
        finally:
            for connection in opened:
                connection.close()  # back to the pool, open
        return len(opened)

    def close(self) -> None:
        with self._raw_lock:
            if self._raw is not None:
                self._raw.close()
                self._raw = None
        self.engine.dispose()


_INSERT_ENTRY = insert(EntryRow)
_LIVE_SESSION = (
    select(SessionRow.user_id, SessionRow.created, SessionRow.last_seen, SessionRow.expires)
    .where(SessionRow.id_hash == bindparam("id_hash"), SessionRow.ended.is_(None),
           SessionRow.expires > bindparam("now", type_=DateTime(timezone=True)))
)
_ADVANCE_SQL = (
    "UPDATE tables SET version = ?, updated = ?, status = COALESCE(?, status)"
    " WHERE id = ? AND version = ?"
)
_INSERT_SQL = "INSERT INTO entries (table_id, version, entry) VALUES (?, ?, ?)"
#: The version check and row update of an append, as one plain statement: built and compiled
#: once (a statement built per append costs more than the database's own work).
_ADVANCE = text(
    "UPDATE tables SET version = :version, updated = :now, status = COALESCE(:status, status)"
    " WHERE id = :id AND version = :after"
).bindparams(bindparam("now", type_=DateTime(timezone=True)))


def _append_in(
    connection: Connection, a: Append, now: datetime, lines: list[dict[str, Any]],
) -> BaseException | None:
    """Check ``a``'s version and update its table row; queue its lines for one insert."""
    result = connection.execute(_ADVANCE, {
        "version": a.after + len(a.entries), "now": now, "status": a.status, "id": a.table_id,
        "after": a.after,
    })
    if result.rowcount != 1:
        return StaleWrite(f"table {a.table_id} is no longer at version {a.after}")
    if a.values:
        connection.execute(update(TableRow).where(TableRow.id == a.table_id).values(**a.values))
    lines.extend(
        {"table_id": a.table_id, "version": a.after + i + 1, "entry": e}
        for i, e in enumerate(a.entries)
    )
    for seat, user_id in a.seats.items():
        connection.execute(
            delete(SeatRow).where(SeatRow.table_id == a.table_id, SeatRow.seat == seat)
        )
        if user_id is not None:
            connection.execute(insert(SeatRow).values(table_id=a.table_id, seat=seat,
                                                      user_id=user_id))
    return None


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


class _GroupCommit:
    """What both appenders share: storing a batch of appends in one transaction, counting what
    was stored, and telling each waiting table how its append went."""

    def __init__(self, store: Store) -> None:
        self.store = store
        #: Transactions committed and appends stored (for the benchmark and the logs).
        self.commits = 0
        self.appends = 0

    def _store_batch(self, batch: Sequence[tuple[Append, Any]]) -> None:
        """Store ``batch`` (appends with their futures) and settle every future: ``None`` when
        stored, else why not — a database failure is every append's :class:`StoreError`."""
        try:
            results = self.store.append_many([a for a, _ in batch])
        except Exception as e:  # the database itself failed: every append in the batch fails
            log.exception("storing %d appends failed", len(batch))
            failure: BaseException = StoreError(f"{type(e).__name__}: {e}".splitlines()[0])
            results = [failure] * len(batch)
        else:
            self.commits += 1
            self.appends += sum(r is None for r in results)
        for (_, future), result in zip(batch, results, strict=True):
            if future.cancelled():
                continue  # nobody waits for it any more (the table forgets itself: see Table)
            if result is None:
                future.set_result(None)
            else:
                future.set_exception(result)


class Appender(_GroupCommit):
    """One writer thread that commits waiting appends together (group commit).

    :meth:`submit` returns a :class:`concurrent.futures.Future` that holds ``None`` once the
    append is committed, or the reason it was refused (:class:`StaleWrite`, or
    :class:`StoreError` when the database failed).  While one transaction runs, new appends
    queue up and go together in the next: under load the cost of a commit is shared by every
    table that moved meanwhile.
    """

    #: Most appends in one transaction (a bound on how long one commit can take).
    BATCH = 256

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._queue: queue.SimpleQueue[tuple[Append, Future[None]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="varaq-appender", daemon=True)
        self._thread.start()

    def submit(self, append: Append) -> Future[None]:
        future: Future[None] = Future()
        self._queue.put((append, future))
        return future

    async def append(self, append: Append) -> None:
        """Store ``append``; returns once it is committed, raises why it was not."""
        await asyncio.wrap_future(self.submit(append))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < self.BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._store_batch(batch)
            if stop:
                return

    def close(self) -> None:
        """Commit what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)


class LoopAppender(_GroupCommit):
    """Group commit on the event loop itself, for SQLite.

    A SQLite commit in WAL mode without a sync is a few tens of microseconds: less than handing
    the work to a thread and back costs (two threads of one process also take turns holding
    the interpreter lock).  So every append made during one turn of the loop is committed
    together at the end of that turn, in one transaction, and the waiting tables resume.  The
    slow part of SQLite — the checkpoint that copies the log into the database file and syncs
    it — is moved off the loop: the store's connections never checkpoint by themselves
    (``wal_autocheckpoint=0``), a background thread does it every second instead.
    """

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._pending: list[tuple[Append, asyncio.Future[None]]] = []
        self._checkpoints = Checkpointer(store)

    async def append(self, append: Append) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((append, future))
        await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        self._store_batch(batch)

    def close(self) -> None:
        self._checkpoints.close()


class Checkpointer:
    """Copies SQLite's write-ahead log into the database file every second, off the loop."""

    def __init__(self, store: Store, every: float = 1.0) -> None:
        self.store = store
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="varaq-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.checkpoint()

    def checkpoint(self) -> None:
        try:
            with self.store.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception as e:  # a busy database: the next second will do
            log.debug("checkpoint skipped: %s", e)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.checkpoint()


def make_appender(store: Store) -> Appender | LoopAppender:
    """The appender that suits the database: on the loop for SQLite, a thread otherwise."""
    if store.url.startswith("sqlite"):
        return LoopAppender(store)
    return Appender(store)


def make_engine(url: str) -> Engine:
    """An engine for ``url``: SQLite gets WAL and a shared in-memory connection; others a pool
    that checks its connections (a database restart must not break the server)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
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
        # across a process crash (the restart case that matters here); foreign keys so a
        # pruned table takes its entries with it.
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # Checkpoints are the store's Checkpointer's job, off the event loop (LoopAppender).
        cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    return engine
