"""Live tables and quick match by rating.

- A host chooses whether their table is listed under Live tables: private (the default) is
  never listed, only the host may change it, only before the start, and a bad word is refused
  with its reason and changes nothing.
- ``GET /api/live`` lists the public tables still seating or in play, with what any watcher may
  see (names, rules, score, hand, watchers), and a Watch link that opens the table as a watcher.
- The quick-match queue seats close ratings together, widens the allowed gap the longer the
  longest waiter waits, balances the sides, and tells each person how long they waited.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq.service.live import LiveTables
from varaq.service.quickmatch import Chair, QuickMatch, Waiting, allowed_gap, balance
from varaq.service.settings import Limits
from web_helpers import make_app, run_async

pytestmark = pytest.mark.timeout(120)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """Computer players that never move during a test (the score and hand stay put)."""
    app = make_app(tmp_path, pace=1000.0)
    with TestClient(app) as c:
        yield c


def live(client: TestClient, who: Person | None = None) -> list[dict[str, Any]]:
    """``GET /api/live`` now (the answer kept for two seconds is made again first)."""
    state = client.app.state  # type: ignore[attr-defined]
    state.live = LiveTables(state.tables)
    if who is None:
        client.cookies.clear()
        response = client.get("/api/live")
    else:
        response = who.get("/api/live")
    assert response.status_code == 200, response.text
    tables: list[dict[str, Any]] = response.json()["tables"]
    return tables


def open_table(host: Person, **body: Any) -> dict[str, Any]:
    body.setdefault("level", "easy")
    return host.ok("/api/tables", body, status=201)


# -- public or private ------------------------------------------------------------------------


def test_a_private_table_is_never_listed_and_a_public_one_is(client: TestClient) -> None:
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    hidden = open_table(ana)
    assert hidden["state"]["table"]["public"] is False
    shown = open_table(bo, listing="public")
    assert shown["state"]["table"]["public"] is True
    assert [t["id"] for t in live(client)] == [shown["id"]]
    # A private table stays off the list once it plays too.
    cai = sign_up(client, "Cai")
    cai.ok("/api/tables/join", {"code": hidden["code"]})
    ana.ok(f"/api/games/{hidden['id']}/start")
    assert [t["id"] for t in live(client)] == [shown["id"]]
    assert hidden["id"] not in str(live(client, ana))


def test_only_the_host_lists_a_table_and_only_before_the_start(client: TestClient) -> None:
    ana, bo, cai = (sign_up(client, n) for n in ("Ana", "Bo", "Cai"))
    doc = open_table(ana)
    tid = doc["id"]
    path = f"/api/games/{tid}/listing"
    bo.ok("/api/tables/join", {"code": doc["code"]})
    for who, status, words in ((bo, 403, "only the host"), (cai, 403, "only the host")):
        refused = who.post(path, {"listing": "public"})
        assert refused.status_code == status and words in refused.json()["error"]
    client.cookies.clear()
    assert client.post(path, json={"listing": "public"}).status_code == 401
    for bad in ("everyone", 1, None, "PUBLIC"):
        refused = ana.post(path, {"listing": bad})
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"].startswith('listing must be "public" or "private"')
    assert ana.post("/api/tables", {"listing": "open"}).status_code == 400
    assert ana.state(tid)["table"]["public"] is False and live(client) == []

    listed = ana.ok(path, {"listing": "public"})
    assert listed["table"]["public"] is True
    assert bo.state(tid)["table"]["public"] is True  # everyone at the table sees it
    assert [t["id"] for t in live(client)] == [tid]
    assert ana.ok(path, {"listing": "private"})["table"]["public"] is False
    assert live(client) == []
    ana.ok(path, {"listing": "public"})
    ana.ok(f"/api/games/{tid}/start")
    late = ana.post(path, {"listing": "private"})
    assert late.status_code == 409 and "once the match has started" in late.json()["error"]
    assert [t["id"] for t in live(client)] == [tid]


def test_a_live_row_shows_what_any_watcher_may_see(client: TestClient) -> None:
    ana, bo, cai = (sign_up(client, n) for n in ("Ana", "Bo", "Cai"))
    rules = {"preset": "classic", "target": 300}
    doc = open_table(ana, listing="public", rules=rules)
    tid = doc["id"]
    [row] = live(client)
    assert row["status"] == "seating" and row["hand"] == 0 and row["watch"] == f"/play/{tid}"
    assert [(s["seat"], s["kind"], s["name"]) for s in row["seats"]] == [
        ("N", "open", None), ("E", "open", None), ("S", "person", "Ana"), ("W", "open", None)]
    bo.ok("/api/tables/join", {"code": doc["code"]})
    ana.ok(f"/api/games/{tid}/start")
    with cai.socket(tid) as ws:
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"
        [row] = live(client)
        assert row["status"] == "playing" and row["hand"] == 1
        assert row["score"] == {"NS": 0, "EW": 0} and row["target"] == 300
        assert "Target 300" in row["badges"] and "Blind nil" in row["badges"]
        assert {s["seat"]: s["name"] or s["kind"] for s in row["seats"]} == {
            "N": "Bo", "E": "bot", "S": "Ana", "W": "bot"}
        assert row["watchers"] == 1  # Cai, without a seat; the seated people are not counted
        assert "code" not in row and not any("hand" in str(s) for s in row["seats"])
    wait_until(lambda: live(client)[0]["watchers"] == 0, "the watcher's socket closed")
    # The Watch link opens the table as a watcher: no seat, no cards.
    client.cookies.clear()
    watched = client.get(f"/api/games/{tid}").json()
    assert watched["you"] is None and watched["view"]["hand"] == []


def test_live_tables_are_a_read_counted_against_its_limit(tmp_path: Path) -> None:
    app = make_app(tmp_path, pace=1000.0, limits=Limits(read="3/minute"))
    with TestClient(app) as c:
        codes = [c.get("/api/live").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


# -- quick match by rating ---------------------------------------------------------------------


def queue(clock: Clock) -> tuple[QuickMatch, list[list[Chair | None]]]:
    made: list[list[Chair | None]] = []

    async def seat(chairs: list[Chair | None]) -> Any:
        made.append(chairs)
        return type("T", (), {"id": f"t{len(made)}"})()

    q = QuickMatch(seat, clock=clock)
    q._ensure_running = lambda: None  # type: ignore[method-assign]
    return q, made


def people_of(chairs: list[Chair | None]) -> set[int]:
    return {c.user_id for c in chairs if c is not None}


def test_close_ratings_sit_together_whatever_the_order_they_came() -> None:
    clock = Clock()
    q, made = queue(clock)
    ratings = {1: 10.0, 2: 30.0, 3: 11.0, 4: 31.0, 5: 12.0, 6: 32.0, 7: 13.0, 8: 33.0}

    async def go() -> None:
        for uid, rating in ratings.items():
            await q.join(uid, f"p{uid}", None, rating)
        await q.tick()

    run_async(go())
    assert sorted(people_of(m) for m in made) == [{1, 3, 5, 7}, {2, 4, 6, 8}]
    assert q.queue == []


def test_the_allowed_gap_widens_the_longer_someone_waits() -> None:
    clock = Clock()
    q, made = queue(clock)

    async def go() -> None:
        for uid, rating in ((1, 20.0), (2, 25.0), (3, 30.0), (4, 35.0)):
            await q.join(uid, f"p{uid}", None, rating)
        for second in (0, 10, 30, 59):
            clock.now = second
            await q.tick()
            assert made == [], f"a spread of 15 seated after {second} s"
        clock.now = 61  # the gap is now 15.2: the four sit down
        await q.tick()

    run_async(go())
    assert allowed_gap(0) < allowed_gap(30) < allowed_gap(61)
    assert [people_of(m) for m in made] == [{1, 2, 3, 4}]


def test_a_newcomer_close_in_rating_is_preferred_to_an_early_far_one() -> None:
    clock = Clock()
    q, made = queue(clock)

    async def go() -> None:
        for uid, rating in ((1, 25.0), (2, 40.0), (3, 26.0), (4, 24.0)):
            await q.join(uid, f"p{uid}", None, rating)
        clock.now = 5.0
        await q.join(5, "p5", None, 25.5)
        await q.tick()

    run_async(go())
    assert [people_of(m) for m in made] == [{1, 3, 4, 5}]
    assert [w.user_id for w in q.queue] == [2]


def test_partners_and_opponents_are_balanced_by_rating() -> None:
    clock = Clock()
    q, made = queue(clock)

    async def go() -> None:
        for uid, rating in ((1, 30.0), (2, 29.0), (3, 21.0), (4, 20.0)):
            await q.join(uid, f"p{uid}", None, rating)
        clock.now = 60.0
        await q.tick()

    run_async(go())
    [chairs] = made
    by_seat = [c.user_id if c else None for c in chairs]  # N, E, S, W
    assert by_seat == [4, 2, 1, 3]  # 30 with 20 against 29 with 21
    # Two people and two computer players (21): opponents, each with a computer partner.
    pair = balance([Waiting(7, "a", 0, None, 25.0), Waiting(8, "b", 0, None, 25.0)], 0)
    assert [c.user_id if c else None for c in pair] == [None, 8, 7, None]
    # Equal ratings keep arrival order: the first two are partners, the first at South.
    same = balance([Waiting(i, str(i), 0, None, 25.0) for i in (1, 2, 3, 4)], 0)
    assert [c.user_id if c else None for c in same] == [2, 3, 1, 4]


def test_computer_players_fill_only_around_close_ratings() -> None:
    clock = Clock()
    q, made = queue(clock)

    async def go() -> None:
        await q.join(1, "a", 0, 25.0)
        await q.join(2, "b", 0, 40.0)
        await q.join(3, "c", 0, 26.0)
        await q.join(4, "d", None, 25.0)  # people only: not pulled into a table of bots
        await q.tick()

    run_async(go())
    assert [people_of(m) for m in made] == [{1, 3}, {2}]
    assert [w.user_id for w in q.queue] == [4]


def test_each_person_is_told_how_long_they_waited() -> None:
    clock = Clock()
    q, made = queue(clock)

    async def go() -> None:
        await q.join(1, "a", None)
        clock.now = 4.0
        await q.join(2, "b", None)
        await q.join(3, "c", None)
        clock.now = 12.0
        await q.join(4, "d", None)
        assert (await q.status(1))["waited"] == 12.0
        await q.tick()
        waits = {c.user_id: c.waited for c in made[0] if c is not None}
        assert waits == {1: 12.0, 2: 8.0, 3: 8.0, 4: 0.0}
        status = await q.status(1)
        assert status["state"] == "seated" and status["table"] == "t1"
        assert status["waited"] == waits[1]

    run_async(go())


def test_the_seated_table_shows_each_person_their_own_wait(tmp_path: Path) -> None:
    app = make_app(tmp_path, pace=1000.0)
    with TestClient(app) as c:
        ana, bo = sign_up(c, "Ana"), sign_up(c, "Bo")
        ana.ok("/api/quick/join", {"bots_after": 1})
        bo.ok("/api/quick/join", {"bots_after": 0})
        table = wait_until(lambda: ana.get("/api/quick").json().get("table"), "seated")
        status = ana.get("/api/quick").json()
        assert status["state"] == "seated" and status["waited"] >= 0
        mine = ana.state(table)["table"]
        theirs = bo.state(table)["table"]
        assert mine["waited"] == status["waited"]
        assert theirs["waited"] == bo.get("/api/quick").json()["waited"]
        c.cookies.clear()
        watcher = c.get(f"/api/games/{table}").json()["table"]
        assert "waited" not in watcher


def test_when_a_table_cannot_be_made_every_group_of_that_look_waits_again() -> None:
    clock = Clock()
    tries: list[set[int]] = []

    async def seat(chairs: list[Chair | None]) -> Any:
        tries.append(people_of(chairs))
        raise RuntimeError("the database is away")

    q = QuickMatch(seat, clock=clock)
    q._ensure_running = lambda: None  # type: ignore[method-assign]

    async def go() -> None:
        for uid in range(1, 9):
            await q.join(uid, f"p{uid}", None, 10.0 if uid % 2 else 30.0)
            clock.now += 1
        await q.tick()

    run_async(go())
    assert tries == [{1, 3, 5, 7}]  # the first failed: the second was not tried, nor lost
    assert [w.user_id for w in q.queue] == list(range(1, 9))
