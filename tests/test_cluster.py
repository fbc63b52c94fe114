"""Many processes, one game: two ``varaq serve`` processes on one PostgreSQL and one Redis.

Real servers, no mocks (:mod:`servers` starts throwaway ones).  Four people sit at one table,
two of them connected to each process: they play a whole hand, every socket gets every event
once and in order, and the record is what the engine makes of nothing but the deal and the
actions the people were told were accepted.  Then the process that owns the table is SIGKILLed
in the middle of a trick: the survivor takes the table over, the sockets on the dead process
reconnect to the survivor (as the browser's would, through a proxy that tries the next
server) and miss nothing, and every action anyone was told was accepted is in the journal, at
its version, for its seat.  Then Redis is restarted in the middle of a hand, and the table
goes on.  Sign-in limits are counted across the processes, and ``varaq db upgrade`` brings a
fresh PostgreSQL database to the newest schema, twice, and with two at once.

Nothing here asserts how long something took (a loaded two-core machine makes that
meaningless; ``benchmarks/cluster.py`` measures the failover): waits are bounded by generous
deadlines, and a deadline that runs out is a failure that says what did not happen.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self

import httpx2
import pytest
from itsdangerous import TimestampSigner
from limits import parse_many
from sqlalchemy import create_engine, text
from websockets.sync.client import connect

from servers import (
    INITDB_OPTIONS,
    PG_SETTINGS,
    REDIS_OPTIONS,
    RedisServer,
    free_port,
    fresh_database,
    missing_servers,
    postgres_server,
)
from varaq.actions import parse_action
from varaq.engine import Game
from varaq.record import to_record
from varaq.seats import SEAT_LETTERS
from varaq.service.settings import Limits
from varaq.service.store import Store

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("cluster")]

_MISSING = missing_servers()
if _MISSING:  # pragma: no cover - CI installs both (scripts/test.sh)
    _WHY = ("the cluster tests (tests/test_cluster.py) need real PostgreSQL and Redis servers; "
            f"missing: {'; '.join(_MISSING)}.  scripts/test.sh installs them")
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        # On CI a missing server is a broken machine, never a quiet skip.
        raise RuntimeError(_WHY)
    pytest.skip(f"{_WHY} (set CI=1 to make this an error)", allow_module_level=True)

SECRET = "cluster-test-secret"
#: Seconds a table may take to finish what a test asks (a loaded two-core machine is slow).
PATIENCE = 240.0
#: Seconds a socket may take to be sent what the table already has (reconnections included).
SOCKET_PATIENCE = 60.0


class Node:
    """One ``varaq serve`` process of the cluster; ``relaxed``: with ``--relaxed-limits`` (the
    tests of games only, whose many sign-ups from 127.0.0.1 would hit the per-address limits)."""

    def __init__(self, db: str, redis: str, *, relaxed: bool = True,
                 pid_file: Path | None = None) -> None:
        self.db, self.redis, self.relaxed, self.pid_file = db, redis, relaxed, pid_file
        #: Where the process writes its log (read by the tests of a clean stop).
        self.log = Path(tempfile.mkdtemp(prefix="varaq-node-")) / "serve.log"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:  # failure messages name the process by its address
        return f"Node({self.base})"

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "varaq.cli", "serve", "--port", str(self.port), "--db",
                 self.db, "--redis", self.redis, "--secret", SECRET, "--log-format", "text",
                 *(["--relaxed-limits"] if self.relaxed else []),
                 *(["--pid-file", str(self.pid_file)] if self.pid_file else [])],
                env=dict(os.environ, VARAQ_PACE="0"), stdout=out, stderr=subprocess.STDOUT,
            )
        # A cold start on a loaded two-core machine has taken 40 s (the imports alone).
        deadline = time.monotonic() + 150
        while True:
            assert self.process.poll() is None, "varaq serve exited"
            try:
                if httpx2.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
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
                self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def backing() -> Iterator[tuple[str, RedisServer]]:
    redis = RedisServer()
    redis.start()
    try:
        with postgres_server() as db:
            yield db, redis
    finally:
        redis.stop()


def _pair(db: str, redis: str, *, relaxed: bool) -> Iterator[list[Node]]:
    pair = [Node(db, redis, relaxed=relaxed), Node(db, redis, relaxed=relaxed)]
    try:
        for node in pair:
            node.start()
        yield pair
    finally:
        for node in pair:
            node.stop()


@pytest.fixture
def nodes(backing: tuple[str, RedisServer]) -> Iterator[list[Node]]:
    db, redis = backing
    yield from _pair(db, redis.url, relaxed=True)


@pytest.fixture
def strict_nodes(backing: tuple[str, RedisServer]) -> Iterator[list[Node]]:
    """Two processes with the real rate limits, as a site runs them."""
    db, redis = backing
    yield from _pair(db, redis.url, relaxed=False)


class Player:
    """A person, talking over HTTP to one process (which they may have to change)."""

    def __init__(self, name: str, node: Node, cookie: str) -> None:
        self.name, self.cookie = name, cookie
        self.client = httpx2.Client(timeout=30, headers={"Cookie": f"varaq_session={cookie}"})
        self.node = node
        #: (version after, seat letter, action) of each action the server said it took.
        self.accepted: list[tuple[int, str, str]] = []
        #: (version after if taken, action, what came back instead of a 200): kept to explain
        #: a version nobody was told of, should one be stored.
        self.unanswered: list[tuple[int, str, str]] = []

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"varaq_session={self.cookie}"}

    def post(self, path: str, body: Any = None) -> httpx2.Response:
        return self.client.post(f"{self.node.base}{path}", json=body or {})

    def state(self, table: str) -> dict[str, Any]:
        response = self.client.get(f"{self.node.base}/api/games/{table}")
        assert response.status_code == 200, response.text
        doc: dict[str, Any] = response.json()
        return doc

    def act_if_turn(self, table: str) -> bool:
        """One action if it is this person's turn; whether the hand is over."""
        try:
            st = self.state(table)
        except (httpx2.HTTPError, AssertionError):
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
        except httpx2.HTTPError as e:
            self.unanswered.append((st["version"] + 1, choice, f"{type(e).__name__}: {e}"))
            return False
        if response.status_code == 200:
            self.accepted.append((st["version"] + 1, st["you"], choice))
        else:
            self.unanswered.append((st["version"] + 1, choice,
                                    f"{response.status_code} {response.text[:200]}"))
        return False


class Kept:
    """A connection kept open on a thread of its own (``_run``) until :meth:`stop`."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        raise NotImplementedError


class Socket(Kept):
    """One person's WebSocket at a table, kept open the way the browser's ``connection.js``
    keeps it: when it drops it is opened again (after a short pause that doubles up to a few
    seconds) and its hello names the newest version it holds, so the server sends only what it
    missed.  Through a proxy the retry lands on another process; here it goes to the next node
    of the list, as nginx's ``proxy_next_upstream`` would.

    It notes the version of every event it is given, whether inside a state (the answer to a
    hello) or on its own, so a test can say the events came once each, in order, with none
    missing.
    """

    def __init__(self, person: Player, table: str, nodes: list[Node],
                 first: Node | None = None) -> None:
        self.person, self.table, self.nodes = person, table, nodes
        #: The node it opens first (the person's own, unless said: a second tab elsewhere).
        self.first = first or person.node
        #: The version of each event received, in the order received.
        self.versions: list[int] = []
        #: The newest version held (what a hello names).
        self.version = 0
        #: States that said "resync" (the server could not send just what was missed).
        self.resyncs = 0
        #: The node each connection was opened to, in order.
        self.visited: list[Node] = []
        #: Connections left for the next one opened first (the server asked: "moving").
        self.moves = 0
        super().__init__()

    def _url(self, at: int) -> str:
        return self.nodes[at].base.replace("http", "ws") + f"/ws/games/{self.table}"

    def _connect(self, at: int) -> Any:
        return connect(self._url(at), additional_headers=self.person.headers, open_timeout=10,
                       close_timeout=2)

    def _run(self) -> None:
        at = self.nodes.index(self.first)
        pause = 0.25
        #: The next connection, opened on a "moving" while the old one still delivered.
        ready: Any = None
        while not self._stop.is_set():
            node = self.nodes[at]
            try:
                ws, ready = ready or self._connect(at), None
                with ws:
                    self.visited.append(node)
                    pause = 0.25
                    ws.send(json.dumps({"type": "hello", "version": self.version}))
                    while not self._stop.is_set():
                        try:
                            message = json.loads(ws.recv(timeout=0.5))
                        except TimeoutError:
                            continue
                        if message.get("type") == "moving":
                            # Make before break, as connection.js: open the next socket,
                            # then close this one and say hello there.
                            with contextlib.suppress(Exception):
                                ready = self._connect((at + 1) % len(self.nodes))
                            if ready is not None:
                                self.moves += 1
                                break
                            continue
                        self._take(message)
            except Exception:  # refused, reset, closed: the browser retries, so do we
                pass
            at = (at + 1) % len(self.nodes)
            if ready is None:
                self._stop.wait(pause)
                pause = min(pause * 2, 4.0)

    def _take(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "state":
            if message.get("resync"):
                self.resyncs += 1
            self.versions += [event["version"] for event in message.get("events", [])]
            self.version = message["version"]
        elif kind == "event":
            self.versions.append(message["version"])
            self.version = message["version"]


class MePage(Kept):
    """A page's own socket (``/ws/me``: presence and invitations), kept as ``friends.js``
    keeps it: on ``moving`` it opens the next socket on the other process, and closes this one
    once that one has said hello."""

    def __init__(self, person: Player, nodes: list[Node], first: Node) -> None:
        self.person, self.nodes = person, nodes
        #: The node of each socket that said hello, in order.
        self.greeted: list[Node] = []
        #: "moving" messages received.
        self.asked = 0
        self._at = nodes.index(first)
        super().__init__()

    def _open(self, at: int, sockets: contextlib.ExitStack) -> Any:
        ws = sockets.enter_context(connect(
            self.nodes[at].base.replace("http", "ws") + "/ws/me",
            additional_headers=self.person.headers, open_timeout=10, close_timeout=2))
        hello = json.loads(ws.recv(timeout=10))
        assert hello["type"] == "hello", hello
        self.greeted.append(self.nodes[at])
        return ws

    def _run(self) -> None:
        with contextlib.ExitStack() as sockets:
            ws = self._open(self._at, sockets)
            while not self._stop.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.2))
                except TimeoutError:
                    continue
                except Exception:
                    return  # closed under it: no move was asked (the test then fails)
                if message.get("type") == "moving":
                    self.asked += 1
                    self._at = (self._at + 1) % len(self.nodes)
                    ws, old = self._open(self._at, sockets), ws
                    old.close()


def online_throughout(db: str, name: str, first: threading.Event,
                      stop: threading.Event) -> list[bool]:
    """Whether ``name`` counts as online (a fresh presence row with a socket, from any
    process), looked at every 0.05 s: ``first`` is set after the first look, and the last is
    taken after ``stop`` (on a loaded machine the connection alone can outlast what is
    watched, and a watch that never looked proves nothing)."""
    engine = create_engine(db)
    looks: list[bool] = []
    try:
        while True:
            stopping = stop.is_set()
            with engine.connect() as c:
                looks.append(bool(c.execute(text(
                    "select count(*) from presence p join users u on u.id = p.user_id "
                    "where u.name = :name and p.sockets > 0"), {"name": name}).scalar()))
            first.set()
            if stopping:
                return looks
            time.sleep(0.05)
    finally:
        engine.dispose()


def sockets_reach(sockets: list[Socket], version: int) -> None:
    """Wait (boundedly) until every socket holds ``version``, then close them all."""
    deadline = time.monotonic() + SOCKET_PATIENCE
    while any(s.version < version for s in sockets) and time.monotonic() < deadline:
        time.sleep(0.1)
    for s in sockets:
        s.stop()


def assert_every_event_once_in_order(sockets: list[Socket], final: int) -> None:
    """Each socket was given events 1, 2, 3, … up to at least ``final``: no gap, no event
    twice, none out of order, and no state that gave up and resent recent events."""
    for s in sockets:
        got = s.versions
        assert got == list(range(1, len(got) + 1)), (s.person.name, got)
        assert len(got) >= final, (s.person.name, f"reached {len(got)} of {final}")
        assert s.resyncs == 0, (s.person.name, s.resyncs)


def sign_up(node: Node, name: str) -> str:
    response = httpx2.post(f"{node.base}/api/account/signup",
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


def play_until(table: str, people: list[Player], done: Callable[[], bool],
               patience: float = PATIENCE) -> None:
    deadline = time.monotonic() + patience
    while not done():
        assert time.monotonic() < deadline, "the table stopped moving"
        for person in people:
            person.act_if_turn(table)
        time.sleep(0.01)


def hand_over(person: Player, table: str) -> Callable[[], bool]:
    return lambda: person.state(table)["view"]["phase"] in ("deal", "over")


def mid_trick(person: Player, table: str) -> Callable[[], bool]:
    """Two cards into a trick, after the first trick."""
    def done() -> bool:
        view = person.state(table)["view"]
        return view["phase"] == "play" and len(view["tricks"]) >= 1 and len(view["trick"]) == 2
    return done


def assert_nothing_accepted_was_lost(db: str, table: str, people: list[Player],
                                     via: Node) -> None:
    """Every action a person was answered 200 for is stored at its version, and the record
    (read through ``via``) is the hand those actions make."""
    lines = stored_lines(db, table)
    for person in people:
        for version, seat, action in person.accepted:
            assert lines[version - 1] == f"{seat} {action}", (
                person.name, version, lines[version - 1])
    record = people[1].client.get(f"{via.base}/api/games/{table}/record").json()
    assert_record_is_the_accepted_hand(record, db, table, people)


def stored_lines(db: str, table: str) -> list[str]:
    engine = create_engine(db)
    with engine.connect() as c:
        rows = c.execute(text("select entry from entries where table_id = :t order by version"),
                         {"t": table}).all()
    engine.dispose()
    return [r[0] for r in rows]


def record_from_accepted(db: str, table: str, people: list[Player]) -> dict[str, Any]:
    """The record a fresh engine makes of the first hand from the table's deal (its seed and
    first dealer, read from the table's row) and the actions the people were told were
    accepted, and nothing else: not the stored journal, so a server that lost, added or
    reordered an action cannot agree with it by replaying its own mistake."""
    store = Store(db, migrate=False)
    row = store.load_table(table)
    store.close()
    assert row is not None
    accepted = sorted(a for person in people for a in person.accepted)
    versions = [v for v, _, _ in accepted]
    # One acknowledged action per version, with none in between that nobody asked for.
    assert versions == list(range(versions[0], versions[0] + len(versions))), (
        versions, _unacknowledged(db, table, people, versions))
    game = Game("varaq", seed=row.seed, dealer=row.start.get("dealer"))
    game.deal()
    for _, seat, action in accepted:
        game.apply(parse_action(action), seat=SEAT_LETTERS.index(seat))
    assert game.phase_name == "deal", "the accepted actions do not finish the hand"
    return to_record(game)


def _unacknowledged(db: str, table: str, people: list[Player], versions: list[int]) -> str:
    """What is stored at each version inside ``versions``' range that nobody was told was
    accepted, and every answer other than a 200 the people had: the failure's explanation."""
    lines = stored_lines(db, table)
    told = set(versions)
    stored = {v: lines[v - 1] for v in range(versions[0], versions[-1] + 1)
              if v not in told and v <= len(lines)}
    others = {p.name: p.unanswered for p in people if p.unanswered}
    return f"stored but unacknowledged: {stored}; answers other than 200: {others}"


def assert_record_is_the_accepted_hand(
    record: dict[str, Any], db: str, table: str, people: list[Player],
) -> None:
    fresh = record_from_accepted(db, table, people)
    assert record["rules"] == fresh["rules"]
    assert record["hands"][0] == fresh["hands"][0]


def test_four_people_on_two_processes_play_a_hand(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    table, people = four_at_one_table(nodes)
    sockets = [Socket(person, table, nodes).start() for person in people]
    play_until(table, people, hand_over(people[0], table))
    final = people[1].state(table)  # Bo asks the second process
    assert final["view"]["phase"] == "deal" and len(final["view"]["history"]) == 1
    record = people[1].client.get(f"{nodes[1].base}/api/games/{table}/record").json()
    db, _ = backing
    assert_record_is_the_accepted_hand(record, db, table, people)
    sockets_reach(sockets, final["version"])
    assert_every_event_once_in_order(sockets, final["version"])


def test_a_killed_owner_hands_the_table_to_the_survivor(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    table, people = four_at_one_table(nodes)
    a, b = nodes
    # Everyone has a socket on the owner (for Bo and Dee, a second tab: their first is on the
    # other process, which has to go on from follower to owner without a hitch).
    on_owner = [Socket(person, table, nodes, first=a).start() for person in people]
    on_other = [Socket(person, table, nodes).start() for person in people[1::2]]

    play_until(table, people, mid_trick(people[0], table))
    a.kill()  # the owner: no clean shutdown, its lock goes with its connection
    for person in people:
        person.node = b  # the people on the dead process come back through the survivor
    b_view = people[1].state(table)
    assert b_view["view"]["phase"] == "play"
    play_until(table, people, hand_over(people[1], table))
    final = people[1].state(table)["version"]
    sockets_reach(on_owner + on_other, final)
    for s in on_owner:
        assert s.visited[0] is a and s.visited[-1] is b, (s.person.name, s.visited)
    for s in on_other:
        assert s.visited == [b], (s.person.name, s.visited)  # never dropped
    assert_every_event_once_in_order(on_owner + on_other, final)
    assert_nothing_accepted_was_lost(backing[0], table, people, b)


def test_a_stopped_owner_hands_the_table_over_with_nothing_lost(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    """SIGTERM is not a crash: the owner lets each table go under its lock, after its last
    commit is stored, and tells the process that follows it to take it at once (no wait for
    the heartbeat).  The people play on through the other process with nothing lost, and
    every socket gets every event once."""
    table, people = four_at_one_table(nodes)
    a, b = nodes
    on_owner = [Socket(person, table, nodes, first=a).start() for person in people]
    on_other = [Socket(person, table, nodes).start() for person in people[1::2]]
    # Ana's page's own socket (presence) is on the stopping process too.
    page = MePage(people[0], nodes, first=a).start()

    play_until(table, people, mid_trick(people[0], table))
    looked, looking = threading.Event(), threading.Event()
    looks: list[bool] = []
    watcher = threading.Thread(target=lambda: looks.extend(
        online_throughout(backing[0], people[0].name, looked, looking)))
    watcher.start()
    assert looked.wait(timeout=30), "the presence watcher never looked"
    a.stop()  # SIGTERM (uvicorn stops cleanly, then ends itself by the same signal)
    looking.set()
    watcher.join(timeout=30)
    page.stop()
    assert a.process is not None and a.process.returncode in (0, -signal.SIGTERM)
    # The page's own socket moved too, so Ana never looked offline to her friends.
    assert page.asked == 1 and page.greeted == [a, b], (page.asked, page.greeted)
    assert looks and all(looks), looks
    assert "handed 1 tables to the other processes" in a.log.read_text(), a.log.read_text()
    for person in people:
        person.node = b
    play_until(table, people, hand_over(people[1], table))
    final = people[1].state(table)["version"]
    sockets_reach(on_owner + on_other, final)
    for s in on_owner:
        # Asked to move, each opened its next socket before the old one closed.
        assert s.visited == [a, b] and s.moves == 1, (s.person.name, s.visited, s.moves)
    assert "asked 4 table sockets to move; 4 moved" in a.log.read_text(), a.log.read_text()
    # The stopping process named the people at its tables, so the next one read their
    # sessions together, before their requests needed them.
    assert "sessions of 4 people arriving" in b.log.read_text(), b.log.read_text()
    for s in on_other:
        assert s.visited == [b], (s.person.name, s.visited)  # never dropped
    assert_every_event_once_in_order(on_owner + on_other, final)
    assert_nothing_accepted_was_lost(backing[0], table, people, b)


def test_a_process_opens_its_database_connections_before_its_first_request(
    backing: tuple[str, RedisServer],
) -> None:
    """A process that has just started is soon handed a peer's tables and their people's
    requests: its pool's connections are opened at start, not under those requests."""
    store = Store(backing[0])
    try:
        size = store.engine.pool.size()  # type: ignore[attr-defined]
        assert size > 0 and store.warm() == size
        assert store.engine.pool.checkedin() == size  # type: ignore[attr-defined]
    finally:
        store.close()


def test_the_rolling_restart_script_restarts_every_process_with_nothing_lost(
    backing: tuple[str, RedisServer],
) -> None:
    """scripts/rolling-restart.sh stops each process of the cluster in turn (SIGTERM: it hands
    its tables on) and starts it again, while the people play on through whichever process is
    up, as behind a proxy.  Both processes come back, and nothing acknowledged is lost."""
    db, redis = backing
    run = Path(tempfile.mkdtemp(prefix="varaq-run-"))
    nodes = [Node(db, redis.url, pid_file=run / f"{name}.pid") for name in "ab"]
    try:
        for node in nodes:
            node.start()
        table, people = four_at_one_table(nodes)
        sockets = [Socket(person, table, nodes).start() for person in people]
        play_until(table, people, lambda: people[0].state(table)["view"]["phase"] == "play")
        before = {p.name: p.read_text() for p in run.glob("*.pid")}
        script = subprocess.Popen(
            ["bash", str(Path(__file__).resolve().parents[1] / "scripts/rolling-restart.sh"),
             str(run), "60"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        turn = 0
        while script.poll() is None:  # play on meanwhile, through whichever process answers
            for person in people:
                try:
                    httpx2.get(f"{person.node.base}/healthz", timeout=1)
                except httpx2.HTTPError:
                    turn += 1
                    person.node = nodes[turn % 2]
                person.act_if_turn(table)
            time.sleep(0.05)
        output = script.stdout.read() if script.stdout else ""
        assert script.returncode == 0, output
        after = {p.name: p.read_text() for p in run.glob("*.pid")}
        assert set(after) == set(before) and all(after[k] != before[k] for k in before), output
        play_until(table, people, hand_over(people[1], table))
        final = people[1].state(table)["version"]
        sockets_reach(sockets, final)
        assert_every_event_once_in_order(sockets, final)
        lines = stored_lines(db, table)
        for person in people:
            for version, seat, action in person.accepted:
                assert lines[version - 1] == f"{seat} {action}", (person.name, version)
    finally:
        for pid_file in run.glob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
        for node in nodes:
            node.stop()
        deadline = time.monotonic() + 15
        while list(run.glob("*.pid")) and time.monotonic() < deadline:
            time.sleep(0.1)


def test_a_redis_restart_does_not_stop_the_table(
    nodes: list[Node], backing: tuple[str, RedisServer],
) -> None:
    _, redis = backing
    table, people = four_at_one_table(nodes)
    sockets = [Socket(person, table, nodes).start() for person in people]
    play_until(table, people, lambda: people[0].state(table)["view"]["phase"] == "play")
    redis.restart(down_for=1.0)
    play_until(table, people, hand_over(people[1], table))
    final = people[0].state(table)["version"]
    sockets_reach(sockets, final)
    # The followers read what Redis lost from the database: still nothing missed or doubled.
    assert_every_event_once_in_order(sockets, final)


def test_sessions_and_the_quick_match_queue_are_shared(nodes: list[Node]) -> None:
    a, b = nodes
    cookie = sign_up(a, "Eve")
    me = httpx2.get(f"{b.base}/api/account", headers={"Cookie": f"varaq_session={cookie}"})
    assert me.json()["name"] == "Eve"  # signed in on one process, known on the other
    signer = TimestampSigner(SECRET.encode(), salt="varaq.session")
    assert signer.unsign(cookie.encode())
    players = [(n, node, sign_up(node, n)) for n, node in
               (("Fay", a), ("Gus", b), ("Hal", a), ("Ivy", b))]
    for _, node, c in players:
        response = httpx2.post(f"{node.base}/api/quick/join", json={"bots_after": None},
                              headers={"Cookie": f"varaq_session={c}"})
        assert response.status_code == 200, response.text
    deadline = time.monotonic() + 30
    tables = set()
    while time.monotonic() < deadline:
        tables = {httpx2.get(f"{node.base}/api/quick",
                            headers={"Cookie": f"varaq_session={c}"}).json().get("table")
                  for _, node, c in players}
        if None not in tables:
            break
        time.sleep(0.2)
    assert len(tables) == 1 and None not in tables


def test_a_sign_out_on_one_process_signs_the_cookie_out_on_the_other(
    nodes: list[Node],
) -> None:
    """Sessions are rows in the shared database: a sign-out made through one process is seen
    by the other as soon as its short cache of sessions runs out (2 s)."""
    a, b = nodes
    cookie = sign_up(a, "Jo")
    headers = {"Cookie": f"varaq_session={cookie}"}
    assert httpx2.get(f"{b.base}/api/account", headers=headers).json()["signed_in"] is True
    out = httpx2.post(f"{a.base}/api/account/signout", headers=headers, timeout=30)
    assert out.status_code == 200, out.text
    assert httpx2.get(f"{a.base}/api/account", headers=headers).json()["signed_in"] is False
    deadline = time.monotonic() + 30
    while httpx2.get(f"{b.base}/api/account", headers=headers).json()["signed_in"]:
        assert time.monotonic() < deadline, "the other process never saw the sign-out"
        time.sleep(0.2)


def test_sign_in_attempts_for_a_name_are_counted_across_processes(
    strict_nodes: list[Node],
) -> None:
    """Guessing a password on every process in turn gains nothing: the limit on wrong passwords
    for a name from an address lives in Redis, so the attempts on both add up.  (Counted per
    process, the attempts below would be half the limit on each, and none would be refused.)"""
    a, b = strict_nodes
    (name_limit,) = parse_many(Limits().sign_in_name)
    (address_limit,) = parse_many(Limits().sign_in_address)
    allowed = name_limit.amount
    # Every attempt here comes from 127.0.0.1: stay under the per-address limit, so a 429 can
    # only be the per-name one.
    assert allowed + 6 < address_limit.amount
    sign_up(a, "Lock")
    sign_up(b, "Key")

    def sign_in(node: Node, name: str, password: str) -> httpx2.Response:
        return httpx2.post(f"{node.base}/api/account/signin",
                          json={"name": name, "password": password}, timeout=30)

    for attempt in range(allowed):
        node = (a, b)[attempt % 2]
        response = sign_in(node, "Lock", f"wrong guess {attempt}")
        assert response.status_code == 401, (attempt, response.text)
    for node in (a, b):
        refused = sign_in(node, "Lock", "one more guess")
        assert refused.status_code == 429, refused.text
        assert "sign-in attempts for this name" in refused.json()["error"]
        # Even the right password waits: a guess that happens to be right gets no answer.
        assert sign_in(node, "lock", "correct horse").status_code == 429
    # Another name from the same address is let in on either process.
    for node in (a, b):
        assert sign_in(node, "Key", "correct horse").status_code == 200


#: The tables the migrations make, the first migration's and the later ones'.
TABLES = ("tables", "entries", "users", "seats", "lessons_done", "daily_tries", "sessions",
          "reset_codes", "audit", "ratings", "player_matches")


def _newest_revision() -> str:
    """The head of the migration scripts, read by Alembic from the folder itself (not from
    the ``HEAD`` constant the code keeps, which could fall behind a new script)."""
    from alembic.script import ScriptDirectory

    import varaq.service.migrations as migrations

    head = ScriptDirectory(str(Path(migrations.__file__).parent)).get_current_head()
    assert head is not None
    return head


def _varaq_db(*words: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "varaq.cli", "db", *words],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out.strip()


def _schema(url: str) -> tuple[list[str], list[str]]:
    engine = create_engine(url)
    with engine.connect() as c:
        versions = [r[0] for r in c.execute(text("select version_num from alembic_version"))]
        names = [r[0] for r in c.execute(text(
            "select table_name from information_schema.tables where table_schema = 'public'"))]
    engine.dispose()
    return versions, sorted(names)


def test_db_upgrade_brings_a_fresh_postgresql_database_to_the_newest_schema(
    backing: tuple[str, RedisServer],
) -> None:
    db, _ = backing
    head = _newest_revision()
    url = fresh_database(db, "upgrade_once")
    first = _finish(_varaq_db("upgrade", "--db", url))
    assert first == f"database at revision {head} (was empty)"
    again = _finish(_varaq_db("upgrade", "--db", url))  # a second run changes nothing
    assert again == f"database at revision {head} (was {head})"
    versions, names = _schema(url)
    assert versions == [head]
    assert set(TABLES) <= set(names), names
    status = _finish(_varaq_db("status", "--db", url))
    assert status == f"revision {head}; newest {head}; 0 tables"


def test_db_upgrades_started_at_once_all_succeed(backing: tuple[str, RedisServer]) -> None:
    """Processes that start together each migrate first (``varaq serve`` does): they take
    turns under an advisory lock instead of creating the same tables at once.  (A race, so
    without the lock this fails most runs rather than every one: four at once make it likely.)
    """
    db, _ = backing
    head = _newest_revision()
    url = fresh_database(db, "upgrade_together")
    upgrades = [_varaq_db("upgrade", "--db", url) for _ in range(4)]
    answers = sorted(_finish(p) for p in upgrades)
    # "was" is read under the lock: the one that migrated says so, the others found it done.
    assert answers == sorted([f"database at revision {head} (was empty)"]
                             + [f"database at revision {head} (was {head})"] * 3), answers
    versions, names = _schema(url)
    assert versions == [head]
    assert set(TABLES) <= set(names), names


def test_deploy_md_quotes_the_servers_the_tests_start() -> None:
    """docs/deploy.md shows the command lines ``tests/servers.py`` runs, word for word, and its
    table says what each PostgreSQL setting gives up: a reader who copies them knows they are
    the tests' and not a site's."""
    doc = (Path(__file__).parent.parent / "docs" / "deploy.md").read_text()
    section = doc[doc.index("## What the tests run"):doc.index("## Operating it")]
    commands = " ".join(section.replace("\\\n", " ").split())  # continued lines joined
    assert f'initdb -D "$DIR/data" {" ".join(INITDB_OPTIONS)}' in commands
    settings = " ".join(f"-c {setting}" for setting in PG_SETTINGS)
    assert (f'-o "-p $PORT -k $DIR/sockets -c listen_addresses=127.0.0.1 {settings}"'
            in commands)
    redis = " ".join(word or '""' for word in REDIS_OPTIONS)
    assert f"redis-server --port $RPORT --bind 127.0.0.1 {redis}" in commands
    for setting in PG_SETTINGS:
        assert f"`{setting}`" in section, setting  # a row of the table
    assert "not a production configuration" in section
