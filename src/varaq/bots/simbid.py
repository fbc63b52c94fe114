"""Bidding by simulation: every bid priced by the hand's expected score over solved layouts.

A counted estimate of a hand (:mod:`varaq.bots.bidding`) knows the cards but not the table: how
the spades split, whether partner's kings stand over the opponents' aces, whether a nil can be
squeezed.  So the Hard player deals the unseen cards many times (layouts consistent with its
view, the bids so far weighing them, see :mod:`varaq.bots.sampling`), solves each one double
dummy with the compiled core, and prices every bid in every layout by the points it brings the
side:

- the side's tricks are the solver's count of perfect play from the opening lead; the
  opponents take the rest.  Exactly that count, though neither side sees the cards: at the
  tables of both Hards a contract bid at the count is set about one time in seven, and one a
  trick above it is made about two times in three (the defence ducking tricks it has no use
  for).  Pricing each count a trick either way, with a chance of 0.15 each, lowered 84 of
  Hard's bids and raised 24 over 200 duplicate deals and moved nothing (-0.30 points a hand,
  -4.12 to +3.52; BENCHMARKS.md, "Hard 0.3", thirty-first pass, as in its fourth): the
  layouts' own spread already prices the doubt;
- the seats still to bid bid as Normal would in that layout, seeing the bids before them
  (partner's likely bid, the opponents' contract);
- a nil (this seat's or anyone's) holds with a chance that falls with the nil bidder's danger
  in that layout (:func:`nil_hold`); both outcomes are scored with those weights, and a broken
  nil takes one trick from its side.  Not the solver's answer: a defence that sees every card
  breaks nearly every nil (on 40 nil-looking hands it broke all it settled), while real
  defences break about half of them against a good nil player;
- the hand is then scored by the table's rules (contract and set, bags, the bag penalty, nil
  and blind nil) and valued for the match (:func:`~varaq.bots.hard.hand_value`: points minus
  the opponents', bags dearer near the limit, ending the match worth much more).

The bid with the best average over the layouts is bid.  The same study explains it, in the
words of expected points and of the layouts that make it (:class:`BidStudy`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ..actions import BID
from ..cards import TWO_CLUBS
from ..engine import BIDDING, Game
from ..rules import Rules
from ..scoring import HandScore, match_winner, score_hand
from ..solver import Solver, SolverLimit
from ..view import View
from .bidding import estimate_tricks, nil_danger, top_trump
from .normal import choose_bid
from .sampling import Sampler

__all__ = ["BidStudy", "study_bids", "nil_hold", "match_value"]

#: The chance a nil holds against a good defence is ``NIL_SAFE - NIL_SLOPE * danger`` (the
#: bots' :func:`~varaq.bots.bidding.nil_danger` of the hand), within [NIL_FLOOR, NIL_SAFE].
#: Against Hard's defence Normal's nils (danger under 0.75) held 44% of the time.  A first
#: setting (0.92 - 0.5 * danger) had Hard bid 106 nils in 119 duplicate deals against Hard
#: 0.2 and make 32% of them, for -13.2 points a hand (BENCHMARKS.md, issue 17): the slope is
#: the evidence that a strong defence punishes every danger.  With 0.85 - danger the nils Hard
#: chose held 47% of the time over 400 deals against Hard 0.2 (150 nils), and in the 47
#: deals read nil by nil (``strength.py --details``) the model gave Hard's nils 0.65 on
#: average where 0.40 held, and Hard 0.2's 0.45 where 0.33 held, both defended by a Hard:
#: the line is moved down by that gap, so a nil is bid only where it pays against such a
#: defence.
NIL_SAFE = 0.68
NIL_SLOPE = 1.0
NIL_FLOOR = 0.0


def nil_hold(hand: int, jokers: bool) -> float:
    """About how often a nil from ``hand`` holds against a good defence."""
    if hand >> top_trump(jokers) & 1:
        return 0.0
    return min(NIL_SAFE, max(NIL_FLOOR, NIL_SAFE - NIL_SLOPE * nil_danger(hand, jokers)))
#: Nodes a layout's solve may take (about a tenth of a second; the median deal needs some
#: 120,000, one in twenty more than 800,000): past it the counted tricks stand in, so one
#: freak deal cannot stall a bid.
SIDE_NODES = 1_000_000
#: Points a bid must gain per step away from the counted bid (see :meth:`BidStudy.best`).
PRIOR_STEP = 1.5
#: What ending the match is worth, in points, on top of the hand's own points.
MATCH_WEIGHT = 300.0


def match_value(rules: Rules, side: int, result: HandScore, totals: tuple[int, int]) -> float:
    """What a finished hand is worth to ``side`` in points of the match.

    Its points minus the opponents'; each new bag costs a share of the bag penalty that grows
    as the side's count nears the limit; ending the match adds or removes
    :data:`MATCH_WEIGHT`.  (The same measure as :func:`varaq.bots.hard.hand_value`.)
    """
    other = 1 - side
    value = float(result.score[side] - result.score[other])
    if rules.bag_penalty:
        per_bag = rules.bag_penalty / rules.bag_limit
        for s, sign in ((side, -1.0), (other, 1.0)):
            closeness = min(1.0, result.bags[s] / rules.bag_limit)
            value += sign * result.new_bags[s] * per_bag * (0.3 + 0.7 * closeness)
    after = (totals[0] + result.score[0], totals[1] + result.score[1])
    winner = match_winner(rules, after)
    if winner == side:
        value += MATCH_WEIGHT
    elif winner == other:
        value -= MATCH_WEIGHT
    return value


@dataclass(slots=True)
class _BidTally:
    total: float = 0.0
    weight: float = 0.0
    #: Weighted count of layouts where the bid's goal is reached (contract made, nil kept).
    hits: float = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.weight if self.weight else float("-inf")


@dataclass(slots=True)
class BidStudy:
    """What the layouts said about each candidate bid (0 = nil)."""

    seat: int
    layouts: int = 0
    #: The side's tricks by perfect play, summed over the layouts (for the mean).
    tricks: float = 0.0
    tallies: dict[int, _BidTally] = field(default_factory=dict)

    def value(self, bid: int) -> float:
        """The bid's expected value for the side, in points of the match."""
        return self.tallies[bid].mean

    def best(self, prior: int | None = None) -> int:
        """The best bid.  With ``prior`` (the counted bid) each step away from it must earn
        :data:`PRIOR_STEP` points: a few layouts' noise alone should not move the bid."""
        if prior is None or prior not in self.tallies:
            return max(self.tallies, key=self.value)

        def score(b: int) -> float:
            steps = abs(b - prior) if b and prior else (0 if b == prior else 1)
            return self.value(b) - PRIOR_STEP * steps

        return max(self.tallies, key=score)

    def words(self, bid: int) -> str:
        """The bid's reason: its expected score, how often it works, and the tricks seen."""
        t = self.tallies[bid]
        share = round(100 * t.hits / t.weight) if t.weight else 0
        mean_tricks = self.tricks / self.layouts if self.layouts else 0.0
        what = "the nil holds" if bid == 0 else "we make the contract"
        head = "Nil" if bid == 0 else f"Bid {bid}"
        return (f"{head}: expected score {t.mean:+.0f} for our side; {what} in {share}% of "
                f"{self.layouts} layouts, where perfect play gives our side about "
                f"{mean_tricks:.1f} tricks")


def _opening_leader(view: View, hands: tuple[int, int, int, int]) -> int:
    if view.rules.two_clubs_leads:
        for s in range(4):
            if hands[s] >> TWO_CLUBS & 1:
                return s
    return (view.dealer + 1) & 3


class _Layout:
    """One layout's solved facts, computed once and shared by every candidate bid."""

    def __init__(self, view: View, hands: tuple[int, int, int, int]) -> None:
        self.view = view
        self.hands = hands
        jokers = view.rules.jokers
        leader = _opening_leader(view, hands)
        side = view.seat & 1
        guess = round(estimate_tricks(hands[side], jokers)
                      + estimate_tricks(hands[side + 2], jokers))
        # A fresh search each layout: its node limit counts this layout's nodes only.
        solver = Solver(side, jokers=jokers, node_limit=SIDE_NODES)
        try:
            if view.rules.two_clubs_leads:
                # The 2C is led first: the count of the position right after it.
                after = list(hands)
                after[leader] &= ~(1 << TWO_CLUBS)
                self.ours = solver.value(after, leader, (TWO_CLUBS,), False, guess)
            else:
                self.ours = solver.value(hands, leader, (), False, guess)
        except SolverLimit:
            self.ours = min(13, max(0, guess))  # a rare slow deal: the count stands in
        self.side = side
        self._hold: dict[int, float] = {}

    def tricks_of(self, side: int) -> int:
        return self.ours if side == self.side else 13 - self.ours

    def hold(self, seat: int) -> float:
        """The chance ``seat``'s nil holds in this layout."""
        if seat not in self._hold:
            self._hold[seat] = nil_hold(self.hands[seat], self.view.rules.jokers)
        return self._hold[seat]


def _outcomes(
    rules: Rules, lay: _Layout, bids: tuple[int, int, int, int], blind: tuple[bool, ...],
    bags: tuple[int, int],
) -> list[tuple[float, HandScore]]:
    """The hand's possible results in one layout with these bids, with their weights: each
    nil holds (weight :func:`nil_hold`) or is broken."""
    nils = [s for s in range(4) if bids[s] == 0]
    out: list[tuple[float, HandScore]] = []
    for mask in range(1 << len(nils)):
        weight = 1.0
        broken = set()
        for i, s in enumerate(nils):
            p = lay.hold(s)
            if mask >> i & 1:
                broken.add(s)
                weight *= 1.0 - p
            else:
                weight *= p
        if weight <= 0.0:
            continue
        taken = [0, 0, 0, 0]
        for side in (0, 1):
            rest = lay.tricks_of(side)
            seats = (side, side + 2)
            for s in seats:
                if s in broken and rest:
                    taken[s] += 1
                    rest -= 1
            contract = [s for s in seats if bids[s] != 0]
            takers = contract or [s for s in seats if s in broken]
            if takers:
                taken[takers[0]] += rest
            else:
                # Two nils that both hold duck everything: the opponents take those tricks.
                taken[(side + 1) & 3] += rest
        out.append((weight, score_hand(rules, bids, blind, tuple(taken), bags)))
    return out


def _finish_bids(base: Game, bid: int) -> tuple[tuple[int, int, int, int], tuple[bool, ...]]:
    """The table's bids after ``bid``: the seats still to bid bid as Normal would."""
    g = base.copy()
    g.apply(BID + bid)
    while g.phase == BIDDING:
        g.apply(choose_bid(g.view(g.turn)).action)
    b = g.bids
    return (b[0], b[1], b[2], b[3]), tuple(g.blind)


def study_bids(
    view: View, rng: random.Random, candidates: list[int], sampler: Sampler,
    keep_going: Callable[[int], bool],
) -> BidStudy:
    """Price each candidate bid over layouts drawn while ``keep_going(done)`` says so."""
    side = view.seat & 1
    rules = view.rules
    if 0 in candidates and view.hand >> top_trump(rules.jokers) & 1:
        candidates = [b for b in candidates if b != 0] or candidates  # it always wins a trick
    study = BidStudy(view.seat, tallies={b: _BidTally() for b in candidates})
    while keep_going(study.layouts):
        layout = sampler.layouts(rng, 1)[0]
        lay = _Layout(view, layout.hands)
        base = Game.from_view(view, layout.hands)
        study.layouts += 1
        study.tricks += lay.ours
        for b in candidates:
            bids, blind = _finish_bids(base, b)
            t = study.tallies[b]
            for weight, result in _outcomes(rules, lay, bids, blind, view.bags):
                t.total += weight * match_value(rules, side, result, view.totals)
                t.weight += weight
                if b == 0:
                    t.hits += weight * bool(result.nil_made[view.seat])
                else:
                    t.hits += weight * (result.made[side] is True)
    return study
