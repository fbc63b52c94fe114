"""``varaq db``: look after the database a server uses.

- ``varaq db upgrade`` applies the schema migrations the database has not had yet (``varaq
  serve`` does the same when it starts; this is for operators who migrate first).
- ``varaq db prune --older-than DAYS`` deletes unfinished tables nobody has touched for that
  many days — abandoned single-player games pile up otherwise.  Finished matches are kept.
  It also deletes every session that was signed out or has expired (whatever ``DAYS``: such a
  row can never sign anyone in again).
- ``varaq db status`` prints the schema revision and how many tables are stored.
- ``varaq db backup FILE`` copies the database to a new file while the server runs.  For the
  SQLite store that is SQLite's online backup API: one consistent snapshot, read in a single
  step, so a move stored meanwhile is either wholly in the copy or not at all, and the server
  is never stopped (it keeps writing to its log; only the copy waits).  The copy is a single
  self-contained file (no ``-wal``), checked with ``PRAGMA integrity_check`` before it gets
  its name.  For PostgreSQL it runs ``pg_dump --format=custom`` when ``pg_dump`` is on the
  ``PATH`` (its major version must be the server's or newer) and checks the archive with
  ``pg_restore --list``; without it, it prints the command to run.
- ``varaq db restore FILE`` puts a backup into an *empty* database (a new SQLite file, or a
  PostgreSQL database with no tables): it never overwrites one in use.  A SQLite backup is
  checked and copied in; a ``pg_dump`` archive goes through ``pg_restore``.  Either way the
  schema is then brought to the newest revision (a backup made by an older Varaq upgrades).

Each takes ``--db URL`` (default: ``VARAQ_DB`` or the SQLite file in the user data directory);
problems are one line on standard error and exit status 2, and leave nothing behind.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

__all__ = ["add_arguments", "run", "backup", "restore", "BackupError"]

#: The first bytes of a SQLite database file and of a ``pg_dump --format=custom`` archive.
SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"


class BackupError(Exception):
    """A backup or restore that cannot be done: the one-line reason (nothing was written)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True,
                                parser_class=type(parser))
    for name, text in (
        ("upgrade", "apply the schema migrations the database has not had yet"),
        ("prune", "delete unfinished tables untouched for a number of days, and ended "
                  "sessions"),
        ("status", "print the schema revision and the number of stored tables"),
        ("backup", "copy the database to a new FILE while the server runs"),
        ("restore", "put a backup FILE into an empty database"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--db", default=None, metavar="URL",
                       help="SQLAlchemy database URL (default: $VARAQ_DB or the user data dir)")
        if name in ("backup", "restore"):
            p.add_argument("file", metavar="FILE", type=Path,
                           help="the backup file" + (" to write (must not exist)"
                                                     if name == "backup" else ""))
        if name == "prune":
            p.add_argument("--older-than", type=float, required=True, metavar="DAYS",
                           help="days without a move after which an unfinished table goes")


def run(args: argparse.Namespace) -> int:
    from .migrations import HEAD, current, upgrade
    from .store import Store, default_db_url, make_engine

    url = args.db or default_db_url()
    try:
        if args.db_command == "backup":
            print(backup(url, args.file))
            return 0
        if args.db_command == "restore":
            print(restore(args.file, url))
            return 0
        if args.db_command == "upgrade":
            engine = make_engine(url)
            before = upgrade(engine)
            print(f"database at revision {HEAD} (was {before or 'empty'})")
            engine.dispose()
            return 0
        if args.db_command == "prune":
            days = args.older_than
            if not 0 <= days <= 36500:
                print("varaq db prune: --older-than must be from 0 to 36500 days",
                      file=sys.stderr)
                return 2
            store = Store(url)
            removed = store.prune(timedelta(days=days))
            sessions = store.prune_sessions()
            store.close()
            print(f"removed {removed} unfinished table{'s' * (removed != 1)} untouched for "
                  f"{days:g} days")
            if sessions:
                print(f"removed {sessions} signed-out or expired session{'s' * (sessions != 1)}")
            return 0
        store = Store(url, migrate=False)
        revision = current(store.engine)
        count = store.count() if revision else 0
        store.close()
        print(f"revision {revision or 'none (empty database)'}; newest {HEAD}; {count} tables")
        return 0
    except BackupError as e:
        print(f"varaq db {args.db_command}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a bad URL, an unreachable server, a locked file
        print(f"varaq db {args.db_command}: {type(e).__name__}: {e}".splitlines()[0],
              file=sys.stderr)
        return 2


# -- backups ----------------------------------------------------------------------------------


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL; ``None`` for another database.  An in-memory database has
    nothing to back up or restore into."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("an in-memory database is gone when its process ends: nothing to "
                          "back up or restore into")
    return Path(parsed.database)


def _magic(file: Path) -> bytes:
    with file.open("rb") as f:
        return f.read(16)


def _describe(path: Path) -> str:
    """``revision 0005, 12 tables, 3 people``: what a SQLite database file holds."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        names = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
        revision = (db.execute("select version_num from alembic_version").fetchone()
                    if "alembic_version" in names else None)
        tables = db.execute("select count(*) from tables").fetchone()[0] if "tables" in names \
            else 0
        people = db.execute("select count(*) from users").fetchone()[0] if "users" in names \
            else 0
    db.close()
    return (f"revision {revision[0] if revision else 'none'}, {tables} "
            f"table{'s' * (tables != 1)}, {people} {'person' if people == 1 else 'people'}")


def _check_sqlite(db: sqlite3.Connection, what: str) -> None:
    result = db.execute("PRAGMA integrity_check").fetchone()
    if not result or result[0] != "ok":
        raise BackupError(f"{what} is damaged: {result[0] if result else 'no answer'}")


def backup(url: str, file: Path) -> str:
    """Back up the database at ``url`` into the new ``file``; a line saying what was copied."""
    if file.exists():
        raise BackupError(f"{file} exists already: a backup never overwrites a file")
    if not file.parent.is_dir():
        raise BackupError(f"there is no folder {file.parent}")
    source = _sqlite_path(url)
    if source is None:
        return _pg_dump(url, file)
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    part = file.with_name(file.name + ".part")
    part.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(source, timeout=30)
        try:
            dst = sqlite3.connect(part)
            try:
                # One step (pages=-1): one read transaction, so one consistent snapshot; in WAL
                # mode the server goes on writing meanwhile.
                src.backup(dst)
                # A single file, with no log beside it to forget when copying it elsewhere.
                dst.execute("PRAGMA journal_mode=DELETE")
                _check_sqlite(dst, "the copy")
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(part, file)
    except sqlite3.Error as e:
        raise BackupError(f"{type(e).__name__}: {e}".splitlines()[0]) from None
    finally:
        part.unlink(missing_ok=True)
    return f"backed up {source} to {file} ({_describe(file)})"


def restore(file: Path, url: str) -> str:
    """Put the backup ``file`` into the empty database at ``url``; a line saying what."""
    if not file.is_file():
        raise BackupError(f"there is no backup at {file}")
    magic = _magic(file)
    target = _sqlite_path(url)
    if target is None:
        if magic.startswith(SQLITE_MAGIC):
            raise BackupError(f"{file} is a SQLite backup: it restores into a SQLite database "
                              "(--db sqlite:///FILE), not into PostgreSQL")
        return _pg_restore(file, url)
    if not magic.startswith(SQLITE_MAGIC):
        what = "a pg_dump archive" if magic.startswith(PGDUMP_MAGIC) else "not a SQLite backup"
        raise BackupError(f"{file} is {what}: a SQLite database restores only from a SQLite "
                          "backup")
    if target.exists() and target.stat().st_size > 0:
        with sqlite3.connect(f"file:{target}?mode=ro", uri=True) as db:
            count = db.execute("select count(*) from sqlite_master where type='table'"
                               ).fetchone()[0]
        db.close()
        if count:
            raise BackupError(f"the database at {target} is not empty ({count} tables): "
                              "restore into a new file, then point the server at it")
    revision = _backup_revision(file)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    part.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            _check_sqlite(src, str(file))
            dst = sqlite3.connect(part)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=WAL")  # as the server keeps it
            finally:
                dst.close()
        finally:
            src.close()
        for extra in ("-wal", "-shm"):  # a leftover log of an empty file must not replay
            Path(f"{target}{extra}").unlink(missing_ok=True)
        os.replace(part, target)
    except sqlite3.Error as e:
        raise BackupError(f"{type(e).__name__}: {e}".splitlines()[0]) from None
    finally:
        part.unlink(missing_ok=True)
    return _upgraded(url, f"restored {file} into {target}", revision)


def _backup_revision(file: Path) -> str | None:
    """The schema revision of a SQLite backup; a refusal for one newer than this Varaq."""
    try:
        with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as db:
            row = db.execute("select version_num from alembic_version").fetchone()
        db.close()
    except sqlite3.Error:
        raise BackupError(f"{file} is not a Varaq database (it has no schema revision)") \
            from None
    revision = None if row is None else str(row[0])
    _known(revision, str(file))
    return revision


def _known(revision: str | None, what: str) -> None:
    from alembic.script import ScriptDirectory

    from .migrations import HEAD, HERE

    if revision is None:
        return
    try:
        ScriptDirectory(str(HERE)).get_revision(revision)
    except Exception:
        raise BackupError(f"{what} is at schema revision {revision}, which this Varaq does "
                          f"not know (its newest is {HEAD}): restore it with a newer Varaq") \
            from None


def _upgraded(url: str, done: str, revision: str | None) -> str:
    """Bring a restored database to the newest schema; ``done`` with what it now holds."""
    from .migrations import HEAD
    from .store import Store

    store = Store(url)  # migrates
    count = store.count()
    store.close()
    moved = f", upgraded from {revision}" if revision and revision != HEAD else ""
    return f"{done}: revision {HEAD}{moved}, {count} table{'s' * (count != 1)}"


# -- PostgreSQL: pg_dump and pg_restore -------------------------------------------------------


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """A SQLAlchemy URL as a libpq URI without its password, and the environment that carries
    the password (``PGPASSWORD``), so it never shows in the list of processes."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    uri = parsed.set(drivername="postgresql", password=None).render_as_string(
        hide_password=False)
    return uri, env


def _tool(name: str, hint: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not on the PATH: install PostgreSQL's client programs "
                          f"(the server's major version or newer), or run yourself: {hint}")
    return found


def _run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        why = (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}")
        raise BackupError(f"{Path(command[0]).name} failed: {why.splitlines()[0]}")
    return done.stdout


def _pg_dump(url: str, file: Path) -> str:
    uri, env = _libpq(url)
    pg_dump = _tool("pg_dump", f"pg_dump --format=custom --no-owner --file={file} '{uri}'")
    part = file.with_name(file.name + ".part")
    part.unlink(missing_ok=True)
    try:
        _run([pg_dump, "--format=custom", "--no-owner", f"--file={part}", f"--dbname={uri}"],
             env)
        listing = _pg_list(part, env)
        if "TABLE DATA public entries" not in listing.replace("  ", " "):
            raise BackupError("the archive pg_dump wrote holds no Varaq tables: is --db the "
                              "right database?")
        os.replace(part, file)
    finally:
        part.unlink(missing_ok=True)
    return (f"backed up {uri} to {file} with pg_dump (custom format, checked with "
            "pg_restore --list); restore it with: varaq db restore FILE --db URL (an empty "
            "database)")


def _pg_list(file: Path, env: dict[str, str]) -> str:
    pg_restore = _tool("pg_restore", f"pg_restore --list {file}")
    return _run([pg_restore, "--list", str(file)], env)


def _pg_restore(file: Path, url: str) -> str:
    from sqlalchemy import create_engine, text

    uri, env = _libpq(url)
    if not _magic(file).startswith(PGDUMP_MAGIC):
        raise BackupError(f"{file} is not a pg_dump archive in the custom format "
                          "(pg_dump --format=custom)")
    _pg_list(file, env)  # readable, and pg_restore is there, before anything is written
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            count = connection.scalar(text(
                "select count(*) from information_schema.tables where table_schema = 'public'"))
    finally:
        engine.dispose()
    if count:
        raise BackupError(f"the database at {uri} is not empty ({count} tables): "
                          "create an empty one (createdb) and restore into it")
    pg_restore = _tool("pg_restore", f"pg_restore --no-owner --dbname='{uri}' {file}")
    _run([pg_restore, "--no-owner", "--exit-on-error", "--single-transaction",
          f"--dbname={uri}", str(file)], env)
    engine = create_engine(url)
    try:
        from .migrations import current

        revision = current(engine)
    finally:
        engine.dispose()
    _known(revision, str(file))
    return _upgraded(url, f"restored {file} into {uri} with pg_restore", revision)
