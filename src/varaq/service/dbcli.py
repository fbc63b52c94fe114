"""``varaq db``: look after the database a server uses.

- ``varaq db upgrade`` applies the schema migrations the database has not had yet (``varaq
  serve`` does the same when it starts; this is for operators who migrate first).
- ``varaq db prune --older-than DAYS`` deletes unfinished tables nobody has touched for that
  many days — abandoned single-player games pile up otherwise.  Finished matches are kept.
  It also deletes every session that was signed out or has expired (whatever ``DAYS``: such a
  row can never sign anyone in again).
- ``varaq db status`` prints the schema revision and how many tables are stored.

Each takes ``--db URL`` (default: ``VARAQ_DB`` or the SQLite file in the user data directory);
problems are one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True,
                                parser_class=type(parser))
    for name, text in (
        ("upgrade", "apply the schema migrations the database has not had yet"),
        ("prune", "delete unfinished tables untouched for a number of days, and ended "
                  "sessions"),
        ("status", "print the schema revision and the number of stored tables"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--db", default=None, metavar="URL",
                       help="SQLAlchemy database URL (default: $VARAQ_DB or the user data dir)")
        if name == "prune":
            p.add_argument("--older-than", type=float, required=True, metavar="DAYS",
                           help="days without a move after which an unfinished table goes")


def run(args: argparse.Namespace) -> int:
    from .migrations import HEAD, current, upgrade
    from .store import Store, default_db_url, make_engine

    url = args.db or default_db_url()
    try:
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
    except Exception as e:  # a bad URL, an unreachable server, a locked file
        print(f"varaq db {args.db_command}: {type(e).__name__}: {e}".splitlines()[0],
              file=sys.stderr)
        return 2
