"""The hand review prices each card against the best card at that moment: a card that loses a
trick or the contract is flagged with a sentence, and a hand played perfectly has no flag."""

from __future__ import annotations

import random

import pytest

from varaq import Game
from varaq.bots.normal import NormalBot
from varaq.cards import parse_card, parse_hand
from varaq.lessons import LESSONS, attempt
from varaq.review import (
    HandFacts,
    HandSolvers,
    Review,
    Step,
    plan,
    positions,
    price,
    review_hand,
    reviewable_hands,
    run_step,
)
from varaq.solver import default_backend, game_card_values

SCORING = next(lesson for lesson in LESSONS if lesson.id == "scoring")


def finished(lesson_action: str) -> Game:
    """The scoring lesson's hand played to its end after South's ``lesson_action``."""
    game = attempt(SCORING, lesson_action).game
    assert game.phase_name == "deal"
    return game


def test_a_card_that_costs_the_contract_is_flagged_with_a_sentence() -> None:
    # North-South bid 7 and have 6: South's 3♣ lets East's 9♣ win the trick, the K♣ wins it.
    # (West's 5♣ lead already gave North-South that chance: the 7♦ would have set them.)
    review = review_hand(HandFacts.from_game(finished("3C"), 1), cards=2, bids=False)
    flagged = {p.index: p for p in review.priced.values() if p.flag}
    assert sorted(flagged) == [44, 47]
    card = flagged[47]
    assert (card.seat, card.flag, card.value, card.best) == (2, "??", 6, 7)
    assert card.text == ("Playing the 3♣ costs the contract: with the K♣ North-South take 7 "
                         "of the 7 they bid, now 6.")
    lead = flagged[44]
    assert (lead.seat, lead.flag) == (3, "??")
    assert lead.text == ("Leading the 5♣ lets North-South make their 7: with the 7♦ they take "
                         "6, now 7.")


def test_the_best_card_is_not_flagged() -> None:
    review = review_hand(HandFacts.from_game(finished("KC"), 1), cards=2, bids=False)
    assert len(review.priced) == 8
    assert [p.index for p in review.priced.values() if p.flag] == [44]
    assert review.priced[47].value == review.priced[47].best == 7
    assert review.priced[47].best_cards == (parse_card("KC"),)


def play_perfectly(game: Game) -> None:
    """Normal bids; then from the first lead every seat plays a best card for its side, double
    dummy, by the solver's values of every legal card (the compiled core, by default)."""
    bot = NormalBot()
    rng = random.Random(3)
    while game.phase_name == "bid":
        game.apply(bot.act(game.view(game.turn), rng))
    while game.phase_name == "play":
        values = game_card_values(game, game.turn & 1)
        game.apply(max(values, key=lambda c: (values[c], -c)))


def test_a_hand_played_perfectly_has_no_flag() -> None:
    assert default_backend() == "c", "a whole hand double dummy needs the compiled core"
    game = Game("varaq", seed=11, dealer=3)
    game.deal()
    play_perfectly(game)
    facts = HandFacts.from_game(game, 1)
    assert 0 not in facts.bids  # no nil: every card is judged on tricks
    review = review_hand(facts, bids=False, with_par=True)
    assert len(review.priced) == 52 and review.first_trick == 1 and not review.stopped
    assert not [p for p in review.priced.values() if p.flag]
    assert all(p.kind == "tricks" and p.value == p.best for p in review.priced.values())
    # Perfect play from the first lead takes par, and the review's par says so.
    tricks = facts.result.tricks
    assert review.par == (tricks[0] + tricks[2], tricks[1] + tricks[3])


def test_a_whole_deal_of_one_suit_each_is_priced_to_the_first_trick_with_par() -> None:
    # Each seat holds one suit: North's spades win every trick whatever anyone plays.
    deal = [parse_hand(" ".join(r + s for r in "23456789TJQKA")) for s in "SHDC"]
    game = Game("classic", seed=0, dealer=3)
    game.deal(deal)
    for bid in (13, 1, 1, 1):  # N, E, S, W
        game.apply(64 + bid)
    while game.phase_name == "play":
        game.apply(game.legal_actions()[0])
    facts = HandFacts.from_game(game, 1)
    review = review_hand(facts, bids=False, with_par=True)
    assert review.first_trick == 1 and len(review.priced) == 52
    assert review.par == (13, 0)
    assert not [p for p in review.priced.values() if p.flag]
    doc = review.to_json()
    assert doc["par"] == {"NS": 13, "EW": 0}
    assert doc["tricks"][0]["cards"][0] == {
        "seat": "N", "card": "2S", "kind": "tricks", "value": 13, "best": 13,
        "best_cards": ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS",
                       "AS"],
        "flag": "", "text": "", "nil_seat": None,
    }
    assert all(t["winner"] == "N" for t in doc["tricks"])


def nil_hand() -> Game:
    """A varaq hand in which North bids nil, played out by Normal."""
    for seed in range(200):
        game = Game("varaq", seed=seed, dealer=3)
        game.deal()
        bot = NormalBot()
        rng = random.Random(seed)
        while game.phase_name in ("bid", "play"):
            game.apply(bot.act(game.view(game.turn), rng))
        if game.log[-1].bids[0] == 0:
            return game
    raise AssertionError("no nil in 200 deals")


def test_cards_played_while_a_nil_is_alive_are_judged_on_the_nil() -> None:
    game = nil_hand()
    facts = HandFacts.from_game(game, 1)
    every = positions(facts)
    solvers = HandSolvers(False)
    for pos in every[36:]:
        if pos.taken[0] == 0:
            p = price(facts, pos, solvers)
            assert p.kind == "nil" and p.nil_seat == 0
            if p.flag:
                assert p.flag == "??" and "nil" in p.text


def test_steps_go_from_the_last_tricks_back_to_the_first() -> None:
    game = finished("KC")
    facts = HandFacts.from_game(game, 1)
    steps = plan(facts)
    assert steps[0] == Step("price", 32, 51)
    assert steps[1] == Step("bids")
    assert steps[-2:] == [Step("price", 0, 3), Step("par")]
    covered = sorted(i for s in steps if s.kind == "price" for i in range(s.first, s.last + 1))
    assert covered == list(range(52))


def test_a_step_beyond_the_solvers_limit_stops_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VARAQ_SOLVER", "python")  # its node limit is what this test reaches
    facts = HandFacts.from_game(finished("KC"), 1)
    result = run_step(facts, Step("price", 0, 3), nodes=10)
    assert result.stopped == "trick 1 needs a faster solver"
    review = Review(facts)
    review.add(result)
    assert review.stopped and review.first_trick is None


def test_the_hard_player_judges_every_bid_but_a_blind_nil() -> None:
    facts = HandFacts.from_game(finished("KC"), 1)
    result = run_step(facts, Step("bids"))
    assert result.bids is not None
    assert [b.seat for b in result.bids] == [2, 3, 0, 1]  # bidding order after East deals
    for judged in result.bids:
        assert judged.hard is not None and 0 <= judged.hard <= 13
        assert judged.reason


def test_the_facts_of_a_hand_name_it_and_know_the_score_before_it() -> None:
    game = Game("classic", seed=5)
    bot = NormalBot()
    rng = random.Random(5)
    for _ in range(2):
        game.deal()
        while game.phase_name in ("bid", "play", "blind", "exchange"):
            game.apply(bot.act(game.view(game.turn), rng))
    assert reviewable_hands(game) == [1, 2]
    second = HandFacts.from_game(game, 2)
    assert second.totals == (game.log[0].result.score[0], game.log[0].result.score[1])
    assert second.key == HandFacts.from_game(game, 2).key != HandFacts.from_game(game, 1).key
    assert len(second.key) == 32


def test_a_trick_counts_as_priced_once_all_its_cards_are() -> None:
    facts = HandFacts.from_game(finished("KC"), 1)
    review = Review(facts)
    solvers = HandSolvers(False)
    every = positions(facts)
    for index in range(51, 44, -1):  # the last trick and three cards of the twelfth
        review.priced[index] = price(facts, every[index], solvers)
    assert review.first_trick == 13
    review.priced[44] = price(facts, every[44], solvers)
    assert review.first_trick == 12
