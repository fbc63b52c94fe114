"""One history: the review and ``varaq analyse`` read a hand from the engine, never re-deal it.

A hand's review (and its analysis) is the hand's actions played back through the engine, so
the cards each seat holds at the first lead, who leads and who wins each trick are the engine's.
The case that broke the old reading is a blind nil bidder passing back a card its partner has
just given it: passing the exchange's cards again in seat order left that card with the wrong
partner, and the review failed (``KeyError``) when it was played.  The "Hard bids" column asks
the Hard player the way a table does, in the view the seat bid from, so it is the Hard
player's own bid.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from varaq import BLIND_NIL, LOOK, Game, Rules
from varaq.analysis import analyse_game
from varaq.bots.advice import BID_SAMPLES, bid_seed
from varaq.bots.normal import NormalBot
from varaq.cards import hand_text, parse_hand
from varaq.cli import main
from varaq.engine import BIDDING, BLIND, EXCHANGE, PLAY
from varaq.record import load_record, to_record
from varaq.review import HandFacts, hand_actions, judge_bids, positions, replay, review_hand
from varaq.service.botpool import TABLE_BUDGET, decide_in_worker
from varaq.service.reviews import Reviews

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PASS_BACK = EXAMPLES / "blind-nil-pass-back.json"


def pass_back_game() -> Game:
    return load_record(json.loads(PASS_BACK.read_text()))


def expected_at_lead() -> dict[str, str]:
    """The hands at the first lead of the pass-back example, worked out by hand: S gave N the
    2♥ and 2♣, N gave S the 2♥ back and its A♠.  So N ends with the 2♣ instead of its A♠, and
    S with the A♠ instead of its 2♣; the 2♥ is where it was dealt."""
    doc = json.loads(PASS_BACK.read_text())["hands"][0]
    assert doc["exchange"] == {"N": "AS 2H", "S": "2H 2C"}
    deal = {seat: parse_hand(text) for seat, text in doc["deal"].items()}
    two_clubs, ace, two_hearts = parse_hand("2C"), parse_hand("AS"), parse_hand("2H")
    assert deal["S"] & two_hearts and deal["S"] & two_clubs and deal["N"] & ace
    deal["N"] = deal["N"] & ~ace | two_clubs
    deal["S"] = deal["S"] & ~two_clubs | ace
    return {seat: hand_text(mask) for seat, mask in deal.items()}


# -- the example of a pass-back ---------------------------------------------------------------


def test_the_hands_at_the_first_lead_follow_a_card_passed_back() -> None:
    facts = HandFacts.from_game(pass_back_game(), 1)
    at_lead = facts.at_play()
    assert {s: hand_text(at_lead[i]) for i, s in enumerate("NESW")} == expected_at_lead()
    # Every card is played from the hand the review says holds it, all 52 of them.
    every = positions(facts)
    assert len(every) == 52
    assert all(p.hands[p.seat] >> p.card & 1 for p in every)
    # The returned 2♥ is South's, played in the last trick.
    two_hearts = parse_hand("2H").bit_length() - 1
    last = next(p for p in every if p.card == two_hearts)
    assert (last.seat, last.index // 4) == (2, 12)


def test_a_hand_with_a_pass_back_is_reviewed_card_by_card() -> None:
    facts = HandFacts.from_game(pass_back_game(), 1)
    review = review_hand(facts, bids=False, with_par=True)
    assert len(review.priced) == 52 and review.first_trick == 1 and not review.stopped
    doc = review.to_json()
    assert doc["at_lead"] == {s: h.split() for s, h in expected_at_lead().items()}
    assert doc["exchange"] == {"N": ["AS", "2H"], "S": ["2H", "2C"]}
    # The engine's tricks: each winner is who led the next trick.
    leaders = [t["leader"] for t in doc["tricks"]]
    assert [t["winner"] for t in doc["tricks"][:12]] == leaders[1:]
    assert doc["tricks"][0]["cards"][0]["card"] == "2C"  # South's 2♣ went to North
    assert doc["tricks"][0]["leader"] == "N"


def test_varaq_analyse_prints_the_analysis_of_a_pass_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["analyse", str(PASS_BACK)])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert out.startswith("Hand 1: ") and "positions solved" in out
    assert main(["analyse", str(PASS_BACK), "--json"]) == 0
    hands = json.loads(capsys.readouterr().out)["hands"]
    assert len(hands) == 1 and hands[0]["hand"] == 1
    # North's nil lives through 9 tricks (36 cards judged on it), then every card is solved.
    assert hands[0]["nil_positions"] == 36 and hands[0]["solved"] == 16


def test_the_analysis_solves_the_same_positions_as_the_review() -> None:
    game = pass_back_game()
    (analysis,) = analyse_game(game, cards=3)
    assert analysis.solved + analysis.nil_positions == 12
    for cost in analysis.costly:
        assert cost.trick >= 11


# -- the web review ---------------------------------------------------------------------------


@pytest.fixture
def reviewing(client: TestClient) -> Iterator[TestClient]:
    """The app, its reviews solved in a thread of the test process."""
    with ThreadPoolExecutor(1) as pool:
        client.app.state.reviews = Reviews(  # type: ignore[attr-defined]
            client.app.state.settings.limits, executor=pool,  # type: ignore[attr-defined]
        )
        yield client


def test_the_web_review_of_a_pass_back_is_answered(reviewing: TestClient) -> None:
    record = json.loads(PASS_BACK.read_text())
    started = reviewing.post("/api/review", json={"record": record})
    assert started.status_code == 202, started.text
    deadline = time.monotonic() + 300
    while True:
        answer = reviewing.get(f"/api/review/{started.json()['id']}")
        assert answer.status_code == 200, answer.text
        doc: dict[str, Any] = answer.json()
        if doc["status"] != "running":
            break
        assert time.monotonic() < deadline, doc["progress"]
        time.sleep(0.1)
    assert (doc["status"], doc["error"]) == ("done", "")
    review = doc["review"]
    assert review["at_lead"] == {s: h.split() for s, h in expected_at_lead().items()}
    assert review["priced"] == 52 and review["from_trick"] == 1
    assert [b["seat"] for b in review["bids"]] == ["N", "E", "S", "W"]
    assert review["bids"][0] == {"seat": "N", "bid": "blind", "hard": None,
                                 "reason": "Blind nil: bid before looking"}


# -- the Hard bids ----------------------------------------------------------------------------


def test_the_review_s_hard_bids_are_the_hard_players_bids() -> None:
    """Two hands where every bid is the Hard player's, asked as a table asks it (the worker
    function of the bot pool, the table's budget, the fixed layouts and the seed of the view):
    the review's "Hard bids" column repeats each of them."""
    game = Game("classic", seed=8, dealer=1, totals=(250, 120))
    normal = NormalBot()
    rng = random.Random(8)
    for _ in range(2):
        game.deal()
        while game.phase in (BLIND, BIDDING, EXCHANGE, PLAY):
            view = game.view(game.turn)
            if game.phase == BIDDING:
                answer = decide_in_worker("hard", view, bid_seed(view), TABLE_BUDGET,
                                          BID_SAMPLES)
                game.apply(answer.action)
            else:
                game.apply(normal.act(view, rng))
    for number in (1, 2):
        facts = HandFacts.from_game(game, number)
        judged = judge_bids(facts)
        assert [b.hard for b in judged] == [None if b.blind else b.bid for b in judged], number
        # Seeded by the view: asked again, the same judgement.
        assert judge_bids(facts) == judged


# -- property: the review's hands are the engine's --------------------------------------------


def play_with_pass_backs(game: Game, rng: random.Random) -> tuple[int, int, int, int]:
    """Play the hand just dealt at random, a blind nil whenever one is allowed, the blind nil
    bidder passing back cards it was just given half the time; the hands at the first lead as
    the engine held them."""
    at_lead: tuple[int, int, int, int] | None = None
    received = 0
    while game.phase in (BLIND, BIDDING, EXCHANGE, PLAY):
        legal = game.legal_actions()
        phase = game.phase
        if phase == BLIND:
            action = BLIND_NIL if rng.random() < 0.8 else LOOK
        elif phase == EXCHANGE:
            seat = game.turn
            back = [c for c in legal if received >> c & 1]
            action = rng.choice(back) if back and rng.random() < 0.5 else rng.choice(legal)
            if game.blind[seat ^ 2]:  # the partner of a blind nil bidder: what it gives
                received |= 1 << action
        else:
            action = rng.choice(legal)
        if phase == PLAY and at_lead is None:
            at_lead = (game.hands[0], game.hands[1], game.hands[2], game.hands[3])
        game.apply(action)
    assert at_lead is not None
    return at_lead


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    exchange=st.integers(1, 4),
    trailing=st.sampled_from([(0, 200), (200, 0), (150, 260)]),
    two_clubs=st.booleans(),
)
def test_the_reviews_hands_at_the_first_lead_are_the_engines(
    seed: int, exchange: int, trailing: tuple[int, int], two_clubs: bool,
) -> None:
    rules = Rules.named("classic").with_options(exchange=exchange, two_clubs_leads=two_clubs)
    game = Game(rules, seed=seed, totals=trailing)
    rng = random.Random(seed)
    engines = []
    for _ in range(2):
        game.deal()
        engines.append(play_with_pass_backs(game, rng))
        if game.is_over:
            break
    for number, at_lead in enumerate(engines, 1):
        facts = HandFacts.from_game(game, number)
        assert tuple(facts.at_play()) == at_lead
        log = game.log[number - 1]
        assert (facts.exchanged, facts.bids, facts.blind, facts.plays, facts.result) == (
            log.exchanged, log.bids, log.blind, log.plays, log.result)
        played = replay(facts)
        assert played.positions[0].leader == played.tricks[0].leader
        assert all(p.hands[p.seat] >> p.card & 1 for p in played.positions)
        # The game's record gives the same hand under the same key (a record may list a
        # seat's passed cards in another order: the same exchange).
        again = HandFacts.from_game(load_record(to_record(game)), number)
        assert again.key == facts.key and again.at_play() == facts.at_play()
        assert sorted(hand_actions(game, number)) == sorted(again.actions)


def test_the_hard_players_at_a_table_bid_what_the_review_says_hard_bids(
    tmp_path: Path,
) -> None:
    """Through the real app: the Hard computer players at a single-player table bid exactly
    the review's "Hard bids" for their seats (the table asks the bot as the review does)."""
    from varaq.bots.advice import hard_bid
    from web_helpers import make_app, new_game, wait_for_south

    with TestClient(make_app(tmp_path)) as client:
        gid = new_game(client, level="hard", seed=31, dealer="N")["id"]
        st = wait_for_south(client, gid)
        assert st["view"]["phase"] == "bid", st["view"]["phase"]
        response = client.post(f"/api/games/{gid}/actions",
                               json={"action": "bid 3", "version": st["version"]})
        assert response.status_code == 200, response.text
        table = client.portal.call(client.app.state.tables.get, gid)  # type: ignore[attr-defined]
        deadline = time.monotonic() + 120
        while table.game.phase == BIDDING and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table.game.phase != BIDDING, "the computer players never finished bidding"
        game = table.game.copy()
    replayed = table.info.new_game()
    compared = 0
    for action in game.actions:
        if replayed.phase == BIDDING and replayed.turn != 2:
            assert hard_bid(replayed.view(replayed.turn)).action == action
            compared += 1
        replayed.push(action)
    assert compared == 3
