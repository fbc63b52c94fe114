"""Storage: tables as a row plus appended entries, versions that two writers cannot both
extend, group commits, migrations (a 0.1.0 database included) and pruning."""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from varaq.service.migrations import HEAD, current
from varaq.service.store import (
    Append,
    Appender,
    StaleWrite,
    Store,
    StoreError,
    TableRow,
    default_db_url,
)


def new_table(store: Store, table_id: str = "table-0001", **fields: Any) -> None:
    values: dict[str, Any] = {
        "table_id": table_id, "kind": "solo", "level": "normal", "rules": "varaq", "seed": "7",
        "start": {"total": [0, 0], "bags": [0, 0], "dealer": None}, "options": {},
        "status": "playing", "entries": ["deal"],
    }
    values.update(fields)
    store.create_table(**values)


def test_create_append_and_load(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store)
    assert store.append_many([Append("table-0001", 1, ["E bid 3", "S bid 4"])]) == [None]
    got = store.load_table("table-0001")
    assert got is not None
    assert got.entries == ("deal", "E bid 3", "S bid 4") and got.version == 3
    assert (got.kind, got.level, got.rules, got.seed, got.status) == (
        "solo", "normal", "varaq", "7", "playing")
    assert got.created.tzinfo is not None
    assert store.load_table("no-such-table") is None
    assert store.count() == 1
    store.close()


def test_an_append_after_a_stale_version_changes_nothing(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store)
    assert store.append_many([Append("table-0001", 1, ["E bid 3"])]) == [None]
    # A second writer that read version 1 loses, and its line is not stored.
    [result] = store.append_many([Append("table-0001", 1, ["E bid 5"])])
    assert isinstance(result, StaleWrite)
    assert store.load_table("table-0001").entries == ("deal", "E bid 3")  # type: ignore[union-attr]


def test_one_refused_append_in_a_batch_leaves_the_others_stored(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store, "table-000a")
    new_table(store, "table-000b")
    results = store.append_many([
        Append("table-000a", 1, ["E bid 3"]),
        Append("table-000b", 7, ["E bid 3"]),  # stale
        Append("table-000b", 1, ["S bid 1"], status="over"),
    ])
    assert results[0] is None and isinstance(results[1], StaleWrite) and results[2] is None
    b = store.load_table("table-000b")
    assert b is not None and b.entries == ("deal", "S bid 1") and b.status == "over"


def test_rows_past_the_version_are_found_one_append_at_a_time(tmp_path: Path) -> None:
    """A corrupt table (an entry beyond its version) fails its own append, not the batch's."""
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store, "table-000a")
    new_table(store, "table-000b")
    with Session(store.engine) as session, session.begin():
        session.execute(update(TableRow).where(TableRow.id == "table-000b").values(version=0))
    results = store.append_many([
        Append("table-000a", 1, ["E bid 3"]), Append("table-000b", 0, ["deal"]),
    ])
    assert results[0] is None and isinstance(results[1], StaleWrite)


def test_the_appender_commits_waiting_appends_together(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    for i in range(20):
        new_table(store, f"table-{i:04d}")
    appender = Appender(store)
    gate = threading.Event()
    working = store.append_many

    def slow_first(appends: Any) -> Any:
        gate.wait(5)
        return working(appends)

    store.append_many = slow_first  # type: ignore[method-assign]
    futures = [appender.submit(Append(f"table-{i:04d}", 1, ["E bid 2"])) for i in range(20)]
    gate.set()
    assert [f.result(10) for f in futures] == [None] * 20
    assert appender.appends == 20 and appender.commits < 20
    appender.close()


def test_a_database_failure_fails_the_batch_with_a_one_line_reason(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store)
    appender = Appender(store)

    def broken(appends: Any) -> Any:
        raise OSError("disk full\nand more")

    store.append_many = broken  # type: ignore[method-assign]
    error = appender.submit(Append("table-0001", 1, ["E bid 2"])).exception(10)
    assert isinstance(error, StoreError) and str(error) == "OSError: disk full"
    appender.close()


def test_an_in_memory_database_is_shared_between_threads() -> None:
    store = Store("sqlite://")
    new_table(store)
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(store.count()))
    thread.start()
    thread.join()
    assert seen == [1]


def test_default_database_is_varaq_db_or_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("VARAQ_DB", "sqlite:///elsewhere.db")
    assert default_db_url() == "sqlite:///elsewhere.db"
    monkeypatch.delenv("VARAQ_DB")
    monkeypatch.setenv("VARAQ_HOME", str(tmp_path / "home"))
    assert default_db_url() == f"sqlite:///{tmp_path / 'home' / 'varaq.db'}"


def test_prune_removes_only_unfinished_tables_untouched_for_long(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    new_table(store, "table-old-playing")
    new_table(store, "table-old-over", status="over")
    new_table(store, "table-new-playing")
    old = datetime.now(UTC) - timedelta(days=40)
    with Session(store.engine) as session, session.begin():
        session.execute(update(TableRow).where(TableRow.id.like("table-old%")).values(updated=old))
    assert store.prune(timedelta(days=30)) == 1
    assert store.load_table("table-old-playing") is None
    assert store.load_table("table-old-over") is not None
    assert store.load_table("table-new-playing") is not None
    with sqlite3.connect(tmp_path / "g.db") as db:  # its entries went with it
        assert db.execute(
            "select count(*) from entries where table_id = 'table-old-playing'"
        ).fetchone() == (0,)


def test_a_new_database_is_migrated_to_the_newest_schema(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    assert current(store.engine) == HEAD
    Store(f"sqlite:///{tmp_path / 'g.db'}")  # opening again applies nothing and breaks nothing
    assert current(store.engine) == HEAD


def test_a_0_1_0_database_is_converted(tmp_path: Path) -> None:
    """Varaq 0.1.0 kept one ``games`` row per game with the whole journal in it."""
    path = tmp_path / "old.db"
    journal = {
        "format": "varaq-journal/1", "rules": "classic", "seed": 41,
        "start": {"total": {"NS": 0, "EW": 150}, "bags": {"NS": 2, "EW": 0}}, "dealer": "E",
        "entries": ["deal", "S blind nil", "W bid 3"],
    }
    with sqlite3.connect(path) as db:
        db.execute(
            "create table games (id varchar(64) primary key, created datetime, updated datetime,"
            " level varchar(16), rules json, seed bigint, journal json, record json,"
            " version integer, status varchar(16))"
        )
        db.execute(
            "insert into games values (?, ?, ?, 'hard', '\"classic\"', 41, ?, '{}', 3,"
            " 'playing')",
            ("old-game-0001", "2026-01-01 10:00:00", "2026-01-02 10:00:00", json.dumps(journal)),
        )
    store = Store(f"sqlite:///{path}")
    got = store.load_table("old-game-0001")
    assert got is not None
    assert got.entries == ("deal", "S blind nil", "W bid 3") and got.version == 3
    assert got.start == {"total": [0, 150], "bags": [2, 0], "dealer": 1}
    assert (got.kind, got.level, got.seed, got.rules) == ("solo", "hard", "41", "classic")
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
    assert "games" not in tables


# -- sessions ------------------------------------------------------------------------------


def _session_tables(path: Path) -> tuple[set[str], set[str], set[str]]:
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
        columns = {r[1] for r in db.execute("pragma table_info(sessions)")}
        indexes = {r[1] for r in db.execute("pragma index_list(sessions)")}
    return tables, columns, indexes


def test_the_sessions_migration_runs_on_sqlite_over_a_database_with_people(
    tmp_path: Path,
) -> None:
    """A database made before sessions were rows (revision 0003, one person in it) gains the
    table when the store opens; the person is still there and can have sessions."""
    from varaq.service.migrations import upgrade
    from varaq.service.store import make_engine

    path = tmp_path / "g.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine, "0003")
    engine.dispose()
    assert "sessions" not in _session_tables(path)[0]
    with sqlite3.connect(path) as db:
        db.execute("insert into users (name, name_key, password, created, played, won)"
                   " values ('Ana', 'ana', 'x', '2026-01-01 00:00:00', 0, 0)")
    store = Store(f"sqlite:///{path}")
    assert current(store.engine) == HEAD
    tables, columns, indexes = _session_tables(path)
    assert "sessions" in tables
    assert columns == {"id_hash", "user_id", "created", "last_seen", "expires", "ended", "agent"}
    assert {"ix_sessions_user_id", "ix_sessions_expires"} <= indexes
    user = store.user_by_key("ana")
    assert user is not None
    now = datetime.now(UTC)
    store.create_session("a" * 64, user.id, now=now, expires=now + timedelta(hours=1))
    live = store.live_session("a" * 64, now)
    assert live is not None and live.user_id == user.id and live.expires > now
    store.close()


def test_the_admin_migration_keeps_people_and_adds_bans_codes_and_the_audit(
    tmp_path: Path,
) -> None:
    """Revision 0005 over a 0004 database with a person in it: the person stays, not
    suspended; ``reset_codes`` and ``audit`` exist; and it goes back down cleanly."""
    from varaq.service.migrations import upgrade
    from varaq.service.store import make_engine

    path = tmp_path / "g.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine, "0004")
    with sqlite3.connect(path) as db:
        db.execute("insert into users (name, name_key, password, created, played, won)"
                   " values ('Ana', 'ana', 'x', '2026-01-01 00:00:00', 3, 1)")
    assert upgrade(engine) == "0004"
    assert current(engine) == HEAD and HEAD >= "0005"  # later revisions follow it
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
        users = db.execute("select name, played, banned, ban_reason from users").fetchall()
    assert {"reset_codes", "audit"} <= tables
    assert users == [("Ana", 3, None, None)]
    from alembic import command

    from varaq.service.migrations import _config

    with engine.begin() as connection:
        command.downgrade(_config(connection), "0004")  # type: ignore[arg-type]
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
        columns = {r[1] for r in db.execute("pragma table_info(users)")}
    assert not {"reset_codes", "audit"} & tables and "banned" not in columns
    engine.dispose()


def test_sessions_end_expire_and_are_pruned(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    ana, bo = (store.create_user(n, n.lower(), "x") for n in ("Ana", "Bo"))
    now = datetime.now(UTC)
    hour = timedelta(hours=1)
    for id_hash, user, expires in (("1" * 64, ana, now + hour), ("2" * 64, ana, now + hour),
                                   ("3" * 64, bo, now + hour), ("4" * 64, bo, now - hour)):
        store.create_session(id_hash, user, now=now - 2 * hour, expires=expires)
    assert store.live_session("4" * 64, now) is None  # expired
    assert store.end_session("1" * 64, now) == ana
    assert store.end_session("1" * 64, now) is None  # already ended
    assert store.live_session("1" * 64, now) is None
    # A sign-in in the same browser replaces the session it had.
    store.create_session("5" * 64, bo, now=now, expires=now + hour, replaces="3" * 64,
                         agent="x" * 500)
    assert store.live_session("3" * 64, now) is None
    store.touch_session("5" * 64, now + hour / 2, now + 2 * hour)
    live = store.live_session("5" * 64, now + hour + hour / 2)
    assert live is not None and live.last_seen == now + hour / 2
    assert store.end_sessions_of(ana, now) == 1  # "2"; "1" had ended already
    assert store.live_session("2" * 64, now) is None
    assert store.prune_sessions(now) == 4  # 1, 2, 3 ended; 4 expired
    assert store.prune_sessions(now) == 0
    with sqlite3.connect(tmp_path / "g.db") as db:
        assert db.execute("select id_hash, length(agent) from sessions").fetchall() == [
            ("5" * 64, 120)]
    store.close()


def test_db_prune_also_removes_ended_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from varaq.cli import main

    url = f"sqlite:///{tmp_path / 'g.db'}"
    store = Store(url)
    user = store.create_user("Cai", "cai", "x")
    now = datetime.now(UTC)
    for digit in "123":
        store.create_session(digit * 64, user, now=now, expires=now + timedelta(days=1))
    store.end_session("1" * 64, now)
    store.end_session("2" * 64, now)
    store.close()
    assert main(["db", "prune", "--older-than", "7", "--db", url]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "removed 0 unfinished tables untouched for 7 days",
        "removed 2 signed-out or expired sessions",
    ]
    assert Store(url).live_session("3" * 64, now) is not None
