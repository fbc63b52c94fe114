"""The words the view sends a player: why a dimmed card cannot be played, and a hand's points
line by line.

The client shows these as they come; so the reasons must be the engine's reasons, and the lines
of a hand must add up to the hand's score exactly.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from varaq import Game, Rules
from varaq.cards import card_text, cards_of
from varaq.reasons import WAIT, why_not
from varaq.scoring import ScorePart, decisive_part, score_hand, score_parts
from varaq.view import hand_score_json

#: The engine's refusal (third person, for the API) → the player's words for the same reason.
ENGINE_TO_PLAYER = {
    "must follow clubs": "You must follow clubs",
    "must follow diamonds": "You must follow diamonds",
    "must follow hearts": "You must follow hearts",
    "must follow spades": "You must follow spades",
    "spades are not broken": "Spades are not broken yet",
    "the 2C leads the first trick": "The 2♣ leads the first trick",
}

TABLES = [
    Rules.named("varaq"),
    Rules.named("classic"),
    Rules.from_spec({"preset": "varaq", "two_clubs_leads": True}),
    Rules.from_spec({"preset": "varaq", "jokers": True}),
]


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: str(r.to_spec()))
def test_every_dimmed_card_gets_the_engines_reason(rules: Rules) -> None:
    rng = random.Random(7)
    checked = 0
    for deal in range(12):
        game = Game(rules, seed=deal)
        game.deal()
        while game.phase_name not in ("deal", "over"):
            if game.phase_name == "play":
                mover = game.turn
                reasons = why_not(game.view(mover))
                legal = set(game.legal_actions())
                for card in cards_of(game.hands[mover]):
                    text = card_text(card)
                    if card in legal:
                        assert text not in reasons
                        continue
                    engine = game.why_illegal(card).split(": ", 1)[1]
                    assert reasons[text] == ENGINE_TO_PLAYER[engine], (text, engine)
                    checked += 1
                # The other three hold nothing they may play: they wait for their turn.
                for seat in range(4):
                    if seat != mover:
                        words = set(why_not(game.view(seat)).values())
                        assert words <= {WAIT}
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 100


def test_cards_wait_for_the_bidding_and_the_end_of_the_hand() -> None:
    game = Game(Rules.named("varaq"), seed=11)
    game.deal()
    view = game.view(2).to_json()
    assert set(view["why_not"]) == set(view["hand"])
    assert set(view["why_not"].values()) == {"Cards are played after the bidding"}
    while game.phase_name != "deal":
        game.apply(game.legal_actions()[0])
    assert game.view(2).to_json()["why_not"] == {}  # no cards left to explain


def test_a_blind_nil_decision_shows_no_cards_and_no_reasons() -> None:
    game = Game(Rules.named("classic"), seed=4, totals=(0, 150))
    game.deal(dealer=1)
    view = game.view(2)
    assert view.cards_hidden and why_not(view) == {}


# -- a hand's points, line by line ----------------------------------------------------------


#: A hand to score: the rules, bids, blind flags, tricks and the bags carried before it.
Hand = tuple[Rules, tuple[int, ...], tuple[bool, ...], tuple[int, ...], tuple[int, int]]


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    rules = Rules.named(draw(st.sampled_from(["classic", "varaq", "short", "daily"])))
    rules = rules.with_options(
        nil_bags_score=draw(st.booleans()),
        bag_limit=draw(st.integers(1, 12)),
        bag_penalty=draw(st.sampled_from([0, 50, 100])),
        boston_bonus=draw(st.sampled_from([0, 100, 200])),
        nil_value=draw(st.sampled_from([50, 100])),
        blind_nil_value=draw(st.sampled_from([100, 200])),
    )
    bids = tuple(draw(st.integers(0, 13)) for _ in range(4))
    blind = tuple(b == 0 and draw(st.booleans()) for b in bids)
    cuts = sorted(draw(st.integers(0, 13)) for _ in range(3))
    tricks = (cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 13 - cuts[2])
    bags = (draw(st.integers(0, rules.bag_limit - 1)), draw(st.integers(0, rules.bag_limit - 1)))
    return rules, bids, blind, tricks, bags


@given(hands())
def test_the_lines_of_a_hand_add_up_to_its_score(hand: Hand) -> None:
    rules, bids, blind, tricks, bags = hand
    score = score_hand(rules, bids, blind, tricks, bags)
    parts = score_parts(rules, score)
    for side in (0, 1):
        assert sum(p.points for p in parts[side]) == score.score[side]
        assert all(p.points for p in parts[side])  # no line says "0"
    doc = hand_score_json(score)
    assert sum(p["points"] for p in doc["parts"]["NS"]) == doc["score"]["NS"]
    if doc["headline"] is not None:
        side = doc["headline"].pop("side")
        assert doc["headline"] in doc["parts"][side]


def line(kind: str, points: int, *, seat: int | None = None, made: bool | None = None,
         number: int = 0, tricks: int = 0) -> ScorePart:
    return ScorePart(kind, points, seat, made, number, tricks)


def test_a_failed_nil_decides_the_hand_not_the_contract_beside_it() -> None:
    # Example 7 of docs/rules.md (a nil broken, Varaq): North's nil takes 2, South bids 4
    # and takes 3.
    rules = Rules.named("varaq")
    h = score_hand(rules, (0, 3, 4, 3), (False,) * 4, (2, 4, 3, 4), (0, 0))
    side, part = decisive_part(score_parts(rules, h)) or (None, None)
    assert (side, part) == (0, line("nil", -100, seat=0, made=False, tricks=2))


def test_the_largest_news_decides_and_a_plain_hand_names_the_bigger_contract() -> None:
    rules = Rules.named("classic")
    set_them = score_hand(rules, (4, 3, 3, 3), (False,) * 4, (5, 2, 3, 3), (0, 0))
    assert decisive_part(score_parts(rules, set_them)) == (
        1, line("contract", -60, made=False, number=6, tricks=5))
    plain = score_hand(rules, (4, 2, 3, 2), (False,) * 4, (5, 3, 3, 2), (0, 0))
    assert decisive_part(score_parts(rules, plain)) == (
        0, line("contract", 70, made=True, number=7, tricks=8))
    penalty = score_hand(rules, (4, 2, 3, 2), (False,) * 4, (5, 3, 3, 2), (9, 0))
    assert decisive_part(score_parts(rules, penalty)) == (0, line("bag_penalty", -100, number=1))


def test_the_view_sends_the_lines_and_the_headline_with_each_hand() -> None:
    game = Game(Rules.named("varaq"), seed=2)
    game.deal()
    while game.phase_name != "deal":
        game.apply(game.legal_actions()[0])
    hand = game.view(2).to_json()["history"][-1]
    assert set(hand["parts"]) == {"NS", "EW"}
    for side in ("NS", "EW"):
        assert sum(p["points"] for p in hand["parts"][side]) == hand["score"][side]
    assert hand["headline"]["side"] in ("NS", "EW")
    assert set(hand["headline"]) == {"side", "kind", "points", "seat", "made", "number", "tricks"}
