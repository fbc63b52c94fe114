"""``varaq admin``: look after people and tables, straight in the database.

Like ``varaq db``, every action works on the database named by ``--db URL`` (default:
``VARAQ_DB`` or the SQLite file in the user data directory) and needs no server running: what
it decides is rows that every server process reads.

- ``users`` lists accounts (``--banned`` only the suspended ones, ``--name`` a part of a name);
- ``ban NAME --reason WHY`` suspends an account and ends all its sessions.  The person cannot
  sign in, open, join or queue for a table, and is told the reason; their open sockets stop
  acting for them within the servers' session cache (2 s).  ``unban NAME`` lifts it;
- ``reset-password NAME`` prints a one-time code (valid ``--hours``, 24 by default) which the
  person spends with ``POST /api/account/reset`` to choose a new password; only its hash is
  stored, and a newer code voids the older ones;
- ``tables`` lists the tables being played or waiting for players, with who sits at them, how
  old they are, and (with PostgreSQL) which server connection holds each one's owner lock;
- ``close-table --reason WHY -- ID`` ends a table (an id may start with ``-``, so it goes after
  ``--``): a ``close`` line is appended to its journal at the next version (so it cannot
  interleave with a server's own move: one of the two writes is refused as stale) and its
  status becomes ``closed``.  The servers look for closed tables every two seconds and show
  the people at them the reason;
- ``sessions NAME`` lists a person's live sessions; ``--end`` ends them all;
- ``audit`` lists the administrative acts, newest first.

Every act that changes something writes an ``audit`` row in the same transaction: who did it
(``--by NAME``, or the operating-system user running the command), when, what, to whom and
why.  Bad input — an unknown name or table, a table that is over or closed already, a double
ban, an unban of someone not suspended, an empty reason — is one line on standard error, exit
status 2, and changes nothing.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import Store

__all__ = ["add_arguments", "run", "AdminError", "Admin", "LIVE_STATUSES"]

#: The statuses of a table still in play (listed by ``varaq admin tables``, closable).
LIVE_STATUSES = ("seating", "playing")
#: The longest reason (the column's size), and the longest operator name.
REASON_MAX = 200
BY_MAX = 64


class AdminError(Exception):
    """Bad input: the one-line reason, and nothing changed."""


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def clean_reason(text: str | None, *, required: bool) -> str | None:
    """A reason as one line of at most :data:`REASON_MAX` characters (spaces folded)."""
    if text is None:
        if required:
            raise AdminError("give a reason with --reason")
        return None
    reason = " ".join(text.split())
    if not reason:
        raise AdminError("the reason is empty: say why, in a few words")
    if len(reason) > REASON_MAX:
        raise AdminError(f"the reason is {len(reason)} characters long; at most {REASON_MAX}")
    return reason


def operator(by: str | None) -> str:
    """Who is acting: ``--by NAME``, else the operating-system user running the command."""
    if by is None:
        try:
            by = getpass.getuser()
        except Exception:  # no user name in this environment (a bare container)
            by = "unknown"
    name = " ".join(by.split())
    if not name or len(name) > BY_MAX:
        raise AdminError(f"--by takes a name of 1 to {BY_MAX} characters")
    return name


def _age(moment: datetime, now: datetime) -> str:
    seconds = max(0, int((now - _aware(moment)).total_seconds()))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else _aware(moment).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    name: str
    banned: datetime | None
    ban_reason: str | None


class Admin:
    """The administrative acts on one store, each one transaction with its audit row.

    ``now`` is for tests (a reset code that expired)."""

    def __init__(self, store: Store, by: str, now: Callable[[], datetime] = _now) -> None:
        self.store = store
        self.by = by
        self.now = now

    # -- looking up -----------------------------------------------------------------------------

    def person(self, name: str) -> Person:
        from .accounts import clean_name
        from .errors import Refusal

        try:
            _, key = clean_name(name)
        except Refusal:
            key = None
        user = None if key is None else self.store.user_by_key(key)
        if user is None:
            raise AdminError(f"no account is named {name!r}")
        return Person(user.id, user.name, user.banned, user.ban_reason)

    def _audit(self, connection: Any, action: str, target: str, reason: str | None,
               detail: str | None, at: datetime) -> None:
        from sqlalchemy import insert

        from .store import AuditRow

        connection.execute(insert(AuditRow).values(
            at=at, actor=self.by, action=action, target=target[:64], reason=reason,
            detail=None if detail is None else detail[:200],
        ))

    def _end_sessions(self, connection: Any, user_id: int, at: datetime) -> int:
        from sqlalchemy import update

        from .store import SessionRow

        result = connection.execute(
            update(SessionRow).where(SessionRow.user_id == user_id, SessionRow.ended.is_(None),
                                     SessionRow.expires > at).values(ended=at)
        )
        return int(result.rowcount or 0)

    # -- people ---------------------------------------------------------------------------------

    def users(self, *, banned: bool = False, name: str | None = None,
              limit: int = 100) -> list[dict[str, Any]]:
        from sqlalchemy import func, select

        from .store import SessionRow, UserRow

        now = self.now()
        live = (
            select(SessionRow.user_id, func.count().label("n"))
            .where(SessionRow.ended.is_(None), SessionRow.expires > now)
            .group_by(SessionRow.user_id).subquery()
        )
        query = (
            select(UserRow.id, UserRow.name, UserRow.created, UserRow.played, UserRow.won,
                   UserRow.banned, UserRow.ban_reason, func.coalesce(live.c.n, 0))
            .outerjoin(live, live.c.user_id == UserRow.id)
            .order_by(UserRow.id).limit(limit)
        )
        if banned:
            query = query.where(UserRow.banned.is_not(None))
        if name:
            query = query.where(UserRow.name_key.contains(name.casefold(), autoescape=True))
        with self.store.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [
            {"id": r[0], "name": r[1], "created": _aware(r[2]), "played": r[3], "won": r[4],
             "banned": None if r[5] is None else _aware(r[5]), "ban_reason": r[6],
             "sessions": int(r[7])}
            for r in rows
        ]

    def ban(self, name: str, reason: str | None) -> int:
        """Suspend an account and end its sessions; how many sessions ended."""
        from sqlalchemy import update

        from .store import UserRow

        why = clean_reason(reason, required=True)
        person = self.person(name)
        if person.banned is not None:
            raise AdminError(f"{person.name} is suspended already (since "
                             f"{_when(person.banned)}: {person.ban_reason})")
        at = self.now()
        with self.store.engine.begin() as connection:
            done = connection.execute(
                update(UserRow).where(UserRow.id == person.id, UserRow.banned.is_(None))
                .values(banned=at, ban_reason=why)
            )
            if done.rowcount != 1:
                raise AdminError(f"{person.name} was suspended meanwhile by someone else")
            ended = self._end_sessions(connection, person.id, at)
            self._audit(connection, "ban", person.name, why,
                        f"ended {ended} session{'s' * (ended != 1)}", at)
        return ended

    def unban(self, name: str, reason: str | None) -> None:
        from sqlalchemy import update

        from .store import UserRow

        why = clean_reason(reason, required=False)
        person = self.person(name)
        if person.banned is None:
            raise AdminError(f"{person.name} is not suspended")
        at = self.now()
        with self.store.engine.begin() as connection:
            done = connection.execute(
                update(UserRow).where(UserRow.id == person.id, UserRow.banned.is_not(None))
                .values(banned=None, ban_reason=None)
            )
            if done.rowcount != 1:
                raise AdminError(f"{person.name} was unbanned meanwhile by someone else")
            self._audit(connection, "unban", person.name, why,
                        f"had been suspended: {person.ban_reason}", at)

    def reset_password(self, name: str, hours: float, reason: str | None) -> tuple[str, datetime]:
        """A one-time reset code for the account, and when it expires; older codes are void."""
        from sqlalchemy import insert, update

        from .accounts import new_reset_code, reset_code_hash
        from .store import ResetCodeRow

        why = clean_reason(reason, required=False)
        if not 0 < hours <= 24 * 7:
            raise AdminError("--hours must be more than 0 and at most 168 (a week)")
        person = self.person(name)
        if person.banned is not None:
            raise AdminError(f"{person.name} is suspended ({person.ban_reason}); unban "
                             "them first")
        at = self.now()
        expires = at + timedelta(hours=hours)
        code = new_reset_code()
        with self.store.engine.begin() as connection:
            void = connection.execute(
                update(ResetCodeRow).where(ResetCodeRow.user_id == person.id,
                                           ResetCodeRow.used.is_(None)).values(used=at)
            )
            connection.execute(insert(ResetCodeRow).values(
                code_hash=reset_code_hash(code), user_id=person.id, created=at,
                expires=expires, used=None,
            ))
            voided = int(void.rowcount or 0)
            detail = f"valid until {_when(expires)}"
            if voided:
                detail += f"; voided {voided} older code{'s' * (voided != 1)}"
            self._audit(connection, "reset-password", person.name, why, detail, at)
        return code, expires

    def sessions(self, name: str) -> tuple[Person, list[dict[str, Any]]]:
        from sqlalchemy import select

        from .store import SessionRow

        person = self.person(name)
        now = self.now()
        with self.store.engine.connect() as connection:
            rows = connection.execute(
                select(SessionRow.id_hash, SessionRow.created, SessionRow.last_seen,
                       SessionRow.expires, SessionRow.agent)
                .where(SessionRow.user_id == person.id, SessionRow.ended.is_(None),
                       SessionRow.expires > now)
                .order_by(SessionRow.created)
            ).all()
        return person, [
            {"id": r[0][:8], "created": _aware(r[1]), "last_seen": _aware(r[2]),
             "expires": _aware(r[3]), "agent": r[4] or "-"}
            for r in rows
        ]

    def end_sessions(self, name: str, reason: str | None) -> int:
        why = clean_reason(reason, required=False)
        person = self.person(name)
        at = self.now()
        with self.store.engine.begin() as connection:
            ended = self._end_sessions(connection, person.id, at)
            if not ended:
                raise AdminError(f"{person.name} has no live session to end")
            self._audit(connection, "end-sessions", person.name, why,
                        f"ended {ended} session{'s' * (ended != 1)}", at)
        return ended

    # -- tables ---------------------------------------------------------------------------------

    def tables(self, limit: int = 100) -> list[dict[str, Any]]:
        """The tables in play or waiting for players, most recently moved first."""
        from sqlalchemy import select

        from .store import SeatRow, TableRow, UserRow

        with self.store.engine.connect() as connection:
            rows = connection.execute(
                select(TableRow.id, TableRow.kind, TableRow.status, TableRow.created,
                       TableRow.updated, TableRow.version)
                .where(TableRow.status.in_(LIVE_STATUSES))
                .order_by(TableRow.updated.desc()).limit(limit)
            ).all()
            ids = [r[0] for r in rows]
            seats: dict[str, list[tuple[int, str]]] = {}
            for chunk in (ids[i:i + 500] for i in range(0, len(ids), 500)):
                for table_id, seat, name in connection.execute(
                    select(SeatRow.table_id, SeatRow.seat, UserRow.name)
                    .join(UserRow, UserRow.id == SeatRow.user_id)
                    .where(SeatRow.table_id.in_(chunk))
                ).all():
                    seats.setdefault(table_id, []).append((seat, name))
        owners = self.owners(ids)
        return [
            {"id": r[0], "kind": r[1], "status": r[2], "created": _aware(r[3]),
             "updated": _aware(r[4]), "version": r[5],
             "seats": [f"{'NESW'[s]} {n}" for s, n in sorted(seats.get(r[0], []))],
             "owner": owners.get(r[0], "-")}
            for r in rows
        ]

    def owners(self, table_ids: Sequence[str]) -> dict[str, str]:
        """Which server connection holds each table's owner lock (PostgreSQL's advisory locks,
        see :mod:`.cluster`); nothing with SQLite, where the one process owns every table."""
        from sqlalchemy import text

        if not table_ids or self.store.engine.dialect.name != "postgresql":
            return {}
        from .cluster import table_key

        with self.store.engine.connect() as connection:
            held = connection.execute(text(
                "SELECT l.classid::bigint, l.objid::bigint, l.pid, host(a.client_addr),"
                " a.client_port, a.application_name FROM pg_locks l"
                " LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted"
            )).all()
        by_key: dict[int, str] = {}
        for high, low, pid, address, port, app in held:
            key = int.from_bytes(((int(high) << 32) | int(low)).to_bytes(8, "big"), "big",
                                 signed=True)
            # The process's own address and port as the server sees them (``ss -tnp`` on
            # that machine names the process), and the PostgreSQL backend serving it.
            where = f"{address or 'local'}:{port}" if port is not None else (address or "local")
            by_key[key] = f"{where} (pg pid {pid})" + (f" {app}" if app else "")
        out = {}
        for table_id in table_ids:
            owner = by_key.get(table_key(table_id))
            if owner is not None:
                out[table_id] = owner
        return out

    def close_table(self, table_id: str, reason: str | None) -> int:
        """Close a table in play: a ``close`` line at the next version, status ``closed``, the
        reason in its options.  The version it closed at."""
        from sqlalchemy import insert, select, update

        from .store import EntryRow, TableRow

        why = clean_reason(reason, required=True)
        for _ in range(10):
            with self.store.engine.connect() as connection:
                row = connection.execute(
                    select(TableRow.status, TableRow.version, TableRow.options)
                    .where(TableRow.id == table_id)
                ).first()
            if row is None:
                raise AdminError(f"no table has the id {table_id!r}")
            status, version, options = row
            if status == "closed":
                about = (options or {}).get("closed") or {}
                raise AdminError(f"table {table_id} is closed already: "
                                 f"{about.get('reason', 'no reason was given')}")
            if status not in LIVE_STATUSES:
                raise AdminError(f"table {table_id} is {status}: only a table being played or "
                                 "waiting for players can be closed")
            at = self.now()
            options = {**(options or {}), "closed": {
                "reason": why, "by": self.by, "at": at.isoformat(timespec="seconds")}}
            with self.store.engine.begin() as connection:
                # The same version check as every append: if a server stored a move since we
                # read the row, nothing is written and we read it again.
                moved = connection.execute(
                    update(TableRow).where(TableRow.id == table_id, TableRow.version == version)
                    .values(version=version + 1, updated=at, status="closed", options=options)
                )
                if moved.rowcount != 1:
                    continue
                connection.execute(insert(EntryRow).values(
                    table_id=table_id, version=version + 1, entry="close"))
                self._audit(connection, "close-table", table_id, why,
                            f"closed at version {version + 1} ({status})", at)
                return int(version) + 1
        raise AdminError(f"table {table_id} kept moving; try again")

    def audit(self, limit: int = 50) -> list[dict[str, Any]]:
        from sqlalchemy import select

        from .store import AuditRow

        with self.store.engine.connect() as connection:
            rows = connection.execute(
                select(AuditRow.at, AuditRow.actor, AuditRow.action, AuditRow.target,
                       AuditRow.reason, AuditRow.detail)
                .order_by(AuditRow.id.desc()).limit(limit)
            ).all()
        return [{"at": _aware(r[0]), "by": r[1], "action": r[2], "target": r[3],
                 "reason": r[4], "detail": r[5]} for r in rows]


# -- the command ------------------------------------------------------------------------------


_ACTIONS = (
    ("users", "list accounts (--banned: only the suspended ones)"),
    ("ban", "suspend an account and end its sessions (--reason required)"),
    ("unban", "lift an account's suspension"),
    ("reset-password", "print a one-time code with which a person sets a new password"),
    ("tables", "list the tables in play: seats, age and owner process"),
    ("close-table", "end a table; the people at it see the reason (--reason required)"),
    ("sessions", "list a person's live sessions (--end: end them all)"),
    ("audit", "list the administrative acts, newest first"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="admin_command", metavar="ACTION", required=True,
                                parser_class=type(parser))
    for name, text in _ACTIONS:
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--db", default=None, metavar="URL",
                       help="SQLAlchemy database URL (default: $VARAQ_DB or the user data dir)")
        p.add_argument("--by", default=None, metavar="NAME",
                       help="who is acting, for the audit (default: your operating-system user)")
        if name in ("ban", "unban", "reset-password", "sessions"):
            p.add_argument("name", metavar="NAME", help="the account's name")
        if name == "close-table":
            p.add_argument("table", metavar="ID", help="the table's id (ids may start with "
                           "'-': put such an id last, after --, as in close-table --reason WHY "
                           "-- -AbC...)")
        if name in ("ban", "close-table"):
            p.add_argument("--reason", required=True, help="why (shown to the people concerned)")
        elif name in ("unban", "reset-password", "sessions"):
            p.add_argument("--reason", default=None, help="why (kept in the audit)")
        if name in ("users", "tables", "audit"):
            p.add_argument("--limit", type=int, default=100 if name != "audit" else 50,
                           metavar="N", help="at most N lines")
        if name == "users":
            p.add_argument("--banned", action="store_true", help="only suspended accounts")
            p.add_argument("--name", default=None, metavar="TEXT",
                           help="only names containing TEXT")
        if name == "reset-password":
            p.add_argument("--hours", type=float, default=24.0,
                           help="hours the code works (default 24)")
        if name == "sessions":
            p.add_argument("--end", action="store_true", help="end every live session")


def run(args: argparse.Namespace) -> int:
    from .migrations import HEAD, current
    from .store import Store, default_db_url

    action = args.admin_command
    prog = f"varaq admin {action}"
    url = args.db or default_db_url()
    try:
        by = operator(args.by)
        if getattr(args, "limit", 1) < 1:
            raise AdminError("--limit must be at least 1")
        store = Store(url, migrate=False)
    except AdminError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a bad URL, an unreachable server
        print(f"{prog}: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 2
    try:
        revision = current(store.engine)
        if revision != HEAD:
            raise AdminError(f"the database is at revision {revision or 'none (empty)'}, not "
                             f"{HEAD}: run varaq db upgrade first")
        _ACT[action](Admin(store, by), args)
        return 0
    except AdminError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a locked file, a lost connection
        print(f"{prog}: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 2
    finally:
        store.close()


def _print_rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    for line in (header, *rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())


def _users(admin: Admin, args: argparse.Namespace) -> None:
    people = admin.users(banned=args.banned, name=args.name, limit=args.limit)
    if not people:
        print("no accounts" + (" suspended" if args.banned else ""))
        return
    _print_rows(("ID", "NAME", "CREATED", "PLAYED", "WON", "SESSIONS", "SUSPENDED"), [
        (str(p["id"]), p["name"], _when(p["created"]), str(p["played"]), str(p["won"]),
         str(p["sessions"]),
         "-" if p["banned"] is None else f"{_when(p['banned'])}: {p['ban_reason']}")
        for p in people
    ])


def _ban(admin: Admin, args: argparse.Namespace) -> None:
    ended = admin.ban(args.name, args.reason)
    print(f"suspended {admin.person(args.name).name}; ended {ended} "
          f"session{'s' * (ended != 1)} (open pages stop acting for them within seconds)")


def _unban(admin: Admin, args: argparse.Namespace) -> None:
    admin.unban(args.name, args.reason)
    print(f"lifted the suspension of {admin.person(args.name).name}")


def _reset(admin: Admin, args: argparse.Namespace) -> None:
    code, expires = admin.reset_password(args.name, args.hours, args.reason)
    name = admin.person(args.name).name
    print(f"one-time reset code for {name}, valid until {_when(expires)}:")
    print(f"  {code}")
    print('they choose a new password with it: POST /api/account/reset '
          '{"name", "code", "password"} (it works once; their sessions end)')


def _tables(admin: Admin, args: argparse.Namespace) -> None:
    now = admin.now()
    tables = admin.tables(args.limit)
    if not tables:
        print("no table is being played or waiting for players")
        return
    _print_rows(("ID", "KIND", "STATUS", "SEATS", "AGE", "LAST MOVE", "OWNER"), [
        (t["id"], t["kind"], t["status"], ", ".join(t["seats"]) or "-",
         _age(t["created"], now), f"{_age(t['updated'], now)} ago", t["owner"])
        for t in tables
    ])


def _close(admin: Admin, args: argparse.Namespace) -> None:
    version = admin.close_table(args.table, args.reason)
    print(f"closed table {args.table} at version {version}; the servers show the people at it "
          "the reason within a few seconds")


def _sessions(admin: Admin, args: argparse.Namespace) -> None:
    if args.end:
        ended = admin.end_sessions(args.name, args.reason)
        print(f"ended {ended} session{'s' * (ended != 1)} of {admin.person(args.name).name}")
        return
    person, rows = admin.sessions(args.name)
    if not rows:
        print(f"{person.name} has no live session")
        return
    now = admin.now()
    _print_rows(("SESSION", "SIGNED IN", "LAST USED", "EXPIRES", "BROWSER"), [
        (f"{r['id']}…", _when(r["created"]), f"{_age(r['last_seen'], now)} ago",
         _when(r["expires"]), r["agent"][:60])
        for r in rows
    ])


def _audit(admin: Admin, args: argparse.Namespace) -> None:
    rows = admin.audit(args.limit)
    if not rows:
        print("no administrative act so far")
        return
    _print_rows(("WHEN", "BY", "ACTION", "TARGET", "REASON", "DETAIL"), [
        (_when(r["at"]), r["by"], r["action"], r["target"], r["reason"] or "-",
         r["detail"] or "-")
        for r in rows
    ])


_ACT: dict[str, Callable[[Admin, argparse.Namespace], None]] = {
    "users": _users, "ban": _ban, "unban": _unban, "reset-password": _reset,
    "tables": _tables, "close-table": _close, "sessions": _sessions, "audit": _audit,
}
