"""The hand review prices each card against the best card at that moment: a card that loses a
trick or the contract is flagged with a sentence, and a hand played perfectly has no flag."""

from __future__ import annotations

import random

import pytest

from varaq import Game
from varaq.bots.normal import NormalBot
from varaq.cards import card_unicode, parse_card, parse_hand
from varaq.lessons import LESSONS, attempt
from varaq.review import (
    SIDE_WORDS,
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
from varaq.seats import SEAT_NAMES
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
        "flag": "", "text": "", "nil_seat": None, "caption": "13 tricks",
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


def test_a_nil_card_shows_its_verdict_and_its_sides_tricks() -> None:
    game = nil_hand()
    facts = HandFacts.from_game(game, 1)
    review = review_hand(facts, bids=False)
    assert len(review.priced) == 52
    nil_cards = [p for p in review.priced.values() if p.kind == "nil"]
    assert nil_cards, "North's nil is alive at the first lead"
    every = positions(facts)
    exact = HandSolvers(False)
    for p in nil_cards:
        pos = every[p.index]
        # The side's tricks are the trick solver's count, as for a card judged on tricks.
        side = p.seat & 1
        counts = exact.values(pos, side, -1, None)
        won = pos.taken[side] + pos.taken[side + 2]
        assert (p.tricks, p.tricks_best) == (won + counts[p.card], won + max(counts.values()))
        # The yes-or-no verdicts agree with every card's exact count of forced tricks.
        assert p.nil_seat is not None
        forced = exact.values(pos, 1 - (p.nil_seat & 1), p.nil_seat, None)
        ours = side == (p.nil_seat & 1)
        assert p.value == int(forced[p.card] > 0)
        assert p.best == int((min if ours else max)(forced.values()) > 0)
        # Both under the card: the verdict, then the tricks.
        name = SEAT_NAMES[p.nil_seat]
        verdict, count = p.caption().split(" · ")
        assert name in verdict and "nil" in verdict
        assert verdict == (f"keeps {name}'s nil safe" if ours and not p.value
                           else f"{name}'s nil is safe" if not p.value
                           else f"{name}'s nil can be set")
        tricks = "a trick" if p.tricks == 1 else f"{p.tricks} tricks"
        assert count.startswith(f"{tricks} for {SIDE_WORDS[side]}")
        if p.tricks_best != p.tricks:
            assert count.endswith(f"(best {p.tricks_best})")
        assert p.flag in ("", "??"), "a card judged on a nil is never flagged for its tricks"
        doc = p.to_json()
        assert doc["caption"] == p.caption() and doc["tricks"] == p.tricks
    # The summary counts exactly the flags the cards show: no "?" for a nil-judged card.
    summary = review.to_json()
    shown = [c for t in summary["tricks"] for c in t["cards"] if c.get("flag")]
    assert summary["flags"] == {"?": sum(c["flag"] == "?" for c in shown),
                                "??": sum(c["flag"] == "??" for c in shown)}
    assert not [c for c in shown if c["flag"] == "?" and c["kind"] == "nil"]
    assert summary["nil_cards"] == len(nil_cards) and summary["tricks_priced"] == 13


def test_a_card_that_loses_a_nil_names_one_that_kept_it() -> None:
    for seed in range(40):
        game = Game("classic", seed=seed, dealer=seed % 4)
        game.deal()
        bot = NormalBot()
        rng = random.Random(seed)
        while game.phase_name in ("bid", "play"):
            game.apply(bot.act(game.view(game.turn), rng))
        if 0 not in game.log[-1].bids:
            continue
        facts = HandFacts.from_game(game, 1)
        review = review_hand(facts, bids=False)
        lost = [p for p in review.priced.values() if p.kind == "nil" and p.flag]
        fresh = HandSolvers(False)
        for p in lost:
            assert p.flag == "??" and p.best_cards and p.card not in p.best_cards
            assert any(card_unicode(c) in p.text for c in p.best_cards), p.text
            # The card named keeps the verdict the card played lost.
            assert p.nil_seat is not None
            pos = positions(facts)[p.index]
            for better in p.best_cards:
                assert fresh.nil_open(pos, p.nil_seat, better, None) == bool(p.best)
        if lost:
            return
    raise AssertionError("no nil lost by a card in 40 deals")


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


def test_with_the_compiled_solver_steps_go_from_the_first_trick_on() -> None:
    facts = HandFacts.from_game(finished("KC"), 1)
    steps = plan(facts)
    assert steps == plan(facts, forward=True)
    assert steps[0] == Step("price", 0, 3, forward=True)
    assert steps[1] == Step("bids")
    assert steps[2] == Step("price", 4, 7, forward=True)
    assert steps[-2:] == [Step("price", 48, 51, forward=True), Step("par")]
    covered = [i for s in steps if s.kind == "price" for i in range(s.first, s.last + 1)]
    assert covered == list(range(52))
    # A step prices its trick's cards in the order they were played.
    result = run_step(facts, steps[0])
    assert [p.index for p in result.prices] == [0, 1, 2, 3] and not result.stopped


def test_steps_go_from_the_last_tricks_back_to_the_first() -> None:
    game = finished("KC")
    facts = HandFacts.from_game(game, 1)
    steps = plan(facts, forward=False)
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
