"""Hostile input is normal: every limit a client can run into, each proved with a small value.

Sizes (bodies, socket messages), depth (nested JSON), rates (per address, per socket), who may
post (JSON from this site's pages only), the headers every answer carries, and what one client
can do to another's game: nothing — its own outbox fills, not the table's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from online_helpers import receive_within, wait_until
from varaq.rules import Rules
from varaq.service import botpool
from varaq.service.botpool import MIN_BUDGET, BotAnswer, BotPool
from varaq.service.commands import Asker
from varaq.service.fanout import Listener
from varaq.service.journal import Line
from varaq.service.newtable import TableInfo, new_table_id
from varaq.service.seating import BOT, Seating
from varaq.service.settings import Limits
from varaq.service.table import Table
from web_helpers import TEST_SETTINGS, make_app, new_game, run_async, south_choice, state

JSON = {"Content-Type": "application/json"}


def refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    reason = response.json()["error"]
    assert words.lower() in reason.lower() and "\n" not in reason, reason


def limited(tmp_path: Path, **limits: Any) -> TestClient:
    """An app whose rate limits are the given ones (everything else as the other tests)."""
    return TestClient(make_app(tmp_path, limits=Limits(**limits)))


# -- sizes and depths -------------------------------------------------------------------------


def test_deeply_nested_json_is_a_400_not_a_crash(frozen: TestClient) -> None:
    client = frozen
    gid = new_game(client)["id"]
    for depth in (9, 100, 8000):
        body = "[" * depth + "]" * depth
        refused(client.post(f"/api/games/{gid}/actions", content=body, headers=JSON), 400,
                "nested too deeply")
    nested = {"action": "bid 3", "x": {"a": {"b": {"c": {"d": {"e": {"f": {"g": [1]}}}}}}}}
    refused(client.post(f"/api/games/{gid}/actions", json=nested), 400, "nested too deeply")
    assert state(client, gid)["version"] == 1
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text("[" * 5000 + "]" * 5000)
        reply = ws.receive_json()
        assert reply["status"] == 400 and "nested too deeply" in reply["error"]
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"  # the socket is still there


def test_a_declared_length_over_the_limit_is_refused_before_reading(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{}", headers={
        **JSON, "Content-Length": "999999999"})
    assert response.status_code == 413


def test_an_oversized_socket_message_is_refused(frozen: TestClient) -> None:
    gid = new_game(frozen)["id"]
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "action", "action": "x" * 20_000}))
        reply = ws.receive_json()
        assert reply["status"] == 413


@pytest.mark.parametrize("text", ["²", "bid ¹", "bid ３", "bid " + "9" * 5000, "1" * 5000])
def test_numbers_are_ascii_digits_only(frozen: TestClient, text: str) -> None:
    gid = new_game(frozen, dealer="E")["id"]  # South bids first
    response = frozen.post(f"/api/games/{gid}/actions", json={"action": text})
    assert response.status_code == 400, response.text
    assert state(frozen, gid)["version"] == 1
    refused(frozen.get(f"/api/games/{gid}?since=²"), 400, "whole number")
    refused(frozen.get(f"/api/games/{gid}?since=" + "9" * 50), 400, "whole number")


@pytest.mark.parametrize("rules", [
    {"preset": "varaq", "target": 10**100},
    {"preset": "varaq", "mercy": -(10**30)},
    {"preset": "varaq", "bag_penalty": 10**9},
])
def test_extreme_rule_values_are_refused(client: TestClient, rules: dict[str, Any]) -> None:
    response = client.post("/api/games", json={"rules": rules})
    assert response.status_code == 422 and "\n" not in response.json()["error"]


# -- who may post -------------------------------------------------------------------------------


def test_only_json_bodies_change_anything(client: TestClient) -> None:
    refused(client.post("/api/games", content=b'{"level": "easy"}',
                        headers={"Content-Type": "text/plain"}), 415, "application/json")
    refused(client.post("/api/games", content=b"level=easy",
                        headers={"Content-Type": "application/x-www-form-urlencoded"}),
            415, "application/json")
    # An empty body that names another type is refused too: it is what another site's empty
    # <form> posts, and a concession needs no body at all.
    gid = new_game(client)["id"]
    before = state(client, gid)
    for kind in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "text/plain;charset=UTF-8"):
        refused(client.post(f"/api/games/{gid}/concede", content=b"",
                            headers={"Content-Type": kind}), 415, "application/json")
        assert state(client, gid)["version"] == before["version"]
    assert state(client, gid)["status"] == "playing"
    # No body with no type (what fetch sends for a POST without a body), or as JSON: fine.
    assert client.post("/api/games").status_code == 201
    assert client.post("/api/games", content=b"", headers=JSON).status_code == 201
    assert client.post(f"/api/games/{gid}/concede").status_code == 200
    assert state(client, gid)["status"] == "over"


def test_another_sites_pages_cannot_post_or_open_a_socket(client: TestClient) -> None:
    gid = new_game(client)["id"]
    evil = {"Origin": "https://evil.example"}
    refused(client.post("/api/games", json={}, headers=evil), 403, "another site")
    refused(client.post(f"/api/games/{gid}/concede", json={}, headers=evil), 403, "another site")
    with pytest.raises(WebSocketDisconnect) as info, \
            client.websocket_connect(f"/ws/games/{gid}", headers=evil):
        pass
    assert info.value.code == 1008
    ours = {"Origin": "http://testserver"}
    assert client.post("/api/games", json={}, headers=ours).status_code == 201
    with client.websocket_connect(f"/ws/games/{gid}", headers=ours) as ws:
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/presets", "/rules", "/static/app.js", "/api/nothing"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


def test_pages_are_compressed_and_static_files_cached(client: TestClient) -> None:
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert page.headers["cache-control"] == "no-cache"
    hashed = client.app.state.static_hash  # type: ignore[attr-defined]
    assert f"/static/{hashed}/app.js" in page.text
    script = client.get(f"/static/{hashed}/app.js", headers={"Accept-Encoding": "gzip"})
    assert script.status_code == 200 and script.headers["content-encoding"] == "gzip"
    assert "immutable" in script.headers["cache-control"]
    plain = client.get("/static/app.js")
    assert plain.headers["cache-control"] == "no-cache" and plain.headers.get("etag")
    again = client.get("/static/app.js", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304


# -- rates --------------------------------------------------------------------------------------


def test_creating_games_is_limited_per_address(tmp_path: Path) -> None:
    with limited(tmp_path, create="3/minute") as client:
        for _ in range(3):
            assert client.post("/api/games", json={"level": "easy"}).status_code == 201
        refused(client.post("/api/games", json={"level": "easy"}), 429,
                "too many new games: at most 3 per minute")


def test_hints_are_limited_per_address(tmp_path: Path) -> None:
    with limited(tmp_path, hint="2/minute") as client:
        gid = new_game(client, dealer="E")["id"]
        client.app.state.tables.pace = None  # type: ignore[attr-defined]
        for _ in range(2):
            assert client.get(f"/api/games/{gid}/hint").status_code == 200
        refused(client.get(f"/api/games/{gid}/hint"), 429, "too many hints")


def test_a_socket_that_floods_is_answered_with_429_then_closed(tmp_path: Path) -> None:
    with limited(tmp_path, socket="5/second") as client:
        gid = new_game(client)["id"]
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            statuses = []
            with pytest.raises(WebSocketDisconnect) as info:
                for _ in range(200):
                    ws.send_json({"type": "pace", "pace": "fast"})
                    message = ws.receive_json()
                    statuses.append(message.get("status"))
            assert info.value.code == 1008
            assert statuses.count(429) > 5 and None in statuses


def test_hellos_waiting_together_are_answered_by_one_state() -> None:
    async def go() -> None:
        listener = Listener(Asker(), reader=2, size=50)
        for since in range(100):
            listener.ask_resync(since)
        # One resync is due, from the newest version the client named, and nothing else.
        assert listener.resync and listener.version == 99 and not listener.messages

    run_async(go())


def test_a_hello_flood_is_rate_limited_and_other_games_go_on(tmp_path: Path) -> None:
    # Per minute, so the flood cannot outlast a window and start again: 20 hellos are
    # answered, then refusals until the socket is closed.
    with limited(tmp_path, socket="20/minute", act="1000/second", read="1000/second") as client:
        flooded, other = new_game(client)["id"], new_game(client, dealer="E")["id"]
        answers: list[int] = []  # the other game's, while the flood goes on
        moves = 0
        with client.websocket_connect(f"/ws/games/{other}") as watch, \
                client.websocket_connect(f"/ws/games/{flooded}") as ws:
            watch.send_json({"type": "hello", "version": 0})
            seen = receive_within(watch)["version"]
            states = errors = 0
            with pytest.raises(WebSocketDisconnect):
                for _ in range(500):
                    ws.send_json({"type": "hello", "version": 0})
                    # Before the flooding socket's answer is read, the other game moves on:
                    # South acts over HTTP, and the game's own socket is sent the move.
                    st = state(client, other)
                    if st["view"]["legal"]:
                        response = client.post(f"/api/games/{other}/actions", json={
                            "action": south_choice(st["view"]), "version": st["version"]})
                        answers.append(response.status_code)
                        moves += 1
                        while seen <= st["version"]:
                            message = receive_within(watch)
                            if message["type"] in ("event", "state"):
                                seen = max(seen, message["version"])
                    elif st["view"]["phase"] == "deal":
                        answers.append(client.post(f"/api/games/{other}/next").status_code)
                    message = ws.receive_json()
                    states += message["type"] == "state"
                    errors += message.get("status") == 429
        assert states <= 20 and errors > 0
        # Every move answered, and (the loop above) sent to the other game's socket.
        assert moves >= 5 and answers.count(200) == len(answers), answers


def test_a_seat_change_before_the_hello_waits_for_the_hello() -> None:
    """A socket whose hello has not come yet is sent no state of its own when its person's seat
    changes (or the table is read again): the hello's state will be the new seat's, and two
    states would give it the same events twice."""
    async def go() -> None:
        listener = Listener(Asker(user=7), reader=2, size=50)
        listener.reseat(None)
        assert not listener.resync and not listener.greeted
        listener.ask_resync(0)
        assert listener.resync
        listener.resync = False
        listener.reseat(2)  # after the hello, a change of seat is a fresh state at once
        assert listener.resync and listener.reader == 2

    run_async(go())


def test_a_slow_socket_fills_its_own_outbox_and_is_resynchronised() -> None:
    async def go() -> None:
        listener = Listener(Asker(), reader=2, size=3)
        listener.ask_resync(0)
        listener.resync = False
        for version in range(1, 10):
            listener.push({"type": "event", "version": version})
        assert listener.resync and len(listener.messages) < 3

    run_async(go())


def test_one_hint_is_worked_out_for_many_requests(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E")["id"]
    tables = frozen.app.state.tables  # type: ignore[attr-defined]
    calls = []
    real = tables.bots.decide

    async def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        await asyncio.sleep(0.2)
        return await real(*args, **kwargs)

    tables.bots.decide = counting
    table = frozen.portal.call(tables.get, gid)  # type: ignore[union-attr]

    async def many() -> list[dict[str, str]]:
        return list(await asyncio.gather(*(table.hints.for_seat(2) for _ in range(50))))

    answers = frozen.portal.call(many)  # type: ignore[union-attr]
    assert len({a["action"] for a in answers}) == 1
    assert calls.count("hard") == 1


def test_hard_decisions_share_the_budget_when_the_pool_is_busy() -> None:
    pool = BotPool(processes=2)
    assert pool.budget_for(0.6) == 0.6
    pool.waiting = 5
    assert pool.budget_for(0.6) == pytest.approx(0.2)
    pool.waiting = 500
    assert pool.budget_for(0.6) == MIN_BUDGET


class OneWorker(ThreadPoolExecutor):
    """One worker thread in place of the Hard players' processes, noting each decision as a
    table asks for it and as the worker takes it up, by the table it is for: the seed names
    the table, except a bid's, which is made of the bidder's view only (see
    ``bots.advice.bid_seed``) — ``tables`` then finds the table whose seat holds that hand."""

    def __init__(self, tables: Any = None) -> None:
        super().__init__(max_workers=1)
        self.tables = tables
        self.lock = threading.Lock()
        self.asked: list[str] = []
        self.served: list[str] = []
        #: Decisions of each table in the pool now (waiting or being worked out), and the most.
        self.inside: Counter[str] = Counter()
        self.most: Counter[str] = Counter()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        view, seed = args[1], args[2]  # decide_in_worker(level, view, seed, budget, samples)
        table = self.table_of(view, seed)
        with self.lock:
            self.asked.append(table + seed[seed.index(":"):] if seed.startswith("bid:")
                              else seed)
            self.inside[table] += 1
            self.most[table] = max(self.most[table], self.inside[table])

        asked = self.asked[-1]

        def run() -> Any:
            with self.lock:
                self.served.append(asked)
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.inside[table] -= 1

        return super().submit(run)


    def table_of(self, view: Any, seed: str) -> str:
        if not seed.startswith("bid:"):
            return seed.split(":")[0]
        found = [t.info.seed for t in self.tables._tables.values()
                 if t.game.view(view.seat).hand == view.hand]
        assert len(found) == 1, found
        return str(found[0])


def thinking(level: str, view: Any, seed: str, budget: float, samples: Any = None) -> BotAnswer:
    """A stand-in for the Hard player that holds the worker a moment, as its search would."""
    time.sleep(0.03)
    return BotAnswer(view.legal[0], "the first legal action", "hard")


def test_hard_decisions_of_two_busy_tables_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each table asks for one decision at a time and the pool serves them in arrival order,
    so two tables of Hard players take turns: neither waits behind the other's whole hand."""
    monkeypatch.setattr(botpool, "decide_in_worker", thinking)
    with TestClient(make_app(tmp_path)) as client:
        tables = client.app.state.tables  # type: ignore[attr-defined]
        worker = tables.bots._executor = OneWorker(tables)

        async def two_tables() -> list[Table]:
            made = []
            for seed in ("first", "second"):
                info = TableInfo(new_table_id(), "solo", "hard", Rules.named("varaq"), seed)
                made.append(await tables.create(info, Seating([BOT] * 4, started=True),
                                                [Line("deal")]))
            return made

        first, second = client.portal.call(two_tables)  # type: ignore[union-attr]
        wait_until(lambda: first.game.phase_name == second.game.phase_name == "deal",
                   "both hands played out")
    assert len(worker.served) == 2 * (4 + 52)  # four bids and 13 tricks at each table
    assert worker.served == worker.asked  # taken up in the order they were asked for
    assert worker.most == {"first": 1, "second": 1}  # never two of one table in the pool
    order = [seed.split(":")[0] for seed in worker.served]
    turns = sum(a != b for a, b in itertools.pairwise(order))
    assert turns >= len(order) // 2, "".join(t[0] for t in order)


def test_many_hints_at_two_tables_are_one_decision_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(botpool, "decide_in_worker", thinking)
    with TestClient(make_app(tmp_path)) as client:
        tables = client.app.state.tables  # type: ignore[attr-defined]
        worker = tables.bots._executor = OneWorker(tables)
        games = [new_game(client, level="hard", dealer="E", seed=seed)["id"] for seed in (5, 6)]
        at = [client.portal.call(tables.get, gid) for gid in games]  # type: ignore[union-attr]

        async def hints() -> list[dict[str, str]]:  # South bids first at both
            return list(await asyncio.gather(*(t.hints.for_seat(2) for _ in range(20) for t in at)))

        answers = client.portal.call(hints)  # type: ignore[union-attr]
    # One decision a table (a bid's seed is the bidder's view: see OneWorker).
    assert [seed.split(":")[0] for seed in sorted(worker.asked)] == ["5", "6"]
    assert worker.most == {"5": 1, "6": 1}
    for table in (0, 1):  # everyone at a table was given the one answer
        assert len({a["action"] for a in answers[table::2]}) == 1


# -- storage and bookkeeping ----------------------------------------------------------------------


def test_a_storage_failure_while_creating_a_game_is_503(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app) as client:
        def broken(**kwargs: Any) -> None:
            raise OSError("disk full")

        app.state.store.create_table = broken
        refused(client.post("/api/games", json={}), 503, "could not store the new game")


def test_the_settings_used_by_the_tests_are_in_test_mode() -> None:
    assert TEST_SETTINGS.test_mode and not TEST_SETTINGS.limits.rates
    assert Limits().rates and Limits().body_bytes == 16_384
