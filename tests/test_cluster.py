"""Many processes, one game: two ``varaq serve`` processes on one PostgreSQL and one Redis.

Real servers, no mocks (:mod:`servers` starts throwaway ones).  Four people sit at one table,
two of them connected to each process: they play a whole hand, and the record is what a
replay of the stored lines gives on one process.  Then the process that owns the table is
SIGKILLed in the middle of a trick: the survivor takes the table over, the people on the dead
process come back through the survivor, and every action anyone was told was accepted is in
the record.  Then Redis is restarted in the middle of a hand, and the table goes on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from itsdangerous import TimestampSigner
from sqlalchemy import create_engine, text
from websockets.sync.client import connect

from servers import RedisServer, free_port, have_servers, postgres_server
from varaq.engine import Game
from varaq.record import to_record
from varaq.service.journal import replay
from varaq.service.seating import Seating
from varaq.service.store import Store

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("cluster")]

if not have_servers():  # pragma: no cover - CI installs both (scripts/test.sh)
    if os.environ.get("CI"):
        raise RuntimeError("the cluster tests need Debian's postgresql and redis-server")
    pytest.skip("PostgreSQL or Redis is not installed", allow_module_level=True)

SECRET = "cluster-test-secret"
#: Seconds a table may take to finish what a test asks (a loaded two-core machine is slow).
PATIENCE = 240.0


class Node:
    """One ``varaq serve`` process of the cluster."""

    def __init__(self, db: str, redis: str) -> None:
        self.db, self.redis = db, redis
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "varaq.cli", "serve", "--port", str(self.port), "--db",
             self.db, "--redis", self.redis, "--secret", SECRET, "--relaxed-limits"],
            env=dict(os.environ, VARAQ_PACE="0"), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, "varaq serve exited"
            try:
                if httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "varaq serve did not start"
            time.sleep(0.2)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture(scope="module")
def backing() -> Iterator[tuple[str, RedisServer]]:
    redis = RedisServer()
    redis.start()
    with postgres_server() as db:
        yield db, redis
    redis.stop()


@pytest.fixture
def nodes(backing: tuple[str, RedisServer]) -> Iterator[list[Node]]:
    db, redis = backing
    pair = [Node(db, redis.url), Node(db, redis.url)]
    for node in pair:
        node.start()
    yield pair
    for node in pair:
        node.stop()


class Player:
    """A person, talking to one process (which they may have to change)."""

    def __init__(self, name: str, node: Node, cookie: str) -> None:
        self.name, self.cookie = name, cookie
        self.client = httpx.Client(timeout=30, headers={"Cookie": f"varaq_session={cookie}"})
        self.node = node
        self.accepted: list[tuple[int, str]] = []  # (version after, action) the server took
        self.seen: list[int] = []  # versions of the events the socket delivered
        self._socket: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"varaq_session={self.cookie}"}

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.client.post(f"{self.node.base}{path}", json=body or {})

    def state(self, table: str) -> dict[str, Any]:
        response = self.client.get(f"{self.node.base}/api/games/{table}")
        assert response.status_code == 200, response.text
        doc: dict[str, Any] = response.json()
        return doc

    def watch(self, table: str) -> None:
        """Keep a WebSocket on this person's process, noting every event version."""
        self._stop.clear()

        def run() -> None:
            url = self.node.base.replace("http", "ws") + f"/ws/games/{table}"
            try:
                with connect(url, additional_headers=self.headers) as ws:
                    ws.send(json.dumps({"type": "hello", "version": 0}))
                    while not self._stop.is_set():
                        try:
                            message = json.loads(ws.recv(timeout=0.5))
                        except TimeoutError:
                            continue
                        if message.get("type") == "event":
                            self.seen.append(message["version"])
                        elif message.get("type") == "state":
                            self.seen.append(-message["version"])  # a (re)sync point
            except Exception:
                return

        self._socket = threading.Thread(target=run, daemon=True)
        self._socket.start()

    def unwatch(self) -> None:
        self._stop.set()
        if self._socket is not None:
            self._socket.join(timeout=5)

    def act_if_turn(self, table: str) -> bool:
        """One action if it is this person's turn; whether the hand is over."""
        try:
            st = self.state(table)
        except (httpx.HTTPError, AssertionError):
            return False
        view = st["view"]
        if view["phase"] in ("deal", "over"):
            return True
        if not view["legal"]:
            return False
        choice = "bid 3" if "bid 3" in view["legal"] else view["legal"][0]
        try:
            response = self.post(f"/api/games/{table}/actions",
                                 {"action": choice, "version": st["version"]})
        except httpx.HTTPError:
            return False
        if response.status_code == 200:
            self.accepted.append((st["version"] + 1, choice))
        return False


def sign_up(node: Node, name: str) -> str:
    response = httpx.post(f"{node.base}/api/account/signup",
                          json={"name": name, "password": "correct horse"}, timeout=30)
    assert response.status_code == 201, response.text
    return response.cookies["varaq_session"]


_TABLES_MADE = [0]


def four_at_one_table(nodes: list[Node]) -> tuple[str, list[Player]]:
    """Four people at one private table; Ana and Cai on the first process, Bo and Dee on the
    second; the table made (and so owned) by the first.  (Names get the table's number: the
    database lasts for the whole module.)"""
    a, b = nodes
    _TABLES_MADE[0] += 1
    k = _TABLES_MADE[0]
    people = [Player(f"{n}{k}", node, sign_up(node, f"{n}{k}"))
              for n, node in (("Ana", a), ("Bo", b), ("Cai", a), ("Dee", b))]
    opened = people[0].post("/api/tables", {"level": "easy", "fill_bots": False,
                                            "rules": "varaq"})
    assert opened.status_code == 201, opened.text
    table, code = opened.json()["id"], opened.json()["code"]
    for person in people[1:]:
        assert person.post("/api/tables/join", {"code": code}).status_code == 200
    assert people[0].post(f"/api/games/{table}/start").status_code == 200
    return table, people


def play_until(table: str, people: list[Player], done: Any, patience: float = PATIENCE) -> None:
    deadline = time.monotonic() + patience
    while not done():
        assert time.monotonic() < deadline, "the table stopped moving"
        for person in people:
            person.act_if_turn(table)
        time.sleep(0.01)


def stored_lines(db: str, table: str) -> list[str]:
    engine = create_engine(db)
    with engine.connect() as c:
        rows = c.execute(text("select entry from entries where table_id = :t order by version"),
                         {"t": table}).all()
    engine.dispose()
    return [r[0] for r in rows]


def test_four_people_on_two_processes_play_a_hand(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    table, people = four_at_one_table(nodes)
    for person in people:
        person.watch(table)
    play_until(table, people,
               lambda: people[0].state(table)["view"]["phase"] in ("deal", "over"))
    final = people[1].state(table)  # Bo asks the second process
    assert final["view"]["phase"] == "deal" and len(final["view"]["history"]) == 1
    record = people[1].client.get(f"{nodes[1].base}/api/games/{table}/record").json()
    # The same lines replayed on one process give the same hand.
    db, _ = backing
    store = Store(db)
    row = store.load_table(table)
    store.close()
    assert row is not None
    done = replay(Game(row.rules, seed=row.seed), Seating(), row.entries)
    assert to_record(done.game)["hands"][0] == record["hands"][0]
    time.sleep(1.0)
    for person in people:
        person.unwatch()
        events = [v for v in person.seen if v > 0]
        assert events == sorted(events) and events[-1] == final["version"], person.name
        assert set(range(events[0], events[-1] + 1)) <= set(events), person.name


def test_a_killed_owner_hands_the_table_to_the_survivor(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    table, people = four_at_one_table(nodes)
    a, b = nodes

    def mid_trick() -> bool:
        view = people[0].state(table)["view"]
        return view["phase"] == "play" and len(view["tricks"]) >= 1 and len(view["trick"]) == 2

    play_until(table, people, mid_trick)
    a.kill()  # the owner: no clean shutdown, its lock goes with its connection
    killed_at = time.monotonic()
    for person in people:
        person.node = b  # the people on the dead process come back through the survivor
    b_view = people[1].state(table)
    assert b_view["view"]["phase"] == "play"
    play_until(table, people,
               lambda: people[1].state(table)["view"]["phase"] in ("deal", "over"))
    assert time.monotonic() - killed_at < PATIENCE
    db, _ = backing
    lines = stored_lines(db, table)
    for person in people:
        for version, action in person.accepted:
            assert lines[version - 1].endswith(action.upper() if len(action) <= 3 else action), (
                person.name, version, action, lines[version - 1])


def test_a_redis_restart_does_not_stop_the_table(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    _, redis = backing
    table, people = four_at_one_table(nodes)
    for person in people:
        person.watch(table)
    play_until(table, people, lambda: people[0].state(table)["view"]["phase"] == "play")
    redis.restart(down_for=1.0)
    play_until(table, people,
               lambda: people[1].state(table)["view"]["phase"] in ("deal", "over"))
    final = people[0].state(table)["version"]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(
            max([abs(v) for v in p.seen] or [0]) < final for p in people):
        time.sleep(0.2)
    for person in people:
        person.unwatch()
        assert max(abs(v) for v in person.seen) == final, person.name


def test_sessions_and_the_quick_match_queue_are_shared(nodes: list[Node]) -> None:
    a, b = nodes
    cookie = sign_up(a, "Eve")
    me = httpx.get(f"{b.base}/api/account", headers={"Cookie": f"varaq_session={cookie}"})
    assert me.json()["name"] == "Eve"  # signed in on one process, known on the other
    signer = TimestampSigner(SECRET.encode(), salt="varaq.session")
    assert signer.unsign(cookie.encode())
    players = [(n, node, sign_up(node, n)) for n, node in
               (("Fay", a), ("Gus", b), ("Hal", a), ("Ivy", b))]
    for _, node, c in players:
        response = httpx.post(f"{node.base}/api/quick/join", json={"bots_after": None},
                              headers={"Cookie": f"varaq_session={c}"})
        assert response.status_code == 200, response.text
    deadline = time.monotonic() + 30
    tables = set()
    while time.monotonic() < deadline:
        tables = {httpx.get(f"{node.base}/api/quick",
                            headers={"Cookie": f"varaq_session={c}"}).json().get("table")
                  for _, node, c in players}
        if None not in tables:
            break
        time.sleep(0.2)
    assert len(tables) == 1 and None not in tables
