"""No cheating, no leaks: what a reader of a table is sent never depends on cards it may not see.

Two proofs, for every kind of message (the STATE of a table, each event message, the record
download) and every reader (each seat, and a watcher):

- *Swap the hidden cards.*  A hand is dealt, played part-way, then dealt again with the cards
  the reader cannot see swapped between the other seats (suit for suit, so the same bids and
  cards stay legal) and played the same way: everything sent to the reader must be identical.
- *Scan what the server sends.*  Through the real routes and the WebSocket, at every phase of a
  blind nil hand with an exchange, every card named anywhere in South's answers must be one
  South may know: its own, one played face up, or one passed to or by South.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient

from online_helpers import Person, receive_within, wait_until
from secrecy_helpers import allowed_for, cards_named
from varaq.actions import BLIND_NIL, LOOK
from varaq.cards import SUIT_OF, cards_of
from varaq.engine import Game
from varaq.rules import Rules
from varaq.seats import SEAT_LETTERS, E, N, S, W
from varaq.service.journal import Line, Step, action_line, read_line
from varaq.service.newtable import TableInfo
from varaq.service.readers import event_json
from varaq.service.seating import Seating
from varaq.service.settings import Settings
from varaq.service.table import Table
from web_helpers import make_app, new_game

READERS = (N, E, S, W, None)
TABLES = [
    Rules.named("classic"),
    Rules.named("varaq"),
    Rules.named("classic").with_options(jokers=True, blind_nil_trail=0),
    Rules.named("classic").with_options(two_clubs_leads=True, exchange=3, blind_nil_trail=0),
]


def swap_hidden(hands: list[int], keep: set[int], played: int, rng: random.Random) -> list[int]:
    """Swap unplayed cards of a suit between seats not in ``keep``: each seat keeps its suit
    lengths and the cards it played, so the same actions stay legal."""
    out = hands[:]
    others = [s for s in range(4) if s not in keep]
    for _ in range(60):
        a, b = rng.sample(others, 2)
        ca = [c for c in cards_of(out[a]) if not played >> c & 1]
        cb = [c for c in cards_of(out[b]) if not played >> c & 1]
        pairs = [(x, y) for x in ca for y in cb if SUIT_OF[x] == SUIT_OF[y]]
        if pairs:
            x, y = rng.choice(pairs)
            out[a] ^= (1 << x) | (1 << y)
            out[b] ^= (1 << x) | (1 << y)
    return out


def table_after(rules: Rules, totals: tuple[int, int], dealer: int, hands: list[int],
                actions: list[int], kind: str) -> Table:
    """A table (in memory) whose hand was dealt ``hands`` and then played ``actions``."""
    game = Game(rules, seed=0, totals=totals, dealer=dealer)
    seating = Seating.solo() if kind == "solo" else Seating([
        *(Seating.open_table(host=1).seats[:2]), Seating.solo().seats[2], Seating().seats[3]
    ], started=True)
    steps = [Step(Line("deal"), game.deal(hands=hands, dealer=dealer))]
    for action in actions:
        seat = game.turn
        steps.append(Step(read_line(action_line(seat, action)), game.apply(action)))
    info = TableInfo("t" * 22, kind, "easy", rules, "0", totals)
    tables = SimpleNamespace(user_names={1: "Ana"}, settings=Settings())
    return Table(info, game, seating, steps, tables)  # type: ignore[arg-type]


def sent_to(table: Table, reader: int | None) -> str:
    """Everything a reader would receive, as one text to compare."""
    messages = [event_json(v + 1, step, reader) for v, step in enumerate(table.steps)]
    return json.dumps({
        "state": table.state(reader, since=0),
        "events": messages,
        "record": table.record(reader),
    }, sort_keys=True)


def random_line(seed: int) -> tuple[Rules, tuple[int, int], int, list[int], list[int]]:
    rng = random.Random(seed)
    rules = TABLES[seed % len(TABLES)]
    totals = rng.choice([(0, 0), (0, 150), (150, 0)])
    dealer = rng.randrange(4)
    game = Game(rules, seed=seed, totals=totals, dealer=dealer)
    game.deal()
    hands = list(game.hands)
    actions: list[int] = []
    for _ in range(rng.randrange(0, 60)):
        if game.phase_name not in ("blind", "bid", "exchange", "play"):
            break
        legal = game.legal_actions()
        action = BLIND_NIL if BLIND_NIL in legal and rng.random() < 0.6 else rng.choice(legal)
        game.apply(action)
        actions.append(action)
    return rules, totals, dealer, hands, actions


@pytest.mark.parametrize("seed", range(40))
def test_what_a_reader_is_sent_does_not_depend_on_cards_it_may_not_see(seed: int) -> None:
    rules, totals, dealer, hands, actions = random_line(seed)
    base = table_after(rules, totals, dealer, hands, actions, "solo" if seed % 2 else "private")
    game = base.game
    rng = random.Random(seed)
    for reader in READERS:
        keep: set[int] = set()
        if reader is not None and not game.view(reader).cards_hidden:
            keep.add(reader)
            # Exchange cards: the reader knows what it gave and (once done) what it was given.
            if game.exchanged[reader] or game.exchanged[reader ^ 2] or (
                    game.phase_name == "exchange" and reader ^ 2 in
                    [g for g, _ in game.exchange_queue]):
                keep.add(reader ^ 2)
        if game.phase_name == "exchange":
            keep.update(g for g, _ in game.exchange_queue[:1])  # a giver mid-choice
        if len(keep) > 2:
            continue
        other = swap_hidden(hands, keep, game.played | _exchange_cards(game), rng)
        if other == hands:
            continue
        twin = table_after(rules, totals, dealer, other, actions, base.info.kind)
        assert sent_to(twin, reader) == sent_to(base, reader), (seed, reader)


def _exchange_cards(game: Game) -> int:
    mask = game.passing
    for m in game.exchanged:
        mask |= m
    return mask


def test_a_seat_choosing_blind_nil_is_sent_none_of_its_own_cards() -> None:
    rules = Rules.named("classic")
    game = Game(rules, seed=5, totals=(0, 150), dealer=W)  # NS trails: N decides first
    game.deal()
    assert game.phase_name == "blind" and game.turn == N
    hands = list(game.hands)
    base = table_after(rules, (0, 150), W, hands, [], "solo")
    everyone_else = swap_hidden(hands, set(), 0, random.Random(1))
    twin = table_after(rules, (0, 150), W, everyone_else, [], "solo")
    assert sent_to(twin, N) == sent_to(base, N)
    assert sent_to(twin, S) == sent_to(base, S)  # South has not decided yet either
    assert twin.game.view(S).cards_hidden


# -- the real routes, scanned ------------------------------------------------------------------

# The cards a message names and the cards its reader may know: ``secrecy_helpers``.


def route_of(app: Any, method: str, path: str) -> str:
    """The route (as written in the app, ``/api/games/{game_id}``) that answers a request."""
    for route in app.routes:
        if isinstance(route, Route) and route.path_regex.match(path) and (
                route.methods is None or method in route.methods):
            return str(route.path)
    raise AssertionError(f"no route answers {method} {path}")


class Scan:
    """Checks every answer a reader is sent against the cards it may know at that moment.

    The server's game is read *after* each answer arrives, so what the reader may know is
    never underestimated (nothing known becomes unknown again within a match) and no answer
    is blamed wrongly.  The slack is only what happened while the answer travelled — a card
    or two the computer players played — which is why every socket is read as the game
    goes, not once at the end, when every card of a finished hand is known to all.
    """

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.table: Table | None = None
        #: The routes answered so far, as the app names them.
        self.routes: set[str] = set()
        #: Socket messages scanned, by type.
        self.kinds: Counter[str] = Counter()
        #: Phases of the views scanned (a state's, or an event's).
        self.phases: set[str] = set()

    def watch(self, table_id: str) -> None:
        tables = self.client.app.state.tables  # type: ignore[attr-defined]
        self.table = self.client.portal.call(tables.get, table_id)  # type: ignore[union-attr]

    @property
    def version(self) -> int:
        assert self.table is not None
        return self.table.version

    def check(self, doc: Any, reader: int | None, where: str) -> None:
        game = self.table.game if self.table is not None else None
        extra = cards_named(doc) - allowed_for(game, reader)
        who = "a watcher" if reader is None else SEAT_LETTERS[reader]
        assert not extra, f"{where} names {sorted(extra)}, not {who}'s to see"
        inner = doc.get("state")  # play again's answer holds a state; quick match's a word
        for view in (doc.get("view"), inner.get("view") if isinstance(inner, dict) else None):
            if isinstance(view, dict) and view.get("phase"):
                self.phases.add(view["phase"])

    def answer(self, reader: int | None, response: Any) -> dict[str, Any]:
        """Scan one HTTP answer (whatever its status: refusals are answers too)."""
        request = response.request
        self.routes.add(route_of(self.client.app, request.method, request.url.path))
        doc: dict[str, Any] = response.json()
        self.check(doc, reader, f"{request.method} {request.url.path} ({response.status_code})")
        return doc


class Reader:
    """One reader's socket: every message it is sent goes through the scan, in order."""

    def __init__(self, scan: Scan, ws: Any, seat: int | None) -> None:
        self.scan = scan
        self.ws = ws
        self.seat = seat
        #: The newest version this socket has been sent (by an event or a state).
        self.version = 0

    def receive(self) -> dict[str, Any]:
        message = receive_within(self.ws)
        kind = message["type"]
        self.scan.kinds[kind] += 1
        self.scan.check(message, self.seat, f"the socket's {kind} message")
        if kind in ("event", "state"):
            self.version = max(self.version, message["version"])
        return message

    def until(self, *kinds: str) -> dict[str, Any]:
        """Read (and scan) up to the next message of one of these types."""
        while True:
            message = self.receive()
            if message["type"] in kinds:
                return message

    def accepted(self, version: int) -> None:
        """Read up to the event of an action this socket sent at ``version``: the server must
        not have refused it."""
        while self.version <= version:
            message = self.receive()
            assert message["type"] != "error", message

    def catch_up(self) -> None:
        """Read (and scan) everything up to the table's version now."""
        target = self.scan.version
        while self.version < target:
            self.receive()

    def finish(self) -> int:
        """A second hello, then a message the server must refuse: reading up to that refusal
        reads everything the socket was sent, the hello's state included; that state's
        version."""
        self.ws.send_json({"type": "hello", "version": 0})
        self.ws.send_json({"type": "end of the scan"})
        final = -1
        while True:
            message = self.receive()
            if message["type"] == "state":
                final = message["version"]
            elif message["type"] == "error" and "end of the scan" in message["error"]:
                return final


def test_every_route_and_message_names_only_cards_south_may_see(client: TestClient) -> None:
    # EW leads by 150: South may bid blind nil, and then North passes it two cards.
    gid = new_game(client, rules="classic", dealer="E", seed=8,
                   start={"total": {"NS": 0, "EW": 150}})["id"]
    scan = Scan(client)
    scan.watch(gid)
    hinted: set[str] = set()
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        south = Reader(scan, ws, S)
        ws.send_json({"type": "hello", "version": 0})
        for _ in range(400):
            st = scan.answer(S, client.get(f"/api/games/{gid}"))
            scan.answer(S, client.get(f"/api/games/{gid}?since=0"))
            scan.answer(S, client.get(f"/api/games/{gid}/record"))
            south.catch_up()
            view = st["view"]
            if view["phase"] in ("deal", "over"):
                break
            if not view["legal"]:
                continue
            if view["phase"] not in hinted:  # Hard's hint once a phase, asked both ways
                hinted.add(view["phase"])
                scan.answer(S, client.get(f"/api/games/{gid}/hint"))
                ws.send_json({"type": "hint"})
                assert south.until("hint", "error")["type"] == "hint"
            choice = "blind nil" if "blind nil" in view["legal"] else view["legal"][0]
            scan.answer(S, client.post(f"/api/games/{gid}/actions", json={"action": choice}))
        ws.send_json({"type": "action", "action": "bid 3"})  # the hand is over: refused
        assert south.until("error")["status"] in (400, 409)
        final = south.finish()
    assert final == scan.version  # every message up to the table's last version was read
    assert scan.kinds["event"] > 0 and scan.kinds["hint"] == len(hinted) >= 3
    assert {"blind", "bid", "exchange", "play", "deal"} <= scan.phases


# -- a table of people, scanned ----------------------------------------------------------------

#: Routes under /api whose answers name no card of a table being played, and why.  A route
#: added later must be scanned by the test below or listed here, or that test fails.
CARD_FREE = {
    "/api/presets": "the presets and options of the rules: no table at all",
    "/api/rules": "a table's rules in words",
    "/api/rules/examples": "the worked examples: fixed score-sheet hands, no dealt cards",
    "/api/games": "makes a new single-player table; its South's cards go to its maker only",
    "/api/daily": "today's daily: points and names (its games are read at /api/games)",
    "/api/daily/month/{month}": "the daily's calendar: days and numbers of players",
    "/api/daily/{day}": "a day's leaderboard: points, never cards",
    "/api/daily/{day}/start": "makes a new try at the daily; its South's cards go to its player",
    "/api/lessons": "the list of lessons",
    "/api/lessons/progress": "which lessons a person has finished",
    "/api/lessons/{lesson_id}": "a lesson's fixed teaching position",
    "/api/lessons/{lesson_id}/try": "a move in that fixed position",
    "/api/review": "starts a review of a record the client sends itself",
    "/api/review/{job_id}": "how that review is getting on",
    "/api/account/signout-everywhere": "ends a person's sessions; answers how many, no table",
    "/api/account/reset": "spends a reset code on a new password; answers yes or no, no table",
    "/api/ratings": "the ratings leaderboard: names and numbers",
    "/api/players/{name}": "a profile: ratings, counts, finished matches' scores, never a card",
    "/api/matches/{table_id}": "one finished match's seats, score and links, never a card",
    "/api/friends": "whom a person follows, where they are, their invitations: names, links",
    "/api/friends/{verb}": "follows or blocks a name; answers the same list",
    "/api/invites": "invites a name to a table; answers the name and when it lapses",
    "/api/invites/{invite_id}/{answer}": "joins by invitation (the id and seat only) or dismisses",
}
PASSWORD = "correct horse"
#: Blind nil from the first hand (no side need trail), with a two-card exchange.
BLIND_FROM_THE_START = {"preset": "classic", "blind_nil_trail": 0, "exchange": 2}
SOCKET_KINDS = {"state", "event", "table", "phrase", "concede", "again", "error", "hint"}


def _signed_up(scan: Scan, name: str) -> Person:
    client = scan.client
    client.cookies.clear()
    response = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    doc = scan.answer(None, response)
    client.cookies.clear()
    return Person(client, name, response.cookies["varaq_session"], doc["id"])


def _probe(scan: Scan, person: Person, seat: int | None, tid: str, code: str) -> None:
    """Every route a reader may call that changes nothing here (refusals included)."""
    def get(path: str) -> None:
        scan.answer(seat, person.get(path))

    def post(path: str, body: Any = None) -> None:
        scan.answer(seat, person.post(path, body))

    get(f"/api/games/{tid}/hint")
    get("/api/account")
    get("/api/quick")
    post("/api/tables/join", {"code": code})  # their own seat again, or "this table is full"
    post(f"/api/games/{tid}/start")
    post(f"/api/games/{tid}/configure", {"rules": "classic"})
    post(f"/api/games/{tid}/listing", {"listing": "public"})  # the host's, before the start
    get("/api/live")
    post(f"/api/games/{tid}/seat", {"seat": "E", "to": "bot"})  # East is a computer already
    post(f"/api/games/{tid}/again")
    post(f"/api/games/{tid}/phrase", {"phrase": "hello"})
    post(f"/api/games/{tid}/decline")
    post(f"/api/games/{tid}/pace", {"pace": "normal"})
    post(f"/api/games/{tid}/replay")
    if seat is None:  # a watcher may not act for anyone: those refusals are answers too
        post(f"/api/games/{tid}/actions", {"action": "bid 3"})
        post(f"/api/games/{tid}/next")
        post(f"/api/games/{tid}/concede")
        post(f"/api/games/{tid}/leave")


def _choice(legal: list[str], seat: int) -> str:
    if "blind nil" in legal and seat == S:
        return "blind nil"
    if "look" in legal:
        return "look"
    return "bid 3" if "bid 3" in legal else legal[0]


@pytest.mark.timeout(300)
def test_every_route_and_message_at_a_table_of_people_names_only_what_its_reader_may_see(
    tmp_path: Any,
) -> None:
    """Ana (South, the host) and Bo (North) play a private table with computer players East
    and West; Cai watches, signed in.  Ana bids blind nil and swaps cards with Bo.  Every
    answer each of them gets, by every route and on their sockets, is scanned — through a
    whole hand, the next deal, an offer to concede and its refusal, phrases, hints, a
    concession, play again and leaving."""
    app = make_app(tmp_path, next_hand_seconds=600.0, drop_seconds=600.0)
    with TestClient(app) as client:
        scan = Scan(client)
        ana, bo, cai = (_signed_up(scan, name) for name in ("Ana", "Bo", "Cai"))
        scan.answer(None, cai.post("/api/account/signin", {"name": "Cai", "password": PASSWORD}))
        scan.answer(None, cai.post("/api/account/signout"))  # the cookie Cai holds still signs in
        doc = scan.answer(None, ana.post("/api/tables", {
            "level": "easy", "rules": BLIND_FROM_THE_START, "fill_bots": True}))
        tid, code = doc["id"], doc["code"]
        scan.watch(tid)
        assert scan.answer(N, bo.post("/api/tables/join", {"code": code}))["seat"] == "N"
        everyone = ((ana, S), (bo, N), (cai, None))
        with ana.socket(tid) as wa, bo.socket(tid) as wb, cai.socket(tid) as wc:
            readers = {S: Reader(scan, wa, S), N: Reader(scan, wb, N), None: Reader(scan, wc, None)}
            for reader in readers.values():
                reader.ws.send_json({"type": "hello", "version": 0})
                reader.until("state")
            scan.answer(S, ana.post(f"/api/games/{tid}/start"))
            scan.answer(None, cai.post("/api/quick/join", {"bots_after": None}))
            scan.answer(None, cai.post("/api/quick/leave"))
            moments: set[tuple[int, str]] = set()
            offered = ana_was_given = False
            acted = 0
            for _ in range(2000):
                states = {seat: scan.answer(seat, person.get(f"/api/games/{tid}"))
                          for person, seat in everyone}
                for person, seat in everyone:
                    scan.answer(seat, person.get(f"/api/games/{tid}?since=0"))
                    scan.answer(seat, person.get(f"/api/games/{tid}/record"))
                for reader in readers.values():
                    reader.catch_up()
                view = states[S]["view"]
                ana_was_given |= bool(view["received"])
                moment = (view["hand_no"], view["phase"])
                if moment not in moments:  # once a phase of each hand: every other route
                    moments.add(moment)
                    for person, seat in everyone:
                        _probe(scan, person, seat, tid, code)
                        readers[seat].ws.send_json({"type": "hint"})
                        readers[seat].until("hint", "error")
                if view["phase"] == "deal":  # the first hand is over: both ask for the next
                    scan.answer(S, ana.post(f"/api/games/{tid}/next"))
                    scan.answer(N, bo.post(f"/api/games/{tid}/next"))
                    continue
                if view["hand_no"] == 2:
                    break
                if view["phase"] == "play" and not offered:
                    offered = True
                    _offer_and_refuse(scan, readers, ana, bo, cai, tid)
                movers = [(p, seat) for p, seat in everyone[:2] if states[seat]["view"]["legal"]]
                if not movers:
                    time.sleep(0.005)  # the computer players are moving
                    continue
                person, seat = movers[0]
                choice = _choice(states[seat]["view"]["legal"], seat)
                if acted % 2:  # half the moves by the socket, half by HTTP
                    version = states[seat]["version"]
                    readers[seat].ws.send_json({"type": "action", "action": choice,
                                                "version": version})
                    readers[seat].accepted(version)
                else:
                    scan.answer(seat, person.post(f"/api/games/{tid}/actions",
                                                  {"action": choice}))
                acted += 1
            else:
                raise AssertionError("the first hand never finished")
            assert ana_was_given, "Ana's blind nil exchange never happened"
            # The second hand: Ana offers to concede, Bo agrees, and the match is over.
            assert scan.answer(S, ana.post(f"/api/games/{tid}/concede"))["concede"] == "offered"
            assert scan.answer(N, bo.post(f"/api/games/{tid}/concede"))["concede"] == "conceded"
            again = scan.answer(S, ana.post(f"/api/games/{tid}/again"))
            new = client.portal.call(client.app.state.tables.get, again["id"])  # type: ignore
            extra = cards_named(again["state"]) - allowed_for(new.game, S)
            assert not extra, f"play again names {extra} of the new table, not Ana's"
            scan.answer(N, bo.post(f"/api/games/{tid}/again"))
            for reader in readers.values():
                reader.until("again")
            for person, seat in everyone:
                _probe(scan, person, seat, tid, code)
                scan.answer(seat, person.post(f"/api/games/{tid}/next"))
                scan.answer(seat, person.post(f"/api/games/{tid}/leave"))
            for reader in readers.values():
                assert reader.finish() == scan.version
    assert set(scan.kinds) >= SOCKET_KINDS, SOCKET_KINDS - set(scan.kinds)
    assert {"blind", "bid", "exchange", "play", "deal", "over"} <= scan.phases
    api = {r.path for r in app.routes if isinstance(r, Route) and r.path.startswith("/api")}
    assert set(CARD_FREE) <= api, f"no longer routes: {set(CARD_FREE) - api}"
    missing = api - scan.routes - set(CARD_FREE)
    assert not missing, f"routes neither scanned here nor listed in CARD_FREE: {sorted(missing)}"
    sockets = {r.path for r in app.routes if isinstance(r, WebSocketRoute)}
    # ``/ws/me`` carries a person's invitations, never a table's state (test_friends_rules.py).
    assert sockets == {"/ws/games/{game_id}", "/ws/me"}, f"a socket not read here: {sockets}"


def _offer_and_refuse(scan: Scan, readers: dict[int | None, Reader], ana: Person, bo: Person,
                      cai: Person, tid: str) -> None:
    """Once, mid-hand: phrases, an offer to concede by socket that Bo declines, and requests
    the server refuses on the sockets (acting out of turn, a watcher acting)."""
    def phrase_sent() -> bool:  # one phrase a seat every moment: Bo's last may be recent
        response = bo.post(f"/api/games/{tid}/phrase", {"phrase": "well_bid"})
        scan.answer(N, response)
        if response.status_code != 200:
            time.sleep(0.1)
        return bool(response.status_code == 200)

    wait_until(phrase_sent, "Bo's phrase")
    for reader in readers.values():
        assert reader.until("phrase")["seat"] in ("S", "N")
    readers[S].ws.send_json({"type": "concede"})
    assert readers[S].until("concede")["concede"] == "offered"
    scan.answer(N, bo.post(f"/api/games/{tid}/decline"))
    scan.answer(N, bo.post(f"/api/games/{tid}/decline"))  # nothing left to decline
    # Undo is refused at a table of people; a claim's refusal names a seat, never a card it
    # holds; there is no claim to accept.
    scan.answer(N, bo.post(f"/api/games/{tid}/undo"))
    scan.answer(N, bo.post(f"/api/games/{tid}/claim"))
    scan.answer(N, bo.post(f"/api/games/{tid}/accept"))
    st = scan.answer(N, bo.get(f"/api/games/{tid}"))
    if st["view"]["turn"] != "N":  # Bo plays one of his own cards out of turn
        readers[N].ws.send_json({"type": "action", "action": st["view"]["hand"][0]})
        assert readers[N].until("error")["status"] == 409
    readers[None].ws.send_json({"type": "action", "action": "bid 3"})
    assert readers[None].until("error")["status"] == 403
    readers[None].ws.send_json({"type": "concede"})
    assert readers[None].until("error")["status"] == 403


def test_the_record_is_whole_once_the_match_is_over(client: TestClient) -> None:
    gid = new_game(client, rules="varaq", seed=3)["id"]
    assert client.post(f"/api/games/{gid}/concede").status_code == 200
    doc = client.get(f"/api/games/{gid}/record").json()
    assert "partial" not in doc and set(doc["hands"][0]["deal"]) == set(SEAT_LETTERS)


def test_a_server_not_in_test_mode_refuses_a_chosen_seed_or_score(tmp_path: Any) -> None:
    from web_helpers import make_app

    with TestClient(make_app(tmp_path, test_mode=False)) as c:
        for body in ({"seed": 5}, {"start": {"total": {"NS": 0, "EW": 200}}}, {"dealer": "N"}):
            response = c.post("/api/games", json=body)
            assert response.status_code == 400
            assert "test mode" in response.json()["error"]
        assert c.post("/api/games", json={"level": "easy"}).status_code == 201


def test_play_again_deals_the_same_cards_without_showing_the_seed(client: TestClient) -> None:
    first = new_game(client, rules="varaq")
    again = client.post(f"/api/games/{first['id']}/replay")
    assert again.status_code == 201
    doc = again.json()
    assert doc["id"] != first["id"] and "seed" not in json.dumps(doc)
    assert doc["state"]["view"]["hand"] == first["state"]["view"]["hand"]
    assert LOOK  # (imported for the blind nil choices above)
