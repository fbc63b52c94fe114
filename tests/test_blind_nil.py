"""Blind nil decided by an estimate from what the seat may know: the rules and the score."""

from __future__ import annotations

import random

import pytest

from varaq import BLIND_NIL, LOOK, Game, Rules
from varaq.bots import make_bot
from varaq.bots.blind import (
    ODDS,
    choose_blind,
    match_chances,
    measure_odds,
    odds_for,
    points_gain,
    race_pays,
    reaches_target,
)
from varaq.view import View

CLASSIC = Rules.named("classic")
NO_EXCHANGE = CLASSIC.with_options(exchange=0)


def blind_view(rules: Rules, ours: int, theirs: int, seed: int = 1) -> View:
    """North's view when it must choose blind nil or look, North-South at ``ours``."""
    game = Game(rules, seed=seed, totals=(ours, theirs), dealer=3)
    game.deal()
    assert game.phase_name == "blind" and game.turn == 0
    return game.view(0)


def decide(rules: Rules, ours: int, theirs: int, name: str = "normal") -> int:
    view = blind_view(rules, ours, theirs)
    return make_bot(name).decide(view, random.Random(0)).action


def test_the_choice_is_made_without_cards_and_does_not_depend_on_them() -> None:
    for ours, theirs in ((0, 100), (0, 120), (100, 400), (150, 480)):
        views = [blind_view(NO_EXCHANGE, ours, theirs, seed) for seed in range(6)]
        assert all(v.cards_hidden and v.hand == 0 for v in views)
        choices = {choose_blind(v) for v in views}
        assert len(choices) == 1, (ours, theirs)


def test_with_the_classic_exchange_a_blind_nil_pays_even_a_hundred_behind() -> None:
    decision = choose_blind(blind_view(CLASSIC, 0, 100))
    assert decision.action == BLIND_NIL
    assert decision.reason.startswith("Blind nil: we trail by 100")
    assert f"about {odds_for(CLASSIC).made:.0%} of blind nils make it" in decision.reason


def test_without_an_exchange_the_estimate_looks_except_at_the_end_of_the_race() -> None:
    """A blind nil without an exchange costs points from every score (issue 17), so the
    estimate bids it only where it wins matches: made, it takes the side to the target (with
    the partner's usual contract) while the opponents are close to it too."""
    early = choose_blind(blind_view(NO_EXCHANGE, 0, 120))
    assert early.action == LOOK
    assert early.reason == (
        "Look at the cards: about 25% of blind nils make it at this table, too few for the "
        "points at 120 behind"
    )
    # Short of the target even if made (the spots found no gain there), or lost anyway.
    for ours, theirs in ((0, 450), (200, 400), (200, 450), (250, 490), (150, 375), (-100, 300)):
        assert decide(NO_EXCHANGE, ours, theirs) == LOOK, (ours, theirs)
    # The end of the race: the spots found 2 to 13 points of win chance here.
    for ours, theirs in ((270, 400), (270, 480), (300, 400), (300, 450), (350, 480), (399, 499)):
        decision = choose_blind(blind_view(NO_EXCHANGE, ours, theirs))
        assert decision.action == BLIND_NIL, (ours, theirs)
        assert decision.reason == (
            f"Blind nil: we trail by {theirs - ours} and they are close to 500; about 25% of "
            "blind nils make it at this table, and made, with my partner's contract, it takes "
            "us there first"
        )
    odds = odds_for(NO_EXCHANGE)
    for ours in range(-300, 400, 10):
        for theirs in range(ours + 100, 500, 20):
            expected = BLIND_NIL if race_pays(NO_EXCHANGE, odds, ours, theirs) else LOOK
            assert expected == (BLIND_NIL if ours >= 270 and theirs >= 388 else LOOK)
            assert decide(NO_EXCHANGE, ours, theirs) == expected, (ours, theirs)
            assert decide(NO_EXCHANGE, ours, theirs, "hard") == expected, (ours, theirs)


def test_the_race_that_pays_follows_the_table() -> None:
    """The target, the blind nil's value and the threshold are the table's; far from the end
    (the opponents more than two hands from the target) a blind nil that costs points is not
    bid, even where a made one would reach the target."""
    odds = odds_for(NO_EXCHANGE)
    short = NO_EXCHANGE.with_options(target=300)
    assert race_pays(short, odds, 100, 250)
    assert not race_pays(short, odds, 30, 250)
    assert decide(short, 100, 250) == BLIND_NIL and decide(short, 0, 250) == LOOK
    rich = NO_EXCHANGE.with_options(blind_nil_value=300)
    assert not race_pays(rich, odds, 200, 300)  # opponents 200 away: time to catch up
    assert decide(rich, 200, 300) == LOOK
    assert race_pays(rich, odds, 200, 420) and decide(rich, 200, 420) == BLIND_NIL
    close = NO_EXCHANGE.with_options(blind_nil_trail=50)
    assert not race_pays(close, odds, 300, 360)
    assert decide(close, 300, 360) == LOOK and decide(close, 300, 400) == BLIND_NIL
    assert not race_pays(NO_EXCHANGE.with_options(blind_nil_value=100), odds, 350, 490)
    # The mercy rule does not turn it: after a miss this close to the end the match is lost
    # nearly always anyway.
    assert decide(NO_EXCHANGE.with_options(mercy=-200), 300, 450) == BLIND_NIL


def test_a_blind_nil_costs_points_without_an_exchange_at_any_value() -> None:
    odds = odds_for(NO_EXCHANGE)
    assert points_gain(odds, NO_EXCHANGE) < 0 < points_gain(odds_for(CLASSIC), CLASSIC)
    for value in (50, 100, 200, 400, 1000):
        rules = NO_EXCHANGE.with_options(blind_nil_value=value)
        assert points_gain(odds, rules) < 0, value


def test_the_race_policy_bids_it_when_making_it_reaches_the_target() -> None:
    race = make_bot("normal", blind_nil="race")
    for ours, theirs in ((300, 400), (300, 450), (350, 480), (375, 490)):
        decision = race.decide(blind_view(NO_EXCHANGE, ours, theirs), random.Random(0))
        assert decision.action == BLIND_NIL, (ours, theirs)
        assert decision.reason.startswith(f"Blind nil: we trail by {theirs - ours} and need a")
        assert "made, it takes us to 500" in decision.reason
    # Short of the target even if made: the model of margins sees a gain here, play does not.
    for ours, theirs in ((200, 450), (250, 490), (0, 450)):
        assert not reaches_target(NO_EXCHANGE, ours)
        assert race.decide(blind_view(NO_EXCHANGE, ours, theirs), random.Random(0)).action == LOOK
    # The target and the value are the table's.
    assert reaches_target(NO_EXCHANGE.with_options(target=300), 100)
    assert not reaches_target(NO_EXCHANGE.with_options(blind_nil_value=100), 300)
    # With an exchange the race adds nothing: the estimate already bids it.
    for ours, theirs in ((0, 100), (300, 450)):
        view = blind_view(CLASSIC, ours, theirs)
        assert race.decide(view, random.Random(0)) == choose_blind(view)


def test_with_an_exchange_it_looks_only_when_a_miss_would_cost_the_match() -> None:
    look, blind = match_chances(odds_for(CLASSIC), CLASSIC, ours=0, theirs=100)
    assert blind > look
    for ours, theirs in ((0, 100), (100, 400), (-200, 200), (300, 450)):
        assert decide(CLASSIC, ours, theirs) == BLIND_NIL, (ours, theirs)


def test_a_higher_blind_nil_value_makes_it_worth_more() -> None:
    odds = odds_for(CLASSIC)
    low = match_chances(odds, CLASSIC.with_options(blind_nil_value=100), 100, 250)
    high = match_chances(odds, CLASSIC.with_options(blind_nil_value=300), 100, 250)
    assert low[0] == high[0] and high[1] > low[1]


def test_hard_decides_blind_nil_like_normal() -> None:
    for rules, ours, theirs in ((CLASSIC, 0, 100), (NO_EXCHANGE, 0, 120), (NO_EXCHANGE, 0, 300),
                                (NO_EXCHANGE, 300, 450)):
        assert decide(rules, ours, theirs, "hard") == decide(rules, ours, theirs, "normal")


def test_the_never_and_always_options_are_for_measuring_the_estimate() -> None:
    view = blind_view(CLASSIC, 0, 100)
    never = make_bot("normal", blind_nil="never").decide(view, random.Random(0))
    assert never.action == LOOK and "I do not bid blind nil" in never.reason
    view = blind_view(NO_EXCHANGE, 0, 120)
    always = make_bot("normal", blind_nil="always").decide(view, random.Random(0))
    assert always.action == BLIND_NIL
    with pytest.raises(ValueError,
                       match="blind_nil must be one of estimate, race, never, always"):
        make_bot("normal", blind_nil="sometimes")


def test_the_odds_cover_every_exchange_and_deck_and_rise_with_the_exchange() -> None:
    assert set(ODDS) == {(ex, jokers) for ex in range(5) for jokers in (False, True)}
    for jokers in (False, True):
        rates = [ODDS[ex, jokers].made for ex in range(5)]
        assert rates == sorted(rates), jokers
        assert rates[0] < 0.5 < rates[2]


def test_the_table_agrees_with_a_fresh_measurement() -> None:
    """A small new sample (other seeds than the table's) lands near the stored rate: the table
    is what ``measure_odds`` measures, for the key it is stored under."""
    fresh = measure_odds(CLASSIC, deals=80, seed="check")
    stored = odds_for(CLASSIC)
    assert abs(fresh.made - stored.made) < 0.15
    assert abs(fresh.pace - stored.pace) < 20


def test_the_race_looks_when_the_opponents_are_near_a_bag_penalty() -> None:
    """Their penalty near gives the trailing side time: matches branched at the choice found
    no gain from a race blind nil with the opponents 8 or 9 bags in (issue 17)."""
    odds = odds_for(NO_EXCHANGE)
    assert race_pays(NO_EXCHANGE, odds, 300, 450, their_bags=7)
    assert not race_pays(NO_EXCHANGE, odds, 300, 450, their_bags=8)
    assert not race_pays(NO_EXCHANGE, odds, 300, 450, their_bags=9)
    # The room is counted from the table's limit; with no penalty bags do not matter.
    assert race_pays(NO_EXCHANGE.with_options(bag_limit=15), odds, 300, 450, their_bags=9)
    assert race_pays(NO_EXCHANGE.with_options(bag_penalty=0), odds, 300, 450, their_bags=9)
    for their_bags, expected in ((0, BLIND_NIL), (7, BLIND_NIL), (8, LOOK), (9, LOOK)):
        game = Game(NO_EXCHANGE, seed=1, totals=(300, 450), bags=(0, their_bags), dealer=3)
        game.deal()
        decision = choose_blind(game.view(0))
        assert decision.action == expected, their_bags
        for name in ("normal", "hard"):
            assert make_bot(name).decide(game.view(0), random.Random(0)).action == expected
    assert decision.reason == (
        "Look at the cards: about 25% of blind nils make it at this table, and with 9 bags "
        "they are close to a penalty, which gives us time to catch up"
    )
    # With an exchange a blind nil pays in points, and the bags do not turn it.
    game = Game(CLASSIC, seed=1, totals=(300, 450), bags=(0, 9), dealer=3)
    game.deal()
    assert choose_blind(game.view(0)).action == BLIND_NIL
