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
import re
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from varaq.actions import BLIND_NIL, LOOK
from varaq.cards import SUIT_OF, card_text, cards_of
from varaq.engine import Game
from varaq.rules import Rules
from varaq.seats import SEAT_LETTERS, E, N, S, W
from varaq.service.journal import Line, Step, action_line, read_line
from varaq.service.readers import event_json
from varaq.service.seating import Seating
from varaq.service.settings import Settings
from varaq.service.tables import Table, TableInfo
from web_helpers import new_game, state

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
        "record": table.record(reader) if reader is not None else None,
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

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|10[CDHS]|BJ|LJ)\b")


def cards_named(doc: Any) -> set[str]:
    return set(CARD.findall(json.dumps(doc)))


def allowed_for_south(game: Game) -> set[str]:
    """The cards South may know at this moment of ``game`` (the server's own copy)."""
    known = 0
    for log in game.log:  # finished hands: every card was played face up
        if log.dealt is not None:
            for hand in log.dealt:
                known |= hand
    view = game.view(S)
    if not view.cards_hidden:
        known |= game.dealt[S] | view.hand | view.received | view.gave | view.passing
    known |= game.played
    return {card_text(c) for c in cards_of(known)}


def test_every_route_and_message_names_only_cards_south_may_see(client: TestClient) -> None:
    # EW leads by 150: South may bid blind nil, and then North passes it two cards.
    gid = new_game(client, rules="classic", dealer="E", seed=8,
                   start={"total": {"NS": 0, "EW": 150}})["id"]
    app_tables = client.app.state.tables  # type: ignore[attr-defined]
    seen_phases: set[str] = set()
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"type": "hello", "version": 0})
        for _ in range(400):
            st = state(client, gid)
            seen_phases.add(st["view"]["phase"])
            answers = [st, client.get(f"/api/games/{gid}?since=0").json(),
                       client.get(f"/api/games/{gid}/record").json()]
            # The server's game now, after the answers: computer players may have moved on
            # meanwhile, which only adds to what South may know (within this hand).
            game = client.portal.call(app_tables.get, gid).game  # type: ignore[union-attr]
            allowed = allowed_for_south(game)
            for doc in answers:
                extra = cards_named(doc) - allowed
                assert not extra, (st["view"]["phase"], extra)
            view = st["view"]
            if view["phase"] in ("deal", "over"):
                break
            if not view["legal"]:
                continue
            choice = "blind nil" if "blind nil" in view["legal"] else view["legal"][0]
            client.post(f"/api/games/{gid}/actions", json={"action": choice})
        ws.send_json({"type": "hello", "version": 0})
        while True:  # every socket message, up to the final state
            message = ws.receive_json()
            extra = cards_named(message) - allowed_for_south(game) - _played_in(message)
            assert not extra, extra
            if message["type"] == "state":
                break
    assert {"blind", "exchange", "play", "deal"} <= seen_phases


def _played_in(message: dict[str, Any]) -> set[str]:
    """Cards a message shows as played (an event message may run ahead of the copy checked)."""
    out: set[str] = set()
    event = message.get("event") or {}
    if event.get("kind") == "play":
        out.add(event["action"])
    for trick in (message.get("view") or {}).get("tricks", []):
        out.update(trick["cards"])
    return out


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
