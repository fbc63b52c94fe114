"""Online tables: private tables with a code, seating order, starting, acting only for your own
seat, drops and the computer player standing in, the turn timer, concessions between partners,
play again, phrases, and the quick-match queue."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq.service.newtable import CODE_ALPHABET
from varaq.service.quickmatch import Chair, QuickMatch
from web_helpers import make_app, run_async

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    """Computer players at once; drops, turns and the next hand in fractions of a second."""
    app = make_app(tmp_path, drop_seconds=0.3, next_hand_seconds=0.5, turn_second=0.01)
    with TestClient(app) as client:
        yield client


@pytest.fixture
def slow_bots(tmp_path: Path) -> Iterator[TestClient]:
    """Computer players that never move during a test."""
    app = make_app(tmp_path, pace=1000.0, drop_seconds=0.3, turn_second=0.01)
    with TestClient(app) as client:
        yield client


def people(client: TestClient, *names: str) -> list[Person]:
    return [sign_up(client, name) for name in names]


def open_table(host: Person, **body: Any) -> dict[str, Any]:
    body.setdefault("level", "easy")
    return host.ok("/api/tables", body, status=201)


def seats(state: dict[str, Any]) -> dict[str, str]:
    return {s["seat"]: s["kind"] if s["kind"] != "person" else s["name"] for s in
            state["seats"]}


# -- opening and joining ----------------------------------------------------------------------


def test_online_tables_need_an_account(app_client: TestClient) -> None:
    for path in ("/api/tables", "/api/tables/join", "/api/quick/join"):
        response = app_client.post(path, json={"code": "ABCDEF"})
        assert response.status_code == 401 and "sign in" in response.json()["error"]


def test_a_table_has_a_short_random_code_and_the_host_sits_south(app_client: TestClient) -> None:
    ana, = people(app_client, "Ana")
    doc = open_table(ana, rules={"preset": "varaq", "target": 300})
    code = doc["code"]
    assert len(code) == 6 and all(ch in CODE_ALPHABET for ch in code)
    assert not set(code) & set("0O1I")
    state = doc["state"]
    assert state["you"] == "S" and state["status"] == "seating"
    assert seats(state) == {"N": "open", "E": "open", "S": "You", "W": "open"}
    assert state["table"]["code"] == code and state["view"]["badges"][0] == "Custom"
    assert open_table(ana)["code"] != code


def test_people_fill_the_hosts_partner_seat_first_then_the_other_side(
    app_client: TestClient,
) -> None:
    ana, bo, cai, dee, eve = people(app_client, "Ana", "Bo", "Cai", "Dee", "Eve")
    doc = open_table(ana, fill_bots=False)
    code = doc["code"]
    joined = [p.ok("/api/tables/join", {"code": c})["seat"]
              for p, c in ((bo, code), (cai, code.lower()), (dee, f" {code[:3]}-{code[3:]} "))]
    assert joined == ["N", "W", "E"]
    state = ana.state(doc["id"])
    assert seats(state) == {"N": "Bo", "E": "Dee", "S": "You", "W": "Cai"}
    again = bo.ok("/api/tables/join", {"code": code})  # joining twice keeps the seat
    assert again["seat"] == "N"
    full = eve.post("/api/tables/join", {"code": code})
    assert full.status_code == 409 and "full" in full.json()["error"]
    wrong = eve.post("/api/tables/join", {"code": "ZZZZZZ"})
    assert wrong.status_code == 404 and "code" in wrong.json()["error"]
    assert ana.get("/api/account").json()["tables"][0]["id"] == doc["id"]


def test_join_attempts_are_rate_limited(tmp_path: Path) -> None:
    from varaq.service.settings import Limits

    with TestClient(make_app(tmp_path, limits=Limits(join="3/minute"))) as client:
        bo, = people(client, "Bo")
        for _ in range(3):
            assert bo.post("/api/tables/join", {"code": "QQQQQQ"}).status_code == 404
        response = bo.post("/api/tables/join", {"code": "QQQQQQ"})
        assert response.status_code == 429 and "join" in response.json()["error"]


def test_the_host_starts_with_two_people_when_bots_fill_the_seats(
    app_client: TestClient,
) -> None:
    ana, bo = people(app_client, "Ana", "Bo")
    doc = open_table(ana, fill_bots=True)
    refused = ana.post(f"/api/games/{doc['id']}/start")
    assert refused.status_code == 409 and "at least one more" in refused.json()["error"]
    bo.ok("/api/tables/join", {"code": doc["code"]})
    assert bo.post(f"/api/games/{doc['id']}/start").status_code == 403  # only the host
    state = ana.ok(f"/api/games/{doc['id']}/start")
    assert state["status"] == "playing" and state["view"]["phase"] in ("bid", "blind")
    assert seats(state) == {"N": "Bo", "E": "bot", "S": "You", "W": "bot"}
    assert len(state["view"]["hand"]) == 13


def test_without_bots_the_host_waits_for_four(app_client: TestClient) -> None:
    ana, bo, cai, dee = people(app_client, "Ana", "Bo", "Cai", "Dee")
    doc = open_table(ana, fill_bots=False)
    for person in (bo, cai):
        person.ok("/api/tables/join", {"code": doc["code"]})
    response = ana.post(f"/api/games/{doc['id']}/start")
    assert response.status_code == 409 and "four people" in response.json()["error"]
    dee.ok("/api/tables/join", {"code": doc["code"]})
    assert ana.ok(f"/api/games/{doc['id']}/start")["status"] == "playing"


def test_variations_can_change_until_the_first_deal(app_client: TestClient) -> None:
    ana, bo = people(app_client, "Ana", "Bo")
    doc = open_table(ana)
    tid = doc["id"]
    state = ana.ok(f"/api/games/{tid}/configure",
                   {"rules": {"preset": "varaq", "jokers": True}, "level": "easy"})
    assert "Big Joker Little Joker" in state["view"]["badges"]
    assert bo.post(f"/api/games/{tid}/configure", {"rules": "classic"}).status_code == 403
    bo.ok("/api/tables/join", {"code": doc["code"]})
    assert bo.post(f"/api/games/{tid}/configure", {"rules": "classic"}).status_code == 403
    ana.ok(f"/api/games/{tid}/start")
    late = ana.post(f"/api/games/{tid}/configure", {"rules": "classic"})
    assert late.status_code == 409 and "cannot change" in late.json()["error"]
    assert "Big Joker Little Joker" in bo.state(tid)["view"]["badges"]


# -- acting at a table of people ------------------------------------------------------------------


def started_table(client: TestClient, fill_bots: bool = True) -> tuple[str, Person, Person]:
    ana, bo = people(client, "Ana", "Bo")
    doc = open_table(ana, fill_bots=fill_bots, rules="varaq")
    bo.ok("/api/tables/join", {"code": doc["code"]})
    ana.ok(f"/api/games/{doc['id']}/start")
    return doc["id"], ana, bo


def test_each_person_acts_only_for_their_own_seat_and_sees_only_their_cards(
    slow_bots: TestClient,
) -> None:
    tid, ana, bo = started_table(slow_bots)
    a, b = ana.state(tid), bo.state(tid)
    assert a["you"] == "S" and b["you"] == "N"
    assert not set(a["view"]["hand"]) & set(b["view"]["hand"])
    turn = a["view"]["turn"]
    for person, state in ((ana, a), (bo, b)):
        if state["you"] != turn:
            response = person.post(f"/api/games/{tid}/actions", {"action": "bid 3"})
            assert response.status_code == 409 and "turn" in response.json()["error"]
    watcher = sign_up(slow_bots, "Cai")
    seen = watcher.state(tid)
    assert seen["you"] is None and seen["view"]["hand"] == [] and seen["view"]["legal"] == []
    assert watcher.post(f"/api/games/{tid}/actions", {"action": "bid 3"}).status_code == 403
    slow_bots.cookies.clear()
    assert slow_bots.post(f"/api/games/{tid}/actions", json={"action": "bid 3"}).status_code == 403
    record = watcher.get(f"/api/games/{tid}/record").json()
    assert record["reader"] == "watcher" and "deal" not in record["hands"][-1]


def table_now(person: Person, tid: str) -> tuple[int, dict[str, str]]:
    """The table's version and who sits where: what a refused request must leave alone."""
    state = person.state(tid)
    return state["version"], seats(state)


def first_turn_of(tid: str, *persons: Person) -> tuple[Person, dict[str, Any]]:
    """Whichever of ``persons`` must act first, and their state (the computer players move at
    once, and nobody else acts, so the table then waits for that person)."""
    def turn() -> tuple[Person, dict[str, Any]] | None:
        for person in persons:
            state = person.state(tid)
            if state["view"]["legal"]:
                return person, state
        return None

    found: tuple[Person, dict[str, Any]] = wait_until(turn, "a person's turn")
    return found


def test_an_action_at_a_stale_version_is_refused(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    mover, state = first_turn_of(tid, ana, bo)
    before = table_now(ana, tid)
    choice = state["view"]["legal"][0]
    for version in (state["version"] - 1, state["version"] + 1):
        stale = mover.post(f"/api/games/{tid}/actions", {"action": choice, "version": version})
        assert stale.status_code == 409 and "stale version" in stale.json()["error"]
        assert table_now(ana, tid) == before
    mover.ok(f"/api/games/{tid}/actions", {"action": choice, "version": state["version"]})
    assert table_now(ana, tid)[0] > before[0]


def test_a_seat_named_in_the_body_is_ignored(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    mover, state = first_turn_of(tid, ana, bo)
    other = bo if mover is ana else ana
    turn, choice = state["view"]["turn"], state["view"]["legal"][0]
    before = table_now(ana, tid)
    # The other person names the seat whose turn it is: they still act for their own seat.
    body = {"action": choice, "seat": turn, "version": state["version"]}
    forged = other.post(f"/api/games/{tid}/actions", body)
    assert forged.status_code == 409 and "turn" in forged.json()["error"]
    assert table_now(ana, tid) == before
    with other.socket(tid) as ws:
        ws.send_json({"type": "action", **body})
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["status"] == 409
    assert table_now(ana, tid) == before
    # The one to move names East, a computer player's seat: the move is still their own.
    mover.ok(f"/api/games/{tid}/actions", {**body, "seat": "E"})
    event = events_of(ana, tid, since=state["version"])[0]
    assert event["seat"] == turn and event["action"] == choice
    assert seats(ana.state(tid)) == before[1]


def test_a_finished_match_takes_nobody_new_and_no_more_moves(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    code = ana.state(tid)["table"]["code"]
    ana.ok(f"/api/games/{tid}/seat", {"seat": "E", "to": "open"})  # a seat someone could take
    ana.ok(f"/api/games/{tid}/concede")  # Bo is away: Ana concedes alone
    assert ana.state(tid)["status"] == "over"
    before = table_now(ana, tid)
    assert before[1]["E"] == "open"
    cai = sign_up(app_client, "Cai")
    late = cai.post("/api/tables/join", {"code": code})
    assert late.status_code == 409 and "this match is over" in late.json()["error"]
    assert table_now(ana, tid) == before
    for person, path, body in (
        (ana, "actions", {"action": "bid 3"}),
        (bo, "actions", {"action": "bid 3", "version": before[0]}),
        (bo, "next", None),
        (bo, "concede", None),
    ):
        response = person.post(f"/api/games/{tid}/{path}", body)
        assert response.status_code == 409, (path, response.text)
        assert "match is over" in response.json()["error"]
        assert table_now(ana, tid) == before


def test_the_host_opens_a_seat_and_someone_new_takes_it_mid_match(
    app_client: TestClient,
) -> None:
    tid, ana, bo = started_table(app_client)
    code = ana.state(tid)["table"]["code"]
    opened = ana.ok(f"/api/games/{tid}/seat", {"seat": "E", "to": "open"})
    assert seats(opened)["E"] == "open" and opened["status"] == "playing"
    # While it is open a computer player plays East, so the match goes on.
    wait_until(lambda: act_for(ana, tid) or act_for(bo, tid) or any(
        e["seat"] == "E" for e in events_of(ana, tid, since=opened["version"])),
        "East played while open")
    cai = sign_up(app_client, "Cai")
    joined = cai.ok("/api/tables/join", {"code": code})
    assert joined["seat"] == "E" and joined["state"]["you"] == "E"
    assert seats(ana.state(tid))["E"] == "Cai"
    hand = set(joined["state"]["view"]["hand"])
    assert hand and not hand & set(ana.state(tid)["view"]["hand"])

    def cais_turn() -> dict[str, Any] | None:
        act_for(ana, tid)
        act_for(bo, tid)
        state = cai.state(tid)
        return state if state["view"]["legal"] else None

    # East is Cai's now: the computer player no longer moves for it, Cai does.
    mine = wait_until(cais_turn, "Cai's turn")
    choice = mine["view"]["legal"][0]
    cai.ok(f"/api/games/{tid}/actions", {"action": choice, "version": mine["version"]})
    event = events_of(ana, tid, since=mine["version"])[0]
    assert event["seat"] == "E" and event["action"] == choice and "auto" not in event
    full = sign_up(app_client, "Dee").post("/api/tables/join", {"code": code})
    assert full.status_code == 409 and "full" in full.json()["error"]


def play_out(person: Person, tid: str, steps: int = 60) -> dict[str, Any]:
    """Act for this person whenever it is their turn, until the hand is over."""
    state = person.state(tid)
    for _ in range(steps):
        view = state["view"]
        if view["phase"] in ("deal", "over"):
            return state
        if view["legal"]:
            choice = "bid 2" if "bid 2" in view["legal"] else view["legal"][0]
            person.post(f"/api/games/{tid}/actions", {"action": choice})
        state = wait_until(lambda: settled(person.state(tid)), "a turn")
    return state


def settled(state: dict[str, Any]) -> dict[str, Any] | None:
    """The state if its reader must act or the hand is over, else None."""
    view = state["view"]
    return state if view["legal"] or view["phase"] in ("deal", "over") else None


def test_a_dropped_player_is_played_for_and_takes_over_again(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    with bo.socket(tid) as ws:
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"
        present = ana.state(tid)["table"]["seats"][0]
        assert present["present"] is True and present["away"] is False
    # Bo's only socket closed: the seat is kept, reconnecting, then a computer player plays.
    away = wait_until(lambda: (s := ana.state(tid)["table"]["seats"][0])["away"] and s, "away")
    assert away["takeover"] and away["kind"] == "person" and away["name"] == "Bo"
    wait_until(lambda: ana.state(tid)["table"]["seats"][0]["auto"], "a computer player for Bo")
    events: list[dict[str, Any]] = []
    for _ in range(80):  # Ana plays on; Bo's turns are played for Bo
        play_out(ana, tid, steps=1)
        events = ana.get(f"/api/games/{tid}?since=0").json()["events"]
        if any(e.get("auto") and e["seat"] == "N" for e in events):
            break
    assert any(e.get("auto") and e["seat"] == "N" for e in events)
    with bo.socket(tid) as ws:  # Bo comes back and is himself again
        ws.send_json({"type": "hello", "version": 0})
        ws.receive_json()
        seat = wait_until(lambda: (s := ana.state(tid)["table"]["seats"][0])["present"] and s,
                          "Bo present again")
        assert not seat["auto"] and not seat["away"]

        def bos_turn() -> dict[str, Any] | None:
            act_for(ana, tid)  # Ana plays on, and asks for the next hand when one ends
            state = bo.state(tid)
            if state["view"]["phase"] == "deal":
                bo.post(f"/api/games/{tid}/next")
            return state if state["view"]["legal"] else None

        # Bo's next turn waits for Bo: nobody plays it for him, and his own move is taken.
        mine = wait_until(bos_turn, "Bo's turn")
        assert not ana.state(tid)["table"]["seats"][0]["auto"]
        choice = mine["view"]["legal"][0]
        done = bo.ok(f"/api/games/{tid}/actions", {"action": choice, "version": mine["version"]})
        assert done["version"] > mine["version"]
        after = ana.get(f"/api/games/{tid}?since={mine['version']}").json()["events"]
        assert after[0]["seat"] == "N" and after[0]["action"] == choice
        assert "auto" not in after[0], after[0]


def act_for(person: Person, tid: str) -> None:
    """One move for ``person`` if it is their turn (the first legal one), or their request for
    the next hand once a hand is over: a test waiting for someone else's turn plays on."""
    state = person.state(tid)
    if state["view"]["legal"]:
        choice = "bid 2" if "bid 2" in state["view"]["legal"] else state["view"]["legal"][0]
        person.post(f"/api/games/{tid}/actions", {"action": choice, "version": state["version"]})
    elif state["view"]["phase"] == "deal":
        person.post(f"/api/games/{tid}/next")


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[TestClient]:
    """A turn timer's 30 seconds last 6 here: long enough for a test to act in time, short
    enough to wait for once."""
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=0.5, turn_second=0.2)
    with TestClient(app) as client:
        yield client


def events_of(person: Person, tid: str, since: int = 0) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = person.get(f"/api/games/{tid}?since={since}").json()["events"]
    return events


def test_the_turn_timer_plays_one_slow_turn_and_no_more(timed: TestClient) -> None:
    ana, bo = people(timed, "Ana", "Bo")
    doc = open_table(ana, fill_bots=True, turn_timer=30)
    bo.ok("/api/tables/join", {"code": doc["code"]})
    tid = doc["id"]
    with ana.socket(tid), bo.socket(tid):  # both present: only the timer can act for them
        ana.ok(f"/api/games/{tid}/start")
        first = wait_until(lambda: next((e for e in events_of(ana, tid) if e.get("auto")), None),
                           "a timed-out turn played for someone")
        seat = first["seat"]
        assert seat in ("N", "S")
        slow, other = (ana, bo) if seat == "S" else (bo, ana)
        assert not ana.state(tid)["table"]["seats"]["NESW".index(seat)]["auto"]

        def their_turn_again() -> dict[str, Any] | None:
            act_for(other, tid)
            state = slow.state(tid)
            if state["view"]["phase"] == "deal":
                slow.post(f"/api/games/{tid}/next")
            mine = state["view"]["legal"] and state["version"] >= first["version"]
            return state if mine else None

        # The next turn is the slow person's own again, and a move in time is theirs.
        mine = wait_until(their_turn_again, "the slow person's next turn")
        choice = mine["view"]["legal"][0]
        slow.ok(f"/api/games/{tid}/actions", {"action": choice, "version": mine["version"]})
        after = events_of(ana, tid, since=mine["version"])
        assert after[0]["seat"] == seat and after[0]["action"] == choice
        assert "auto" not in after[0]
        played_for = [e for e in events_of(ana, tid, since=first["version"])
                      if e["seat"] == seat and e.get("auto")]
        assert played_for == [], "the timer played more than one turn for the slow person"
        assert not ana.state(tid)["table"]["seats"]["NESW".index(seat)]["auto"]


def test_a_dropped_player_has_sixty_seconds_to_come_back(tmp_path: Path) -> None:
    from varaq.service.settings import Settings

    assert Settings().drop_seconds == 60.0
    assert Settings.from_env(secret=b"s" * 32).drop_seconds == 60.0  # as varaq serve starts
    with TestClient(make_app(tmp_path)) as client:  # the default countdown
        tid, ana, bo = started_table(client)
        with bo.socket(tid) as ws:
            ws.send_json({"type": "hello", "version": 0})
            ws.receive_json()
        before = time.time()
        away = wait_until(lambda: (s := ana.state(tid)["table"]["seats"][0])["away"] and s,
                          "Bo away")
        # When the computer player is due (a deadline shown to the others), not a wait: only
        # far from 60 s if the countdown were another one.
        left = away["takeover"] / 1000 - before
        assert 30 < left <= 61 and not away["auto"]


def test_conceding_needs_a_present_partners_agreement(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    with ana.socket(tid), bo.socket(tid):
        offered = ana.ok(f"/api/games/{tid}/concede")
        assert offered["concede"] == "offered" and offered["status"] == "playing"
        assert offered["table"]["offer"]["seat"] == "S"
        bo.ok(f"/api/games/{tid}/decline")
        assert ana.state(tid)["table"]["offer"] is None
        ana.ok(f"/api/games/{tid}/concede")
        done = bo.ok(f"/api/games/{tid}/concede")
        assert done["concede"] == "conceded" and done["view"]["winner"] == "EW"


def test_with_a_computer_partner_a_concession_is_at_once(app_client: TestClient) -> None:
    ana, bo = people(app_client, "Ana", "Bo")
    doc = open_table(ana, fill_bots=True)
    bo.ok("/api/tables/join", {"code": doc["code"]})
    tid = doc["id"]
    ana.ok(f"/api/games/{tid}/seat", {"seat": "W", "to": "bot"})
    ana.ok(f"/api/games/{tid}/start")
    # Bo sits North, Ana's partner; Bo is away (no socket): Ana may concede alone.
    assert ana.ok(f"/api/games/{tid}/concede")["concede"] == "conceded"


def test_play_again_keeps_seats_and_variations_with_new_deals(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    early = ana.post(f"/api/games/{tid}/again")
    assert early.status_code == 409 and "not over" in early.json()["error"]
    ana.ok(f"/api/games/{tid}/concede")  # Bo is away: Ana concedes alone
    new = ana.ok(f"/api/games/{tid}/again", status=201)
    assert new["id"] != tid and seats(new["state"]) == seats(ana.state(tid))
    assert new["state"]["status"] == "playing"
    assert bo.ok(f"/api/games/{tid}/again", status=201)["id"] == new["id"]
    assert ana.state(tid)["table"]["next"] == new["id"]
    profile = ana.get("/api/account").json()
    assert profile["played"] == 1 and profile["won"] == 0


def test_quick_phrases_reach_everyone_and_nothing_else_does(app_client: TestClient) -> None:
    tid, ana, bo = started_table(app_client)
    with bo.socket(tid) as ws:
        ws.send_json({"type": "hello", "version": 0})
        ws.receive_json()
        ana.ok(f"/api/games/{tid}/phrase", {"phrase": "gg"})
        message = wait_until(lambda: (m := ws.receive_json())["type"] == "phrase" and m,
                             "the phrase")
        assert message == {"type": "phrase", "seat": "S", "phrase": "gg", "text": "Good game"}
    bad = ana.post(f"/api/games/{tid}/phrase", {"phrase": "Hi, my cards are..."})
    assert bad.status_code == 400 and "unknown phrase" in bad.json()["error"]
    fast = ana.post(f"/api/games/{tid}/phrase", {"phrase": "nice"})
    assert fast.status_code == 429


def test_the_host_can_hand_an_absent_seat_to_a_bot(app_client: TestClient) -> None:
    tid, ana, _ = started_table(app_client)
    wait_until(lambda: ana.state(tid)["table"]["seats"][0]["present"] is False, "Bo is away")
    ana.ok(f"/api/games/{tid}/seat", {"seat": "N", "to": "bot"})
    assert seats(ana.state(tid))["N"] == "bot"
    assert ana.post(f"/api/games/{tid}/seat", {"seat": "S", "to": "bot"}).status_code == 409
    assert ana.post(f"/api/games/{tid}/seat", {"seat": "X", "to": "bot"}).status_code == 400


# -- quick match ------------------------------------------------------------------------------


def test_quick_match_seats_four_in_arrival_order(app_client: TestClient) -> None:
    group = people(app_client, "Ana", "Bo", "Cai", "Dee", "Eve")
    for person in group:
        status = person.ok("/api/quick/join", {"bots_after": None})
        assert status["state"] in ("waiting", "seated")
    tables = {p.name: wait_until(lambda p=p: p.get("/api/quick").json().get("table"), "seated")
              for p in group[:4]}
    assert len(set(tables.values())) == 1
    state = group[0].state(tables["Ana"])
    assert state["kind"] == "quick" and state["view"]["rules"] == "varaq"
    assert seats(state) == {"S": "You", "N": "Bo", "E": "Cai", "W": "Dee"}
    eve = group[4].get("/api/quick").json()
    assert eve["state"] == "waiting" and eve["position"] == 1
    assert group[4].ok("/api/quick/leave")["state"] == "idle"


def test_quick_match_fills_with_bots_after_the_chosen_wait(app_client: TestClient) -> None:
    ana, bo = people(app_client, "Ana", "Bo")
    ana.ok("/api/quick/join", {"bots_after": 2})  # long enough for Bo to arrive
    bo.ok("/api/quick/join", {"bots_after": 0})
    table = wait_until(lambda: ana.get("/api/quick").json().get("table"), "seated")
    state = ana.state(table)
    assert sorted(seats(state).values()) == ["Bo", "You", "bot", "bot"]
    bad = ana.post("/api/quick/join", {"bots_after": -5})
    assert bad.status_code == 400 and "bots_after" in bad.json()["error"]


def test_the_queue_groups_by_arrival_and_wait() -> None:
    now = [0.0]
    made: list[list[tuple[int, str]]] = []

    async def seat(chairs: list[Chair | None]) -> Any:
        made.append(sorted((c.user_id, c.name) for c in chairs if c is not None))
        return type("T", (), {"id": f"t{len(made)}"})()

    async def go() -> None:
        q = QuickMatch(seat, clock=lambda: now[0])
        q._ensure_running = lambda: None  # type: ignore[method-assign]
        await q.join(1, "a", 30)
        await q.join(2, "b", None)
        await q.join(3, "c", 5)
        await q.tick()
        assert made == []
        now[0] = 31.0  # the first has waited long enough: with the next who allows bots
        await q.tick()
        assert made == [[(1, "a"), (3, "c")]] and [w.user_id for w in q.queue] == [2]
        assert (await q.status(1))["table"] == "t1"
        assert (await q.status(2))["state"] == "waiting"

    run_async(go())


def test_a_group_still_waits_while_its_table_is_made() -> None:
    """Between leaving the queue and having a table, a group asked for its status must hear
    "waiting": "idle" made the page stop asking, and that person never reached the table
    (seen in the browser's quick match of four on a loaded machine)."""
    release = asyncio.Event()

    async def seat(chairs: list[Chair | None]) -> Any:
        await release.wait()  # the table takes a while to make
        return type("T", (), {"id": "t1"})()

    async def go() -> None:
        q = QuickMatch(seat)
        q._ensure_running = lambda: None  # type: ignore[method-assign]
        for uid in range(1, 6):
            await q.join(uid, f"p{uid}", None)
        ticking = asyncio.get_running_loop().create_task(q.tick())
        await asyncio.sleep(0)
        assert [w.user_id for w in q.queue] == [5]  # four are off the queue, being seated
        for uid in range(1, 5):
            status = await q.status(uid)
            assert status["state"] == "waiting", status
            assert status["position"] == uid
        assert (await q.status(5))["position"] == 5
        release.set()
        await ticking
        assert {(await q.status(uid))["table"] for uid in range(1, 5)} == {"t1"}
        assert (await q.status(5))["state"] == "waiting"

    run_async(go())
