"""``varaq admin``: suspending accounts, reset codes, sessions, live tables, closing a table, and
the audit log — each run as the command an operator types, against the database of a running
app, and each bad input refused in one line with the database left exactly as it was."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, receive_within, sign_up, wait_until
from servers import fresh_database, missing_servers, postgres_server
from varaq import cli
from varaq.service.accounts import Suspended
from varaq.service.admin import Admin
from varaq.service.quickmatch import Chair, QuickMatch
from varaq.service.settings import Limits
from varaq.service.store import Store
from web_helpers import db_url, make_app, run_async

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TestClient]:
    """Computer players that never move during a test, and sessions read afresh at every
    request (so what the command did shows at once; the usual 2 s cache is for speed)."""
    with TestClient(make_app(tmp_path, pace=1000.0, session_cache_seconds=0.0)) as client:
        yield client


def admin(tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str,
          by: str | None = "ops") -> tuple[int, str, str]:
    """Run ``varaq admin WORDS`` on the app's database: exit status, output, errors."""
    capsys.readouterr()
    extra = ["--db", db_url(tmp_path)] + (["--by", by] if by is not None else [])
    # The options go first: a table id may start with "-", so it comes after "--".
    status = cli.main(["admin", words[0], *extra, *words[1:]])
    out, err = capsys.readouterr()
    return status, out, err


def snapshot(tmp_path: Path) -> list[str]:
    """Every row of the database, as SQL: what a refused command must leave alone."""
    with sqlite3.connect(tmp_path / "games.db") as db:
        lines = list(db.iterdump())
    db.close()
    return lines


def audit_rows(tmp_path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(tmp_path / "games.db") as db:
        rows = db.execute("select actor, action, target, reason, detail from audit"
                          " order by id").fetchall()
    db.close()
    return rows


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """Run a command that must be refused: exit 2, one line, nothing changed; the line."""
    before = snapshot(tmp_path)
    status, out, err = admin(tmp_path, capsys, *words)
    assert status == 2, (out, err)
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert snapshot(tmp_path) == before
    return err.strip()


def open_private(host: Person, guest: Person) -> str:
    doc = host.ok("/api/tables", {"level": "easy", "fill_bots": True, "rules": "varaq"},
                  status=201)
    guest.ok("/api/tables/join", {"code": doc["code"]})
    table_id: str = doc["id"]
    return table_id


# -- suspending an account ----------------------------------------------------------------------


def test_a_ban_ends_every_session_and_blocks_signing_in(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana = sign_up(app, "Ana")
    second = app.post("/api/account/signin", json={"name": "Ana", "password": "correct horse"})
    phone = Person(app, "Ana", second.cookies["varaq_session"], ana.id)
    assert ana.get("/api/account").json()["signed_in"]
    status, out, err = admin(tmp_path, capsys, "ban", "ana", "--reason", "abusive chat")
    assert status == 0, err
    assert out.startswith("suspended Ana; ended 2 sessions")
    for person in (ana, phone):
        assert person.get("/api/account").json() == {"signed_in": False}
    app.cookies.clear()
    again = app.post("/api/account/signin", json={"name": "Ana", "password": "correct horse"})
    assert again.status_code == 403
    assert again.json()["error"] == "this account is suspended: abusive chat"
    # A wrong password says nothing of the suspension.
    wrong = app.post("/api/account/signin", json={"name": "Ana", "password": "not her password"})
    assert wrong.status_code == 401 and "suspended" not in wrong.text
    assert audit_rows(tmp_path) == [("ops", "ban", "Ana", "abusive chat", "ended 2 sessions")]
    # Lifted: she signs in again.
    status, out, _ = admin(tmp_path, capsys, "unban", "Ana", "--reason", "appeal heard")
    assert status == 0 and out.strip() == "lifted the suspension of Ana"
    app.cookies.clear()
    back = app.post("/api/account/signin", json={"name": "Ana", "password": "correct horse"})
    assert back.status_code == 200, back.text
    assert audit_rows(tmp_path)[-1] == ("ops", "unban", "Ana", "appeal heard",
                                        "had been suspended: abusive chat")


def test_a_suspended_persons_open_socket_stops_acting_for_them(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana, bo = sign_up(app, "Ana"), sign_up(app, "Bo")
    table = open_private(ana, bo)
    ana.ok(f"/api/games/{table}/start")
    with ana.socket(table) as ws:
        ws.send_json({"type": "hello", "version": 0})
        first = receive_within(ws)
        assert first["type"] == "state" and first["you"] == "S"
        assert admin(tmp_path, capsys, "ban", "Ana", "--reason", "spam")[0] == 0
        ws.send_json({"type": "action", "action": "bid 3"})
        seen: list[dict[str, Any]] = []

        def answered() -> bool:
            seen.append(receive_within(ws))
            return seen[-1].get("type") == "error"

        wait_until(answered, "the socket's action is refused")
        assert seen[-1]["status"] == 403
        assert seen[-1]["error"] == "you do not have a seat at this table"
        # What it is sent now is a watcher's: no hand.
        states = [m for m in seen if m.get("type") == "state"]
        assert states and states[-1]["you"] is None and states[-1]["view"]["hand"] == []


def test_a_suspended_person_cannot_open_join_or_queue_even_with_a_live_session(
    app: TestClient, tmp_path: Path,
) -> None:
    """The refusals themselves, whatever the sessions: a session that outlived the ban (one
    made in the instant the ban was written) still cannot open, join or queue."""
    ana, bo = sign_up(app, "Ana"), sign_up(app, "Bo")
    doc = bo.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    store = Store(db_url(tmp_path), migrate=False)
    with store.engine.begin() as connection:
        connection.exec_driver_sql(
            "update users set banned = '2026-01-01 00:00:00', ban_reason = 'cheating'"
            f" where id = {ana.id}")
    store.close()
    words = "this account is suspended: cheating"
    for path, body in (("/api/tables/join", {"code": doc["code"]}),
                       ("/api/tables", {"level": "easy"}),
                       ("/api/quick/join", {"bots_after": None})):
        response = ana.post(path, body)
        assert response.status_code == 403, (path, response.text)
        assert response.json()["error"] == words
    assert ana.get("/api/quick").json()["state"] == "idle"
    assert [s["kind"] for s in bo.state(doc["id"])["seats"]].count("person") == 1


def test_someone_suspended_while_waiting_in_the_queue_is_dropped_and_the_rest_sit_down(
) -> None:
    made: list[list[int]] = []

    async def seat(chairs: list[Chair | None]) -> Any:
        ids = sorted(c.user_id for c in chairs if c is not None)
        if 2 in ids:
            raise Suspended("suspended while waiting", (2,))
        made.append(ids)
        return type("T", (), {"id": f"t{len(made)}"})()

    async def go() -> None:
        q = QuickMatch(seat)
        q._ensure_running = lambda: None  # type: ignore[method-assign]
        for uid in range(1, 6):
            await q.join(uid, f"p{uid}", None)
        await q.tick()  # 1-4 make a group; 2 is suspended: 1, 3, 4 go back to the front
        assert made == [] and [w.user_id for w in q.queue] == [1, 3, 4, 5]
        await q.tick()
        assert made == [[1, 3, 4, 5]]
        assert (await q.status(2))["state"] == "idle"

    run_async(go())


# -- reset codes --------------------------------------------------------------------------------


def _code(out: str) -> str:
    return out.splitlines()[1].strip()


def test_a_reset_code_sets_a_new_password_once_and_ends_the_sessions(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana = sign_up(app, "Ana")
    status, out, err = admin(tmp_path, capsys, "reset-password", "Ana", "--reason", "lost it")
    assert status == 0, err
    assert out.startswith("one-time reset code for Ana, valid until ")
    code = _code(out)
    assert len(code) == 19 and code.count("-") == 3
    with sqlite3.connect(tmp_path / "games.db") as db:  # only a hash is stored
        stored = db.execute("select code_hash from reset_codes").fetchall()
    db.close()
    assert len(stored) == 1 and code not in stored[0][0] and code.replace("-", "") not in str(
        stored)
    app.cookies.clear()
    reset = {"name": "ana", "code": code.lower(), "password": "a brand new one"}
    done = app.post("/api/account/reset", json=reset)
    assert done.status_code == 200 and done.json() == {"reset": True}, done.text
    assert ana.get("/api/account").json() == {"signed_in": False}
    app.cookies.clear()
    assert app.post("/api/account/signin", json={
        "name": "Ana", "password": "correct horse"}).status_code == 401
    assert app.post("/api/account/signin", json={
        "name": "Ana", "password": "a brand new one"}).status_code == 200
    # Once only.
    app.cookies.clear()
    twice = app.post("/api/account/reset", json={**reset, "password": "yet another one"})
    assert twice.status_code == 401
    assert twice.json()["error"] == "that name and reset code do not match; ask for a new code"
    actions = [r[1:4] for r in audit_rows(tmp_path)]
    assert actions == [("reset-password", "Ana", "lost it")]


def test_a_reset_code_expires_and_a_newer_code_voids_the_older(
    app: TestClient, tmp_path: Path,
) -> None:
    sign_up(app, "Ana")
    store = Store(db_url(tmp_path), migrate=False)
    long_ago = datetime.now(UTC) - timedelta(hours=25)
    old, _ = Admin(store, "ops", now=lambda: long_ago).reset_password("Ana", 24, None)
    app.cookies.clear()
    body = {"name": "Ana", "code": old, "password": "a brand new one"}
    assert app.post("/api/account/reset", json=body).status_code == 401  # expired
    first, _ = Admin(store, "ops").reset_password("Ana", 24, None)
    second, _ = Admin(store, "ops").reset_password("Ana", 24, None)
    store.close()
    assert app.post("/api/account/reset", json={**body, "code": first}).status_code == 401
    assert app.post("/api/account/reset", json={**body, "code": second}).status_code == 200


def test_reset_attempts_are_limited_like_sign_ins(tmp_path: Path) -> None:
    settings = {"limits": Limits(), "session_cache_seconds": 0.0}
    with TestClient(make_app(tmp_path, pace=1000.0, **settings)) as client:
        sign_up(client, "Ana")
        statuses = []
        for i in range(12):
            client.cookies.clear()
            statuses.append(client.post("/api/account/reset", json={
                "name": "Ana", "code": f"WRONG-CODE-{i:04d}", "password": "a brand new one",
            }).status_code)
    assert statuses[0] == 401 and statuses[-1] == 429, statuses


# -- sessions and users -------------------------------------------------------------------------


def test_sessions_are_listed_and_ended(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana = sign_up(app, "Ana")
    status, out, _ = admin(tmp_path, capsys, "sessions", "Ana")
    assert status == 0 and out.startswith("SESSION") and len(out.splitlines()) == 2
    status, out, _ = admin(tmp_path, capsys, "sessions", "Ana", "--end", "--reason", "stolen")
    assert status == 0 and out.strip() == "ended 1 session of Ana"
    assert ana.get("/api/account").json() == {"signed_in": False}
    status, out, _ = admin(tmp_path, capsys, "sessions", "Ana")
    assert out.strip() == "Ana has no live session"
    assert audit_rows(tmp_path) == [("ops", "end-sessions", "Ana", "stolen", "ended 1 session")]


def test_users_lists_people_with_their_sessions_and_suspensions(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    sign_up(app, "Ana")
    sign_up(app, "Bo")
    admin(tmp_path, capsys, "ban", "Bo", "--reason", "spam")
    status, out, _ = admin(tmp_path, capsys, "users")
    lines = out.splitlines()
    assert status == 0 and lines[0].split()[:3] == ["ID", "NAME", "CREATED"]
    assert "Ana" in lines[1] and lines[1].endswith("-") and "spam" in lines[2]
    status, out, _ = admin(tmp_path, capsys, "users", "--banned")
    assert [line.split()[1] for line in out.splitlines()[1:]] == ["Bo"]


def test_the_operator_is_the_os_user_unless_named(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sign_up(app, "Ana")
    monkeypatch.setattr("getpass.getuser", lambda: "night-shift")
    status, _, err = admin(tmp_path, capsys, "ban", "Ana", "--reason", "spam", by=None)
    assert status == 0, err
    assert audit_rows(tmp_path)[0][:2] == ("night-shift", "ban")
    status, out, _ = admin(tmp_path, capsys, "audit")
    assert status == 0 and "night-shift" in out.splitlines()[1]


# -- bad input: one line, nothing changed -------------------------------------------------------


def test_bad_input_is_one_line_and_changes_nothing(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana, bo = sign_up(app, "Ana"), sign_up(app, "Bo")
    table = open_private(ana, bo)
    solo = app.post("/api/games", json={"level": "easy"}).json()["id"]
    admin(tmp_path, capsys, "ban", "Bo", "--reason", "spam")
    admin(tmp_path, capsys, "close-table", "--reason", "stuck", "--", solo)
    over = app.post("/api/games", json={"level": "easy"}).json()["id"]
    app.cookies.clear()
    assert app.post(f"/api/games/{over}/concede").status_code == 200

    cases = {
        ("ban", "Nobody", "--reason", "x"): "varaq admin ban: no account is named 'Nobody'",
        ("ban", "!!", "--reason", "x"): "varaq admin ban: no account is named '!!'",
        ("ban", "Bo", "--reason", "again"): "varaq admin ban: Bo is suspended already",
        ("ban", "Ana", "--reason", "   "): "varaq admin ban: the reason is empty",
        ("ban", "Ana", "--reason", "x" * 201): "varaq admin ban: the reason is 201 characters",
        ("unban", "Ana"): "varaq admin unban: Ana is not suspended",
        ("unban", "Nobody"): "varaq admin unban: no account is named 'Nobody'",
        ("reset-password", "Nobody"): "varaq admin reset-password: no account is named",
        ("reset-password", "Bo"): "varaq admin reset-password: Bo is suspended (spam)",
        ("reset-password", "Ana", "--hours", "0"): "varaq admin reset-password: --hours must",
        ("sessions", "Nobody"): "varaq admin sessions: no account is named 'Nobody'",
        ("sessions", "Bo", "--end"): "varaq admin sessions: Bo has no live session to end",
        ("close-table", "--reason", "x", "--", "no-such-table"):
            "varaq admin close-table: no table has the id 'no-such-table'",
        ("close-table", "--reason", "x", "--", solo):
            f"varaq admin close-table: table {solo} is closed already: stuck",
        ("close-table", "--reason", "x", "--", over):
            f"varaq admin close-table: table {over} is over: only a table being played",
        ("close-table", "--reason", "", "--", table):
            "varaq admin close-table: the reason is empty",
        ("users", "--limit", "0"): "varaq admin users: --limit must be at least 1",
    }
    for words, start in cases.items():
        line = refused(tmp_path, capsys, *words)
        assert line.startswith(start), (words, line)
    # A missing --reason is argparse's refusal, in one line too.
    with pytest.raises(SystemExit) as stopped:
        admin(tmp_path, capsys, "ban", "Ana")
    assert stopped.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert [r[1] for r in audit_rows(tmp_path)] == ["ban", "close-table"]


def test_an_old_database_is_refused_until_upgraded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from varaq.service.migrations import HEAD, upgrade
    from varaq.service.store import make_engine

    engine = make_engine(db_url(tmp_path))
    upgrade(engine, "0004")
    engine.dispose()
    line = refused(tmp_path, capsys, "users")
    assert line == (f"varaq admin users: the database is at revision 0004, not {HEAD}: run "
                    "varaq db upgrade first")


# -- tables -------------------------------------------------------------------------------------


def test_tables_lists_live_tables_with_their_seats_age_and_owner(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana, bo = sign_up(app, "Ana"), sign_up(app, "Bo")
    table = open_private(ana, bo)
    solo = app.post("/api/games", json={"level": "easy"}).json()["id"]
    status, out, _ = admin(tmp_path, capsys, "tables")
    assert status == 0
    header, *rows = out.splitlines()
    assert header.split() == ["ID", "KIND", "STATUS", "SEATS", "AGE", "LAST", "MOVE", "OWNER"]
    by_id = {row.split()[0]: row for row in rows}
    assert set(by_id) == {table, solo}
    assert "private  seating  N Bo, S Ana" in by_id[table]
    assert by_id[table].split()[-1] == "-"  # SQLite: one process, no owner locks to read
    assert "solo" in by_id[solo] and "playing" in by_id[solo]


def test_closing_a_table_shows_the_reason_to_the_people_at_it(
    app: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    ana, bo = sign_up(app, "Ana"), sign_up(app, "Bo")
    table = open_private(ana, bo)
    ana.ok(f"/api/games/{table}/start")
    version = ana.state(table)["version"]
    with bo.socket(table) as ws:
        ws.send_json({"type": "hello", "version": version})
        assert receive_within(ws)["type"] == "state"
        status, out, err = admin(tmp_path, capsys, "close-table", "--reason",
                                 "reported for collusion", "--", table)
        assert status == 0, err
        assert out.startswith(f"closed table {table} at version {version + 1}")
        seen: list[dict[str, Any]] = []

        def told() -> bool:
            message = receive_within(ws)
            seen.append(message)
            return message.get("type") == "table" and message.get("status") == "closed"

        wait_until(told, "the socket hears the table closed")
        closing = [m for m in seen if m.get("type") == "event"]
        assert closing and closing[-1]["event"]["kind"] == "close"
        assert closing[-1]["version"] == version + 1
        assert seen[-1]["table"]["closed"] == {"reason": "reported for collusion"}
    state = ana.state(table)
    assert state["status"] == "closed" and state["version"] == version + 1
    assert state["table"]["closed"] == {"reason": "reported for collusion"}
    for path, body in ((f"/api/games/{table}/actions", {"action": "bid 3"}),
                       (f"/api/games/{table}/concede", {}),
                       (f"/api/games/{table}/phrase", {"phrase": "gg"})):
        refusal = ana.post(path, body)
        assert refusal.status_code == 409, refusal.text
        assert refusal.json()["error"] == ("this table was closed by an administrator: "
                                           "reported for collusion")
    assert ana.state(table)["version"] == version + 1
    rows = audit_rows(tmp_path)
    assert rows == [("ops", "close-table", table, "reported for collusion",
                     f"closed at version {version + 1} (playing)")]


def test_an_id_that_starts_with_a_dash_is_closed_after_double_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Table ids are random URL-safe text, so one in 64 starts with "-" (as an option does)."""
    store = Store(db_url(tmp_path))
    store.create_table(table_id="-dash-table-01", kind="solo", level="easy", rules="varaq",
                       seed="7", start={"total": [0, 0], "bags": [0, 0], "dealer": None},
                       options={}, status="playing", entries=["deal"])
    store.close()
    status, out, err = admin(tmp_path, capsys, "close-table", "--reason", "stuck", "--",
                             "-dash-table-01")
    assert status == 0 and out.startswith("closed table -dash-table-01 at version 2"), err


def test_a_closed_table_stays_closed_after_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    with TestClient(make_app(tmp_path, pace=1000.0)) as client:
        solo = client.post("/api/games", json={"level": "easy"}).json()["id"]
    status, _, err = admin(tmp_path, capsys, "close-table", "--reason", "stuck deal", "--", solo)
    assert status == 0, err
    with TestClient(make_app(tmp_path, pace=1000.0)) as client:
        state = client.get(f"/api/games/{solo}").json()
        assert state["status"] == "closed"
        assert state["table"]["closed"] == {"reason": "stuck deal"}
        refusal = client.post(f"/api/games/{solo}/actions", json={"action": "bid 3"})
        assert refusal.status_code == 409
        assert refusal.json()["error"].endswith(": stuck deal")
    status, out, _ = admin(tmp_path, capsys, "tables")
    assert out.strip() == "no table is being played or waiting for players"
    # Pruning abandoned tables keeps it: the record of why it was closed stays.
    assert cli.main(["db", "prune", "--older-than", "0", "--db", db_url(tmp_path)]) == 0
    assert "removed 0 unfinished tables" in capsys.readouterr().out


@pytest.mark.skipif(bool(missing_servers()), reason="needs PostgreSQL: " +
                    ", ".join(missing_servers()))
def test_with_postgresql_tables_name_the_connection_holding_each_owner_lock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In a cluster a table's owner holds its advisory lock (:mod:`varaq.service.cluster`):
    ``tables`` finds the lock in ``pg_locks`` and names the connection that holds it."""
    import psycopg

    from varaq.service.cluster import _conninfo, table_key

    with postgres_server() as server:
        url = fresh_database(server, "admin_tables")
        store = Store(url)
        for table_id in ("owned-table-1", "loose-table-2"):
            store.create_table(
                table_id=table_id, kind="solo", level="easy", rules="varaq", seed="7",
                start={"total": [0, 0], "bags": [0, 0], "dealer": None}, options={},
                status="playing", entries=["deal"])
        store.close()
        with psycopg.connect(_conninfo(url), autocommit=True) as owner:
            owner.execute("SELECT pg_advisory_lock(%s)", (table_key("owned-table-1"),))
            pid = owner.info.backend_pid
            capsys.readouterr()
            assert cli.main(["admin", "tables", "--db", url, "--by", "ops"]) == 0
            out = capsys.readouterr().out
        # Closing works the same on PostgreSQL: the line, the status, the reason, the audit.
        assert cli.main(["admin", "close-table", "loose-table-2", "--reason", "test",
                         "--db", url, "--by", "ops"]) == 0
        store = Store(url)
        closed = store.load_table("loose-table-2")
        store.close()
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert f"pid {pid}" in rows["owned-table-1"]
    assert rows["loose-table-2"].split()[-1] == "-"
    assert closed is not None and closed.entries == ("deal", "close")
    assert closed.status == "closed" and closed.options["closed"]["reason"] == "test"


@pytest.mark.skipif(bool(missing_servers()), reason="needs PostgreSQL and Redis: " +
                    ", ".join(missing_servers()))
@pytest.mark.xdist_group("cluster")
@pytest.mark.timeout(300)
def test_in_a_cluster_both_processes_show_the_close_and_refuse_after_a_restart() -> None:
    """Two ``varaq serve`` processes on PostgreSQL and Redis, Ana's socket on the table's owner
    and Bo's on the other: both hear the close; every request is refused with the reason on
    both, also once both restarted (when nobody owns the closed table any more)."""
    import contextlib
    import json

    import httpx2
    from websockets.sync.client import connect

    from servers import RedisServer
    from test_cluster import Node

    redis = RedisServer()
    redis.start()
    try:
        with postgres_server() as server:
            url = fresh_database(server, "admin_cluster")
            a, b = Node(url, redis.url), Node(url, redis.url)
            a.start()
            b.start()
            try:
                cookies = {}
                for node, name in ((a, "Ana"), (b, "Bo")):
                    made = httpx2.post(f"{node.base}/api/account/signup",
                                      json={"name": name, "password": "correct horse"})
                    assert made.status_code == 201, made.text
                    cookies[name] = {"Cookie": f"varaq_session={made.cookies['varaq_session']}"}
                doc = httpx2.post(f"{a.base}/api/tables", json={"level": "easy", "fill_bots": True},
                                 headers=cookies["Ana"]).json()
                table = doc["id"]
                assert httpx2.post(f"{b.base}/api/tables/join", json={"code": doc["code"]},
                                  headers=cookies["Bo"]).status_code == 200
                assert httpx2.post(f"{a.base}/api/games/{table}/start",
                                  headers=cookies["Ana"]).status_code == 200
                with contextlib.ExitStack() as open_sockets:
                    sockets = []
                    for node, name in ((a, "Ana"), (b, "Bo")):
                        ws = open_sockets.enter_context(connect(
                            node.base.replace("http", "ws") + f"/ws/games/{table}",
                            additional_headers=cookies[name], open_timeout=30))
                        ws.send(json.dumps({"type": "hello", "version": 0}))
                        assert json.loads(ws.recv(timeout=60))["type"] == "state"
                        sockets.append(ws)
                    assert cli.main(["admin", "close-table", "--reason", "cluster test",
                                     "--db", url, "--by", "ops", "--", table]) == 0
                    heard = [_closing(ws) for ws in sockets]
                assert heard == [{"reason": "cluster test"}] * 2
                for _ in range(2):
                    for node, name in ((a, "Ana"), (b, "Bo")):
                        refusal = httpx2.post(f"{node.base}/api/games/{table}/actions",
                                             json={"action": "bid 3"}, headers=cookies[name],
                                             timeout=30)
                        assert refusal.status_code == 409, refusal.text
                        assert refusal.json()["error"].endswith(": cluster test")
                    for node in (a, b):
                        node.stop()
                        node.start()
            finally:
                a.stop()
                b.stop()
    finally:
        redis.stop()


def _closing(ws: Any) -> Any:
    """The reason in the first ``table`` message saying the table is closed."""
    import json

    for _ in range(200):
        message = json.loads(ws.recv(timeout=60))
        if message.get("type") == "table" and message.get("status") == "closed":
            return message["table"]["closed"]
    raise AssertionError("the socket never heard the table close")
