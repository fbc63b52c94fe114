"""What one person can learn or do to the others, tried as an attacker would (issue 16).

Each test goes through the real app and the documented protocol (docs/protocol.md):

- a hint is given only to the person who holds the seat to act, never to the partner or an
  opponent who asks while that seat's hint is being worked out (or once it is);
- a person who leaves a seat is sent no hand of it afterwards, by HTTP or on a socket still
  open, whoever holds the seat next; and that socket no longer keeps the seat "present";
- the limits are the same whatever the transport: hints over the WebSocket count against the
  same per-address limit as over HTTP, and the ones refused never reach the computer players'
  pool, so another table's Hard player keeps its thinking time; reading a table is limited too;
- one address may hold only so many sockets open.

Races are made deterministic by holding the Hard player's answer (a gate on the bot pool), and
nothing here measures time: only counts and order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from online_helpers import Person, receive_within, sign_up, wait_until
from varaq.service import botpool
from varaq.service.botpool import TABLE_BUDGET, BotAnswer
from varaq.service.settings import Limits
from web_helpers import make_app, new_game, south_choice, wait_for_south

pytestmark = pytest.mark.timeout(180)

#: Seconds a test waits for an answer the fixed server gives at once.  Only a bound: a server
#: that answers later than this is treated as one that kept the asker waiting for someone
#: else's hint (the bug), and the test then says what it got once the hint was let through.
ANSWER_PATIENCE = 10.0
SEATS = "NESW"


# -- helpers ------------------------------------------------------------------------------------


def limits(optional: dict[str, Any] | None = None, **required: Any) -> Limits:
    """Rate limits with these values.  ``required`` fields must exist (a limit this file
    proves); ``optional`` ones are set only where :class:`Limits` has them (a limit a test must
    stay clear of, such as reads while it polls)."""
    names = {f.name for f in dataclasses.fields(Limits)}
    missing = sorted(set(required) - names)
    assert not missing, f"Limits has no field {missing} (issue 16 adds it)"
    values = {k: v for k, v in (optional or {}).items() if k in names}
    values.update(required)
    return Limits(**values)


#: Limits these tests must never run into while they poll and play.
ROOMY = {"read": "100000/second", "act": "100000/second", "socket": "100000/minute",
         "sockets_per_address": 10_000}


def one_line_refusal(doc: dict[str, Any], status: int, words: str) -> None:
    assert doc.get("status", status) == status, doc
    reason = doc.get("error", "")
    assert words.lower() in reason.lower() and "\n" not in reason, doc
    assert "action" not in doc and "text" not in doc, doc


def refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    one_line_refusal(response.json(), status, words)


def next_reply(ws: WebSocketTestSession, patience: float = ANSWER_PATIENCE,
               kinds: tuple[str, ...] = ("hint", "error")) -> dict[str, Any] | None:
    """The socket's next message of one of ``kinds`` (events and table messages in between
    are skipped), or None if none came within ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            message = receive_within(ws, left)
        except AssertionError:
            return None
        if message["type"] in kinds:
            return message


def hello(ws: WebSocketTestSession) -> dict[str, Any]:
    ws.send_json({"type": "hello", "version": 0})
    message = next_reply(ws, kinds=("state",))
    assert message is not None, "no state after the hello"
    return message


class Addresses:
    """The app as seen from several client addresses: a request or socket with an
    ``X-Test-Address`` header comes from that address (what uvicorn puts in ``scope["client"]``),
    the others from the TestClient's own."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.routes = app.routes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope.get("headers") or []:
                if key == b"x-test-address":
                    scope = {**scope, "client": (value.decode(), 4321)}
        await self.app(scope, receive, send)


class HintGate:
    """Holds every Hard decision (the hints: the tables here are Easy) until opened, and counts
    them; the answer is then the Normal player's, at once.  Installed on the app's bot pool."""

    def __init__(self, client: TestClient) -> None:
        self.bots = client.app.state.tables.bots  # type: ignore[attr-defined]
        self.real = self.bots.decide
        self.opened = threading.Event()
        self.opened.set()
        #: Hard decisions asked for so far (each one a hint being worked out).
        self.entered = 0
        self.bots.decide = self.decide

    async def decide(self, level: str, view: Any, seed: str, *args: Any, **kwargs: Any) -> Any:
        if level != "hard":
            return await self.real(level, view, seed, *args, **kwargs)
        self.entered += 1
        deadline = time.monotonic() + 120.0
        while not self.opened.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        return await self.real("normal", view, seed)

    def close(self) -> None:
        self.opened.clear()

    def open(self) -> None:
        self.opened.set()


def choice(legal: list[str]) -> str:
    if "look" in legal:
        return "look"
    return "bid 3" if "bid 3" in legal else legal[0]


def three_at_a_table(client: TestClient) -> tuple[str, dict[str, Person]]:
    """Ana (the host, South), Bo (North) and Cai (West) at a started table with a computer
    player at East; the people by seat letter."""
    ana, bo, cai = (sign_up(client, name) for name in ("Ana", "Bo", "Cai"))
    doc = ana.ok("/api/tables", {"level": "easy", "rules": "varaq", "fill_bots": True},
                 status=201)
    tid, code = doc["id"], doc["code"]
    assert bo.ok("/api/tables/join", {"code": code})["seat"] == "N"
    assert cai.ok("/api/tables/join", {"code": code})["seat"] == "W"
    assert ana.ok(f"/api/games/{tid}/start")["status"] == "playing"
    return tid, {"S": ana, "N": bo, "W": cai}


# -- 1. a hint is the asker's own seat's, or nothing ----------------------------------------------


@pytest.fixture
def table_of_three(tmp_path: Path) -> Iterator[tuple[TestClient, str, dict[str, Person]]]:
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=0.2)
    with TestClient(app) as client:
        tid, people = three_at_a_table(client)
        yield client, tid, people


def test_nobody_but_the_seat_to_act_gets_its_hint_while_it_is_worked_out(
    table_of_three: tuple[TestClient, str, dict[str, Person]],
) -> None:
    """While the seat to act waits for its hint (held at the bot pool), its partner and an
    opponent ask for a hint over HTTP and over the socket: each is refused with 409 and is
    never given an action or a sentence — then, once the hint is given, again."""
    client, tid, people = table_of_three
    gate = HintGate(client)
    pool = ThreadPoolExecutor(4)
    asked: Counter[tuple[str, str]] = Counter()  # (partner/opponent, http/socket)
    with people["S"].socket(tid) as ws_s, people["N"].socket(tid) as ws_n, \
            people["W"].socket(tid) as ws_w:
        sockets = {"S": ws_s, "N": ws_n, "W": ws_w}
        for ws in sockets.values():
            hello(ws)
        try:
            for turn in range(6):
                seat, state = _next_person_to_act(tid, people)
                mover = people[seat]
                partner = SEATS[(SEATS.index(seat) + 2) % 4]
                gate.close()
                entered = gate.entered
                # The seat to act asks first (by socket, then by HTTP, turn about) ...
                own_http: Future[Any] | None = None
                if turn % 2 == 0:
                    sockets[seat].send_json({"type": "hint"})
                else:
                    own_http = pool.submit(mover.get, f"/api/games/{tid}/hint")
                wait_until(lambda e=entered: gate.entered > e, "the hint of the seat to act")
                # ... and while its hint is being worked out, the others ask.
                pending: list[tuple[str, str, str, Any]] = []
                for other in people:
                    if other == seat:
                        continue
                    role = "partner" if other == partner else "opponent"
                    way = "http" if asked[role, "http"] <= asked[role, "socket"] else "socket"
                    asked[role, way] += 1
                    if way == "http":
                        source: Any = pool.submit(people[other].get, f"/api/games/{tid}/hint")
                    else:
                        source = sockets[other]
                        source.send_json({"type": "hint"})
                    pending.append((role, other, way, source))
                early = [_answer(way, source) for _, _, way, source in pending]
                gate.open()
                own = (own_http.result(timeout=60).json() if own_http is not None
                       else next_reply(sockets[seat], 60.0))
                assert own is not None and own.get("action") in state["view"]["legal"], own
                for (role, other, way, source), doc in zip(pending, early, strict=True):
                    if doc is None:  # kept waiting: for what?
                        doc = _late(way, source)
                    assert doc.get("type", "error") == "error" and "action" not in doc, (
                        f"{role} {other} asked by {way} while {seat} waited for its hint, "
                        f"and got {seat}'s hint: {doc}")
                    one_line_refusal(doc, 409, "")
                # The hint of this position is known now: still nobody else's.
                for other in people:
                    if other == seat:
                        continue
                    refused(people[other].get(f"/api/games/{tid}/hint"), 409, "")
                    sockets[other].send_json({"type": "hint"})
                    late = next_reply(sockets[other])
                    assert late is not None and late["type"] == "error", late
                    one_line_refusal(late, 409, "")
                mover.ok(f"/api/games/{tid}/actions",
                         {"action": choice(state["view"]["legal"]), "version": state["version"]})
        finally:
            gate.open()
            pool.shutdown(wait=True)
    assert {k for k, n in asked.items() if n} == {
        ("partner", "http"), ("partner", "socket"), ("opponent", "http"), ("opponent", "socket"),
    }, asked


def _next_person_to_act(tid: str, people: dict[str, Person]) -> tuple[str, dict[str, Any]]:
    def turn() -> tuple[str, dict[str, Any]] | None:
        for seat, person in people.items():
            state = person.state(tid)
            if state["view"]["legal"]:
                return seat, state
            if state["view"]["phase"] == "deal":
                person.post(f"/api/games/{tid}/next")
        return None

    found: tuple[str, dict[str, Any]] = wait_until(turn, "a person's turn")
    return found


def _answer(way: str, source: Any) -> dict[str, Any] | None:
    """The answer to a hint asked by someone else, if it came while the hint was held."""
    if way == "http":
        try:
            response = source.result(timeout=ANSWER_PATIENCE)
        except TimeoutError:
            return None
        doc: dict[str, Any] = response.json()
        return {**doc, "status": response.status_code}
    return next_reply(source)


def _late(way: str, source: Any) -> dict[str, Any]:
    """The same answer, once the seat to act's hint was let through (a server that kept the
    asker waiting for it hands it over now)."""
    if way == "http":
        response = source.result(timeout=60)
        return {**response.json(), "status": response.status_code}
    doc = next_reply(source, 60.0)
    assert doc is not None, "no answer to a hint at all"
    return doc


# -- 2. who left is sent no hand ----------------------------------------------------------------


class Watched:
    """A socket whose every message is checked as it is read."""

    def __init__(self, ws: WebSocketTestSession, check: Any) -> None:
        self.ws = ws
        self.check = check
        self.version = 0
        self.messages: list[dict[str, Any]] = []

    def receive(self) -> dict[str, Any]:
        message = receive_within(self.ws)
        self.messages.append(message)
        self.check(message)
        if message["type"] in ("event", "state"):
            self.version = max(self.version, message["version"])
        return message

    def catch_up(self, version: int) -> None:
        while self.version < version:
            self.receive()


def no_seat(message: dict[str, Any]) -> None:
    """What a watcher's socket may be sent: no hand, nothing to do, no seat of its own."""
    kind = message["type"]
    assert kind != "hint", message
    if "you" in message:
        assert message["you"] is None, f"a {kind} message for seat {message['you']}"
    view = message.get("view")
    if view is not None:
        assert view["hand"] == [], f"a {kind} message (version {message.get('version')}) " \
            f"with the hand of {view.get('seat')}: {view['hand']}"
        assert view["legal"] == [] and view.get("seat") is None, (kind, view.get("seat"))
    for doc in (message, message.get("table") or {}):
        for seat in doc.get("seats") or []:
            assert not seat["you"], f"a {kind} message calls seat {seat['seat']} theirs"


def play_until(tid: str, people: dict[str, Person], done: Any, reader: Watched | None = None,
               limit: int = 3000) -> dict[str, Any]:
    """Each person acts whenever it is their turn (and asks for the next hand), reading and
    checking ``reader``'s socket as the game goes, until ``done(state)`` for the host's state;
    that state, at a person's turn or between hands (the computer players then wait)."""
    host = people["S"]
    for _ in range(limit):
        state = host.state(tid)
        if reader is not None:
            reader.catch_up(state["version"])
        if done(state):
            return state
        if state["view"]["phase"] == "over":
            return state
        moved = False
        for person in people.values():
            mine = person.state(tid)
            if mine["view"]["legal"]:
                person.post(f"/api/games/{tid}/actions", {
                    "action": choice(mine["view"]["legal"]), "version": mine["version"]})
                moved = True
            elif mine["view"]["phase"] == "deal":
                person.post(f"/api/games/{tid}/next")
        if not moved:
            time.sleep(0.005)
    raise AssertionError("the table never got there")


def at_a_persons_turn(people: dict[str, Person]) -> Any:
    """``done`` for :func:`play_until`: a person is to act (so nobody else moves meanwhile)."""
    letters = set(people)

    def check(state: dict[str, Any]) -> bool:
        view = state["view"]
        return view["phase"] in ("bid", "play") and view["turn"] in letters

    return check


def test_a_person_who_leaves_is_sent_no_hand_of_that_seat_afterwards(tmp_path: Path) -> None:
    """Bo (North) keeps a socket open and leaves: the socket is sent a fresh watcher's state
    at once, and over the following hands — North played by a computer player while open, then
    given to one, then opened again and taken by Dee — nothing with a hand in it."""
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=0.2)
    with TestClient(app) as client:
        tid, everyone = three_at_a_table(client)
        people = {seat: p for seat, p in everyone.items() if seat != "N"}
        ana, bo = everyone["S"], everyone["N"]
        dee = sign_up(client, "Dee")
        with bo.socket(tid) as ws:
            first = hello(ws)
            assert first["you"] == "N" and len(first["view"]["hand"]) == 13
            # Bo plays too until it is Ana's or Cai's turn: then nobody else moves.
            play_until(tid, everyone, at_a_persons_turn(people))
            left = bo.ok(f"/api/games/{tid}/leave")
            assert left["you"] is None and left["view"]["hand"] == []
            assert bo.state(tid)["you"] is None
            # At once: a watcher's state, before any event after the leave (the leave's own
            # event may come first, without a hand).
            reader = Watched(ws, lambda m: None)
            while True:
                message = reader.receive()
                if message["type"] == "state" and message["version"] >= left["version"]:
                    break
                if message["type"] == "event" and message["version"] >= left["version"]:
                    assert message["version"] == left["version"], (
                        "the socket of the person who left was sent events after the leave "
                        f"before a fresh state: {message['version']} > {left['version']}")
                    no_seat(message)
            no_seat(message)
            reader.check = no_seat
            # North is open: a computer player plays it to the end of the hand.
            hand = left["view"]["hand_no"]
            play_until(tid, people, lambda s: s["view"]["hand_no"] > hand
                       and at_a_persons_turn(people)(s), reader)
            # The host gives North to a computer player for a while ...
            ana.ok(f"/api/games/{tid}/seat", {"seat": "N", "to": "bot"})
            state = play_until(tid, people, lambda s: s["view"]["hand_no"] > hand + 1
                               and at_a_persons_turn(people)(s), reader)
            # ... then opens it, and Dee takes it for the rest of that hand.
            ana.ok(f"/api/games/{tid}/seat", {"seat": "N", "to": "open"})
            code = ana.state(tid)["table"]["code"]
            joined = dee.ok("/api/tables/join", {"code": code})
            assert joined["seat"] == "N" and len(joined["state"]["view"]["hand"]) > 0
            people["N"] = dee
            hand = state["view"]["hand_no"]
            end = play_until(tid, people, lambda s: s["view"]["hand_no"] > hand, reader)
            assert end["view"]["phase"] == "over" or end["view"]["hand_no"] > hand
            reader.catch_up(ana.state(tid)["version"])
        events = [m for m in reader.messages if m["type"] == "event"]
        assert len(events) > 50, f"only {len(events)} events read after the leave"
        assert bo.state(tid)["you"] is None and bo.state(tid)["view"]["hand"] == []


def test_a_socket_of_who_left_does_not_keep_the_seat_present(tmp_path: Path) -> None:
    """Bo leaves with a socket open; Dee takes North.  North shows as not present until Dee
    connects, and when Dee's socket closes her countdown starts (Bo's socket is not hers)."""
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=600.0)
    with TestClient(app) as client:
        tid, people = three_at_a_table(client)
        ana, bo = people["S"], people["N"]
        dee = sign_up(client, "Dee")

        def north() -> dict[str, Any]:
            seat: dict[str, Any] = ana.state(tid)["table"]["seats"][0]
            assert seat["seat"] == "N"
            return seat

        with bo.socket(tid) as ws:
            hello(ws)
            wait_until(lambda: north()["present"], "Bo present")
            bo.ok(f"/api/games/{tid}/leave")
            code = ana.state(tid)["table"]["code"]
            assert dee.ok("/api/tables/join", {"code": code})["seat"] == "N"
            seat = north()
            assert seat["kind"] == "person" and seat["name"] == "Dee"
            assert seat["present"] is False, f"North is Dee's and she has no socket: {seat}"
            with dee.socket(tid) as dws:
                hello(dws)
                wait_until(lambda: north()["present"], "Dee present")
            away = wait_until(lambda: (s := north())["away"] and s, "Dee's countdown",
                              patience=20.0)
            assert away["takeover"] and away["name"] == "Dee" and not away["auto"]


# -- 3. one set of limits, whatever the transport ------------------------------------------------


class CountingBots:
    """The bot pool's ``decide``, counting the Hard decisions (hints: the tables are Easy) and
    answering them with the Normal player at once."""

    def __init__(self, client: TestClient) -> None:
        self.bots = client.app.state.tables.bots  # type: ignore[attr-defined]
        self.real = self.bots.decide
        self.hard = 0
        self.bots.decide = self.decide

    async def decide(self, level: str, view: Any, seed: str, *args: Any, **kwargs: Any) -> Any:
        if level != "hard":
            return await self.real(level, view, seed, *args, **kwargs)
        self.hard += 1
        return await self.real("normal", view, seed)


def flood_hints(client: TestClient, gid: str, count: int,
                headers: dict[str, str] | None = None) -> tuple[Counter[str], list[int]]:
    """``count`` hint messages over sockets to ``gid``, a new socket whenever the server closes
    one; what came back (``hint``, ``429``, other statuses, ``none`` for a message sent to a
    socket the server then closed) and the close codes."""
    answers: Counter[str] = Counter()
    closes: list[int] = []
    sent = 0
    while sent < count:
        with client.websocket_connect(f"/ws/games/{gid}", headers=headers or {}) as ws:
            hello(ws)
            try:
                while sent < count:
                    ws.send_json({"type": "hint"})
                    sent += 1
                    reply = next_reply(ws)
                    assert reply is not None, "a hint message was not answered"
                    if reply["type"] == "hint":
                        answers["hint"] += 1
                    else:
                        answers[str(reply["status"])] += 1
                        one_line_refusal(reply, reply["status"], "")
                        if reply["status"] == 429:
                            assert "hint" in reply["error"], reply
            except WebSocketDisconnect as e:
                answers["none"] += 1
                closes.append(e.code)
    return answers, closes


def test_a_thousand_socket_hints_are_limited_like_http_ones(tmp_path: Path) -> None:
    """Five hints a minute from one address: two asked over HTTP, then 1,000 over sockets get
    three answers between them, and every other one is a 429; HTTP is then refused too.  The
    refused ones never reach the bot pool."""
    app = make_app(tmp_path, pace=1000.0, limits=limits(ROOMY, hint="5/minute"))
    with TestClient(app) as client:
        bots = CountingBots(client)
        gid = new_game(client, dealer="E")["id"]  # South bids first, and the bots never move
        for _ in range(2):
            response = client.get(f"/api/games/{gid}/hint")
            assert response.status_code == 200 and response.json()["action"], response.text
        answers, closes = flood_hints(client, gid, 1000)
        assert answers["hint"] == 3, f"1,000 socket hints from one address: {dict(answers)}"
        assert answers["429"] + answers["none"] == 997, dict(answers)
        assert set(answers) <= {"hint", "429", "none"}, dict(answers)
        assert all(code in (1008, 4429) for code in closes), closes
        refused(client.get(f"/api/games/{gid}/hint"), 429, "too many hints")
        assert bots.hard <= 5, f"{bots.hard} Hard decisions for 5 hints answered"


class Recording(ThreadPoolExecutor):
    """Threads in place of the Hard players' processes, noting each decision and the time
    budget the pool gave it: ``VICTIM`` for a decision of the victim's table (told apart by
    the hand it is asked for: a bid's seed is made of the view alone), else its seed."""

    def __init__(self) -> None:
        super().__init__(max_workers=16)
        self.lock = threading.Lock()
        self.asked: list[tuple[str, float]] = []
        #: The victim's hands by seat, once its table is dealt.
        self.victim: list[Any] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        view, seed, budget = args[1], args[2], args[3]  # decide_in_worker(level, view, …)
        victim = bool(self.victim) and view.hand == self.victim[view.seat]
        with self.lock:
            self.asked.append((VICTIM if victim else seed, budget))
        return super().submit(fn, *args, **kwargs)


VICTIM_SEED = 777
VICTIM = "victim"


def test_refused_hints_never_reach_the_pool_so_another_tables_hard_keeps_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An address that used up its hints floods more over sockets at three tables while the
    Hard players of someone else's table decide: none of the flood reaches the pool (the pool
    then would share its time out), so each of their decisions gets the whole budget."""
    held = threading.Event()

    def hard(level: str, view: Any, seed: str, budget: float, samples: Any = None) -> BotAnswer:
        worker = recording[0]
        if not (worker.victim and view.hand == worker.victim[view.seat]):
            held.wait(120.0)  # a hint: held while the flood goes on
        return BotAnswer(view.legal[0], "the first legal action", "hard")

    recording: list[Recording] = []
    monkeypatch.setattr(botpool, "decide_in_worker", hard)
    app = make_app(tmp_path, limits=limits(ROOMY, hint="3/minute"))
    held.set()
    with TestClient(Addresses(app)) as client:
        worker = client.app.state.tables.bots._executor = Recording()  # type: ignore
        recording.append(worker)
        victim = {"X-Test-Address": "192.0.2.7"}
        attacker = {"X-Test-Address": "198.51.100.66"}
        response = client.post("/api/games", json={
            "level": "hard", "dealer": "E", "seed": VICTIM_SEED}, headers=victim)
        assert response.status_code == 201, response.text
        vid = response.json()["id"]
        table = client.portal.call(client.app.state.tables.get, vid)  # type: ignore
        worker.victim = [table.game.view(seat).hand for seat in range(4)]
        tables = []
        for seed in (1, 2, 3):
            made = client.post("/api/games", json={"level": "easy", "dealer": "E",
                                                   "seed": seed}, headers=attacker)
            assert made.status_code == 201, made.text
            tables.append(made.json()["id"])
        assert worker.asked == []
        for _ in range(3):  # the attacker's three hints a minute
            assert client.get(f"/api/games/{tables[0]}/hint", headers=attacker
                              ).status_code == 200
        spent = len(worker.asked)
        held.clear()
        try:
            with client.websocket_connect(f"/ws/games/{tables[0]}", headers=attacker) as w0, \
                    client.websocket_connect(f"/ws/games/{tables[1]}", headers=attacker) as w1, \
                    client.websocket_connect(f"/ws/games/{tables[2]}", headers=attacker) as w2:
                flood = (w0, w1, w2)
                for ws in flood:
                    hello(ws)
                for ws in flood:
                    ws.send_json({"type": "hint"})
                deadline = time.monotonic() + ANSWER_PATIENCE
                first = [next_reply(ws, max(0.1, deadline - time.monotonic())) for ws in flood]
                # Meanwhile the victim bids, and its three Hard players bid after it.
                st = wait_for_south(_Via(client, victim), vid)  # type: ignore[arg-type]
                response = client.post(f"/api/games/{vid}/actions", json={
                    "action": south_choice(st["view"]), "version": st["version"]},
                    headers=victim)
                assert response.status_code == 200, response.text
                wait_until(lambda: sum(s == VICTIM for s, _ in worker.asked) >= 3,
                           "the victim's Hard players' bids")
                held.set()
                first = [doc if doc is not None else next_reply(ws, 60.0)
                         for doc, ws in zip(first, flood, strict=True)]
        finally:
            held.set()
        answers, _ = flood_hints(client, tables[1], 100, headers=attacker)
    hints_in_pool = [s for s, _ in worker.asked[spent:] if s != VICTIM]
    budgets = [b for s, b in worker.asked if s == VICTIM]
    assert budgets and all(b == TABLE_BUDGET for b in budgets), (
        f"the victim's Hard players were given {budgets}, not {TABLE_BUDGET} s each")
    assert not hints_in_pool, (
        f"{len(hints_in_pool)} hints over the limit went to the pool: {hints_in_pool[:5]}…")
    for doc in first:
        assert doc is not None and doc["type"] == "error", doc
        one_line_refusal(doc, 429, "too many hints")
    assert answers["hint"] == 0 and answers["429"] > 0, dict(answers)


class _Via:
    """A TestClient whose requests all carry these headers (for helpers that take a client)."""

    def __init__(self, client: TestClient, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = headers

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers)


def test_reading_a_table_is_limited_per_address(tmp_path: Path) -> None:
    app = make_app(tmp_path, pace=1000.0, limits=limits(read="4/minute"))
    with TestClient(Addresses(app)) as client:
        gid = new_game(client)["id"]
        for _ in range(4):
            assert client.get(f"/api/games/{gid}").status_code == 200
        refused(client.get(f"/api/games/{gid}"), 429, "too many")
        refused(client.get(f"/api/games/{gid}?since=1"), 429, "too many")
        # Another address reads on.
        other = client.get(f"/api/games/{gid}", headers={"X-Test-Address": "192.0.2.9"})
        assert other.status_code == 200, other.text


def test_reading_a_table_is_limited_by_default(tmp_path: Path) -> None:
    """With the limits a real server has, one address polling a table as fast as it can is
    refused before its 1,201st read of the minute (at 40 a second, much sooner)."""
    app = make_app(tmp_path, pace=1000.0, limits=Limits())
    with TestClient(app) as client:
        gid = new_game(client)["id"]
        answered = 0
        for _ in range(1300):
            response = client.get(f"/api/games/{gid}")
            if response.status_code != 200:
                break
            answered += 1
        assert response.status_code == 429, f"{answered} reads from one address, none refused"
        refused(response, 429, "too many")
        assert answered <= 1200, answered


# -- 4. sockets per address ---------------------------------------------------------------------


def test_one_address_may_hold_only_so_many_sockets(tmp_path: Path) -> None:
    """Three sockets from one address: the fourth is accepted, told why in one line and closed
    with 4429; another address is not counted with it; once one of the three closes, a new one
    is welcome again."""
    app = make_app(tmp_path, pace=1000.0, limits=limits(ROOMY, sockets_per_address=3))
    with TestClient(Addresses(app)) as client:
        games = [new_game(client)["id"] for _ in range(2)]
        with client.websocket_connect(f"/ws/games/{games[0]}") as ws0, \
                client.websocket_connect(f"/ws/games/{games[0]}") as ws2:
            with client.websocket_connect(f"/ws/games/{games[1]}") as ws1:
                for ws in (ws0, ws1, ws2):
                    hello(ws)
                with client.websocket_connect(f"/ws/games/{games[1]}") as ws3:
                    _refused_for_too_many(ws3)
                # Another address is not counted with this one.
                with client.websocket_connect(f"/ws/games/{games[1]}",
                                              headers={"X-Test-Address": "192.0.2.8"}) as far:
                    assert hello(far)["type"] == "state"
                # The three still work.
                for ws in (ws0, ws1, ws2):
                    ws.send_json({"type": "pace", "pace": "fast"})
                    reply = next_reply(ws, kinds=("pace", "error"))
                    assert reply is not None and reply["type"] == "pace", reply
            # One of them has closed: a new one is welcome again (and the next is not).
            with client.websocket_connect(f"/ws/games/{games[1]}") as ws4:
                assert hello(ws4)["type"] == "state"
                with client.websocket_connect(f"/ws/games/{games[1]}") as ws5:
                    _refused_for_too_many(ws5)


def _refused_for_too_many(ws: WebSocketTestSession) -> None:
    message = receive_within(ws, ANSWER_PATIENCE)
    assert message["type"] == "error" and message["status"] == 429, message
    assert message["error"].startswith("too many open connections from your address"), message
    assert "\n" not in message["error"]
    with pytest.raises(WebSocketDisconnect) as info:
        receive_within(ws, ANSWER_PATIENCE)
    assert info.value.code == 4429


def test_the_socket_cap_counts_open_sockets_not_sockets_ever_opened(tmp_path: Path) -> None:
    app = make_app(tmp_path, pace=1000.0, limits=limits(ROOMY, sockets_per_address=2))
    with TestClient(app) as client:
        gid = new_game(client)["id"]
        for _ in range(10):
            with client.websocket_connect(f"/ws/games/{gid}") as a, \
                    client.websocket_connect(f"/ws/games/{gid}") as b:
                hello(a)
                hello(b)
        with client.websocket_connect(f"/ws/games/{gid}") as a, \
                client.websocket_connect(f"/ws/games/{gid}") as b:
            hello(a)
            hello(b)
            for _ in range(3):  # refused ones are not counted either
                with client.websocket_connect(f"/ws/games/{gid}") as c:
                    _refused_for_too_many(c)
        with client.websocket_connect(f"/ws/games/{gid}") as a:
            assert hello(a)["type"] == "state"


def test_the_default_cap_is_64_sockets_an_address(tmp_path: Path) -> None:
    cap = getattr(Limits(), "sockets_per_address", 64)
    assert cap == 64
    app = make_app(tmp_path, pace=1000.0, limits=Limits())
    with TestClient(app) as client, ExitStack() as stack:
        gid = new_game(client)["id"]
        for _ in range(cap):
            stack.enter_context(client.websocket_connect(f"/ws/games/{gid}"))
        with client.websocket_connect(f"/ws/games/{gid}") as one_more:
            _refused_for_too_many(one_more)
