"""Blind nil: whether to bid it, decided without seeing a card.

The view withholds a seat's cards until it has chosen blind nil or looked, so the choice can
rest only on what the seat knows: the rules (how many cards the exchange passes, the jokers,
what a blind nil is worth), the score and the target.  Two pieces make the decision:

- **The odds** (:class:`BlindNilOdds`): how a blind nil goes at a table with these rules,
  measured once by :func:`measure_odds`, a seeded simulation with the Normal player at all
  four seats.  Each deal is played twice from the same cards: once with a blind nil, once
  looking and bidding as usual.  The table :data:`ODDS` holds the results for every exchange
  size, with and without jokers (``python benchmarks/blind_nil.py --table`` measures it again).
- **The match value** (:func:`match_chances`): the chance of winning the match from a points
  margin with some hands still to play, each hand moving the margin by a normally spread
  amount.  A blind nil worth points on average (:func:`points_gain`) is bid unless it lowers
  that chance.

A blind nil that costs points on average (any table without an exchange: a quarter are made,
and each costs about 130 points of the hand's margin) never pays in points: nothing the seat may
know before choosing makes it (no bid has been made yet, the choice comes before the bidding,
and its cards are face down).  It still wins matches in one place, the end of the race to the
target (:func:`race_pays`): where a made blind nil all but ends the match in the side's favour
and looking leaves it little time to catch up, a quarter of a chance to win at once is worth
more than the points a miss costs.  The estimate bids it there and nowhere else, because what a
player wants from a blind nil is the match (BENCHMARKS.md, issue 17).  The ``"race"`` policy is
the plainer rule it refines, kept to measure against: wherever a made blind nil alone reaches
the target.

>>> odds = odds_for(Rules.named("classic"))
>>> 0.7 < odds.made < 0.9
True
>>> look, blind = match_chances(odds, Rules.named("classic"), ours=100, theirs=400)
>>> blind > look
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist, fmean, pstdev

from ..actions import BLIND_NIL, LOOK
from ..rules import Rules
from ..view import View
from . import Decision

__all__ = [
    "BlindNilOdds", "ODDS", "odds_for", "measure_odds", "match_chances", "points_gain",
    "choose_blind", "reaches_target", "race_pays", "RACE_SHORT", "BLIND_POLICIES",
]

#: How a player may decide blind nil: by the estimate (the default: for points where a blind
#: nil pays in points, for the match where it only pays in match wins, see :func:`race_pays`);
#: ``"race"``: where a blind nil pays in points, and wherever a made one alone reaches the
#: target (the plain rule the estimate refines); never; or whenever the table allows it (what
#: Normal did at a classic table before the estimate).  The last three are for measuring the
#: estimate against.
BLIND_POLICIES = ("estimate", "race", "never", "always")

#: How far short of the target a made blind nil may leave the side and still be bid for the
#: match (:func:`race_pays`): the partner's contract, bid and played to cover the blind nil,
#: usually brings in that much.  Played out without an exchange (issue 17, target 500, value
#: 200, 800 paired matches a score), a blind nil raised the side's chance of winning the match
#: by 2.1 to 4.8 points from 270 with the opponents at 400 to 480 and by 1.8 to 6.1 from 285
#: with them at 400 to 499, each significantly; by 0.7 from 270 against 499 (not
#: significantly); and by 0 to 2.5 from 220 and 250, never significantly.
RACE_SHORT = 30
#: With the opponents this many bags or fewer short of the bag limit, a blind nil that costs
#: points is not bid for the race (:func:`race_pays`): their penalty is near, and it gives the
#: side the time that looking needs.  Measured in matches branched at the choice (issue 17,
#: no exchange, 6,000 matches, 16 continuations a branch): where the race rule bid with the
#: opponents 8 or 9 bags in, the blind nil changed the win chance by -1.6 points [-7.2, +4.0]
#: (207 spots), against +6.7 [+3.9, +9.5] everywhere else (657 spots); looking there raised the
#: policy's gain over never from +0.68 to +0.84 points of win rate.  ``None``: bags not weighed.
RACE_BAG_ROOM: int | None = 2

_PHI = NormalDist().cdf


@dataclass(frozen=True, slots=True)
class BlindNilOdds:
    """How a blind nil goes at one kind of table, in points of a side's hand margin (its
    points minus the opponents' points in that hand)."""

    #: Share of blind nils made.
    made: float
    #: Mean hand margin besides the blind nil's own points, when it is made and when it fails
    #: (the partner's contract, the opponents' hand; failing also gives the partner tricks).
    rest_made: float
    rest_failed: float
    #: Spread (standard deviation) of the hand margin around those means.
    spread: float
    #: Mean and spread of the hand margin when the seat looks and bids as usual instead.
    look_margin: float
    look_spread: float
    #: Points a side scores in an ordinary hand: how fast a match moves to its target.
    pace: float
    #: How many deals the figures rest on.
    deals: int


#: ``(exchange, jokers)`` -> the odds :func:`measure_odds` measured with 4000 deals, seed 1,
#: classic rules otherwise (``python benchmarks/blind_nil.py --table --deals 4000``).  Fields:
#: made, rest_made, rest_failed, spread, look_margin, look_spread, pace, deals.
ODDS: dict[tuple[int, bool], BlindNilOdds] = {
    (0, False): BlindNilOdds(0.254, -45.7, -32.1, 78.8, -4.2, 103.4, 56.1, 4000),
    (1, False): BlindNilOdds(0.5725, -32.5, -23.3, 76.8, -4.2, 103.4, 56.1, 4000),
    (2, False): BlindNilOdds(0.779, -25.0, -20.3, 78.0, -4.2, 103.4, 56.1, 4000),
    (3, False): BlindNilOdds(0.9055, -18.4, -18.9, 79.4, -4.2, 103.4, 56.1, 4000),
    (4, False): BlindNilOdds(0.96, -12.4, -11.5, 80.5, -4.2, 103.4, 56.1, 4000),
    (0, True): BlindNilOdds(0.247, -40.8, -29.6, 72.1, -0.5, 91.3, 55.7, 4000),
    (1, True): BlindNilOdds(0.5625, -27.0, -19.5, 71.1, -0.5, 91.3, 55.7, 4000),
    (2, True): BlindNilOdds(0.7843, -17.4, -9.4, 73.8, -0.5, 91.3, 55.7, 4000),
    (3, True): BlindNilOdds(0.9022, -8.0, 3.1, 76.1, -0.5, 91.3, 55.7, 4000),
    (4, True): BlindNilOdds(0.9708, 0.6, 13.8, 78.1, -0.5, 91.3, 55.7, 4000),
}


def odds_for(rules: Rules) -> BlindNilOdds:
    """The measured odds nearest to ``rules``: by exchange size and deck."""
    key = (min(max(rules.exchange, 0), 4), rules.jokers)
    return ODDS[key]


def measure_odds(rules: Rules, deals: int, seed: int | str = 1) -> BlindNilOdds:
    """Play ``deals`` seeded deals twice each with Normal at every seat, once with North bidding
    blind nil and once with North looking, and sum up what the blind nil did.

    North's side trails by the table's threshold (at least 150), so the blind nil is open and
    the bids around it are made at a score where it would be.  Slow (a few milliseconds per
    deal); :data:`ODDS` keeps its results.
    """
    from ..engine import BIDDING, BLIND, EXCHANGE, PLAY, Game
    from .normal import choose_bid, choose_pass, choose_play

    trail = max(150, rules.blind_nil_trail)
    value = rules.blind_nil_value
    made_rest: list[float] = []
    failed_rest: list[float] = []
    look: list[float] = []
    pace: list[float] = []
    for i in range(deals):
        for first in (BLIND_NIL, LOOK):
            game = Game(rules, seed=f"{seed}:{i}", totals=(0, trail), dealer=3)
            game.deal()
            while game.phase in (BLIND, BIDDING, EXCHANGE, PLAY):
                if game.phase == BLIND:  # North first; anyone asked after it looks
                    game.apply(first if game.turn == 0 else LOOK)
                    continue
                view = game.view(game.turn)
                if game.phase == BIDDING:
                    game.apply(choose_bid(view).action)
                elif game.phase == EXCHANGE:
                    game.apply(choose_pass(view).action)
                else:
                    game.apply(choose_play(view).action)
            result = game.log[-1].result
            margin = result.score[0] - result.score[1]
            if first == LOOK:
                look.append(margin)
                pace.append((result.score[0] + result.score[1]) / 2)
            elif result.nil_made[0]:
                made_rest.append(margin - value)
            else:
                failed_rest.append(margin + value)
    made = len(made_rest) / deals
    rest_made = fmean(made_rest) if made_rest else 0.0
    rest_failed = fmean(failed_rest) if failed_rest else 0.0
    deviations = [x - rest_made for x in made_rest] + [x - rest_failed for x in failed_rest]
    return BlindNilOdds(
        made=round(made, 4),
        rest_made=round(rest_made, 1),
        rest_failed=round(rest_failed, 1),
        spread=round(math.sqrt(fmean([d * d for d in deviations])), 1),
        look_margin=round(fmean(look), 1),
        look_spread=round(pstdev(look), 1),
        pace=round(fmean(pace), 1),
        deals=deals,
    )


def match_chances(odds: BlindNilOdds, rules: Rules, ours: int, theirs: int) -> tuple[float, float]:
    """About how often a side at ``ours`` to ``theirs`` wins the match if it looks, and if it
    bids blind nil, on a simple model of the rest of the match.

    The match lasts about ``(target - leader's total) / pace`` more hands, this one included.
    Each later hand moves the margin by a normally spread amount with mean 0 (the two sides
    are taken to be equally strong), so a margin ``d`` with ``h`` such hands to go wins with
    chance ``Φ(d / (σ √h))``.  This hand adds the look figures of the odds if the seat looks,
    and if it bids blind nil, one of two outcomes: ``± blind_nil_value`` plus the rest of the
    hand.  The mercy rule and bags are left out: they rarely turn this choice.
    """
    margin = ours - theirs
    hands = max(1.0, (rules.target - max(ours, theirs)) / max(odds.pace, 1.0))
    later = (hands - 1) * odds.look_spread**2  # the variance the hands after this one add
    look = _PHI((margin + odds.look_margin) / math.sqrt(odds.look_spread**2 + later))
    spread = math.sqrt(odds.spread**2 + later)
    value = rules.blind_nil_value
    made = _PHI((margin + value + odds.rest_made) / spread)
    failed = _PHI((margin - value + odds.rest_failed) / spread)
    return look, odds.made * made + (1 - odds.made) * failed


def points_gain(odds: BlindNilOdds, rules: Rules) -> float:
    """How many points of hand margin a blind nil adds, on average, to looking."""
    value = rules.blind_nil_value
    blind = odds.made * (value + odds.rest_made) + (1 - odds.made) * (odds.rest_failed - value)
    return blind - odds.look_margin


def reaches_target(rules: Rules, ours: int) -> bool:
    """Whether a made blind nil alone would take a side at ``ours`` to the target.

    This is where a blind nil that costs points on average still wins matches.  Played out
    without an exchange (BENCHMARKS.md, issue 17), it raised the side's win chance by 3 to 9
    points from every score tried at 300 or more (the opponents at 400 to 490), and by nothing
    measurable from 200 or 250, where :func:`match_chances` predicted gains of up to 5: that
    model sees margins, not the race, in which a made blind nil ends the match at once.  The
    points are lost all the same (about 130 a blind nil), so only the ``"race"`` policy asks.
    """
    return ours + rules.blind_nil_value >= rules.target


def race_pays(
    rules: Rules, odds: BlindNilOdds, ours: int, theirs: int, their_bags: int = 0,
) -> bool:
    """Whether a blind nil that costs points still raises the side's chance to win the match.

    Two things must hold.  A made blind nil, with the partner's usual contract, must take the
    side to the target (``ours + value + RACE_SHORT >= target``): then about a quarter of the
    time the match is won at once, whatever the opponents do in this hand short of a big
    contract of their own.  And the opponents must be near enough the target that they are
    likely to end the match within about two ordinary hands (``theirs + 2 * pace >=
    target``): looking then leaves the side a hand or two to make up its deficit, which it
    rarely does (3 to 20 % of matches in the spots), so the points a miss costs are points it
    had little use for.  Further from the end the same points buy hands to catch up in, and
    played out a blind nil there lost matches or won none measurably (from 0 against 120, 0
    against 300, 150 against 375), so one that costs points is not bid.

    What was weighed and left out (BENCHMARKS.md, issue 17): the seat's place at the table (a
    blind nil by the dealer, who plays last to the first trick, was made 30 % of the time
    against 24 to 26 % for the other seats over 600 deals each: too little to turn the choice);
    the mercy rule (a miss that drops the side below it ends the match at once, but a side whose
    blind nil failed this close to the end trails by 300 or more with the opponents a hand or
    two from the target, and its chance from there is small whatever the rule; not measured
    separately).  The partner adds nothing: the choice comes before any bid, and only one of a
    side may bid blind nil.

    One more thing turns it: the opponents' bags (``their_bags``).  A penalty near for them
    gives the trailing side more time: from 300 against 450 the gain fell from 9 points of win
    chance with the opponents at 0 bags to 5.5 at 6, 1.7 at 8 and -2.0 at 9, and in matches the
    blind nils bid with the opponents :data:`RACE_BAG_ROOM` bags or fewer from the limit won
    nothing (BENCHMARKS.md, issue 17), so there the side looks.
    """
    if ours + rules.blind_nil_value + RACE_SHORT < rules.target:
        return False
    if (
        RACE_BAG_ROOM is not None
        and rules.bag_penalty
        and their_bags >= rules.bag_limit - RACE_BAG_ROOM
    ):
        return False
    return theirs + 2 * odds.pace >= rules.target


def choose_blind(view: View, policy: str = "estimate") -> Decision:
    """Blind nil or look, for the seat whose choice it is (its cards are not in the view).

    ``policy`` ``"estimate"`` weighs the odds against the match (see the module docstring),
    and bids a blind nil that costs points only at the end of the race (:func:`race_pays`);
    ``"race"`` bids such a blind nil wherever making it alone would take the side to the
    target; ``"never"`` and ``"always"`` are there to measure them against.
    """
    side = view.seat & 1
    ours, theirs = view.totals[side], view.totals[1 - side]
    trail = theirs - ours
    if BLIND_NIL not in view.legal or policy == "never":
        why = "I do not bid blind nil" if policy == "never" else "blind nil is not open"
        return Decision(LOOK, f"Look at the cards: {why}")
    if policy == "always":
        return Decision(BLIND_NIL, f"Blind nil: we trail by {trail}, and I always take it")
    rules = view.rules
    odds = odds_for(rules)
    look, blind = match_chances(odds, rules, ours, theirs)
    rate = f"about {odds.made:.0%} of blind nils make it at this table"
    if points_gain(odds, rules) > 0:
        # Worth points on average (an exchange): bid unless it lowers the chance of winning.
        if blind >= look:
            return Decision(
                BLIND_NIL,
                f"Blind nil: we trail by {trail} and the points are worth it; {rate} "
                f"(win chance about {blind:.0%} blind, {look:.0%} looking)",
            )
        return Decision(
            LOOK,
            f"Look at the cards: {rate}, but at {trail} behind a miss would cost the match "
            f"(win chance about {look:.0%} looking, {blind:.0%} blind)",
        )
    # It costs points on average (no exchange), and nothing the seat can see before looking
    # changes that.  Only the end of the race to the target buys matches with those points.
    if policy == "race" and reaches_target(rules, ours):
        return Decision(
            BLIND_NIL,
            f"Blind nil: we trail by {trail} and need a swing; made, it takes us to "
            f"{rules.target} ({rate})",
        )
    if policy == "estimate" and race_pays(rules, odds, ours, theirs):
        their_bags = view.bags[1 - side]
        if race_pays(rules, odds, ours, theirs, their_bags):
            return Decision(
                BLIND_NIL,
                f"Blind nil: we trail by {trail} and they are close to {rules.target}; {rate}, "
                "and made, with my partner's contract, it takes us there first",
            )
        return Decision(
            LOOK,
            f"Look at the cards: {rate}, and with {their_bags} bags they are close to a "
            "penalty, which gives us time to catch up",
        )
    return Decision(
        LOOK,
        f"Look at the cards: {rate}, too few for the points at {trail} behind",
    )
