"""Simulated bids (varaq.bots.simbid): the expected score of each bid moves the way the score
of the match says it should: nil by its danger, bids by the bags, the target and the set."""

from __future__ import annotations

import random

from deal_helpers import layout
from varaq import Game
from varaq.bots.hard import sim_bid_candidates
from varaq.bots.sampling import Sampler
from varaq.bots.simbid import BidStudy, nil_hold, study_bids
from varaq.cards import parse_hand
from varaq.rules import Rules
from varaq.seats import N, W

LAYOUTS = 8
#: North: about five tricks (three top spades, an ace, a guarded king).
FIVE = "AS KS QS 5S 4S AH KH 2H 3D 4D 4C 5C 6C"
#: North: nothing above a nine, one low spade.
SMALL = "2S 3H 4H 5H 6H 2D 3D 4D 5D 2C 3C 4C 9C"


def _study(hand: str, *, totals: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0),
           rules: Rules | None = None, seed: int = 1) -> BidStudy:
    g = Game(rules or Rules.named("classic"), seed=seed, totals=totals, bags=bags)
    g.deal(hands=_with_north(hand), dealer=W)
    view = g.view(N)
    candidates, _ = sim_bid_candidates(view)
    return study_bids(view, random.Random(seed), candidates, Sampler(view),
                      lambda done: done < LAYOUTS)


def _with_north(hand: str) -> list[int]:
    return layout(N=hand)


def test_a_hand_of_small_cards_is_a_nil_a_strong_hand_never() -> None:
    assert nil_hold(parse_hand(SMALL), False) > 0.6  # as safe as a nil gets
    assert nil_hold(parse_hand(FIVE), False) == 0.0  # the A♠ always takes a trick
    small = _study(SMALL)
    assert small.best() == 0
    strong = _study(FIVE)
    assert 0 not in strong.tallies
    assert 4 <= strong.best() <= 7
    # Overbidding is punished: a contract of 11 is set in nearly every layout.
    assert strong.value(11) < strong.value(strong.best()) - 50


def test_bags_near_the_limit_make_low_bids_dearer() -> None:
    free = _study(FIVE)
    loaded = _study(FIVE, bags=(8, 0))
    # The same layouts (same seed): an underbid's overtricks now cost part of the penalty.
    assert loaded.value(2) < free.value(2)
    assert loaded.best() >= free.best()


def test_near_the_target_the_bid_is_priced_by_the_match() -> None:
    # Both sides near 500: the side that makes the larger contract wins the match.
    study = _study(FIVE, totals=(460, 420))
    best = study.best()
    assert study.tallies[best].hits / study.tallies[best].weight > 0.8
    assert study.value(1) < 0  # made, but too small to outscore them: the match is lost
    # The match's weight, beyond the few points one hand's contracts differ by.
    assert study.value(best) - study.value(1) > 150
