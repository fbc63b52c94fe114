"""``varaq db backup`` and ``varaq db restore``: a backup taken while a match is being played
restores into a new database where the match goes on from the same version with the same
cards; restores go only into empty databases; every refusal is one line and writes nothing."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import wait_until
from servers import fresh_database, missing_servers, postgres_server
from varaq import cli
from web_helpers import db_url, make_app, new_game, play_hand, south_choice, state, wait_for_south

pytestmark = pytest.mark.timeout(180)


def db(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli.main(["db", *words])
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    status, out, err = db(capsys, *words)
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    return err.strip()


def folder(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    return path


def south_moves(client: TestClient, game_id: str, count: int) -> dict[str, Any]:
    """South makes ``count`` moves (the computer players answer at once); the state after,
    once South is to move again."""
    for _ in range(count):
        st = wait_for_south(client, game_id)
        response = client.post(f"/api/games/{game_id}/actions", json={
            "action": south_choice(st["view"]), "version": st["version"]})
        assert response.status_code == 200, response.text
    return wait_for_south(client, game_id)


def test_a_backup_taken_mid_match_plays_on_from_the_same_version_and_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    live, restored = folder(tmp_path, "live"), folder(tmp_path, "restored")
    backup = tmp_path / "mid-match.db"
    with TestClient(make_app(live)) as client:
        game_id = new_game(client, seed=11)["id"]
        before = south_moves(client, game_id, 3)  # the bid and two cards: mid-hand
        assert before["view"]["phase"] == "play"
        # Taken while the server runs (its database open, its log not yet checkpointed).
        status, out, err = db(capsys, "backup", str(backup), "--db", db_url(live))
        assert status == 0, err
        assert out.startswith(f"backed up {live / 'games.db'} to {backup} (revision ")
        assert "1 table, 0 people" in out
        # The live match goes on after the backup; the copy keeps the moment it was taken.
        after_live = play_hand(client, game_id)
    assert not Path(f"{backup}-wal").exists()
    status, out, err = db(capsys, "restore", str(backup), "--db", db_url(restored))
    assert status == 0, err
    assert out.startswith(f"restored {backup} into {restored / 'games.db'}: revision ")
    with TestClient(make_app(restored)) as client:
        again = state(client, game_id)
        assert again["version"] == before["version"]
        assert again["view"]["hand"] == before["view"]["hand"]
        assert again["view"]["legal"] == before["view"]["legal"]
        assert again["view"]["trick"] == before["view"]["trick"]
        # It plays on: the same choices from there make the same hand (the deals come from
        # the stored seed, the computer players' choices from the seed and the version).
        after_restored = play_hand(client, game_id)
    assert after_restored["version"] > before["version"]
    assert after_restored["view"]["history"] == after_live["view"]["history"]


def test_backups_taken_while_moves_are_being_stored_are_each_one_consistent_moment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A writer stores moves without pause (the server's own append path) while backups are
    taken: in every copy each table's version is exactly its number of entries — never a row
    updated without its lines, or lines without the row."""
    from varaq.service.store import Append, Store

    url = f"sqlite:///{tmp_path / 'live.db'}"
    store = Store(url)
    ids = [f"table-{i:04d}" for i in range(4)]
    for table_id in ids:
        store.create_table(table_id=table_id, kind="solo", level="easy", rules="varaq",
                           seed="7", start={"total": [0, 0], "bags": [0, 0], "dealer": None},
                           options={}, status="playing", entries=["deal"])
    stop = threading.Event()
    stored = [0]

    def write() -> None:
        versions = dict.fromkeys(ids, 1)
        while not stop.is_set():
            appends = [Append(t, versions[t], ["N bid 3", "E bid 4"]) for t in ids]
            assert store.append_many(appends) == [None] * len(ids)
            for t in ids:
                versions[t] += 2
            stored[0] += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        copies = []
        mark = 0
        for n in range(4):
            # At least one more batch since the last copy was finished.
            wait_until(lambda mark=mark: stored[0] > mark, "the writer stores moves")
            copy = tmp_path / f"copy-{n}.db"
            assert db(capsys, "backup", str(copy), "--db", url)[0] == 0
            copies.append(copy)
            mark = stored[0] + 1  # (the batch being counted may predate the copy)
    finally:
        stop.set()
        writer.join()
        store.close()
    seen = set()
    for copy in copies:
        with sqlite3.connect(copy) as conn:
            rows = conn.execute(
                "select t.id, t.version, count(e.version), max(e.version) from tables t"
                " join entries e on e.table_id = t.id group by t.id").fetchall()
        conn.close()
        assert len(rows) == len(ids)
        for _, version, count, last in rows:
            assert version == count == last
        seen.add(rows[0][1])
    assert len(seen) == len(copies)  # four different moments: the writer never stopped


def test_backup_refusals_are_one_line_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    live = folder(tmp_path, "live")
    with TestClient(make_app(live)):
        pass
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"something precious")
    line = refused(capsys, "backup", str(taken), "--db", db_url(live))
    assert line == f"varaq db backup: {taken} exists already: a backup never overwrites a file"
    assert taken.read_bytes() == b"something precious"
    line = refused(capsys, "backup", str(tmp_path / "a.db"), "--db", "sqlite://")
    assert line.startswith("varaq db backup: an in-memory database is gone")
    nowhere = tmp_path / "nowhere" / "g.db"
    line = refused(capsys, "backup", str(tmp_path / "b.db"), "--db", f"sqlite:///{nowhere}")
    assert line == f"varaq db backup: there is no database at {nowhere}"
    line = refused(capsys, "backup", str(tmp_path / "no" / "c.db"), "--db", db_url(live))
    assert line == f"varaq db backup: there is no folder {tmp_path / 'no'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live", "taken.db"]


def test_restore_goes_only_into_an_empty_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    live, other = folder(tmp_path, "live"), folder(tmp_path, "other")
    backup = tmp_path / "b.db"
    with TestClient(make_app(live)) as client:
        new_game(client)
    assert db(capsys, "backup", str(backup), "--db", db_url(live))[0] == 0
    with TestClient(make_app(other)) as client:
        kept = new_game(client)["id"]
    line = refused(capsys, "restore", str(backup), "--db", db_url(other))
    assert line.startswith(f"varaq db restore: the database at {other / 'games.db'} is not "
                           "empty (")
    with sqlite3.connect(other / "games.db") as conn:
        assert conn.execute("select id from tables").fetchall() == [(kept,)]
    conn.close()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all, just words")
    fresh = folder(tmp_path, "fresh")
    line = refused(capsys, "restore", str(junk), "--db", db_url(fresh))
    assert line == (f"varaq db restore: {junk} is not a SQLite backup: a SQLite database "
                    "restores only from a SQLite backup")
    dump = tmp_path / "dump.pgdump"
    dump.write_bytes(b"PGDMP\x01\x0e\x00")
    line = refused(capsys, "restore", str(dump), "--db", db_url(fresh))
    assert line.startswith(f"varaq db restore: {dump} is a pg_dump archive")
    line = refused(capsys, "restore", str(tmp_path / "missing.db"), "--db", db_url(fresh))
    assert line == f"varaq db restore: there is no backup at {tmp_path / 'missing.db'}"
    assert list(fresh.iterdir()) == []
    # Into the empty folder it goes, and a second restore on top of it is refused.
    status, out, err = db(capsys, "restore", str(backup), "--db", db_url(fresh))
    assert status == 0 and out.strip().endswith("1 table"), (out, err)
    refused(capsys, "restore", str(backup), "--db", db_url(fresh))


@pytest.mark.skipif(bool(missing_servers()), reason="needs PostgreSQL: " +
                    ", ".join(missing_servers()))
def test_postgresql_backups_go_through_pg_dump_and_pg_restore(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    from varaq.service.store import Store

    with postgres_server() as server:
        source = fresh_database(server, "backup_source")
        store = Store(source)
        store.create_table(table_id="table-0001", kind="solo", level="easy", rules="varaq",
                           seed="7", start={"total": [0, 0], "bags": [0, 0], "dealer": None},
                           options={}, status="playing", entries=["deal", "N bid 3"])
        store.close()
        archive = tmp_path / "varaq.pgdump"
        status, out, err = db(capsys, "backup", str(archive), "--db", source)
        assert status == 0, err
        assert "with pg_dump (custom format, checked with pg_restore --list)" in out
        target = fresh_database(server, "backup_target")
        status, out, err = db(capsys, "restore", str(archive), "--db", target)
        assert status == 0, err
        assert out.strip().endswith("1 table")
        store = Store(target)
        got = store.load_table("table-0001")
        store.close()
        assert got is not None and got.entries == ("deal", "N bid 3")
        line = refused(capsys, "restore", str(archive), "--db", target)
        assert "is not empty" in line
