"""A watcher who finds a table under Live tables is never sent a hand, at any phase.

Ana hosts a public table (blind nil from the first hand, with a two-card exchange: the hands
hardest to keep apart), Bo joins, and computer players take East and West.  Two watchers —
Wes, signed in without a seat, and a visitor who is not signed in — find the table in
``GET /api/live`` and open it by its Watch link: again at every moment of the match (seating,
the blind nil choice, the exchange, the bidding, the play, between two hands, and the end),
each time with a new socket and a new request, as someone clicking Watch just then would.
Every answer and every socket message of every reader is checked against the server's own
game with :mod:`secrecy_helpers` (the same checks as ``test_secrecy_seats.py``): a watcher's
messages name only cards played face up (and, once the match is over, any card), their views
hold no hand and no legal move, and no seat is marked as theirs.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, sign_up
from test_secrecy_seats import RULES, Feed, Scan, Who
from varaq.seats import S
from web_helpers import make_app

pytestmark = pytest.mark.timeout(300)


def pick(who: Who, legal: list[str], hand: int) -> str:
    """Ana bids blind nil in the first hand (so the exchange happens); otherwise plain moves."""
    if "blind nil" in legal:
        return "blind nil" if who.name == "Ana" and hand <= 1 else "look"
    if "look" in legal:
        return "look"
    return "bid 3" if "bid 3" in legal else legal[0]


def test_a_watcher_from_live_tables_gets_no_hand_at_any_phase(tmp_path: Path) -> None:
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=600.0)
    with TestClient(app) as client, ExitStack() as sockets:
        scan = Scan(client)
        ana, bo, wes = (Who(n, sign_up(client, n)) for n in ("Ana", "Bo", "Wes"))
        visitor = Who("a visitor", Person(client, "a visitor", "", 0))
        ana.changes = [(0, S)]
        watchers = (wes, visitor)
        made = ana.person.post("/api/tables", {"level": "easy", "rules": RULES,
                                               "fill_bots": True, "listing": "public"})
        assert made.status_code == 201, made.text
        tid = scan.tid = made.json()["id"]
        code = scan.answer(ana, made)["code"]
        opened: list[str] = []

        def watch(moment: str, listed: bool = True) -> None:
            """Both watchers find the table under Live tables and click Watch now (a match
            that is over is off the list: they open the link they had)."""
            for who in watchers:
                client.app.state.live = None  # type: ignore[attr-defined]  # a fresh list
                live = who.person.get("/api/live")
                assert live.status_code == 200, live.text
                rows = [r for r in scan.answer(who, live)["tables"] if r["id"] == tid]
                assert len(rows) == listed, (moment, rows)
                if rows:
                    assert rows[0]["watch"] == f"/play/{tid}"
                state = scan.answer(who, who.person.get(f"/api/games/{tid}"))
                assert state["you"] is None and state["view"]["hand"] == [], moment
                scan.answer(who, who.person.get(f"/api/games/{tid}/record"))
                hint = who.person.get(f"/api/games/{tid}/hint")
                assert hint.status_code in (403, 409), hint.text
                feed = Feed(scan, who, sockets.enter_context(who.person.socket(tid)))
                assert feed.hello()["view"]["hand"] == [], moment
            opened.append(moment)

        def catch_up() -> None:
            version = scan.version
            for who in (ana, bo, *watchers):
                for feed in who.sockets:
                    feed.catch_up(version)

        watch("seating")
        joined = bo.person.post("/api/tables/join", {"code": code})
        assert joined.status_code == 200, joined.text
        bo.changes.append((int(joined.json()["state"]["version"]), 0))
        scan.answer(bo, joined)
        for who in (ana, bo):
            Feed(scan, who, sockets.enter_context(who.person.socket(tid))).hello()
        scan.answer(ana, ana.person.post(f"/api/games/{tid}/start"))

        moments: set[tuple[int, str]] = set()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            state = scan.answer(ana, ana.person.get(f"/api/games/{tid}"))
            view = state["view"]
            catch_up()
            moment = (view["hand_no"], view["phase"])
            if moment not in moments:
                moments.add(moment)
                watch(f"hand {view['hand_no']}, {view['phase']}")
            if view["hand_no"] >= 2 and view["phase"] == "play":
                break
            for who in (ana, bo):
                mine = scan.answer(who, who.person.get(f"/api/games/{tid}"))
                legal = mine["view"]["legal"]
                if legal:
                    action = pick(who, legal, mine["view"]["hand_no"])
                    scan.answer(who, who.person.post(f"/api/games/{tid}/actions", {
                        "action": action, "version": mine["version"]}))
                elif mine["view"]["phase"] == "deal":
                    scan.answer(who, who.person.post(f"/api/games/{tid}/next"))
            time.sleep(0.002)
        # The end: Ana offers to concede, Bo agrees; the whole match is anyone's to see then.
        scan.answer(ana, ana.person.post(f"/api/games/{tid}/concede"))
        scan.answer(bo, bo.person.post(f"/api/games/{tid}/concede"))
        catch_up()
        assert scan.game().is_over
        watch("over", listed=False)
        for who in (ana, bo, *watchers):
            for feed in who.sockets:
                feed.finish()
    phases = {phase for _, phase in moments}
    assert {"blind", "exchange", "bid", "play", "deal"} <= phases, moments
    assert opened[0] == "seating" and opened[-1] == "over" and len(opened) >= 8, opened
    assert scan.messages > 100 and scan.hands_seen > 20, (scan.messages, scan.hands_seen)
