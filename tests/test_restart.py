"""A restarted server resumes every game exactly: same position, same events, same next deal,
and the computer players pick up where they stopped.  Once with the app rebuilt on the same
SQLite file, once with a real ``varaq serve`` process killed and started again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

from servers import free_port
from varaq.service.store import Store
from web_helpers import (
    db_url,
    make_app,
    new_game,
    play_hand,
    south_choice,
    state,
    wait_for_south,
)

pytestmark = pytest.mark.timeout(180)


def all_events(client: TestClient, gid: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = client.get(f"/api/games/{gid}?since=0").json()["events"]
    return events


def south_steps(client: TestClient, gid: str, steps: int) -> dict[str, Any]:
    """Make ``steps`` of South's decisions (waiting for the bots in between)."""
    st = wait_for_south(client, gid)
    for _ in range(steps):
        if st["view"]["phase"] in ("deal", "over"):
            client.post(f"/api/games/{gid}/next", json={"version": st["version"]})
        else:
            response = client.post(f"/api/games/{gid}/actions",
                                   json={"action": south_choice(st["view"])})
            assert response.status_code == 200, response.text
        st = wait_for_south(client, gid)
    return st


def finish_two_hands(client: TestClient, gid: str) -> dict[str, Any]:
    st = play_hand(client, gid)
    if st["view"]["hand_no"] == 1:
        client.post(f"/api/games/{gid}/next")
        st = play_hand(client, gid)
    client.post(f"/api/games/{gid}/next")
    return wait_for_south(client, gid)


def test_a_game_resumes_exactly_after_the_app_is_rebuilt(tmp_path: Path) -> None:
    # The same seed, played straight through and with a restart in the middle.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with TestClient(make_app(tmp_path / "a")) as client:
        straight = new_game(client, level="normal", rules="classic", seed=31)["id"]
        end_straight = finish_two_hands(client, straight)
        events_straight = all_events(client, straight)
    with TestClient(make_app(tmp_path / "b")) as client:
        gid = new_game(client, level="normal", rules="classic", seed=31)["id"]
        before = south_steps(client, gid, 9)  # the bids and a few cards of the first hand
    with TestClient(make_app(tmp_path / "b")) as client:
        after = state(client, gid)
        assert after["version"] == before["version"] and after["view"] == before["view"]
        end = finish_two_hands(client, gid)
        assert end["view"] == end_straight["view"]  # the third deal is the same cards too
        assert all_events(client, gid) == events_straight
    stored = Store(db_url(tmp_path / "b"))
    row = stored.load_table(gid)
    assert row is not None and row.version == end["version"] and row.status == "playing"
    assert len(row.entries) == row.version and row.entries[0] == "deal"
    stored.close()


def test_computer_players_resume_after_a_restart(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, pace=1000.0)) as client:
        gid = new_game(client, dealer="S")["id"]  # West, North, East bid before South
        assert state(client, gid)["view"]["turn"] == "W"  # frozen: nobody moved
    with TestClient(make_app(tmp_path)) as client:
        st = wait_for_south(client, gid)
        bids = st["view"]["bids"]
        assert st["view"]["turn"] == "S" and None not in (bids["W"], bids["N"], bids["E"])
        assert st["version"] == 4


# -- a real process ----------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Any]:
    """Start and kill ``varaq serve`` processes on one database."""
    url = f"sqlite:///{tmp_path / 'served.db'}"
    running: list[subprocess.Popen[bytes]] = []

    def start() -> str:
        port = free_port()
        env = dict(os.environ, VARAQ_PACE="0", VARAQ_TEST_MODE="1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "varaq.cli", "serve", "--port", str(port), "--db", url],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        running.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, (proc.stdout.read() if proc.stdout else b"").decode()
            try:
                if httpx2.get(f"{base}/healthz", timeout=2).status_code == 200:
                    return base
            except httpx2.TransportError:
                time.sleep(0.1)
        raise AssertionError("varaq serve did not start")

    def kill() -> list[int]:
        """SIGKILL the newest server; the pids of the children it leaves behind."""
        proc = running[-1]
        children = children_of(proc.pid)
        proc.send_signal(signal.SIGKILL)  # no clean shutdown: only what was stored survives
        proc.wait(timeout=10)
        return children

    yield start, kill
    for proc in running:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def gone(pids: list[int], patience: float = 20.0) -> bool:
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.1)
    return False


def http_wait_for_south(base: str, gid: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        st: dict[str, Any] = httpx2.get(f"{base}/api/games/{gid}").json()
        if st["view"]["legal"] or st["view"]["phase"] in ("deal", "over"):
            return st
        assert time.monotonic() < deadline, st["view"]
        time.sleep(0.02)


def test_a_killed_server_restarts_where_it_was(server: Any) -> None:
    start, kill = server
    base = start()
    response = httpx2.post(f"{base}/api/games",
                          json={"level": "easy", "rules": "classic", "seed": 77})
    assert response.status_code == 201
    gid = response.json()["id"]
    st = http_wait_for_south(base, gid)
    for _ in range(4):  # South's bid and three cards
        httpx2.post(f"{base}/api/games/{gid}/actions",
                   json={"action": south_choice(st["view"]), "version": st["version"]})
        st = http_wait_for_south(base, gid)
    assert st["view"]["phase"] == "play" and len(st["view"]["hand"]) == 10
    hint = httpx2.get(f"{base}/api/games/{gid}/hint", timeout=30).json()  # starts a Hard worker
    assert hint["action"] in st["view"]["legal"]
    left = kill()
    assert left and gone(left), "the Hard player's worker outlived its server"
    base = start()
    again = httpx2.get(f"{base}/api/games/{gid}").json()
    assert again["version"] == st["version"] and again["view"] == st["view"]
    events = httpx2.get(f"{base}/api/games/{gid}?since=0").json()["events"]
    assert [e["version"] for e in events] == list(range(1, st["version"] + 1))
    # And the game goes on.
    for _ in range(10):
        if st["view"]["phase"] != "play":
            break
        response = httpx2.post(f"{base}/api/games/{gid}/actions",
                              json={"action": south_choice(st["view"]), "version": st["version"]})
        assert response.status_code == 200, response.text
        st = http_wait_for_south(base, gid)
    assert st["view"]["phase"] == "deal" and len(st["view"]["history"]) == 1


def test_idle_tables_leave_memory_and_come_back_from_the_store(tmp_path: Path) -> None:
    app = make_app(tmp_path, max_tables=4)
    with TestClient(app) as client:
        games = [new_game(client, dealer="E", seed=i)["state"] for i in range(7)]
        assert len(app.state.tables) <= 4
        for st in games:  # South bids first, so nothing moved: each comes back as it was
            again = state(client, st["id"])
            assert again["view"] == st["view"] and again["version"] == 1
        response = client.post(f"/api/games/{games[0]['id']}/actions", json={"action": "bid 2"})
        assert response.status_code == 200


def test_serve_refuses_a_bad_pace_or_port_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from varaq.cli import main

    db = f"sqlite:///{tmp_path / 'unused.db'}"
    monkeypatch.setenv("VARAQ_PACE", "fast")
    assert main(["serve", "--db", db]) == 2
    assert capsys.readouterr().err == "varaq serve: VARAQ_PACE must be a number, not 'fast'\n"
    monkeypatch.setenv("VARAQ_PACE", "0")
    assert main(["serve", "--port", "70000", "--db", db]) == 2
    assert capsys.readouterr().err == "varaq serve: port 70000 is out of range\n"


def test_two_servers_on_one_database_never_both_extend_a_game(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, pace=1000.0)) as first, \
            TestClient(make_app(tmp_path, pace=1000.0)) as second:
        gid = new_game(first, dealer="E")["id"]  # South bids first; the bots are frozen
        assert state(second, gid)["version"] == 1  # the second server loads it too
        assert first.post(f"/api/games/{gid}/actions", json={"action": "bid 4"}).status_code == 200
        stale = second.post(f"/api/games/{gid}/actions", json={"action": "bid 2"})
        assert stale.status_code == 409 and "no longer at version 1" in stale.json()["error"]
        again = state(second, gid)  # rebuilt from the store: the first server's bid stands
        assert again["version"] == 2 and again["view"]["bids"]["S"] == 4
