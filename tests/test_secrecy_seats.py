"""Seats change hands mid-match, and still nobody is sent a card they may not see.

``test_secrecy.py`` proves that what a reader is sent does not depend on cards it may not see,
for a reader who keeps one seat (or watches).  At a table of people the reader of a seat
changes: a person leaves, the host opens the seat or gives it to a computer player, someone new
takes it, and the one who left comes back at another seat.  Swapping the hidden cards between
two deals is not practical through the real app (an online table's deals cannot be chosen), so
this test checks each answer directly against the server's own game, read in this process:

- every card named anywhere in an answer is one the receiver may know *as the seat they hold
  at that answer's version* (their own cards, cards played face up, their side's exchange,
  every card of a finished hand), and nothing of a seat they have left;
- every answer says who the receiver is as the server must see them *then*: ``you``, the
  view's ``seat`` and the seats' ``you`` flags name the seat they hold, or none for a watcher;
- at moments when nobody else can move, the hand each person is shown — by HTTP and on each
  socket that was sent something since their last change of seat — is exactly the cards their
  seat holds now (none for a watcher).

Every HTTP answer and every socket message of every person (and of a watcher) is checked.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from online_helpers import Person, receive_within, sign_up, wait_until
from secrecy_helpers import allowed_for, cards_named
from varaq.cards import card_text, cards_of
from varaq.engine import Game
from varaq.seats import SEAT_LETTERS, S
from web_helpers import make_app

pytestmark = pytest.mark.timeout(300)

#: Blind nil from the first hand, with a two-card exchange: the hardest hands to keep apart.
RULES = {"preset": "classic", "blind_nil_trail": 0, "exchange": 2}


def letter(seat: int | None) -> str | None:
    return None if seat is None else SEAT_LETTERS[seat]


@dataclass
class Who:
    """One person (or the watcher), and the seat they hold from each version on."""

    name: str
    person: Person
    changes: list[tuple[int, int | None]] = field(default_factory=lambda: [(0, None)])
    sockets: list[Feed] = field(default_factory=list)

    def seat_at(self, version: int | None) -> int | None:
        if version is None:
            return self.now
        seat = None
        for since, held in self.changes:
            if version >= since:
                seat = held
        return seat

    @property
    def now(self) -> int | None:
        return self.changes[-1][1]

    @property
    def changed(self) -> int:
        return self.changes[-1][0]


class Scan:
    """Checks every answer against the server's game, read after the answer arrived (what a
    seat may know only grows within a match, so nothing is blamed wrongly)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.tid = ""
        self.answers = 0
        self.messages = 0
        self.kinds: set[str] = set()
        self.hands_seen = 0

    def game(self) -> Game:
        tables = self.client.app.state.tables  # type: ignore[attr-defined]
        table = self.client.portal.call(tables.get, self.tid)  # type: ignore[union-attr]
        game: Game = table.game
        return game

    @property
    def version(self) -> int:
        tables = self.client.app.state.tables  # type: ignore[attr-defined]
        table = self.client.portal.call(tables.get, self.tid)  # type: ignore[union-attr]
        return int(table.version)

    def check(self, who: Who, doc: Any, version: int | None, where: str) -> None:
        seat = who.seat_at(version)
        mine = letter(seat)
        game = self.game()
        extra = cards_named(doc) - allowed_for(game, seat)
        assert not extra, (f"{where} to {who.name} (version {version}, holding "
                           f"{mine or 'no seat'}) names {sorted(extra)}")
        if not isinstance(doc, dict):
            return
        for part in (doc, doc.get("state")):
            if not isinstance(part, dict):
                continue
            if "you" in part:
                assert part["you"] == mine, f"{where} to {who.name}: you={part['you']}, " \
                    f"not {mine} (version {version})"
            view = part.get("view")
            if isinstance(view, dict) and "hand" in view:
                assert view.get("seat") == mine, f"{where} to {who.name}: the view of " \
                    f"{view.get('seat')}, not {mine} (version {version})"
                if seat is None:
                    assert view["hand"] == [] and view["legal"] == [], (where, who.name)
                self.hands_seen += bool(view["hand"])
            table = part.get("table")
            if not isinstance(table, dict):
                table = {}
            for seats in (part.get("seats"), table.get("seats")):
                for s in seats or []:
                    assert s["you"] == (s["seat"] == mine), f"{where} to {who.name}: seat " \
                        f"{s['seat']} marked you={s['you']}, holding {mine} (version {version})"

    def exact(self, who: Who, hand: list[str], where: str) -> None:
        """At a still moment: the hand shown is exactly what the seat held now holds."""
        seat = who.now
        game = self.game()
        expected: list[str] = []
        if seat is not None:
            view = game.view(seat)
            expected = [] if view.cards_hidden else [card_text(c) for c in cards_of(view.hand)]
        assert sorted(hand) == sorted(expected), (
            f"{where}: {who.name} (holding {letter(seat) or 'no seat'}) is shown {sorted(hand)}, "
            f"not {sorted(expected)}")

    def answer(self, who: Who, response: Any) -> dict[str, Any]:
        doc: dict[str, Any] = response.json()
        inner = doc.get("state") if isinstance(doc.get("state"), dict) else doc
        version = inner.get("version") if isinstance(inner, dict) else None
        request = response.request
        self.answers += 1
        self.check(who, doc, version if isinstance(version, int) else None,
                   f"{request.method} {request.url.path} ({response.status_code})")
        return doc


class Feed:
    """One socket of one person: every message is checked as it is read."""

    def __init__(self, scan: Scan, who: Who, ws: WebSocketTestSession) -> None:
        self.scan = scan
        self.who = who
        self.ws = ws
        self.version = 0
        #: The newest view this socket was sent, and the version it came with.
        self.view: dict[str, Any] | None = None
        self.view_version = -1
        who.sockets.append(self)

    def receive(self) -> dict[str, Any]:
        message = receive_within(self.ws)
        kind = message["type"]
        self.scan.messages += 1
        self.scan.kinds.add(kind)
        version = message.get("version") if kind in ("event", "state", "table") else None
        self.scan.check(self.who, message, version, f"a socket's {kind} message")
        if kind in ("event", "state"):
            self.version = max(self.version, message["version"])
            self.view, self.view_version = message["view"], message["version"]
        return message

    def until(self, *kinds: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] in kinds:
                return message

    def hello(self) -> dict[str, Any]:
        self.ws.send_json({"type": "hello", "version": 0})
        return self.until("state")

    def catch_up(self, version: int) -> None:
        while self.version < version:
            self.receive()

    def finish(self) -> None:
        """A message the server must refuse: everything before its refusal has been read."""
        self.ws.send_json({"type": "end of the scan"})
        while True:
            message = self.receive()
            if message["type"] == "error" and "end of the scan" in message["error"]:
                return


class Scenario:
    def __init__(self, client: TestClient, scan: Scan, people: dict[str, Who]) -> None:
        self.client = client
        self.scan = scan
        self.people = people
        self.tid = ""
        self.acted = 0

    @property
    def everyone(self) -> list[Who]:
        return list(self.people.values())

    def get(self, who: Who, path: str) -> dict[str, Any]:
        return self.scan.answer(who, who.person.get(path))

    def post(self, who: Who, path: str, body: Any = None) -> dict[str, Any]:
        return self.scan.answer(who, who.person.post(path, body))

    def catch_up(self) -> None:
        version = self.scan.version
        for who in self.everyone:
            for feed in who.sockets:
                feed.catch_up(version)

    def probe(self) -> None:
        """Everything a reader may ask that changes nothing, for everyone."""
        tid = self.tid
        for who in self.everyone:
            self.get(who, f"/api/games/{tid}")
            self.get(who, f"/api/games/{tid}?since=0")
            self.get(who, f"/api/games/{tid}/record")
            self.get(who, f"/api/games/{tid}/hint")
            for feed in who.sockets:
                feed.ws.send_json({"type": "hint"})
                feed.until("hint", "error")

    def still(self, where: str) -> None:
        """Nobody but a person can move now: every hand shown is exactly the seat's."""
        self.catch_up()
        for who in self.everyone:
            state = self.get(who, f"/api/games/{self.tid}")
            self.scan.exact(who, state["view"]["hand"], f"{where}, by HTTP")
            for feed in who.sockets:
                if feed.view is not None and feed.view_version >= who.changed:
                    self.scan.exact(who, feed.view["hand"], f"{where}, on a socket")

    def change(self, who: Who, asker: Who, path: str, body: Any,
               seat: int | None) -> dict[str, Any]:
        """``asker`` posts a request after which ``who`` holds ``seat`` (``who`` leaves, joins,
        or the host moves their seat), at a still moment: the answer's version is the change's.
        The answer is checked as of then."""
        response = asker.person.post(path, body)
        assert response.status_code == 200, response.text
        doc: dict[str, Any] = response.json()
        inner = doc.get("state", doc)
        who.changes.append((int(inner["version"]), seat))
        return self.scan.answer(asker, response)

    def play_until(self, done: Any, limit: int = 4000) -> dict[str, Any]:
        """Everyone seated acts at their turn (half by HTTP, half by socket) and asks for the
        next hand, until ``done(host's state)`` at Ana's turn (then nobody else moves)."""
        ana = self.people["Ana"]
        moments: set[tuple[int, str]] = set()
        for _ in range(limit):
            state = self.get(ana, f"/api/games/{self.tid}")
            self.catch_up()
            view = state["view"]
            if view["phase"] == "over":
                return state
            moment = (view["hand_no"], view["phase"])
            if moment not in moments:
                moments.add(moment)
                self.probe()
            if view["turn"] == "S" and view["phase"] in ("bid", "play") and done(state):
                return state
            moved = False
            for who in self.everyone:
                if who.now is None:
                    continue
                mine = self.get(who, f"/api/games/{self.tid}")
                legal = mine["view"]["legal"]
                if legal:
                    self.act(who, mine, choose(legal))
                    moved = True
                elif mine["view"]["phase"] == "deal":
                    self.post(who, f"/api/games/{self.tid}/next")
            if not moved:
                time.sleep(0.005)
        raise AssertionError("the table never got there")

    def act(self, who: Who, state: dict[str, Any], action: str) -> None:
        self.acted += 1
        version = state["version"]
        if who.sockets and self.acted % 2:
            feed = who.sockets[-1]
            feed.ws.send_json({"type": "action", "action": action, "version": version})
            while feed.version <= version:
                message = feed.receive()
                assert message["type"] != "error", message
        else:
            self.post(who, f"/api/games/{self.tid}/actions",
                      {"action": action, "version": version})


def choose(legal: list[str]) -> str:
    if "look" in legal:
        return "look"
    return "bid 3" if "bid 3" in legal else legal[0]


def test_seats_that_change_hands_mid_match_show_each_reader_only_their_own_seat(
    tmp_path: Path,
) -> None:
    """Ana (the host, South), Bo (North) and Cai (West) play with a computer player at East;
    Wes watches.  Mid-match Bo leaves (North is open, a computer player plays it), the host
    gives North to a computer player, then opens it and Dee takes it; Cai drops and the host
    gives West to a computer player; then opens it and Bo comes back there.  Every answer and
    every socket message of each of them is checked at every step."""
    app = make_app(tmp_path, drop_seconds=600.0, next_hand_seconds=0.3)
    with TestClient(app) as client:
        bots = client.app.state.tables.bots  # type: ignore[attr-defined]
        real = bots.decide

        async def quick_hints(level: str, view: Any, seed: str, *args: Any, **kw: Any) -> Any:
            # Hints from the Normal player: the same path, without the Hard player's wait.
            if level == "hard":
                return await real("normal", view, seed)
            return await real(level, view, seed, *args, **kw)

        bots.decide = quick_hints
        scan = Scan(client)
        people = {name: Who(name, sign_up(client, name))
                  for name in ("Ana", "Bo", "Cai", "Dee", "Wes")}
        ana, bo, cai, dee, wes = people.values()
        play = Scenario(client, scan, people)
        ana.changes = [(0, S)]
        made = ana.person.post("/api/tables", {"level": "easy", "rules": RULES,
                                               "fill_bots": True})
        assert made.status_code == 201, made.text
        tid = scan.tid = play.tid = made.json()["id"]
        doc = scan.answer(ana, made)
        code = {"code": doc["code"]}
        for who, seat in ((bo, "N"), (cai, "W")):
            play.get(who, f"/api/games/{tid}")  # a watcher before joining
            joined = play.change(who, who, "/api/tables/join", code, SEAT_LETTERS.index(seat))
            assert joined["seat"] == seat
        with ExitStack() as sockets, ExitStack() as cais:
            for who in (ana, bo, wes):
                Feed(scan, who, sockets.enter_context(who.person.socket(tid))).hello()
            Feed(scan, cai, cais.enter_context(cai.person.socket(tid))).hello()
            play.post(ana, f"/api/games/{tid}/start")
            # Hand 1: a trick or two, then Bo leaves; North is open and played for.
            state = play.play_until(lambda s: s["view"]["phase"] == "play"
                                    and len(s["view"]["tricks"]) >= 1)
            play.still("before Bo leaves")
            play.change(bo, bo, f"/api/games/{tid}/leave", None, None)
            play.still("after Bo left")
            state = play.play_until(lambda s: s["version"] > state["version"] + 4)
            # The host gives North to a computer player, to the end of the hand.
            play.still("before North goes to a computer player")
            play.post(ana, f"/api/games/{tid}/seat", {"seat": "N", "to": "bot"})
            state = play.play_until(lambda s: s["view"]["hand_no"] >= 2
                                    and s["view"]["phase"] == "play")
            # Hand 2: North is opened again, and Dee takes it.
            play.still("before North opens")
            play.post(ana, f"/api/games/{tid}/seat", {"seat": "N", "to": "open"})
            play.get(dee, f"/api/games/{tid}")  # Dee watches, then joins
            joined = play.change(dee, dee, "/api/tables/join", code, SEAT_LETTERS.index("N"))
            assert joined["seat"] == "N"
            play.still("after Dee took North")
            Feed(scan, dee, sockets.enter_context(dee.person.socket(tid))).hello()
            state = play.play_until(lambda s: s["version"] > state["version"] + 4)
            # Cai drops; the host gives West to a computer player.
            play.still("before Cai drops")
            cais.close()
            cai.sockets.clear()
            wait_until(lambda: play.get(ana, f"/api/games/{tid}")["table"]["seats"][3]
                       ["present"] is False, "Cai away")
            play.change(cai, ana, f"/api/games/{tid}/seat", {"seat": "W", "to": "bot"}, None)
            play.still("after West went to a computer player")
            state = play.play_until(lambda s: s["version"] > state["version"] + 4)
            # West is opened, and Bo comes back there (his old socket still open).
            play.still("before Bo comes back")
            play.post(ana, f"/api/games/{tid}/seat", {"seat": "W", "to": "open"})
            joined = play.change(bo, bo, "/api/tables/join", code, SEAT_LETTERS.index("W"))
            assert joined["seat"] == "W"
            play.still("after Bo came back at West")
            Feed(scan, bo, sockets.enter_context(bo.person.socket(tid))).hello()
            play.still("with Bo's new socket")
            # To the end of hand 2 and into hand 3, everyone as they are now.
            play.play_until(lambda s: s["view"]["hand_no"] >= 3 and s["view"]["phase"] == "play")
            play.still("in hand 3")
            for who in play.everyone:
                for feed in who.sockets:
                    feed.finish()
            play.probe()
    assert [s for _, s in bo.changes] == [None, 0, None, 3]  # none, N, none, W
    assert [s for _, s in cai.changes] == [None, 3, None]
    assert [s for _, s in dee.changes] == [None, 0]
    assert wes.changes == [(0, None)]
    assert {"state", "event", "table", "hint", "error"} <= scan.kinds, scan.kinds
    assert scan.answers > 200 and scan.messages > 500 and scan.hands_seen > 100, (
        scan.answers, scan.messages, scan.hands_seen)
